"""Midranks from one sort: scipy ``rankdata`` (ties averaged) without its argument
handling, which cost more than the sort on the series of a report (issue 24)."""

from __future__ import annotations

import numpy as np

from tsanalyze._typing import Float64Array, Int64Array

__all__ = ["midranks"]


def midranks(z: Float64Array) -> tuple[Float64Array, Int64Array]:
    """Midranks of the 1-d array ``z`` and the size of each tie group.

    Returns
    -------
    ranks : numpy.ndarray
        ``scipy.stats.rankdata(z)`` (1-based ranks, ties given the mean of their ranks),
        to the last bit: a group holding ranks ``first..last`` gets ``(first + last) / 2``,
        exact in floating point.
    counts : numpy.ndarray
        The size of each group of equal values in ascending order of value
        (``np.unique(z, return_counts=True)[1]``).
    """
    n = z.size
    order = np.argsort(z, kind="stable")
    zs = z[order]
    start = np.empty(n, dtype=bool)
    start[:1] = True
    np.not_equal(zs[1:], zs[:-1], out=start[1:])
    bounds = np.append(np.flatnonzero(start), n)
    counts = np.diff(bounds)
    mid = (bounds[:-1] + 1 + bounds[1:]) / 2.0
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(mid, counts)
    return ranks, counts
