"""Does the share of samples on one side of a threshold vary at large scales?

The median moves with the share of samples below it (Bahadur), and every quantile with
the share beyond it. Heavy-tailed delays swamp the samples' variance-time curve, so the
dependence assessment (:func:`tsanalyze.stats.dependence.assess_dependence`) also reads
the curves of two indicators, which are bounded:

- the *bulk*: 1{x <= median}, which a slow wander of the typical sample moves;
- the *delays*: 1{|x - median| > 3 robust sds}, the samples far from the bulk
  (:func:`far_from_bulk`). When the rate of delays switches between stretches (bursts of
  delays, a noisy neighbour that comes and goes), the median moves with it: a rate of 2%
  puts the median of Gaussian noise plus large delays 0.025 sd above the noise's, a rate
  of 20% 0.32 sd. The bulk indicator's mean moves by the same amount in share (0.1 in
  its variance of 0.25), too little for its curve; the delay indicator's moves by the
  whole change of the rate (0.18 in a variance of 0.1), which its curve shows.

:func:`varies_at_large_scale` compares an indicator's variance-time ratio at its longest
block with what shorter blocks imply.
"""

from __future__ import annotations

import numpy as np

from tsanalyze._typing import Float64Array
from tsanalyze.stats.robust_scale import robust_sd
from tsanalyze.stats.variance_time import curve_top

__all__ = [
    "FAR_Z",
    "LARGE_SCALE_INDICATOR_RATIO",
    "MIN_FAR",
    "MIN_FAR_SHARE",
    "far_cutoff",
    "far_from_bulk",
    "far_indicator",
    "varies_at_large_scale",
]

#: an indicator's variance-time ratio at its longest block (n / 8) above this many times
#: both what its chosen blocks imply and its ratio at a sixteenth of that block is
#: variance at large scales. On i.i.d. samples the top ratio of the indicator
#: 1{x <= median} has 95%, 99% and 99.9% points 1.55, 1.95 and 2.2-2.7 (100 to 5000
#: samples); those of the delay indicator are 1.7-1.8 for the 99% point and 1.9-2.1 for
#: the 99.9% point (1000 series of 2000 samples each of Gaussian or AR(1) noise with
#: lognormal delays at a constant 11%, t(2), Pareto(1.5)); quiet real JMH halves whose
#: interval missed the other half's median reached 1.8-2.5 on the first
LARGE_SCALE_INDICATOR_RATIO = 2.0
#: a sample is far from the bulk beyond this many robust sds (1.4826 MAD) from the median
#: (as an excursion in :mod:`tsanalyze.stats.regimes`; a Gaussian bulk puts 0.3% there)
FAR_Z = 3.0
#: the delay indicator is read only when at least this share of the samples ...
MIN_FAR_SHARE = 0.015
#: ... and this many are far from the bulk (fewer make a curve of a handful of events)
MIN_FAR = 20


def far_cutoff(a: Float64Array, median: float) -> float:
    """How far from ``median`` a sample of ``a`` is far from the bulk: :data:`FAR_Z`
    robust sds (1.4826 MAD; 0 when the MAD is 0)."""
    return FAR_Z * robust_sd(a, center=median)


def far_indicator(a: Float64Array, median: float | None = None) -> Float64Array | None:
    """The indicator 1{|x - median| > :data:`FAR_Z` robust sds} as 0/1 floats, whatever
    the number of far samples; None when the MAD is 0. :func:`far_from_bulk` reads it
    when there are enough far samples; a caller with several readers makes it once."""
    med = float(np.median(a)) if median is None else median
    cut = far_cutoff(a, med)
    if not cut > 0:
        return None
    return (np.abs(a - med) > cut).astype(np.float64)


def far_from_bulk(
    a: Float64Array,
    median: float | None = None,
    min_far: int = MIN_FAR,
    *,
    indicator: Float64Array | None = None,
) -> Float64Array | None:
    """The indicator 1{|x - median| > :data:`FAR_Z` robust sds} of a series (its delays),
    or None when too few or too many samples are there to read its rate.

    Parameters
    ----------
    a : numpy.ndarray
        The series (finite, time order).
    median : float, optional
        Its median, when known (default: computed).
    min_far : int, default :data:`MIN_FAR`
        Fewest far samples for a rate (the regime check,
        :mod:`tsanalyze.stats.regimes`, reads excursions from 3 on).
    indicator : numpy.ndarray, optional
        :func:`far_indicator` of ``a``, when already made (``median`` is then unused).

    Returns
    -------
    numpy.ndarray or None
        0/1 floats; None when the MAD is 0, when fewer than ``min_far`` or
        :data:`MIN_FAR_SHARE` of the samples, or more than half of them, are far.

    References
    ----------
    Hampel, F. R., Ronchetti, E. M., Rousseeuw, P. J., Stahel, W. A. (1986). Robust
    Statistics: The Approach Based on Influence Functions. Wiley,
    doi:10.1002/9781118186435 (the MAD as a robust scale, 1.4826 MAD).
    """
    n = a.size
    far = far_indicator(a, median) if indicator is None else indicator
    if far is None:
        return None
    k = float(far.sum())
    if k < max(min_far, MIN_FAR_SHARE * n) or k > n / 2:
        return None
    return far


def varies_at_large_scale(ind: Float64Array, implied: float) -> bool:
    """Does an indicator vary more at its longest block than shorter blocks imply?

    Parameters
    ----------
    ind : numpy.ndarray
        A 0/1 series in time order (at least 16 values).
    implied : float
        The long-run variance factor of ``ind`` that the blocks chosen for the series
        imply (1 for blocks of one sample).

    Returns
    -------
    bool
        True when the variance-time ratio b var_b / var_1 of ``ind`` at its longest block
        (about n / 8, overlapping batch means) exceeds :data:`LARGE_SCALE_INDICATOR_RATIO`
        times both ``implied`` and its own ratio at a sixteenth of that block.

    Notes
    -----
    Short-range dependence of the indicator (rate-modulated delays make it dependent while
    the samples look independent; the median's interval allows for that with the
    indicator's integrated time) has levelled off at a sixteenth of the longest block; a
    slow wander, or a rate that switches over stretches of hundreds of samples, has not.
    Under a two-state switching with sojourns of s samples the ratio grows until blocks of
    several s.

    References
    ----------
    Meketon, M. S., Schmeiser, B. (1984). Overlapping batch means: something for nothing?
    Proc. Winter Simulation Conference, 226-230.
    Bahadur, R. R. (1966). A note on quantiles in large samples. Annals of Mathematical
    Statistics 37(3), 577-580, doi:10.1214/aoms/1177699450.
    """
    if ind.size < 16 or float(np.ptp(ind)) == 0.0:
        return False
    top, mid = curve_top(ind, 8)
    return top > LARGE_SCALE_INDICATOR_RATIO * max(implied, mid, 1.0)
