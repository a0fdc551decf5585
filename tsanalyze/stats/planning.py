"""How many more samples (and how much time) a benchmark needs.

Pilot stops a benchmark when the confidence interval is narrow enough rather than after
a fixed count (Li et al. 2016, §III-E) [1]_. From a pilot series we estimate how wide the
interval is now and how it shrinks (as 1/sqrt(n), in units of independent subsessions),
and from that the samples and wall time still needed for a target relative half-width, and
the samples needed per side to detect a given relative difference.

References
----------
.. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework that
   understands how to do performance benchmarks the right way. MASCOTS 2016, §III-E.
   https://doi.org/10.1109/MASCOTS.2016.31
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, RNGType
from tsanalyze._validation import as_series_array, check_confidence_level
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.acf import integrated_autocorrelation_time
from tsanalyze.stats.estimators import EstimatorName, estimate

__all__ = ["SamplePlan", "plan_samples"]


@result
class SamplePlan(Result):
    """Samples and time still needed.

    Attributes
    ----------
    estimator : str
    estimate : float
    target_relative_halfwidth : float
        Target half-width of the CI relative to the estimate (0.05 = ±5%).
    confidence_level : float
    current_relative_halfwidth : float
        The relative half-width of the CI from the samples at hand.
    n : int
        Samples at hand.
    subsession_size : int or None
    samples_needed : int or None
        Total samples for the target (a multiple of the subsession size); None when
        the current interval gives no basis (NaN/inf or a zero estimate).
    samples_more : int or None
        ``max(0, samples_needed - n)``.
    time_more_ns : float
        ``samples_more`` × the mean sample duration.
    reached : bool
        The target is met already.
    detect_difference : float
        Relative difference for the power calculation.
    power : float
    samples_per_side : int or None
        Samples per side for a two-sided test at level 1 − confidence_level to detect
        ``detect_difference`` with ``power``, with the long-run variance (dependence).
    warnings : tuple of Finding
    """

    estimator: str
    estimate: float
    target_relative_halfwidth: float
    confidence_level: float
    current_relative_halfwidth: float
    n: int
    subsession_size: int | None
    samples_needed: int | None
    samples_more: int | None
    time_more_ns: float
    reached: bool
    detect_difference: float
    power: float
    samples_per_side: int | None
    warnings: tuple[Finding, ...] = ()


def plan_samples(
    x: ArrayLike,
    *,
    target: float = 0.05,
    confidence_level: float = 0.95,
    estimator: EstimatorName = "median",
    sample_time_ns: float | None = None,
    detect_difference: float = 0.01,
    power: float = 0.8,
    threshold: float = 0.1,
    rng: RNGType = None,
) -> SamplePlan:
    """Samples and wall time still needed for a target relative CI half-width.

    Parameters
    ----------
    x : array_like
        The series so far (sample or per-evaluation times, in time order).
    target : float, default 0.05
        Target relative half-width (±5%).
    confidence_level : float, default 0.95
    estimator : str, default "median"
    sample_time_ns : float, optional
        Wall time of one sample; default the mean of ``x`` (right when ``x`` holds whole
        sample durations; pass evals × per-evaluation time otherwise).
    detect_difference : float, default 0.01
        Relative difference the power calculation targets.
    power : float, default 0.8
    threshold : float, default 0.1
        Subsession threshold (Pilot).
    rng : int, Generator or None
        Passed to :func:`tsanalyze.estimate` (bootstrap estimators).

    Returns
    -------
    SamplePlan

    Notes
    -----
    The current interval comes from :func:`tsanalyze.estimate`, so it already accounts
    for dependence. Its half-width shrinks as 1/sqrt(n) (n counted in samples of a
    stationary series, i.e. in subsessions of m samples), so the samples needed are
    n_req = n (h / target)², h the current relative half-width, rounded up to a
    multiple of the subsession size m (Pilot §III-E computes the same from
    subsession means: k_req = (t s_k / (target mean))²). On a timer grid the interval
    holds a fixed half tick ``h_t`` that does not shrink (:mod:`tsanalyze.stats.ticks`):
    n_req = n ((h - h_t) / (target - h_t))², and no plan when ``h_t >= target``
    (``plan-tick-limit``).

    Samples per side to detect a relative difference d at two-sided level alpha with
    the given power: n = 2 (z_{1-alpha/2} + z_power)² tau s² / (d est)², tau the
    integrated autocorrelation time (variance inflation of dependent samples) and s the
    sample sd (for the median, s is replaced by the sd the median's interval implies,
    sqrt(n) h est / z).

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-E, CI-width-driven session length. https://doi.org/10.1109/MASCOTS.2016.31
    """
    a = as_series_array(x, "x", min_size=1)
    cl = check_confidence_level(confidence_level)
    if not (isinstance(target, (int, float)) and 0 < target < 1):
        raise InvalidArgumentError(f"target: must be in (0, 1), got {target!r}")
    if not (isinstance(detect_difference, (int, float)) and detect_difference > 0):
        raise InvalidArgumentError(f"detect_difference: must be > 0, got {detect_difference!r}")
    if not (isinstance(power, (int, float)) and 0 < power < 1):
        raise InvalidArgumentError(f"power: must be in (0, 1), got {power!r}")
    if sample_time_ns is not None and not (math.isfinite(sample_time_ns) and sample_time_ns > 0):
        raise InvalidArgumentError(f"sample_time_ns: must be a positive number, got {sample_time_ns!r}")
    n = a.size
    e = estimate(a, estimator, confidence_level=cl, threshold=threshold, rng=rng)
    found = list(e.warnings)
    h = e.relative_halfwidth
    m = e.subsession_size or 1
    per_sample = float(np.mean(a)) if sample_time_ns is None else float(sample_time_ns)
    common = dict(
        estimator=estimator,
        estimate=e.estimate,
        target_relative_halfwidth=float(target),
        confidence_level=cl,
        current_relative_halfwidth=h,
        n=n,
        subsession_size=e.subsession_size,
        detect_difference=float(detect_difference),
        power=float(power),
    )

    def no_plan(code: str, message: str) -> SamplePlan:
        found.append(Finding(code, message, "warning"))
        return SamplePlan(
            **common,  # type: ignore[arg-type]
            samples_needed=None,
            samples_more=None,
            time_more_ns=math.nan,
            reached=False,
            samples_per_side=None,
            warnings=tuple(found),
        )

    if not (math.isfinite(h) and e.estimate != 0):
        return no_plan(
            "no-plan",
            "the samples at hand give no finite relative interval to extrapolate from; "
            "collect more samples first",
        )
    # the timer's tick widens the interval by a fixed tick / 2 that more samples do not
    # shrink (issue 23): only the rest of the half-width scales as 1 / sqrt(n)
    h_tick = 0.5 * e.tick / abs(e.estimate)
    if h_tick >= target:
        return no_plan(
            "plan-tick-limit",
            f"the timer's tick alone makes the interval ±{h_tick:.2%}, at least the "
            f"±{target:.2%} target: no number of samples reaches it; a finer clock or more "
            "evaluations per sample will",
        )
    need = n * (max(h - h_tick, 0.0) / (target - h_tick)) ** 2
    need_i = int(math.ceil(need / m) * m)
    more = max(0, need_i - n)
    z = float(_st.norm.ppf(0.5 + cl / 2))
    zp = float(_st.norm.ppf(power))
    if estimator == "median":
        # sd implied by the median's interval (already dependence-aware): var = n se^2
        s_eff2 = n * (max(h - h_tick, 0.0) * abs(e.estimate) / z) ** 2
    else:
        tau = integrated_autocorrelation_time(a) if n >= 4 else 1.0
        s_eff2 = float(np.var(a, ddof=1)) * max(tau, 1.0) if n >= 2 else math.nan
    per_side = (
        math.ceil(2 * (z + zp) ** 2 * s_eff2 / (detect_difference * e.estimate) ** 2)
        if math.isfinite(s_eff2)
        else None
    )
    if n < 20:
        found.append(
            Finding(
                "plan-from-few-samples",
                f"the plan extrapolates from {n} samples; its numbers are rough",
                "info",
            )
        )
    return SamplePlan(
        **common,  # type: ignore[arg-type]
        samples_needed=need_i,
        samples_more=more,
        time_more_ns=more * per_sample,
        reached=h <= target,
        samples_per_side=per_side,
        warnings=tuple(found),
    )
