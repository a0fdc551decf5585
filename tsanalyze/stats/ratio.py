"""The bootstrap confidence interval of a ratio of estimators, candidate over baseline.

:func:`bootstrap_ratio_ci` resamples two series (independently, or jointly by round when
they are paired), with stationary blocks when they are autocorrelated, and gives the
percentile interval of ``estimator(b) / estimator(a)``: the CI behind
:func:`tsanalyze.compare`.
"""

from __future__ import annotations

import math

import numpy as np

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze._validation import (
    as_series_array,
    check_confidence_level,
    check_positive_int,
    check_rng,
)
from tsanalyze.errors import InvalidArgumentError, NotEnoughData
from tsanalyze.stats._memo import ContentMemo
from tsanalyze.stats._ranks import midranks
from tsanalyze.stats.autocorrelation import subsession_size
from tsanalyze.stats.bootstrap import (
    apply_statistic,
    apply_with_mean,
    calibration_factor,
    calibration_finding,
    optimal_block_length,
    resample_indices,
)
from tsanalyze.stats.estimators import ESTIMATORS, subsession_mean_variance

__all__ = ["RatioCI", "bootstrap_ratio_ci", "iid_order_statistic_replicates"]


@result
class RatioCI(Result):
    """Bootstrap CI of ``estimator(b) / estimator(a)``.

    Attributes
    ----------
    ratio : float
        ``estimator(b) / estimator(a)`` on the data.
    ci_low, ci_high : float
        Percentile bootstrap interval.
    confidence_level : float
    estimator : str
    paired : bool
        Whether rounds were resampled jointly (paired) or each side on its own.
    n_resamples : int
    block_length_a, block_length_b : float
        Mean block lengths of the stationary bootstrap; 1 = i.i.d. resampling.
    se_log : float
        Bootstrap standard error of ``log(ratio)`` (used to combine ratios).
    seed : int or None
        The seed used (None when a Generator was passed).
    warnings : tuple of Finding
    """

    ratio: float
    ci_low: float
    ci_high: float
    confidence_level: float
    estimator: str
    paired: bool
    n_resamples: int
    block_length_a: float
    block_length_b: float
    se_log: float
    seed: int | None
    warnings: tuple[Finding, ...] = ()


#: estimators whose i.i.d. bootstrap replicates are drawn as order statistics
_ORDER_STATISTICS = ("median", "min")


def iid_order_statistic_replicates(
    x: Float64Array, estimator: str, n_resamples: int, rng: np.random.Generator
) -> Float64Array:
    """i.i.d. bootstrap replicates of the median or the minimum of ``x``, drawn directly.

    Parameters
    ----------
    x : numpy.ndarray
        1-d float64 sample (at least 1 value).
    estimator : {"median", "min"}
    n_resamples : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
        ``n_resamples`` replicates, distributed exactly as ``estimator(x[idx])`` with
        ``idx`` n uniform draws from ``range(n)`` (the i.i.d. bootstrap).

    Notes
    -----
    A resample of the sorted sample x_(0) <= ... <= x_(n-1) is x_(floor(n U_i)) with
    U_i i.i.d. uniform; floor(n u) and the sorted sample are non-decreasing, so the k-th
    smallest value of the resample is x_(floor(n U_(k))), U_(k) the k-th smallest of n
    uniforms, which is Beta(k, n - k + 1) distributed; given U_(k) = u, U_(k+1) is u
    plus (1 - u) times the least of n - k uniforms, Beta(1, n - k). Two Beta draws per
    replicate give the median (the mean of the two middle values for even n, as
    ``np.median``), one the minimum (k = 1): the same distribution as resampling n
    indices and selecting, at 2 random numbers per replicate instead of n (Maritz &
    Jarrett 1978 computed this distribution exactly; here it is sampled).

    References
    ----------
    Maritz, J. S., Jarrett, R. G. (1978). A note on estimating the variance of the sample
    median. JASA 73(361), 194-196, doi:10.1080/01621459.1978.10480027.
    David, H. A., Nagaraja, H. N. (2003). Order Statistics, 3rd ed., Wiley, §2.2 (the
    uniform order statistics) and §2.5 (their Markov property).
    """
    xs = np.sort(x)
    n = xs.size

    def at(u: Float64Array) -> Float64Array:
        return xs[np.minimum((u * n).astype(np.int64), n - 1)]  # type: ignore[no-any-return]

    if estimator == "min":
        return at(rng.beta(1.0, float(n), n_resamples))
    k = (n + 1) // 2  # 1-based rank of the (lower) middle value
    u1 = rng.beta(float(k), float(n - k + 1), n_resamples)
    if n % 2:
        return at(u1)
    u2 = u1 + (1.0 - u1) * rng.beta(1.0, float(n - k), n_resamples)
    return (at(u1) + at(u2)) / 2


def _block_length(series: Float64Array) -> float:
    """The stationary bootstrap's mean block length for ``series`` (1: i.i.d.)."""
    if series.size < 10 or np.ptp(series) == 0:
        return 1.0
    # dependence can hide from the values behind heavy tails (a few huge delays
    # swamp the autocovariance) yet show in the ranks; take the longer block
    bl = max(
        float(optimal_block_length(series)),
        float(optimal_block_length(midranks(series)[0])),
    )
    return 1.0 if not math.isfinite(bl) or bl < 1.5 else min(bl, series.size / 2)


#: block lengths by the series' content (a report's baseline side is the same in every
#: comparison: issue 24)
_BLOCK_LENGTHS: ContentMemo[float] = ContentMemo()


def bootstrap_ratio_ci(
    a: ArrayLike,
    b: ArrayLike,
    *,
    estimator: str = "median",
    paired: bool = False,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    block_length_a: float | None = None,
    block_length_b: float | None = None,
    rng: RNGType = None,
) -> RatioCI:
    """Percentile bootstrap CI of ``estimator(b) / estimator(a)``.

    Parameters
    ----------
    a, b : array_like
        Baseline and candidate samples in time order (positive).
    estimator : str
        A key of :data:`tsanalyze.stats.estimators.ESTIMATORS` (``"median"``, ``"min"``,
        ``"mean"``, ``"trimmed_mean"``, ...).
    paired : bool
        If True, ``a`` and ``b`` are matched rounds of equal length and are resampled
        with the same indices, which keeps their correlation.
    confidence_level : float
    n_resamples : int
    block_length_a, block_length_b : float, optional
        Mean block lengths of the stationary bootstrap. By default the larger of the
        Politis–White optimal block lengths of each series and of its ranks (of the
        differences when paired); below 1.5 the resampling is i.i.d.
    rng : int, Generator or None

    Returns
    -------
    RatioCI

    Notes
    -----
    Unpaired: each side is resampled on its own; replicate r*_k = θ(b*_k)/θ(a*_k).
    Paired: one index set per replicate for both sides. The percentile interval of the
    r*_k is reported, and se_log = sd(log r*_k). Block resampling keeps the dependence
    of autocorrelated series (stationary bootstrap, Politis & Romano 1994); i.i.d.
    resampling would make the CI too narrow. Block resamples still cut the dependence at
    every join, so each side's replicates (the log ratio's when paired, judged on the
    differences) are widened to the subsession estimate of the variance of the mean as in
    :func:`tsanalyze.stats.bootstrap.bootstrap_ci` (``mean_variance``, with the
    bias-corrected residual correlation of
    :func:`~tsanalyze.stats.autocorrelation.residual_inflation`). On AR(1) phi = 0.7
    data with 200 samples per side this raised
    the coverage of the 95% interval of a ratio of medians from 89.75% to 94.75%
    (unpaired) and from 91.75% to 97.25% (paired: conservative); with phi = 0.85 and 400
    per side from 88.75% to 94.75%, and with 100 per side from 90.5% to 92.5%.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (step 2, bootstrap CI of the paired
       difference). https://github.com/imazen/zenbench
    .. [2] Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 13.
       Chapman & Hall.
    .. [3] Politis, D. N., & White, H. (2004). Automatic block-length selection for the
       dependent bootstrap. Econometric Reviews 23(1), 53–70.
       https://doi.org/10.1081/ETC-120028836
    """
    x = as_series_array(a, "a", min_size=1, positive=True)
    y = as_series_array(b, "b", min_size=1, positive=True)
    confidence_level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=10)
    if estimator not in ESTIMATORS:
        raise InvalidArgumentError(
            f"estimator: expected one of {sorted(ESTIMATORS)}, got {estimator!r}"
        )
    if paired and x.size != y.size:
        raise InvalidArgumentError(f"b: paired data need equal lengths, got {x.size} and {y.size}")
    gen, seed = check_rng(rng)
    fn = ESTIMATORS[estimator]
    findings: list[Finding] = []

    def _block(series: Float64Array, given: float | None, name: str) -> float:
        if given is not None:
            if not (isinstance(given, (int, float)) and math.isfinite(given) and given >= 1):
                raise InvalidArgumentError(f"{name}: must be a number >= 1, got {given!r}")
            return float(given)
        return _BLOCK_LENGTHS.get(series, None, lambda: _block_length(series))

    def _resample(n: int, bl: float) -> np.ndarray:
        if bl < 1.5:
            return resample_indices(n, n_resamples, kind="iid", rng=gen)
        return resample_indices(n, n_resamples, kind="stationary", block_length=bl, rng=gen)

    def _calibration(series: Float64Array, bmeans: Float64Array) -> float:
        m = subsession_size(series)
        mv = None if m is None else subsession_mean_variance(series, m)
        return 1.0 if mv is None else calibration_factor(bmeans, mv)

    def _side(series: Float64Array, bl: float) -> tuple[Float64Array, float]:
        if bl < 1.5 and estimator in _ORDER_STATISTICS:
            return iid_order_statistic_replicates(series, estimator, n_resamples, gen), 1.0
        idx = _resample(series.size, bl)
        if bl < 1.5:
            return np.asarray(apply_statistic(series, idx, fn), dtype=np.float64), 1.0
        boot, bmeans = apply_with_mean(series, idx, fn)
        c = _calibration(series, bmeans)
        theta = float(fn(series))
        return theta + (boot - theta) * c, c

    est = float(fn(y) / fn(x))
    if min(x.size, y.size) < 2:
        f = Finding("too-few-samples", "a bootstrap CI needs >= 2 samples per side", "warning")
        return RatioCI(
            est, math.nan, math.nan, confidence_level, estimator, paired, n_resamples,
            1.0, 1.0, math.nan, seed, (f,),
        )  # fmt: skip
    if paired:
        given = block_length_a if block_length_a is not None else block_length_b
        bla = blb = _block(y - x, given, "block_length_a")
        idx = _resample(x.size, bla)
        num, den = apply_statistic(y, idx, fn), apply_statistic(x, idx, fn)
        calib = 1.0
        if bla >= 1.5:
            d = y - x
            dmeans = np.asarray(apply_statistic(d, idx, ESTIMATORS["mean"]), dtype=np.float64)
            calib = _calibration(d, dmeans)
    else:
        bla = _block(x, block_length_a, "block_length_a")
        blb = _block(y, block_length_b, "block_length_b")
        den, calib_a = _side(x, bla)
        num, calib_b = _side(y, blb)
        calib = max(calib_a, calib_b)
    reps = np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)
    reps = reps[np.isfinite(reps) & (reps > 0)]
    if reps.size < n_resamples // 2:
        raise NotEnoughData("bootstrap_ratio_ci: too many undefined bootstrap replicates")
    if paired and calib > 1.0:
        reps = est * (reps / est) ** calib  # widen log(ratio*) about log(ratio)
    if calib > 1.0:
        findings.append(calibration_finding(calib))
    alpha = 1.0 - confidence_level
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    if min(x.size, y.size) < 10:
        findings.append(
            Finding(
                "few-samples",
                f"bootstrap CI from {min(x.size, y.size)} samples per side is unreliable",
                "warning",
            )
        )
    if estimator == "min":
        findings.append(
            Finding(
                "min-degenerate",
                "the bootstrap distribution of the minimum is degenerate; its CI is optimistic",
                "info",
            )
        )
    return RatioCI(
        ratio=est,
        ci_low=float(lo),
        ci_high=float(hi),
        confidence_level=confidence_level,
        estimator=estimator,
        paired=paired,
        n_resamples=n_resamples,
        block_length_a=bla,
        block_length_b=blb,
        se_log=float(np.std(np.log(reps), ddof=1)),
        seed=seed,
        warnings=tuple(findings),
    )
