"""Linear models of sample time: Pilot's work-per-second model and criterion's slope.

When samples do different amounts of work (Pilot: a work amount ``w``; criterion: a
number of evaluations), the time of a sample is t = alpha + w / v: a fixed cost alpha
(setup, warm-up, timer overhead) plus the work at a steady speed v. Regressing t on w
separates the two, so the speed is not biased by the fixed cost.
"""

from __future__ import annotations

import math

import numpy as np

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array, check_confidence_level
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.autocorrelation import block_means, lag1, subsession_size

__all__ = ["LinearFit", "evals_fit", "wps_fit"]


@result
class LinearFit(Result):
    """OLS fit t = intercept + slope · w on subsession means.

    Attributes
    ----------
    kind : {"wps", "evals"}
        ``"wps"``: ``estimate`` is the speed v = 1 / slope (work per time unit).
        ``"evals"``: ``estimate`` is the slope (time per evaluation, criterion).
    estimate, ci_low, ci_high : float
        The quantity of interest and its CI.
    confidence_level : float
    intercept, intercept_ci_low, intercept_ci_high : float
        alpha: time not proportional to the work (setup, warm-up, overhead).
    slope, slope_ci_low, slope_ci_high : float
        Time per unit of work (1 / v).
    n : int
        Samples.
    subsession_size : int
        Adjacent samples merged before the fit (Pilot); 1 when residuals are
        uncorrelated.
    n_subsessions : int
        Points in the regression.
    residual_lag1 : float
        Lag-1 autocorrelation of the residuals of the per-sample fit.
    r_squared : float
    relative_rmse : float
        Root mean squared prediction error of the subsession means, relative to their
        mean time (Pilot: a high prediction error means the linear model does not hold).
    warnings : tuple of Finding
    """

    kind: str
    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    intercept: float
    intercept_ci_low: float
    intercept_ci_high: float
    slope: float
    slope_ci_low: float
    slope_ci_high: float
    n: int
    subsession_size: int
    n_subsessions: int
    residual_lag1: float
    r_squared: float
    relative_rmse: float
    warnings: tuple[Finding, ...] = ()


def _fit_iv(t: ArrayLike, w: ArrayLike, wname: str) -> tuple[Float64Array, Float64Array]:
    ta = as_series_array(t, "t", min_size=3)
    wa = as_series_array(w, wname, min_size=3)
    if ta.size != wa.size:
        raise InvalidArgumentError(f"{wname}: has {wa.size} values but t has {ta.size}")
    if float(np.ptp(wa)) == 0.0:
        raise InvalidArgumentError(f"{wname}: all values are equal; the slope cannot be estimated")
    return ta, wa


def _fit(t: Float64Array, w: Float64Array, cl: float, threshold: float, kind: str) -> LinearFit:
    import statsmodels.api as sm

    n = t.size
    found: list[Finding] = []
    x1 = sm.add_constant(w, has_constant="add")
    resid = t - sm.OLS(t, x1).fit().fittedvalues
    r1 = lag1(resid)
    m = subsession_size(resid, threshold, min_blocks=5) if n >= 10 else 1
    if m is None:
        m = max(1, n // 10)
        found.append(
            Finding(
                "no-subsession-size",
                f"residuals stay autocorrelated (lag-1 = {r1:.2f}) for every subsession size; "
                f"merged {m} samples anyway: the interval is optimistic",
                "serious",
            )
        )
    tm, wm = block_means(t, m), block_means(w, m)
    k = tm.size
    if k < 3 or float(np.ptp(wm)) == 0.0:
        tm, wm, m, k = t, w, 1, n
        found.append(
            Finding(
                "subsessions-unusable",
                "merging adjacent samples leaves too few distinct work amounts; fitted on "
                "the samples directly (the interval ignores dependence)",
                "warning",
            )
        )
    res = sm.OLS(tm, sm.add_constant(wm, has_constant="add")).fit()
    alpha = 1.0 - cl
    ci = np.asarray(res.conf_int(alpha=alpha))
    a, b = (float(v) for v in res.params)
    (a_lo, a_hi), (b_lo, b_hi) = ci[0], ci[1]
    rmse = float(np.sqrt(np.mean(res.resid**2)))
    rel_rmse = rmse / abs(float(np.mean(tm))) if np.mean(tm) != 0 else math.nan
    if kind == "wps":
        est = 1.0 / b if b != 0 else math.nan
        if b_lo > 0:
            lo, hi = 1.0 / b_hi, 1.0 / b_lo
        else:
            lo, hi = (1.0 / b_hi if b_hi > 0 else -math.inf), math.inf
            found.append(
                Finding(
                    "speed-unbounded",
                    "the CI of the time per unit of work includes zero or negative values, so "
                    "the speed is unbounded: the work amounts vary too little or the data "
                    "are too noisy",
                    "serious",
                )
            )
    else:
        est, lo, hi = b, float(b_lo), float(b_hi)
    if math.isfinite(est) and math.isfinite(lo) and math.isfinite(hi) and est != 0:
        if max(hi / est - 1, 1 - lo / est) > 0.5:
            found.append(
                Finding(
                    "wide-ci",
                    "the CI is wider than ±50% of the estimate: the linear model may not hold "
                    "(Pilot: wide CI or high prediction error)",
                    "warning",
                )
            )
    return LinearFit(
        kind=kind,
        estimate=float(est),
        ci_low=float(lo),
        ci_high=float(hi),
        confidence_level=cl,
        intercept=a,
        intercept_ci_low=float(a_lo),
        intercept_ci_high=float(a_hi),
        slope=b,
        slope_ci_low=float(b_lo),
        slope_ci_high=float(b_hi),
        n=n,
        subsession_size=int(m),
        n_subsessions=int(k),
        residual_lag1=float(r1),
        r_squared=float(res.rsquared),
        relative_rmse=float(rel_rmse),
        warnings=tuple(found),
    )


def wps_fit(
    t: ArrayLike, work: ArrayLike, *, confidence_level: float = 0.95, threshold: float = 0.1
) -> LinearFit:
    """Pilot's work-per-second model t = alpha + w / v with a CI of the speed v.

    Parameters
    ----------
    t : array_like
        Sample durations in time order.
    work : array_like
        Work amount of each sample (the run format's ``work`` column).
    confidence_level : float, default 0.95
    threshold : float, default 0.1
        |lag-1| threshold of the subsession rule applied to the residuals.

    Returns
    -------
    LinearFit
        ``estimate`` = v (work per unit of ``t``), ``intercept`` = alpha.

    Notes
    -----
    OLS (statsmodels) of t on w gives residuals; Pilot's subsession size m is found on
    them (smallest m whose block means have |lag-1| <= threshold, at least 5 blocks),
    m adjacent samples are merged (means of t and of w, which keeps the model:
    mean t = alpha + mean w / v), and OLS on the k merged points gives the t-based CI
    (k − 2 df) of the slope beta = 1 / v. The CI of v is [1 / beta_hi, 1 / beta_lo]
    when beta_lo > 0, else unbounded above (warning ``speed-unbounded``).

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-A.b (Eq. 4) and §III-D. https://doi.org/10.1109/MASCOTS.2016.31
    """
    cl = check_confidence_level(confidence_level)
    ta, wa = _fit_iv(t, work, "work")
    return _fit(ta, wa, cl, threshold, "wps")


def evals_fit(
    t: ArrayLike, evals: ArrayLike, *, confidence_level: float = 0.95, threshold: float = 0.1
) -> LinearFit:
    """criterion's slope: sample time regressed on evaluations per sample.

    Parameters
    ----------
    t : array_like
        Sample times (the run format's ``ns``) in time order.
    evals : array_like
        Evaluations in each sample (must vary).
    confidence_level, threshold :
        As in :func:`wps_fit`.

    Returns
    -------
    LinearFit
        ``estimate`` = the slope (time per evaluation); ``intercept`` = the per-sample
        fixed cost (timer overhead, loop setup).

    Notes
    -----
    The same fit as :func:`wps_fit` with w = evals; criterion.rs reports this slope
    with a bootstrap CI of the i.i.d. OLS fit; here the CI is the t interval on
    subsession means, which stays honest under dependence.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-A.b. https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (the
       intercept holds the clock-read overhead).
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """
    cl = check_confidence_level(confidence_level)
    ta, ea = _fit_iv(t, evals, "evals")
    return _fit(ta, ea, cl, threshold, "evals")
