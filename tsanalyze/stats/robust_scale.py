"""The median absolute deviation as a robust standard deviation.

Many checks need the spread of a series that a few delays, spikes or level shifts must
not inflate: the MAD, scaled so that it estimates the standard deviation of normal
data. The scale is ``1 / Φ⁻¹(3/4)``, the constant of scipy's
``median_abs_deviation(scale="normal")``; one definition serves every caller, including
those that already know the series' median (``center``) or work along an axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tsanalyze._typing import ArrayLike

__all__ = ["MAD_TO_SD", "robust_sd"]

#: 1 / Φ⁻¹(3/4): the MAD of normal data times this is its standard deviation
MAD_TO_SD = 1.482602218505602


def robust_sd(
    a: ArrayLike, *, center: Any = None, axis: int | None = None, keepdims: bool = False
) -> Any:
    """``MAD_TO_SD × median(|a − center|)``: the normal-consistent MAD.

    Parameters
    ----------
    a : array_like
        Values (NaN propagates, as in :func:`numpy.median`).
    center : float or array_like, optional
        The centre the deviations are taken from; the median of ``a`` (along ``axis``)
        when None. Pass it when it is known, to save a second partition.
    axis : int, optional
        Axis along which to compute; the whole array when None.
    keepdims : bool
        Keep the reduced axis (as :func:`numpy.median` does).

    Returns
    -------
    float or numpy.ndarray
        A float when ``axis`` is None and ``keepdims`` is False, else an array.

    References
    ----------
    Hampel, F. R., Ronchetti, E. M., Rousseeuw, P. J., Stahel, W. A. (1986). Robust
    Statistics: The Approach Based on Influence Functions. Wiley,
    doi:10.1002/9781118186435 (the MAD as a robust scale).
    """
    x = np.asarray(a, dtype=np.float64)
    c = np.median(x, axis=axis, keepdims=True) if center is None else center
    s = MAD_TO_SD * np.median(np.abs(x - c), axis=axis, keepdims=keepdims)
    return float(s) if axis is None and not keepdims else s
