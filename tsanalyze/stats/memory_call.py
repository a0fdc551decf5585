"""Is there long memory in a series: declared, allowed for, or neither; in its samples or
only in the ranks of them.

:func:`memory_call` makes the long-memory part of the dependence assessment
(:func:`tsanalyze.stats.dependence.assess_dependence`): the Whittle test of long memory
against AR(1) plus noise, the fit's memory parameter, the variance-time curve and lag 1,
read first on the samples and then, when they show nothing, on the normal scores of their
ranks, which a few huge delays cannot swamp. A cycle that repeats in the series
(:func:`without_cycle`) is set aside first: a spectral peak at a low frequency passes for
long memory in the test.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.special import ndtri
from scipy.stats import f as f_dist
from scipy.stats import rankdata

from tsanalyze._typing import Float64Array
from tsanalyze.stats.autocorrelation import lag1
from tsanalyze.stats.exceedance import far_from_bulk
from tsanalyze.stats.longmemory import (
    LONG_MEMORY_ALPHA,
    MIN_N_LONG_MEMORY,
    LongMemory,
    long_memory,
)
from tsanalyze.stats.variance_time import CurveFits

__all__ = ["MemoryCall", "bulk_scores", "memory_call", "without_cycle"]

#: fewest samples for which the long-memory fit is made (its memory parameter is allowed
#: for, never declared, below MIN_N_LONG_MEMORY)
MIN_N_MEMORY_FIT = 500
#: when the test does not show long memory, an aggregated-variance Hurst exponent above
#: this makes the interval allow for it
PLAUSIBLE_HURST = 0.6
#: ... unless the short-memory variance-time curve fits better, judged only on curves of
#: at least this many block lengths (fewer cannot tell the two shapes apart)
MIN_CURVE_POINTS = 8
#: ... and only when lag-1 exceeds this many standard errors (1 / sqrt(n))
LAG1_Z = 1.645
#: the smallest memory parameter d (H = d + 1/2) that counts as long memory (the test's
#: level and the fewest samples it is asked of: tsanalyze.stats.longmemory)
LONG_MEMORY_MIN_D = 0.05
#: below this p-value (but not LONG_MEMORY_ALPHA) the test declares long memory only when
#: the variance-time curve agrees (aggregated-variance H > PLAUSIBLE_HURST, lag-1 > 0)
LONG_MEMORY_ALLOW_ALPHA = 0.05
#: a fitted memory parameter at least this large (with a positive lag 1) is allowed for
#: in the interval (an info finding) when the test does not declare long memory
LONG_MEMORY_HINT_D = 0.1
#: ... if the variance-time curve agrees: block means at its longest block vary at least
#: this many times as much as independent samples' would (under long memory with
#: d >= 0.1 and 500 samples or more, about 2 or more; on real JMH series whose curve
#: fell below 1, the fit's d alone had widened intervals 1.5-1.7 times)
LONG_MEMORY_HINT_RATIO = 1.5
#: the long-memory checks are also made on the normal scores of the ranks when no value
#: holds more than this share of the samples. With more ties the scores are a step
#: function of a few values, whose slow variation is the shares of neighbouring values
#: (real JMH series on a coarse grid, block medians within 0.03-0.2% of each other, were
#: refused as random walks in their ranks)
MAX_TIED_SHARE = 0.05
#: ... on at most this many samples (every k-th beyond)
RANKS_MAX_POINTS = 131_072
#: a cycle is set aside for the checks when it repeats at least this many times in the
#: series ...
MIN_CYCLES = 4
#: ... and its periodogram ordinate exceeds the mean of its neighbours (CYCLE_NEIGHBOURS
#: on each side, the two next to it left out: leakage) beyond the family-wise level
CYCLE_ALPHA = 0.001
CYCLE_NEIGHBOURS = 8


class MemoryCall(NamedTuple):
    """What the long-memory checks decided.

    Attributes
    ----------
    lrd : bool
        Long memory declared or allowed for.
    plausible : bool
        Allowed for, not declared (the variance-time curve below 1000 samples, or the
        fit's d the test does not show).
    hinted : bool
        Allowed for from the fit's d.
    hurst : float
        Its Hurst exponent (1/2 without).
    memory_in : {"none", "samples", "ranks"}
        Where it showed.
    test : LongMemory or None
        The long-memory fit behind it (of the samples, or of the scores when it showed in
        the ranks; None below :data:`MIN_N_MEMORY_FIT` samples).
    cycle : float
        Period in samples of the cycle set aside for the checks (:func:`without_cycle`):
        NaN when none.
    """

    lrd: bool
    plausible: bool = False
    hinted: bool = False
    hurst: float = 0.5
    memory_in: str = "none"
    test: LongMemory | None = None
    cycle: float = math.nan


def memory_call(a: Float64Array, r1: float, vt: CurveFits) -> MemoryCall:
    """Long memory in a series' samples or, failing that, in the ranks of them.

    Parameters
    ----------
    a : numpy.ndarray
        The series (finite, at least 20 values).
    r1 : float
        Its lag-1 autocorrelation.
    vt : CurveFits
        Its variance-time curve.

    Returns
    -------
    MemoryCall

    Notes
    -----
    From 500 samples on, when the samples show no long memory, the same checks are made
    on van der Waerden's normal scores Phi^-1(rank / (n + 1)) (tied values share their
    average rank): a monotone transform keeps the dependence of the bulk and takes the
    leverage of a few huge delays away (fGn H = 0.8 under lognormal delays in 10% of
    2000 samples was quiet in 98% of series, its median intervals covering 77%). The
    scores are those of the bulk (:func:`bulk_scores`): the samples far from it are left
    out. Not when one value holds more than :data:`MAX_TIED_SHARE` of the samples; beyond
    :data:`RANKS_MAX_POINTS` samples, on every k-th sample.

    Up to :data:`RANKS_MAX_POINTS` samples a cycle (:func:`without_cycle`) is set aside
    first: the two spectra of the long-memory test are monotone, and the long-memory one
    fits a peak at a low frequency better (white noise plus a sine of half its sd and a
    period of 300 samples was declared long memory in 49% of series of 2000).

    References
    ----------
    van der Waerden, B. L. (1952). Order tests for the two-sample problem and their
    power. Indagationes Mathematicae 14, 453-458.
    """
    n = a.size
    period = math.nan
    if MIN_N_MEMORY_FIT <= n <= RANKS_MAX_POINTS:
        a, period = without_cycle(a)
        if math.isfinite(period):
            r1, vt = lag1(a), CurveFits(a)
    lm = long_memory(a) if n >= MIN_N_MEMORY_FIT else None
    call = _decide(n, r1, vt, lm)._replace(cycle=period)
    if call.lrd:
        return call._replace(memory_in="samples", test=lm)
    # (beyond RANKS_MAX_POINTS samples, those of every k-th sample: thinning keeps a
    # memory parameter, as the long-memory fit's own thinning does)
    thin = a[:: -(-n // RANKS_MAX_POINTS)]
    if n >= MIN_N_MEMORY_FIT and _few_ties(thin):
        z, period_z = without_cycle(bulk_scores(thin))
        lz = long_memory(z)
        # (the test is asked of the scores as of the samples: the bulk of a series of
        # 1000 or more, left without its far samples, is still tested)
        call_z = _decide(z.size, lag1(z), CurveFits(z), lz, ask_test=n >= MIN_N_LONG_MEMORY)
        if not math.isfinite(period):
            period = period_z * (n / z.size)
            call = call._replace(cycle=period)
        if call_z.lrd:
            return call_z._replace(memory_in="ranks", test=lz, cycle=period)
    return call._replace(test=lm)


def _decide(
    n: int, r1: float, vt: CurveFits, lm: LongMemory | None, *, ask_test: bool | None = None
) -> MemoryCall:
    """Long memory declared (the test), allowed for (the variance-time curve, or the
    fit's d), or neither, from a series' lag 1, variance-time curve and long-memory fit
    (None below :data:`MIN_N_MEMORY_FIT` samples); the test is asked when ``ask_test``
    (default: from :data:`MIN_N_LONG_MEMORY` samples on)."""
    asked = n >= MIN_N_LONG_MEMORY if ask_test is None else ask_test
    tested = lm if asked else None
    if tested is not None and tested.pvalue < LONG_MEMORY_ALPHA and tested.d >= LONG_MEMORY_MIN_D:
        return MemoryCall(True, hurst=tested.hurst)

    # not shown by the test (or too short to test): allow for the memory the
    # variance-time curve is consistent with, unless a short-memory curve fits it better
    # (judged from 8 block lengths on) or lag 1 is not even positive at the one-sided 5%
    # level ... and, on shorter curves where the fits cannot be told apart, unless the
    # curve has stopped rising: long memory makes b * var_b grow at every b up to n / 8,
    # short memory levels it off (and noise then puts its top anywhere)
    def srd_better() -> bool:  # (the curve fits are costly: made only when asked)
        if vt.block_sizes.size >= MIN_CURVE_POINTS:
            return vt.short_memory_rss < vt.long_memory_rss
        return bool(vt.ratios.size) and vt.ratios[-1] < float(np.max(vt.ratios))

    positive = r1 > LAG1_Z / math.sqrt(n)
    top = float(vt.ratios[-1]) if vt.ratios.size else 1.0
    # from 1000 samples on the curve alone does not decide (a correlation time of a few
    # percent of n keeps it rising, and its power-law fit then says H ~ 1); the test's
    # weaker evidence (p < 5%) with a curve that agrees declares long memory too (with
    # the test's exponent): such fGn series missed 3 times in 4 as short-range
    if (
        tested is not None
        and tested.pvalue < LONG_MEMORY_ALLOW_ALPHA
        and tested.d >= LONG_MEMORY_MIN_D
        and vt.hurst > PLAUSIBLE_HURST
        and positive
    ):
        return MemoryCall(True, hurst=tested.hurst)
    if tested is None and vt.hurst > PLAUSIBLE_HURST and positive and not srd_better():
        return MemoryCall(True, plausible=True, hurst=vt.hurst)
    if lm is not None and lm.d >= LONG_MEMORY_HINT_D and positive and top > LONG_MEMORY_HINT_RATIO:
        # ... and a memory parameter the test cannot show (or, below 1000 samples, is
        # not asked to) is allowed for, not declared: weak long memory (ARFIMA d =
        # 0.1-0.2) passed the test and the subsession rule (block-mean lag 1 ~0.15-0.3
        # at every block length) and got quiet intervals covering 58-79%; the curve
        # must agree
        return MemoryCall(True, plausible=True, hinted=True, hurst=lm.hurst)
    return MemoryCall(False)


def without_cycle(a: Float64Array) -> tuple[Float64Array, float]:
    """``a`` with its dominant cycle regressed out and the cycle's period in samples, when
    it has one; else ``a`` itself and NaN.

    The periodogram ordinate I_j at each Fourier frequency with :data:`MIN_CYCLES` to
    n/4 periods is compared with the mean of its :data:`CYCLE_NEIGHBOURS` neighbours on
    each side (the two next to it left out, where a cycle between frequencies leaks).
    Under a spectrum smooth over that band I_j / f_j is exponential, so the ratio is
    F(2, 4 h)-distributed; the largest one beyond the family-wise :data:`CYCLE_ALPHA`
    point (Bonferroni over the frequencies) is a cycle (Fisher's g test made local, so
    that the steep low frequencies of long memory are not taken for one). Its frequency
    is refined between the neighbouring Fourier frequencies and the least-squares
    sinusoid at it is subtracted.

    References
    ----------
    Fisher, R. A. (1929). Tests of significance in harmonic analysis. Proceedings of the
    Royal Society A 125, 54-59, doi:10.1098/rspa.1929.0151.
    """
    n = a.size
    h = CYCLE_NEIGHBOURS
    d = a - a.mean()
    scale = float(np.max(np.abs(d))) if n else 0.0
    if not scale > 0.0:
        return a, math.nan
    d = d / scale  # (the ratios do not depend on the scale; values up to 1e150 are allowed)
    p = np.abs(np.fft.rfft(d)[1:]) ** 2  # j = 1 .. n // 2
    lo, hi = MIN_CYCLES - 1, n // 4  # (indices of j = MIN_CYCLES .. n / 4)
    if hi - lo < 1 or p.size < hi + h + 2:
        return a, math.nan
    cs = np.concatenate(([0.0], np.cumsum(p)))
    j = np.arange(lo, hi)
    left_lo, left_hi = np.maximum(j - 1 - h, 0), np.maximum(j - 1, 0)
    right_lo, right_hi = j + 2, np.minimum(j + 2 + h, p.size)
    count = (left_hi - left_lo) + (right_hi - right_lo)
    level = (cs[left_hi] - cs[left_lo] + cs[right_hi] - cs[right_lo]) / count
    ratio = p[j] / np.where(level > 0, level, np.inf)
    k = int(np.argmax(ratio))
    crit = float(f_dist.isf(CYCLE_ALPHA / j.size, 2, 2 * int(count[k])))
    if not ratio[k] > crit:
        return a, math.nan
    # the frequency between the neighbouring Fourier frequencies where the periodogram
    # peaks (p index i is i + 1 periods), and the least-squares sinusoid at it
    t = np.arange(n)
    freqs = np.linspace(j[k], j[k] + 2, 41)
    # (one frequency at a time: the 41 x n matrix of them took 86 MB at 131,072 samples)
    power = [abs(np.exp(-2j * math.pi * f * t / n) @ d) for f in freqs]
    cycles = float(freqs[int(np.argmax(power))])
    w = 2.0 * math.pi * cycles / n
    design = np.column_stack((np.ones(n), np.cos(w * t), np.sin(w * t)))
    coef, *_ = np.linalg.lstsq(design, d, rcond=None)
    out: Float64Array = a - scale * (design[:, 1:] @ coef[1:])
    return out, n / cycles


def bulk_scores(a: Float64Array) -> Float64Array:
    """Van der Waerden's normal scores of the bulk of a series: of its samples in time
    order with those far from the bulk left out.

    Parameters
    ----------
    a : numpy.ndarray
        The series (finite, time order).

    Returns
    -------
    numpy.ndarray
        Phi^-1(rank / (m + 1)) of the m samples within
        :data:`tsanalyze.stats.exceedance.FAR_Z` robust sds of the median; of all of
        them when :func:`tsanalyze.stats.exceedance.far_from_bulk` reads no rate of far
        samples, or when the far samples cluster in time (the lag 1 of their indicator
        above :data:`LAG1_Z` standard errors). Tied values share their average rank.

    Notes
    -----
    The ranks take the leverage of huge delays away but not their noise: delays at
    independent times hold the top ranks, and their scores are white noise added to the
    bulk's, which pulls the long-memory fit's d down (the fit has no noise term: with
    lognormal(2.5, 1) delays in 10% of 2000 samples of ARFIMA(0, 0.2, 0) of sd 2, its
    10% point fell from 0.11 on the bulk alone to -0.36; 0.08 on these scores). Left out
    rather than replaced by the median (which measured the same): a constant in their
    place is white noise too, and a subsequence at times
    independent of the series keeps its memory parameter (the lags are stretched by
    1 / (1 - p) for a share p left out), its independence or its short memory. Far
    samples that cluster in time are a mode or bursts of delays, whose switching is the
    series' own dependence: they stay (on real JMH series, 15-37% of a segment far from
    its bulk with an indicator lag 1 of 0.4-0.8 had turned five bounded intervals
    unbounded and three unbounded ones bounded before this rule).

    On i.i.d. Gaussian noise, AR(1) with phi = 0.5 (with and without lognormal or Pareto
    delays), i.i.d. t(2) and Pareto(1.5) samples (600 series of 2000 each) the serious
    findings and the median's intervals are unchanged; under delays at 10% of 2000
    samples, ARFIMA(0, 0.2, 0) showed its memory in 89% of series against 83%, and fGn
    H = 0.8 in 92% against 89%, the quiet and wrong median intervals 6.0% and 0.7% of
    all series against 9.0% and 3.0%.

    References
    ----------
    van der Waerden, B. L. (1952). Order tests for the two-sample problem and their
    power. Indagationes Mathematicae 14, 453-458.

    Hampel, F. R., Ronchetti, E. M., Rousseeuw, P. J., Stahel, W. A. (1986). Robust
    Statistics: The Approach Based on Influence Functions. Wiley,
    doi:10.1002/9781118186435 (the MAD as a robust scale).
    """
    far = far_from_bulk(a)
    # (only far samples at independent times: clustered ones are modes or bursts, whose
    # switching is the series' own dependence)
    apart = far is not None and not lag1(far) > LAG1_Z / math.sqrt(a.size)
    bulk = a[far == 0.0] if apart and far is not None else a
    out: Float64Array = ndtri(rankdata(bulk) / (bulk.size + 1.0))
    return out


def _few_ties(a: Float64Array) -> bool:
    """Does no value hold more than :data:`MAX_TIED_SHARE` of the samples?"""
    s = np.sort(a)
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1], [True])))
    return int(np.diff(starts).max()) <= MAX_TIED_SHARE * a.size
