"""Location and spread estimators with confidence intervals that respect dependence.

``estimate(x, "median")`` looks at the serial dependence of ``x`` first (Pilot's
subsession rule) and then picks an interval that is honest for that dependence:

============== =============================== ==========================================
estimator      independent samples             dependent samples
============== =============================== ==========================================
median         order statistics (benchstat)    order statistics with effective n
mean           skew-corrected t on the samples skew-corrected t on subsession means
trimmed_mean,  BCa bootstrap (i.i.d.)          percentile stationary block bootstrap
sd, mad                                        (Politis–White block length)
min            the floor of the run time from  the same, on minima of blocks of the
               the fastest samples             subsession size (:mod:`.floor`)
============== =============================== ==========================================

On a timer grid (the run's resolution or the grid the values sit on) the intervals of
the median, mean and trimmed mean are widened by half a tick on each side
(:mod:`tsanalyze.stats.ticks`): never narrower than the clock allows.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

import numpy as np
from scipy import stats as _st

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze._units import check_unit
from tsanalyze._validation import (
    as_series_array,
    check_confidence_level,
    check_positive_int,
    check_rng,
)
from tsanalyze.errors import InvalidArgumentError, NotEnoughData
from tsanalyze.stats._rowstats import median as _rowstats_median
from tsanalyze.stats.acf import acf_fft, geyer_tau, ljung_box
from tsanalyze.stats.action import ActionStatistics, action_statistics
from tsanalyze.stats.autocorrelation import block_means, lag1, residual_inflation
from tsanalyze.stats.bootstrap import bootstrap_ci, optimal_block_length
from tsanalyze.stats.dependence import MIN_N, Dependence, assess_dependence, in_unit
from tsanalyze.stats.dependent_intervals import long_range_ci, unbounded_median_finding
from tsanalyze.stats.floor import floor_interval
from tsanalyze.stats.mean_ci import (
    hall_t_quantiles,
    rare_events_finding,
    subsession_mean_variance,
)
from tsanalyze.stats.minimum import min_exact_percentile, min_finding
from tsanalyze.stats.quantiles import quantile_ci
from tsanalyze.stats.ticks import TickArg, resolve_tick, tick_finding, widen_for_tick

__all__ = [
    "ESTIMATORS",
    "METHODS",
    "ActionStatistics",
    "Estimate",
    "EstimatorName",
    "IntervalEstimate",
    "LocationEstimatorName",
    "MethodName",
    "action_statistics",
    "estimate",
    "hall_t_quantiles",
    "mad",
    "subsession_mean_variance",
    "trimmed_mean",
]

LocationEstimatorName = Literal["median", "min", "mean", "trimmed_mean"]
EstimatorName = Literal[LocationEstimatorName, "sd", "mad"]
MethodName = Literal[
    "auto",
    "order-statistic",
    "t-subsession",
    "bca-iid",
    "percentile-iid",
    "percentile-stationary-block",
    "percentile-circular-block",
    "bca-stationary-block",
    "bca-circular-block",
    "percentile-iid-exact",
    "floor-endpoint",
]


def _min(a: Any, axis: int = -1) -> Any:
    return np.min(a, axis=axis)


# np.median; the bootstrap recognises it and resamples it by ranks (issue 24)
_median = _rowstats_median


def _mean(a: Any, axis: int = -1) -> Any:
    return np.mean(a, axis=axis)


def _sd(a: Any, axis: int = -1) -> Any:
    return np.std(a, axis=axis, ddof=1)


def trimmed_mean(a: Any, axis: int = -1, *, trim: float = 0.05) -> Any:
    """Mean of the values between the ``trim`` and ``1 - trim`` quantiles (scipy
    ``trim_mean``: ``int(trim * n)`` values cut from each end)."""
    v = np.asarray(a)
    if v.dtype != np.float64 or v.ndim not in (1, 2) or axis not in (-1, v.ndim - 1):
        return _st.trim_mean(a, trim, axis=axis)
    # scipy's own steps without its argument handling (0.7 ms a call; issue 24): the
    # same partition and mean, so the same number; NaN and empty input go to scipy
    n = v.shape[-1]
    low = int(trim * n)
    if low >= n - low or np.isnan(v).any():
        return _st.trim_mean(a, trim, axis=axis)
    part = np.partition(v, (low, n - low - 1), -1)
    return np.mean(part[..., low : n - low], axis=-1)


def mad(a: Any, axis: int = -1) -> Any:
    """Median absolute deviation, scaled by 1.4826 to estimate sd under normality
    (scipy ``median_abs_deviation(scale="normal")``)."""
    return _st.median_abs_deviation(a, axis=axis, scale="normal")


#: vectorised point estimators ``f(a, axis=-1)``; trimmed_mean trims 5% from each end
ESTIMATORS: dict[str, Callable[..., Any]] = {
    "min": _min,
    "median": _median,
    "mean": _mean,
    "trimmed_mean": trimmed_mean,
    "sd": _sd,
    "mad": mad,
}

#: interval methods (what ``Estimate.method`` may say) and what they are
METHODS: dict[str, str] = {
    "order-statistic": "distribution-free binomial order-statistic CI (benchstat)",
    "order-statistic-effective-n": "order-statistic CI with n replaced by the effective n of "
    "the indicator series 1{x <= median} (dependent samples)",
    "t-subsession": "Student t CI on means of subsessions of m samples (Pilot), corrected for "
    "their skewness (Hall 1992); m = 1 when the samples are independent",
    "bca-iid": "BCa bootstrap, i.i.d. resampling",
    "percentile-iid": "percentile bootstrap, i.i.d. resampling",
    "percentile-iid-exact": "percentile interval of the exact i.i.d. bootstrap distribution "
    "of the sample minimum (computed without resampling; its lower end is the minimum)",
    "floor-endpoint": "interval for the floor of the run time (the minimum): extreme-value "
    "endpoint inference on the fastest samples (tsanalyze.stats.floor)",
    "floor-hit": "interval for the floor when the minimum repeats: the minimum itself, or its "
    "grid cell on a timer grid",
    "percentile-stationary-block": "percentile stationary block bootstrap (Politis–White)",
    "percentile-circular-block": "percentile circular block bootstrap (Politis–White)",
    "bca-stationary-block": "BCa stationary block bootstrap, block-jackknife acceleration",
    "bca-circular-block": "BCa circular block bootstrap, block-jackknife acceleration",
    "none": "no interval (too few samples)",
    "unbounded": "no honest interval: the series is too short for the dependence in it "
    "(see the serious finding); the bounds are -inf and inf",
    "batch-means-long-range": "t interval on 16 block means, their variance extrapolated "
    "to the whole series with the Hurst exponent (long-range dependence)",
    "order-statistic-long-range": "order-statistic CI with the effective n of 1{x <= median} "
    "under long-range dependence (block means extrapolated with the Hurst exponent)",
    "batch-means-large-scale": "t interval on the means of the variance-time curve's longest "
    "blocks (about 8), whose variance exceeded what short blocks implied",
    "batch-medians-large-scale": "t interval on the medians of the variance-time curve's "
    "longest blocks (about 8), where they vary more than short blocks imply",
}

#: estimators whose interval the dependence assessment can widen or refuse (issue 20)
LOCATIONS = ("median", "mean", "trimmed_mean")
#: what ``Estimate.method`` may say but ``method=`` cannot ask for
_NOT_FORCEABLE = (
    "none",
    "floor-hit",
    "unbounded",
    "batch-means-long-range",
    "order-statistic-long-range",
    "batch-means-large-scale",
    "batch-medians-large-scale",
)

#: above this many samples the bootstrap resamples this many (m-out-of-n, rescaled)
MAX_RESAMPLE_SIZE = 20_000


@result
class IntervalEstimate(Result):
    """What every estimate of a location carries: which estimator, its value, the
    confidence interval and how the interval was made.

    The fields come first, in this order, in :class:`Estimate` (one series) and
    :class:`~tsanalyze.analysis.trials.TrialsEstimate` (several trials), which add what
    their own method knows.

    Attributes
    ----------
    estimator : str
        Key of :data:`ESTIMATORS`.
    estimate, ci_low, ci_high : float
        The point estimate and its confidence interval.
    confidence_level : float
    method : str
        How the interval was made.
    """

    estimator: str
    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    method: str


@result
class Estimate(IntervalEstimate):
    """A point estimate with its confidence interval.

    Attributes
    ----------
    estimator : str
        Key of :data:`ESTIMATORS`.
    estimate, ci_low, ci_high : float
    confidence_level : float
    method : str
        Interval method actually used (a key of :data:`METHODS`).
    n : int
        Samples used.
    lag1 : float
        Lag-1 autocorrelation of the samples.
    subsession_size : int or None
        Pilot's subsession size (None when no size works).
    block_length : float or None
        Block length of a block bootstrap, else None.
    effective_sample_size : float
        Effective number of independent samples behind the interval.
    n_resamples : int or None
        Bootstrap resamples (None for analytic intervals).
    seed : int or None
        Seed of the bootstrap (None for analytic intervals or a passed Generator).
    relative_halfwidth : float
        max(ci_high / estimate - 1, 1 - ci_low / estimate) (benchstat's "±").
    warnings : tuple of Finding
    tick : float
        Grid step of the values the interval accounts for (0: taken as exact); the
        interval of the median, mean and trimmed mean is ``tick / 2`` wider on each side.
    """

    n: int
    lag1: float
    subsession_size: int | None
    block_length: float | None
    effective_sample_size: float
    n_resamples: int | None
    seed: int | None
    relative_halfwidth: float
    warnings: tuple[Finding, ...] = ()
    tick: float = 0.0

    @property
    def effective_n(self) -> float:
        """Deprecated name of :attr:`effective_sample_size` (the name used everywhere else)."""
        warnings.warn(
            "Estimate.effective_n is deprecated; use Estimate.effective_sample_size",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.effective_sample_size


def _relhw(est: float, lo: float, hi: float) -> float:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return math.inf
    if est == 0:
        return 0.0 if lo == hi == 0 else math.nan
    if not (np.sign(lo) == np.sign(est) == np.sign(hi)):
        return math.nan
    return float(max(hi / est - 1.0, 1.0 - lo / est))


def _estimate_iv(
    x: ArrayLike,
    estimator: str,
    confidence_level: float,
    method: str,
    trim: float,
    threshold: float,
    n_resamples: int | None,
    unit: str | None,
) -> tuple[Float64Array, float]:
    a = as_series_array(x, "x", min_size=1, positive=True)
    if estimator not in ESTIMATORS:
        raise InvalidArgumentError(f"estimator: must be one of {sorted(ESTIMATORS)}, got {estimator!r}")
    cl = check_confidence_level(confidence_level)
    if (method != "auto" and method not in METHODS) or method in _NOT_FORCEABLE:
        names = sorted(k for k in METHODS if k not in _NOT_FORCEABLE)
        raise InvalidArgumentError(f"method: must be 'auto' or one of {names}, got {method!r}")
    if method.startswith("order-statistic") and estimator != "median":
        raise InvalidArgumentError(f"method: {method!r} is only for estimator='median'")
    if method in ("percentile-iid-exact", "floor-endpoint") and estimator != "min":
        raise InvalidArgumentError(f"method: {method!r} is only for estimator='min'")
    if method == "t-subsession" and estimator != "mean":
        raise InvalidArgumentError("method: 't-subsession' is only for estimator='mean'")
    if not (isinstance(trim, (int, float)) and 0.0 <= trim < 0.5):
        raise InvalidArgumentError(f"trim: must be in [0, 0.5), got {trim!r}")
    if not (isinstance(threshold, (int, float)) and 0.0 <= threshold < 1.0):
        raise InvalidArgumentError(f"threshold: must be in [0, 1), got {threshold!r}")
    if n_resamples is not None:
        check_positive_int(n_resamples, "n_resamples", minimum=10)
    check_unit(unit)
    return a, cl


def estimate(
    x: ArrayLike,
    estimator: EstimatorName = "median",
    *,
    confidence_level: float = 0.95,
    method: MethodName | str = "auto",
    rng: RNGType = None,
    trim: float = 0.05,
    threshold: float = 0.1,
    n_resamples: int | None = None,
    block_length: float | None = None,
    tick: TickArg = "auto",
    dependence: Dependence | None = None,
    unit: str | None = None,
) -> Estimate:
    """Point estimate and an honest confidence interval for one series.

    Parameters
    ----------
    x : array_like
        Per-evaluation times of one series, in time order (time order matters: the
        dependence between neighbours decides the interval).
    estimator : {"median", "mean", "trimmed_mean", "min", "sd", "mad"}
        Key of :data:`ESTIMATORS`.
    confidence_level : float, default 0.95
    method : str, default "auto"
        ``"auto"`` chooses from the dependence found (table in the module docstring);
        any key of :data:`METHODS` forces that interval.
    rng : int, Generator or None
        Randomness of the bootstrap (the seed is recorded on the result).
    trim : float, default 0.05
        Fraction cut from each end by ``trimmed_mean`` (5–95% by default).
    threshold : float, default 0.1
        |lag-1| threshold of Pilot's subsession rule; below it samples count as
        independent.
    n_resamples : int, optional
        Bootstrap resamples (default 2000 for BCa up to 20,000 samples, else 1000).
    block_length : float, optional
        Block length of the block bootstrap (default Politis–White).
    tick : float, "auto" or None, default "auto"
        Timer resolution per evaluation (``timer.precision_ns / evals``), combined with
        the grid the values sit on (looked for from 20 samples on); ``"auto"``: the grid
        only; ``None``: the values are taken as exact.
    dependence : Dependence, optional
        The series' dependence assessment, when the caller already has it (default:
        :func:`~tsanalyze.stats.dependence.assess_dependence` of ``x`` with
        ``threshold``).
    unit : str, optional
        Unit of ``x`` (a name :func:`tsanalyze._units.parse_unit` reads, e.g. ``"ns"``),
        for the times the findings quote (levels, grid steps); None (default) quotes them
        as bare numbers in the units of ``x``.

    Returns
    -------
    Estimate

    Notes
    -----
    Dependence (:func:`~tsanalyze.stats.dependence.assess_dependence`, issue 20): m =
    subsession size (smallest block length whose block means have |lag-1| <= threshold);
    m = 1 means independent. The median, mean and trimmed mean then get:

    - *no honest interval* (bounds -inf and inf, method ``"unbounded"``, a serious
      finding) when the series is too short for the dependence in it, or behaves like a
      random walk at the scales seen (Hurst exponent >= 0.95);
    - *a long-range interval* (methods ``"batch-means-long-range"`` and
      ``"order-statistic-long-range"``, :func:`~tsanalyze.stats.dependent_intervals.long_range_ci`)
      when the correlations decay slowly: the variance of 16 block means extrapolated to
      the whole series with the Hurst exponent. From 1000 samples on long memory is
      tested (a serious finding when found); a memory parameter d >= 0.1 that the test
      does not show (or, from 500 to 999 samples, is not asked to) is allowed for when
      the variance-time curve agrees, and below 1000 samples so is the memory that curve
      shows (info findings);
    - *a large-scale interval* (methods ``"batch-means-large-scale"`` and
      ``"batch-medians-large-scale"``, the same function with H = 1/2) when short
      blocks look independent but the means of the variance-time curve's longest blocks
      vary more than 2.5 times as much as those blocks imply, or the share of samples
      below the median, or far from the bulk, does more than 2 times (a slow wander, a
      long cycle, a wander of the typical sample under heavy-tailed delays, a delay rate
      that switches; an info finding ``large-scale-variance``);
    - otherwise the intervals below. Regime switching adds a serious finding.

    *Median*: distribution-free order-statistic interval, exactly benchstat's for
    independent samples. From 20 samples on, when the Ljung–Box test (10 lags) on the
    indicator series 1{x_t <= median} rejects independence at the 1% level, the
    binomial is taken with the effective n = n / tau_I, tau_I the integrated autocorrelation time (Geyer)
    of that indicator: the long-run variance factor in the CLT of
    the sample median of a mixing sequence (Bahadur representation). The indicator, not
    x, is checked because rate-modulated delays make it dependent while lag-1 of x
    stays near 0.

    *Mean*: t interval on the k = n // m subsession means (Pilot):
    mean - (T_high, T_low) s_k sqrt(f / k), with a trailing partial subsession dropped for
    the interval (the point estimate uses all samples). Deviations from Pilot: the residual
    lag-1 autocorrelation r of the subsession means (|r| <= threshold by construction),
    corrected for its small-sample bias (:func:`~tsanalyze.stats.autocorrelation.residual_inflation`),
    inflates the variance by f = max(1, (1 + r) / (1 - r)); without it the interval
    covered 92-94% instead of 95% on AR(1) phi = 0.7 data at n = 2000, and without the
    bias correction 91.5% instead of 93.2% at n = 200 (90.1% instead of 92.1% at n = 100). And T_low, T_high are the
    Student t quantiles corrected for the skewness of the subsession means by Hall's
    (1992) transformation (:func:`hall_t_quantiles`): timings are right-skewed, and the
    symmetric t interval then misses low about three times as often as high (4.7% vs 1.3%
    on frequent-delay data, 94.1% coverage; corrected 2.9% vs 2.2%, 94.9%). When a few rare, large
    values dominate (the largest 1% of samples hold over 30% of the absolute deviation
    from the median) the warning ``mean-rare-events`` says the interval cannot be
    trusted: by the Bahadur–Savage theorem no interval for a mean is valid over such
    distributions, and on delay-factor data with rare large delays
    (:data:`tsanalyze.datasets.DEFAULT_DELAYS`, n = 2000) it covers about 80%: the
    true mean lay below the interval in 1.0% of series (the lower end holds) and above
    it in 19.4%.

    *Others*: BCa i.i.d. bootstrap when independent, percentile stationary block
    bootstrap (Politis–White block length) otherwise. Block bootstraps are calibrated
    against the subsession estimate of var(mean) (see
    :func:`tsanalyze.stats.bootstrap.bootstrap_ci`, ``mean_variance``): their replicates
    are widened when the bootstrap's own variance of the mean is smaller, and by
    t_{k-1} / z for the k - 1 degrees of freedom of that estimate (k subsessions; on
    AR(1) phi = 0.7 the trimmed mean's interval, with the bias-corrected subsession
    variance, then covered 92.3% at n = 200 instead of 89.7%, 91.7% at n = 100 instead of
    86.3%: short dependent series stay hard). For more
    than 20,000 samples the
    bootstrap draws resamples of 20,000 (blocks) and rescales the deviations by
    sqrt(20000 / n) (m-out-of-n bootstrap), which keeps 10^6 samples to about a second.

    *Minimum* (Chen, Revels & Edelman 2016): the minimum estimates the floor of the run time (the time when
    nothing delays the code), not a location. Its interval bounds the floor from below
    by extreme-value inference on the fastest samples
    (:func:`tsanalyze.stats.floor.floor_interval`): ``[lower bound, sample minimum]``,
    the minimum itself when it repeats (an atom at the floor), its grid cell on a timer
    grid; findings say when the fastest samples are too few or show no floor. With
    dependent samples the fastest samples come from minima of blocks of the subsession
    size. ``method="percentile-iid-exact"`` gives the old interval of the sample
    minimum's own bootstrap distribution, P(min* > x_(j)) = ((n - j) / n)^n, whose lower
    end is always the sample minimum (so it never contains a floor approached
    continuously), with the warning ``min-lower-bound``.

    *Timer grid*: on values recorded on a grid of step ``tick``, each value is within half
    a tick of the true time (rounding is monotone, so every order statistic and every
    mean of order statistics is too), so the interval of the median, mean and trimmed
    mean is widened by ``tick / 2`` on each side, with the info ``tick-widened``
    (:mod:`tsanalyze.stats.ticks`). Without it a series taking two or three grid values
    gives an order-statistic interval of zero width.

    Too few samples for an interval give NaN bounds and a warning, not an error.

    References
    ----------
    Chen, J., Revels, J., Edelman, A. (2016). Robust benchmarking in noisy environments.
    HPEC 2016, arXiv:1608.04295.
    Li, Y., Gupta, Y., Miller, E. L., Long, D. D. E. (2016). Pilot. MASCOTS 2016, §III-D,
    doi:10.1109/MASCOTS.2016.31.
    Boyer, B. (2008). Robust Java benchmarking, Part 2; article supplement (bootstrap
    versus Gaussian CIs).
    Politis, D. N., White, H. (2004), Econometric Reviews 23(1).
    Geyer, C. J. (1992), Statistical Science 7(4).

    Examples
    --------
    >>> import numpy as np
    >>> from tsanalyze.stats.estimators import estimate
    >>> x = 1000 + np.random.default_rng(1).standard_t(3, 500)
    >>> e = estimate(x, "median")
    >>> e.method, e.ci_low < e.estimate < e.ci_high
    ('order-statistic', True)
    """
    a, cl = _estimate_iv(
        x, estimator, confidence_level, method, trim, threshold, n_resamples, unit
    )
    n = a.size
    tk = resolve_tick(a, tick)  # issue 23: the timer's grid, if any
    func = ESTIMATORS[estimator]
    if estimator == "trimmed_mean":
        func = partial(trimmed_mean, trim=float(trim))
    est = float(np.asarray(func(a, axis=-1))) if not (estimator == "sd" and n < 2) else math.nan
    found: list[Finding] = []
    #: a large-scale interval (bounds, method, effective n) the short blocks' one is
    #: joined with: the interval is never narrower than either
    joined: tuple[float, float, str, float] | None = None

    def result(lo: float, hi: float, used: str, **kw: Any) -> Estimate:
        if joined is not None:
            lo, hi = float(np.fmin(lo, joined[0])), float(np.fmax(hi, joined[1]))
            used = joined[2]
            kw["effective_sample_size"] = min(kw.get("effective_sample_size", n), joined[3])
        # issue 23: never narrower than the timer's tick allows (stats/ticks.py)
        if tk.tick > 0 and estimator in _TICK_WIDENED and math.isfinite(lo + hi):
            if tk.tick >= 0.25 * (hi - lo):  # said when it adds a quarter or more to the width
                found.append(tick_finding(tk, unit=unit))
            lo, hi = widen_for_tick(lo, hi, tk.tick)
        fields: dict[str, Any] = {
            "estimator": estimator,
            "estimate": est,
            "ci_low": float(lo),
            "ci_high": float(hi),
            "confidence_level": cl,
            "method": used,
            "n": n,
            "lag1": r1,
            "subsession_size": m,
            "block_length": None,
            "effective_sample_size": float(n),
            "n_resamples": None,
            "seed": None,
            "relative_halfwidth": _relhw(est, lo, hi),
        }
        fields.update(kw)
        return Estimate(**fields, warnings=tuple(found), tick=tk.tick)

    if n < 3 or (estimator in ("sd", "mad") and n < 4):
        r1, m = (lag1(a) if n >= 2 else math.nan), None
        found.append(
            Finding(
                "too-few-samples",
                f"{n} sample(s) are too few for a confidence interval of the {estimator}",
                "warning",
            )
        )
        return result(math.nan, math.nan, "none")

    if dependence is None:
        dep = assess_dependence(a, threshold=threshold, unit=unit)
    else:
        dep = in_unit(dependence, unit)
    if dep.n != n:
        raise InvalidArgumentError(f"dependence: is the assessment of {dep.n} samples, x has {n}")
    r1 = dep.lag1
    m = dep.subsession_size if n >= MIN_N else 1
    independent = m == 1
    found.extend(dep.findings)
    if estimator == "min" and method in ("auto", "floor-endpoint"):
        # issue 23: the minimum stands for the floor; its interval comes from the lower
        # tail (stats/floor.py), from minima of blocks when the samples are dependent
        f = floor_interval(a, confidence_level=cl, tick=tk.tick, block=m if m else 1, unit=unit)
        found.extend(f.warnings)
        # times are > 0 (checked above): the floor of a time is never below zero
        return result(max(f.ci_low, 0.0), f.ci_high, f.method, effective_sample_size=float(f.n))
    if float(np.ptp(a)) == 0.0:
        found.append(Finding("constant", "all samples are equal: the interval is a point", "info"))
        return result(est, est, "none", effective_sample_size=float(n))
    if estimator in LOCATIONS and method == "auto":
        # issue 20: the dependence assessment refuses or widens the interval
        if not dep.supports_interval:
            return result(-math.inf, math.inf, "unbounded", effective_sample_size=0.0)
        if dep.hurst > 0.5:
            lo, hi, used, neff = long_range_ci(a, estimator, est, dep, cl, float(trim))
            if not (math.isfinite(lo) and math.isfinite(hi)):
                found.append(unbounded_median_finding(n, neff, cl))
            return result(lo, hi, used, effective_sample_size=neff)
        if dep.large_scale:
            # the longest blocks' interval, joined with the short blocks' one below (m is
            # still the subsession size): never narrower than either
            joined = long_range_ci(a, estimator, est, dep, cl, float(trim))

    chosen = method
    if method == "auto":
        if estimator == "median":
            chosen = "order-statistic"
        elif estimator == "mean" and m is not None:
            chosen = "t-subsession"
        else:
            chosen = "bca-iid" if independent else "percentile-stationary-block"

    if estimator == "min":
        found.append(min_finding(a))

    if chosen.startswith("order-statistic"):
        neff = float(n)
        used = "order-statistic"
        if n >= MIN_N:
            # dependence of the indicator 1{x <= median} is what matters for the median
            # (it can be serial even when lag-1 of x is not, e.g. modulated delay rates)
            med = float(np.median(a))
            tau, lb_p = _indicator_dependence(a <= med)
            forced = chosen == "order-statistic-effective-n"
            if tau > 1.0 and (lb_p < INDICATOR_ALPHA or forced):
                neff = n / tau
                used = "order-statistic-effective-n"
        q = quantile_ci(a, 0.5, confidence_level=cl, effective_sample_size=neff)
        found.extend(q.warnings)
        return result(q.ci_low, q.ci_high, used, effective_sample_size=neff)

    if chosen == "t-subsession":
        mm = 1 if m is None else m
        means = block_means(a, mm)
        k = means.size
        if k < 2:
            found.append(Finding("too-few-subsessions", f"{k} subsession(s): no interval"))
            return result(math.nan, math.nan, "t-subsession")
        # residual lag-1 correlation of the subsession means (|r| <= threshold by
        # construction) still inflates the variance of their mean by (1 + r) / (1 - r)
        infl = residual_inflation(means)
        se = float(np.std(means, ddof=1)) / math.sqrt(k) * math.sqrt(infl)
        t_lo, t_hi = hall_t_quantiles(means, cl)
        tail = rare_events_finding(a)
        if tail is not None:
            found.append(tail)
        return result(est - t_hi * se, est - t_lo * se, "t-subsession", effective_sample_size=float(k) / infl)

    if estimator == "min" and (
        chosen == "percentile-iid-exact" or (n > MAX_RESAMPLE_SIZE and chosen != "bca-iid")
    ):
        if chosen != "percentile-iid-exact":
            found.append(
                Finding(
                    "min-exact-bootstrap",
                    f"{chosen} of the minimum of {n} samples would need full-size resamples; "
                    "the exact i.i.d. bootstrap distribution of the minimum is used instead",
                    "info",
                )
            )
        lo, hi = min_exact_percentile(a, cl)
        return result(lo, hi, "percentile-iid-exact")

    # bootstrap methods
    interval, _, kind_part = chosen.partition("-")
    kind = "iid" if kind_part == "iid" else kind_part.removesuffix("-block")
    if n_resamples is not None:
        nres = n_resamples
    else:
        nres = 2000 if interval == "bca" and n <= MAX_RESAMPLE_SIZE else 1000
    size = min(n, MAX_RESAMPLE_SIZE) if estimator != "min" else n
    bl = block_length
    if kind != "iid" and bl is None:
        bl = optimal_block_length(a, kind=kind) if n >= 4 else 1.0  # type: ignore[arg-type]
    gen, seed = check_rng(rng)
    mean_var = subsession_mean_variance(a, m) if kind != "iid" and m is not None else None
    try:
        b = bootstrap_ci(
            a,
            func,
            confidence_level=cl,
            method=interval,  # type: ignore[arg-type]
            kind=kind,  # type: ignore[arg-type]
            block_length=bl,
            n_resamples=nres,
            resample_size=size if size < n else None,
            mean_variance=mean_var,
            mean_variance_blocks=None if mean_var is None or m is None else n // m,
            rng=gen,
        )
    except NotEnoughData:  # pragma: no cover - guarded by the n checks above
        return result(math.nan, math.nan, "none")
    found.extend(b.warnings)
    used = f"{b.method}-{'iid' if kind == 'iid' else kind + '-block'}"
    neff = float(n) if kind == "iid" else float(n) / max(1.0, float(b.block_length))
    return result(
        b.ci_low,
        b.ci_high,
        used,
        block_length=None if kind == "iid" else float(b.block_length),
        n_resamples=nres,
        seed=seed,
        effective_sample_size=neff,
    )


#: estimators whose interval is widened by half a tick on a timer grid (issue 23)
_TICK_WIDENED = ("median", "mean", "trimmed_mean")

#: level of the Ljung–Box test on 1{x <= median} that switches the median's interval to
#: the effective n (keeps benchstat's exact interval for independent samples)
INDICATOR_ALPHA = 0.01


def _indicator_dependence(ind: Any) -> tuple[float, float]:
    """Geyer's tau and the Ljung–Box p-value (10 lags) of a 0/1 series."""
    x = np.asarray(ind, dtype=np.float64)
    n = x.size
    if float(np.ptp(x)) == 0.0:
        return 1.0, 1.0
    rho = acf_fft(x, min(n - 1, max(1000, n // 10)))
    return geyer_tau(rho, n), ljung_box(rho, n, max(1, min(10, n // 5)))[1]
