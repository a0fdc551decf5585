"""The dependence assessment: how strongly a series depends on its past, judged once.

Every interval that averages samples (estimates, comparisons, change-point thresholds)
needs the variance of a mean under the series' own dependence. :func:`assess_dependence`
decides which kind of dependence is there and how to size blocks for it, and
:func:`long_run_variance` applies that decision to any transform of the series (the
series itself, its ranks, an indicator 1{x <= median}, winsorised values), so that
``estimate``, ``compare`` and ``changepoints`` agree.

Kinds, and what an interval can do with each:

================== ===========================================================================
independent        i.i.d. methods are fine (block size 1)
short-range        correlations die out within a block: Pilot's subsession means are honest
long-range         correlations decay like a power (Hurst H > 1/2): no block length makes
                   block means independent; the variance of the mean is extrapolated from
                   block means with H (serious finding: the interval rests on H)
regime-switching   the series alternates between separate levels for long stretches
                   (serious finding: one location number hides the modes)
too-short          the series is too short for the dependence in it: no honest interval
================== ===========================================================================
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Iterable
from typing import Literal

import numpy as np

from tsanalyze._lru import LRU
from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._units import check_unit
from tsanalyze._validation import as_series_array, check_confidence_level
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.acf import integrated_autocorrelation_time
from tsanalyze.stats.autocorrelation import block_means, lag1, residual_inflation, subsession_size
from tsanalyze.stats.dependence_findings import dependence_findings, regime_finding
from tsanalyze.stats.exceedance import far_from_bulk, far_indicator, varies_at_large_scale
from tsanalyze.stats.longmemory import (
    batch_means_dof,
    lrd_variance_factor,
    student_quantile,
)
from tsanalyze.stats.memory_call import memory_call, without_cycle
from tsanalyze.stats.regimes import Regimes, regimes
from tsanalyze.stats.variance_time import CurveFits, scale_excess_pvalue

__all__ = [
    "Dependence",
    "DependenceKind",
    "assess_dependence",
    "clear_memo",
    "in_unit",
    "keep",
    "kept",
    "long_run_variance",
]

DependenceKind = Literal[
    "independent", "short-range", "long-range", "regime-switching", "too-short"
]

#: fewest samples for which dependence is measured at all
MIN_N = 20
#: above this Hurst exponent the series behaves like a random walk at the scales seen
MAX_HURST = 0.95
#: block means behind a long-memory interval
LONG_MEMORY_BLOCKS = 16
#: the variance-time ratio at the curve's longest block (n / 8 or so) above this many
#: times the chosen blocks' variance inflation makes that block carry the interval. The
#: ratio of i.i.d. samples is about chi-square with 15 degrees of freedom over 15 there
#: (overlapping batch means of 11 blocks), 2.5 its 99.9% point; real JMH series whose
#: samples looked independent reached 2.5-3.5
LARGE_SCALE_RATIO = 2.5
#: ... or any ratio of the curve beyond the chosen blocks exceeds their inflation at this
#: (Bonferroni-adjusted) level: a slow component too small for lag 1 and the longest block
LARGE_SCALE_P = 0.005
#: fewest effective samples (n / long-run variance factor) for an honest interval
MIN_EFFECTIVE_N = 20.0
#: above this many samples Geyer's integrated time is not computed (see the code)
MAX_N_GEYER = 100_000
#: assessments kept by :func:`assess_dependence` (least recently used dropped first)
MEMO_SIZE = 8192

#: (digest of the samples, their number, threshold, min_blocks, min_effective_n)
MemoKey = tuple[bytes, int, float, int, float]
#: key -> assessment (issue 24: a report assesses each series for its analysis, every
#: comparison it is a side of and its trials); threads (a Dask worker's) may share it
_MEMO: LRU[MemoKey, Dependence] = LRU(MEMO_SIZE)


@result
class Dependence(Result):
    """How a series depends on its past, and how to average it honestly.

    Attributes
    ----------
    n : int
        Samples.
    kind : {"independent", "short-range", "long-range", "regime-switching", "too-short"}
    hurst : float
        Hurst exponent used for intervals: 1/2 unless long memory was found, then
        d + 1/2 from the long-memory fit (:func:`~tsanalyze.stats.longmemory.long_memory`).
    block_size : int
        Block length whose means give honest batch-means (subsession) intervals.
    n_blocks : int
        ``n // block_size``.
    variance_inflation : float
        n var(mean) / var(x): the long-run variance factor of the series at this n (>= ~1
        for positively correlated series; inf when no honest interval exists).
    long_run_sd : float
        sqrt(n var(mean)) in units of x: var(mean) = long_run_sd^2 / n.
    findings : tuple of Finding
        What was found, in words (a ``serious`` one when no narrow interval can be trusted).
    supports_interval : bool
        False when the data cannot support an honest interval (callers then give an
        unbounded interval).
    lag1 : float
        Lag-1 autocorrelation of the samples.
    subsession_size : int or None
        Pilot's subsession size (smallest m with |lag-1 of block means| <= threshold).
    effective_sample_size : float
        n / variance_inflation.
    correlation_time : float
        Largest of Geyer's integrated autocorrelation time and the variance-time ratio at
        the longest block length measured (a lower bound of the long-run variance factor).
    variance_ratio : float
        Growth of the variance-time ratio b var_b / var_1 over the top four octaves of
        block lengths (1 when it has levelled off).
    long_memory_statistic, long_memory_pvalue : float
        Whittle likelihood-ratio test of long memory (NaN below 128 samples).
    block_lags : tuple of float
        Autocorrelations of the block means at lags 1, 2, 3.
    modes : int
        Modes of the distribution (:func:`~tsanalyze.stats.multimodality.multimodality`).
    mean_sojourn : float
        Mean length of the stretches spent on one side of the main antimode (NaN when
        unimodal).
    hurst_source : {"none", "whittle", "whittle-allowed", "variance-time"}
        Where ``hurst`` comes from: the long-memory test (1000 samples or more), declared;
        the same fit's memory parameter d >= 0.1, allowed for though the test does not
        show it; or, below 1000 samples, the aggregated-variance curve, allowed for
        because long memory cannot be ruled out.
    regimes : Regimes or None
        The regime-switching check (:func:`~tsanalyze.stats.regimes.regimes`), whose levels
        the ``regime-switching`` finding quotes; None when dependence was not measured.
    large_scale_in : {"none", "samples", "bulk", "delays"}
        What showed the variance at large scales that made the longest blocks carry the
        intervals (:attr:`large_scale`): the samples' variance-time curve, that of the
        indicator 1{x <= median} (a wander of the bulk of the distribution that heavy
        tails hide from the samples' curve), or that of the indicator of samples far from
        the bulk (a delay rate that switches over long stretches, moving the median:
        :mod:`tsanalyze.stats.exceedance`).
    memory_in : {"none", "samples", "ranks"}
        Where the long memory behind ``hurst`` showed: in the samples, or only in the
        normal scores of their ranks (a few large delays swamp the samples' periodogram
        and variance-time curve; ranks are not moved by them).
    """

    n: int
    kind: DependenceKind
    hurst: float
    block_size: int
    n_blocks: int
    variance_inflation: float
    long_run_sd: float
    findings: tuple[Finding, ...]
    supports_interval: bool = True
    lag1: float = math.nan
    subsession_size: int | None = None
    effective_sample_size: float = math.nan
    correlation_time: float = math.nan
    variance_ratio: float = math.nan
    long_memory_statistic: float = math.nan
    long_memory_pvalue: float = math.nan
    block_lags: tuple[float, ...] = ()
    modes: int = 1
    mean_sojourn: float = math.nan
    hurst_source: str = "none"
    regimes: Regimes | None = None
    large_scale_in: str = "none"
    memory_in: str = "none"
    cycle_period: float = math.nan

    @property
    def serious(self) -> bool:
        """True when a finding says the interval cannot be trusted as is."""
        return any(f.severity == "serious" for f in self.findings)

    def critical_value(self, confidence_level: float = 0.95) -> float:
        """Two-sided quantile for (estimate - truth) / sqrt(var(mean)) at this dependence.

        Student t with the batch means' degrees of freedom: k - 1 for short-range
        dependence, Satterthwaite's under long memory
        (:func:`~tsanalyze.stats.longmemory.batch_means_dof`); inf without an honest
        interval.
        """
        cl = check_confidence_level(confidence_level)
        if not self.supports_interval:
            return math.inf
        if self.n_blocks < 2:
            return math.inf
        if self.hurst > 0.5:
            return student_quantile(batch_means_dof(self.n_blocks, self.hurst), cl)
        return student_quantile(self.n_blocks - 1, cl)

    @property
    def large_scale(self) -> bool:
        """True when short-range blocks looked independent but the variance-time curve's
        longest block showed more variance: those blocks carry the intervals."""
        return (
            self.hurst <= 0.5
            and self.supports_interval
            and self.subsession_size is not None
            and self.block_size > self.subsession_size
        )

    @property
    def degrees_of_freedom(self) -> float:
        """Degrees of freedom of the batch-means variance (see :meth:`critical_value`)."""
        if self.n_blocks < 2:
            return math.nan
        if self.hurst > 0.5:
            return batch_means_dof(self.n_blocks, self.hurst)
        return float(self.n_blocks - 1)


def _positive_subsession_size(a: Float64Array, threshold: float, min_blocks: int) -> int | None:
    """Smallest m whose block means have lag-1 <= threshold (one-sided), or None."""
    n = a.size
    d = a - a.mean()
    cs = np.concatenate(([0.0], np.cumsum(d)))
    for m in range(1, n // min_blocks + 1):
        k = n // m
        sums = cs[m : k * m + 1 : m] - cs[0 : (k - 1) * m + 1 : m]
        if lag1(sums) <= threshold:
            return m
    return None


def _block_lags(means: Float64Array, lags: int = 3) -> tuple[float, ...]:
    k = means.size
    d = means - means.mean()
    den = float(np.dot(d, d))
    if k < lags + 2 or den == 0.0:
        return tuple(math.nan for _ in range(lags))
    return tuple(float(np.dot(d[:-j], d[j:]) / den) for j in range(1, lags + 1))


def _variance_of_mean(y: Float64Array, block_size: int, hurst: float) -> tuple[float, Float64Array]:
    """var(mean of y) from means of blocks of ``block_size`` (see long_run_variance)."""
    means = block_means(y, block_size)
    k = means.size
    if k < 2:
        return math.inf, means
    s2 = float(np.var(means, ddof=1))
    if hurst > 0.5:
        return s2 / k * lrd_variance_factor(k, hurst), means
    if block_size == 1:
        return s2 / k, means
    return s2 / k * residual_inflation(means), means


def _indicator_wanders(a: Float64Array, b: int, med: float, far: Float64Array | None) -> str:
    """Which indicator of the series varies at large scales more than its blocks of ``b``
    imply (:func:`~tsanalyze.stats.exceedance.varies_at_large_scale`): ``"bulk"``, the
    share of samples below the median (Bahadur: the median moves with it), ``"delays"``,
    the share far from the bulk (:func:`~tsanalyze.stats.exceedance.far_from_bulk`: a
    switching delay rate moves the median), or ``"none"``. A few huge delays cannot hide
    either: both are bounded. ``med`` is the median of ``a``, ``far`` its
    :func:`~tsanalyze.stats.exceedance.far_indicator`."""
    for name in ("bulk", "delays"):
        # (the delay indicator only when the bulk's does not show it)
        ind = (
            (a <= med).astype(np.float64)
            if name == "bulk"
            else far_from_bulk(a, med, indicator=far)
        )
        if ind is None:
            continue
        var_i = float(np.var(ind, ddof=1))
        if var_i == 0.0:
            continue
        implied = a.size * _variance_of_mean(ind, b, 0.5)[0] / var_i if b > 1 else 1.0
        if varies_at_large_scale(ind, implied):
            return name
    return "none"


def long_run_variance(x: ArrayLike, dependence: Dependence | None = None) -> float:
    """Long-run variance sigma^2 of a series (or of any transform of it): var(mean) ~
    sigma^2 / n under the assessed dependence.

    Parameters
    ----------
    x : array_like
        1-d series in time order: the assessed series itself, or a transform of it of the
        same length (ranks, an indicator 1{x <= q}, winsorised values).
    dependence : Dependence, optional
        The assessment to apply (default: :func:`assess_dependence` of ``x``). Passing the
        assessment of the raw series when ``x`` is a transform of it keeps every statistic
        of one series on the same block structure.

    Returns
    -------
    float
        n var(mean of x); ``inf`` when the assessment found no honest interval.

    Notes
    -----
    With k = n // b means of blocks of b = ``dependence.block_size`` samples and their
    sample variance s^2: short-range dependence gives var(mean) = s^2 / k f, f the
    bias-corrected residual lag-1 factor of the block means
    (:func:`~tsanalyze.stats.autocorrelation.residual_inflation`); long-range dependence
    gives s^2 / k g(k, H) (:func:`~tsanalyze.stats.longmemory.lrd_variance_factor`), the
    extrapolation from block means to the whole series that a variance decaying like
    b^(2H - 2) implies.

    References
    ----------
    Li et al. (2016), Pilot, MASCOTS, §III-D (subsession means).
    Beran, J. (1994). Statistics for Long-Memory Processes, §8.1.
    """
    a = as_series_array(x, "x", min_size=1)
    dep = assess_dependence(a) if dependence is None else dependence
    if dep.n != a.size:
        raise InvalidArgumentError(
            f"x: has {a.size} values but the dependence assessment is of {dep.n} samples"
        )
    if not dep.supports_interval:
        return math.inf
    if a.size < 2:
        return math.nan
    v, _ = _variance_of_mean(a, dep.block_size, dep.hurst)
    return a.size * v


def _trivial(n: int, a: Float64Array, found: list[Finding], r1: float) -> Dependence:
    sd = float(np.std(a, ddof=1)) if n >= 2 else math.nan
    return Dependence(
        n=n,
        kind="independent",
        hurst=0.5,
        block_size=1,
        n_blocks=n,
        variance_inflation=1.0,
        long_run_sd=sd,
        findings=tuple(found),
        lag1=r1,
        subsession_size=1 if n >= 2 else None,
        effective_sample_size=float(n),
        correlation_time=1.0,
        variance_ratio=1.0,
    )


def _assess_iv(threshold: float, min_effective_n: float, unit: str | None) -> None:
    check_unit(unit)
    if not (isinstance(threshold, (int, float)) and 0.0 <= threshold < 1.0):
        raise InvalidArgumentError(f"threshold: must be in [0, 1), got {threshold!r}")
    if not (isinstance(min_effective_n, (int, float)) and min_effective_n >= 2):
        raise InvalidArgumentError(
            f"min_effective_n: must be a number >= 2, got {min_effective_n!r}"
        )


def assess_dependence(
    x: ArrayLike,
    *,
    threshold: float = 0.1,
    min_blocks: int = 10,
    min_effective_n: float = MIN_EFFECTIVE_N,
    unit: str | None = None,
) -> Dependence:
    """Judge how a series depends on its past and size blocks for honest intervals.

    Parameters
    ----------
    x : array_like
        1-d series in time order.
    threshold : float, default 0.1
        |lag-1| threshold of Pilot's subsession rule.
    min_blocks : int, default 10
        Fewest subsessions Pilot's rule may leave.
    min_effective_n : float, default 20
        Fewest effective samples (n / long-run variance factor) for an honest interval of
        a short-range dependent series.
    unit : str, optional
        Unit of ``x`` (a name :func:`tsanalyze._units.parse_unit` reads, e.g. ``"ns"``),
        for the levels the findings quote (``0.8724 and 1.236 µs``); None (default)
        quotes them as bare numbers in the units of ``x``.

    Returns
    -------
    Dependence

    Notes
    -----
    Four checks, each a question about the series:

    1. *Short-range dependence* (Pilot): the subsession size m, the smallest block length
       whose means have |lag-1| <= ``threshold``; the lag-1..3 autocorrelations of those
       block means are reported too.
    2. *Slowly decaying dependence*: the variance-time curve (variance of block means
       against block length, :func:`~tsanalyze.stats.variance_time.variance_time`) and a
       Whittle likelihood-ratio test of long memory against AR(1) plus noise
       (:func:`~tsanalyze.stats.longmemory.long_memory`, 128 samples or more). Long memory
       is declared when the test rejects at 1% and d >= 0.05 (H >= 0.55). Its intervals
       use 16 block means and the extrapolation g(16, H)
       (:func:`~tsanalyze.stats.longmemory.lrd_variance_factor`); above H = 0.95 the
       series behaves like a random walk and no interval is given. From 500 samples on,
       when the samples show no long memory, the same checks are made on the normal
       scores of their ranks (van der Waerden), which a few huge delays cannot swamp
       (:attr:`Dependence.memory_in`), unless one value holds more than 5% of them. A
       cycle is set aside before (:attr:`Dependence.cycle_period`): the test takes a
       spectral peak at a low frequency for long memory.
    3. *Regime switching* (:func:`~tsanalyze.stats.regimes.regimes`): the distribution
       has two or more modes, or the means of blocks of samples do (levels that overlap
       in the samples; looked for with a cycle set aside), and the series stays on one
       side of the antimode for stretches far longer than independent samples would.
    4. *Too short*: the correlation time (the larger of Geyer's integrated
       autocorrelation time and the variance-time ratio at the longest block measured,
       both lower bounds of the long-run variance factor) leaves fewer than
       ``min_effective_n`` effective samples, or no subsession size exists. A series
       whose level wanders over stretches comparable to its length cannot show the
       spread of its own mean.

    Below 20 samples dependence is not measured (an ``info`` finding says so) and the
    samples are treated as independent.

    The assessment depends on the samples and the settings alone, and is costly (two
    likelihood fits and four curve fits): the last :data:`MEMO_SIZE` assessments are
    kept, keyed by a digest of the samples' bytes, and an equal series gets the kept
    (immutable) result. A report assesses each series for its analysis, again for every
    comparison it is a side of and for its trials; now once (:func:`clear_memo` forgets).

    References
    ----------
    Li et al. (2016), Pilot, MASCOTS, §III-D.
    Geyer, C. J. (1992), Statistical Science 7(4), doi:10.1214/ss/1177011137.
    Beran, J. (1994). Statistics for Long-Memory Processes. Chapman & Hall.
    Taqqu, M. S., Teverovsky, V., Willinger, W. (1995), Fractals 3(4),
    doi:10.1142/S0218348X95000692.
    Hamilton, J. D. (1989), Econometrica 57(2), doi:10.2307/1912559.
    van der Waerden, B. L. (1952). Order tests for the two-sample problem and their
    power. Indagationes Mathematicae 14, 453-458.

    Examples
    --------
    >>> import numpy as np
    >>> from tsanalyze.stats.dependence import assess_dependence
    >>> assess_dependence(np.random.default_rng(1).normal(size=2000)).kind
    'independent'
    """
    _assess_iv(threshold, min_effective_n, unit)
    a = as_series_array(x, "x", min_size=1)
    key = _key(a, threshold, min_blocks, min_effective_n)
    dep = _MEMO.get(key)
    if dep is None:
        dep = _assess(a, threshold, min_blocks, min_effective_n)
        keep([(key, dep)])
    return in_unit(dep, unit)


def in_unit(dep: Dependence, unit: str | None) -> Dependence:
    """``dep`` with the levels its findings quote given in ``unit``, the unit of the
    assessed series (the kept assessments quote bare numbers: the memo does not depend on
    the unit); ``dep`` itself when there is nothing to say in a unit."""
    reg = dep.regimes
    if unit is None or reg is None or not reg.switching:
        return dep
    findings = tuple(
        regime_finding(reg, unit) if f.code == "regime-switching" else f for f in dep.findings
    )
    return dataclasses.replace(dep, findings=findings)


def _key(a: Float64Array, threshold: float, min_blocks: int, min_effective_n: float) -> MemoKey:
    digest = hashlib.blake2b(a.tobytes(), digest_size=20).digest()
    return digest, a.size, threshold, min_blocks, min_effective_n


def kept(
    x: ArrayLike,
    *,
    threshold: float = 0.1,
    min_blocks: int = 10,
    min_effective_n: float = MIN_EFFECTIVE_N,
) -> tuple[MemoKey, Dependence] | None:
    """The assessment :func:`assess_dependence` kept for ``x`` and these settings, with
    its key (None when none is kept): what :func:`keep` takes in another process."""
    a = as_series_array(x, "x", min_size=1)
    key = _key(a, threshold, min_blocks, min_effective_n)
    dep = _MEMO.get(key)
    return None if dep is None else (key, dep)


def keep(entries: Iterable[tuple[MemoKey, Dependence]]) -> None:
    """Keep assessments, each under its key (from :func:`kept`, possibly in another
    process: the worker that analysed a series hands its assessment to the one that
    compares it)."""
    _MEMO.put_many(entries)


def clear_memo() -> None:
    """Forget the assessments :func:`assess_dependence` kept (tests, long sessions)."""
    _MEMO.clear()


def _assess(
    a: Float64Array, threshold: float, min_blocks: int, min_effective_n: float
) -> Dependence:
    """:func:`assess_dependence` of a checked series, computed."""
    n = a.size
    found: list[Finding] = []
    r1 = lag1(a) if n >= 2 else math.nan
    if n >= 2 and float(np.ptp(a)) == 0.0:
        return _trivial(n, a, [Finding("constant", "all samples are equal", "info")], 0.0)
    if n < MIN_N:
        found.append(
            Finding(
                "dependence-unchecked",
                f"{n} samples are too few to measure serial dependence; they are treated as "
                "independent",
                "info",
            )
        )
        return _trivial(n, a, found, r1)

    m = subsession_size(a, threshold, min_blocks=min_blocks)
    if m is None:
        # Pilot's rule is two-sided; negative correlation only makes block means vary
        # less than they appear to, so it does not stop an (conservative) interval
        m = _positive_subsession_size(a, threshold, min_blocks)
    # Geyer's tau needs an FFT of 2n; beyond MAX_N_GEYER the variance-time curve (blocks
    # up to n / 8) bounds the correlation time on its own
    tau = integrated_autocorrelation_time(a) if n <= MAX_N_GEYER else 1.0
    vt = CurveFits(a)
    top = float(vt.ratios[-1]) if vt.ratios.size else 1.0
    lo = vt.ratios[np.searchsorted(vt.block_sizes, vt.block_sizes[-1] / 16.0)]
    growth = top / float(lo) if lo > 0 else math.nan
    corr_time = max(tau, top, 1.0)
    # the median and the indicator of samples far from it, read by the regime check and
    # the indicators' large-scale check: made once
    med = float(np.median(a))
    far = far_indicator(a, med)
    reg: Regimes = regimes(a, far=far)
    var_x = float(np.var(a, ddof=1))

    call = memory_call(a, r1, vt)
    lm = call.test
    lrd, plausible, hinted, h_lrd = call.lrd, call.plausible, call.hinted, call.hurst
    if reg.block_size > 1 and math.isfinite(call.cycle):
        # levels seen in block means, but the series repeats a cycle (a sine's block
        # means cluster near its crests and troughs): the levels are looked for with
        # the cycle set aside, as the long-memory checks do
        reg = regimes(without_cycle(a)[0])
    supports = True
    if lrd:
        kind: DependenceKind = "too-short" if plausible else "long-range"
        hurst = min(h_lrd, 0.999)
        k = min(LONG_MEMORY_BLOCKS, n // 8)
        b = n // k
        if hurst >= MAX_HURST or (plausible and n ** (2.0 - 2.0 * hurst) < min_effective_n):
            supports = False
        elif plausible:
            kind = "short-range"
    else:
        hurst = 0.5
        b = 1 if m is None else m
        kind = "independent" if m == 1 else "short-range"
        # (below 2 * min_effective_n samples a correlation time of 1.1 already left fewer
        # than min_effective_n: Geyer's time, noisy upwards, refused 41% of independent
        # series of 20 samples and 10% of 30 as too short, where 19 samples are taken as
        # independent unchecked; there a series is refused when its correlation time
        # leaves fewer than half of its samples)
        if m is None or n / corr_time < min(min_effective_n, n / 2):
            kind, supports = "too-short", False
    if reg.switching:
        kind = "regime-switching"
    vmean, means = _variance_of_mean(a, b, hurst)
    # the subsession rule looks at lag 1 of block means only: variance at larger scales
    # that lag 1 does not show (a slow wander, a cycle longer than the blocks) is seen by
    # the variance-time curve; where its longest block's ratio, or that of any block
    # length beyond the chosen one (variance_time.scale_excess_pvalue: a small slow
    # component stands out at the middle scales first), exceeds what the chosen blocks
    # imply by more than its noise allows, the longest block carries the interval
    large_in = "none"
    if not lrd and supports and var_x > 0 and vt.block_sizes.size:
        b_top = int(vt.block_sizes[-1])
        implied = n * vmean / var_x
        if b_top > b and (
            top > LARGE_SCALE_RATIO * implied
            or scale_excess_pvalue(vt.block_sizes, vt.ratios, n, implied, above=b) < LARGE_SCALE_P
        ):
            v_top, means_top = _variance_of_mean(a, b_top, hurst)
            # ... never a narrower interval (the curve's ratio is of overlapping blocks,
            # the interval's of the non-overlapping ones)
            if v_top > vmean:
                b, vmean, means, large_in = b_top, v_top, means_top, "samples"
        wanders = (
            _indicator_wanders(a, b, med, far) if large_in == "none" and b_top > b else "none"
        )
        if wanders != "none":
            # the bulk wanders, or the delay rate switches, where heavy tails hide it
            # from the samples' curve: the longest blocks carry the intervals (each
            # estimator's influence series is averaged over them, the median's
            # indicator among them); the mean's own variance is never taken lower
            v_top, means = _variance_of_mean(a, b_top, hurst)
            b, vmean, large_in = b_top, max(vmean, v_top), wanders
        if large_in != "none" and kind == "independent":
            kind = "short-range"
    if not supports:
        vmean = math.inf
    infl = n * vmean / var_x if var_x > 0 else math.nan
    dep = Dependence(
        n=n,
        kind=kind,
        hurst=float(hurst),
        block_size=int(b),
        n_blocks=int(n // b),
        variance_inflation=float(infl),
        long_run_sd=math.sqrt(n * vmean),
        findings=(),
        supports_interval=supports,
        lag1=r1,
        subsession_size=m,
        effective_sample_size=float(n / infl) if infl > 0 else math.nan,
        correlation_time=float(corr_time),
        variance_ratio=float(growth),
        long_memory_statistic=math.nan if lm is None else lm.statistic,
        long_memory_pvalue=math.nan if lm is None else lm.pvalue,
        block_lags=_block_lags(means),
        modes=reg.n_modes,
        mean_sojourn=reg.mean_sojourn,
        hurst_source=(
            ("whittle-allowed" if hinted else "variance-time" if plausible else "whittle")
            if lrd
            else "none"
        ),
        regimes=reg,
        large_scale_in=large_in,
        memory_in=call.memory_in,
        cycle_period=call.cycle,
    )
    return dataclasses.replace(dep, findings=tuple(found + dependence_findings(dep, reg)))
