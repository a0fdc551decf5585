"""Tests from summary statistics alone: Welch's t, minimum detectable effect, CI checks.

Published benchmark numbers rarely come with their samples; these primitives say what a
mean, an sd and a sample count can and cannot support.
"""

from __future__ import annotations

import functools
import math
from typing import Literal

from scipy import integrate, optimize, stats

from tsanalyze._result import Finding, Result, result
from tsanalyze._units import check_unit, quote_time
from tsanalyze._validation import check_confidence_level
from tsanalyze.errors import InvalidArgumentError

__all__ = [
    "CIConsistency",
    "MinimumDetectableEffect",
    "SummaryWelch",
    "ci_consistency",
    "ci_overlap",
    "minimum_detectable_effect",
    "welch_from_summary",
]

Alternative = Literal["two-sided", "less", "greater"]


def _num(v: object, name: str, *, low: float | None = None, strict: bool = False) -> float:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name}: must be a number, got {v!r}") from None
    if not math.isfinite(f):
        raise InvalidArgumentError(f"{name}: must be finite, got {v!r}")
    if low is not None and (f < low or (strict and f == low)):
        raise InvalidArgumentError(f"{name}: must be {'>' if strict else '>='} {low}, got {v!r}")
    return f


def _count(v: object, name: str, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        # accept integral floats such as 20.0 from parsed files
        if isinstance(v, float) and v.is_integer() and v >= minimum:
            return int(v)
        raise InvalidArgumentError(f"{name}: must be an integer >= {minimum}, got {v!r}")
    return int(v)


# ------------------------------------------------------------------------------ Welch
@result
class SummaryWelch(Result):
    """Welch's t-test of ``mean2 - mean1`` from summary statistics.

    Attributes
    ----------
    statistic, pvalue, df : float
        Welch's t, its p-value and the Welch–Satterthwaite degrees of freedom.
    estimate : float
        ``mean2 - mean1``.
    relative : float
        ``(mean2 - mean1) / mean1``.
    ci_low, ci_high, confidence_level : float
        Welch CI of the difference.
    alternative : str
    """

    statistic: float
    pvalue: float
    df: float
    estimate: float
    relative: float
    ci_low: float
    ci_high: float
    confidence_level: float
    alternative: str


def welch_from_summary(
    mean1: float,
    sd1: float,
    n1: int,
    mean2: float,
    sd2: float,
    n2: int,
    *,
    alternative: Alternative = "two-sided",
    confidence_level: float = 0.95,
) -> SummaryWelch:
    """Welch's unequal-variance t-test from means, sds and sample counts.

    Parameters
    ----------
    mean1, sd1, n1 : float, float, int
        First group: mean, sample sd (>= 0), number of independent samples (>= 2).
    mean2, sd2, n2 : float, float, int
        Second group.
    alternative : {"two-sided", "less", "greater"}
        scipy's convention: ``"less"`` is the alternative ``mean1 < mean2``.
    confidence_level : float
        Of the two-sided CI of ``mean2 - mean1``.

    Returns
    -------
    SummaryWelch

    Notes
    -----
    ``t = (m1 − m2)/√(s1²/n1 + s2²/n2)``, ``ν`` by Welch–Satterthwaite; computed by
    ``scipy.stats.ttest_ind_from_stats(equal_var=False)``. Assumes independent, roughly
    normal sample means; benchmark samples are often autocorrelated, which makes the
    p-value too small (Pilot uses subsession means for that reason [1]_). Both sds 0 with
    different means gives ``p = 0``; with equal means, ``p = 1``.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-F, comparison by CI overlap then Welch's t-test.
       https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Welch, B. L. (1947). The generalization of 'Student's' problem when several
       different population variances are involved. Biometrika 34(1–2), 28–35.
       https://doi.org/10.1093/biomet/34.1-2.28
    """
    m1 = _num(mean1, "mean1")
    m2 = _num(mean2, "mean2")
    s1 = _num(sd1, "sd1", low=0.0)
    s2 = _num(sd2, "sd2", low=0.0)
    k1 = _count(n1, "n1", 2)
    k2 = _count(n2, "n2", 2)
    cl = check_confidence_level(confidence_level)
    if alternative not in ("two-sided", "less", "greater"):
        raise InvalidArgumentError(f"alternative: must be two-sided, less or greater, got {alternative!r}")
    diff = m2 - m1
    rel = diff / m1 if m1 != 0 else math.nan
    # in units of c = the larger sd, so that tiny sds (1e-122) cannot underflow a variance
    # (or its square in the Welch–Satterthwaite df) to 0; t and p are scale-free
    c = max(s1, s2)
    if c == 0.0:
        if diff == 0.0:
            return SummaryWelch(0.0, 1.0, math.nan, 0.0, rel, 0.0, 0.0, cl, alternative)
        t = math.copysign(math.inf, m1 - m2)
        p = {"two-sided": 0.0, "less": 0.0 if t < 0 else 1.0, "greater": 0.0 if t > 0 else 1.0}
        return SummaryWelch(t, p[alternative], math.nan, diff, rel, diff, diff, cl, alternative)
    u1, u2 = (s1 / c) ** 2 / k1, (s2 / c) ** 2 / k2
    se = c * math.sqrt(u1 + u2)
    res = stats.ttest_ind_from_stats(
        (m1 - m2) / c, s1 / c, k1, 0.0, s2 / c, k2, equal_var=False, alternative=alternative
    )
    # Welch–Satterthwaite (v1 + v2)² / (v1²/(n1−1) + v2²/(n2−1)), with the shares v / (v1 + v2)
    w1, w2 = u1 / (u1 + u2), u2 / (u1 + u2)
    df = 1.0 / (w1 * w1 / (k1 - 1) + w2 * w2 / (k2 - 1))
    q = float(stats.t.ppf(0.5 + cl / 2.0, df))
    return SummaryWelch(
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        df=float(df),
        estimate=diff,
        relative=rel,
        ci_low=diff - q * se,
        ci_high=diff + q * se,
        confidence_level=cl,
        alternative=alternative,
    )


# ------------------------------------------------------------- minimum detectable effect
@result
class MinimumDetectableEffect(Result):
    """Smallest true difference a two-sample t-test detects with the given power.

    Attributes
    ----------
    estimate : float
        The minimum detectable difference, in the unit of ``sd``.
    relative : float or None
        ``estimate / mean`` when ``mean`` was given.
    effect_size : float
        The same as Cohen's d (difference over ``sd``).
    n : int
        Samples per group.
    alpha, power : float
    """

    estimate: float
    relative: float | None
    effect_size: float
    n: int
    alpha: float
    power: float


def _t_test_power(d: float, n: int, alpha: float) -> float:
    """Power of the two-sided two-sample t-test (n per group) at effect size ``d``.

    ``P(|T'| > t_{1−α/2, 2n−2})`` with ``T'`` noncentral t, ``nc = d √(n/2)``; scipy's
    ``nct`` gives NaN far in the tail for few degrees of freedom, and then the same
    probability is integrated over the chi-square variable of the t ratio.
    """
    df = 2 * n - 2
    nc = d * math.sqrt(n / 2.0)
    t = float(stats.t.isf(alpha / 2.0, df))
    p = float(stats.nct.sf(t, df, nc) + stats.nct.cdf(-t, df, nc))
    if math.isfinite(p):
        return p

    def integrand(v: float) -> float:
        s = t * math.sqrt(v / df)
        return float((stats.norm.sf(s - nc) + stats.norm.cdf(-s - nc)) * stats.chi2.pdf(v, df))

    lo, mid, hi = (float(v) for v in stats.chi2.ppf([1e-14, 0.5, 1.0 - 1e-14], df))
    total = integrate.quad(integrand, lo, hi, points=[mid], epsabs=1e-13, limit=200)[0]
    return min(1.0, max(0.0, float(total)))


@functools.lru_cache(maxsize=256)
def _effect_size(n: int, alpha: float, power: float) -> float:
    """Cohen's d detectable by a two-sided two-sample t-test (cached: audits repeat n).

    Root of ``power(d) = target`` by ``scipy.optimize.brentq`` on a bracket grown until it
    holds the root (statsmodels' ``solve_power`` can stop at a wrong value for tiny n and
    α, and returns NaN powers there).
    """

    def gap(d: float) -> float:
        return _t_test_power(d, n, alpha) - power

    lo, hi = 0.0, 1.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2.0
    return float(optimize.brentq(gap, lo, hi, xtol=1e-12, rtol=1e-12))


def minimum_detectable_effect(
    sd: float,
    n: int,
    *,
    mean: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> MinimumDetectableEffect:
    """Minimum detectable effect of comparing two runs of ``n`` samples with sd ``sd``.

    Parameters
    ----------
    sd : float
        Sample standard deviation (> 0) of one run (assumed the same in both).
    n : int
        Independent samples per run (>= 2).
    mean : float, optional
        Typical value, to report the effect relative to it.
    alpha : float, default 0.05
        Two-sided significance level.
    power : float, default 0.8
        Probability of detecting the effect.

    Returns
    -------
    MinimumDetectableEffect

    Notes
    -----
    Solves the noncentral-t power equation of the two-sample t-test for the effect
    size d (the power function of ``statsmodels.stats.power.TTestIndPower``, computed
    with scipy and solved by ``brentq``), then
    ``MDE = d · sd``. For large n this approaches ``(z_{1−α/2} + z_{power}) · sd · √(2/n)``.
    Independent samples assumed: autocorrelation makes the true MDE larger.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-E, sample sizes needed for a given precision.
       https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences (2nd
       ed.). Lawrence Erlbaum.
    """
    s = _num(sd, "sd", low=0.0, strict=True)
    k = _count(n, "n", 2)
    a = check_confidence_level(alpha, "alpha")
    pw = check_confidence_level(power, "power")
    m = None if mean is None else _num(mean, "mean")
    d = _effect_size(k, a, pw)
    est = d * s
    return MinimumDetectableEffect(
        estimate=est,
        relative=None if m in (None, 0.0) else est / abs(m),  # type: ignore[operator]
        effect_size=d,
        n=k,
        alpha=a,
        power=pw,
    )


# ------------------------------------------------------------------- CI consistency
@result
class CIConsistency(Result):
    """Is a claimed CI consistent with the reported sd and n?

    Attributes
    ----------
    expected_half_width : float
        ``t_{n−1, (1+level)/2} · sd / √n``.
    claimed_half_width : float
        Half of ``ci_high − ci_low``.
    ratio : float
        ``claimed / expected`` (1 = consistent; < 1 claims more precision than sd and n
        support).
    implied_sd : float
        The sd that would give the claimed width.
    contains_location : bool
        Whether the claimed CI contains the reported location.
    consistent : bool
        ``ratio`` within ``[1/(1+rtol), 1+rtol]`` and the location inside.
    warnings : tuple of Finding
        ``"ci-too-narrow"``, ``"ci-too-wide"``, ``"ci-excludes-location"``.
    """

    expected_half_width: float
    claimed_half_width: float
    ratio: float
    implied_sd: float
    contains_location: bool
    consistent: bool
    confidence_level: float
    warnings: tuple[Finding, ...] = ()


def ci_consistency(
    location: float,
    sd: float,
    n: int,
    ci_low: float,
    ci_high: float,
    *,
    confidence_level: float = 0.95,
    rtol: float = 0.25,
    unit: str | None = None,
) -> CIConsistency:
    """Check a claimed CI against the t-interval that ``sd`` and ``n`` imply.

    Parameters
    ----------
    location : float
        The reported location (mean, median, ...).
    sd : float
        Reported sample sd (>= 0).
    n : int
        Reported number of samples (>= 2).
    ci_low, ci_high : float
        The claimed interval, ``ci_low <= ci_high``.
    confidence_level : float, default 0.95
        The claimed interval's level.
    rtol : float, default 0.25
        Tolerated relative disagreement of the widths (other CI methods -- bootstrap,
        order statistics of the median -- differ from the t-interval by that much).
    unit : str, optional
        Time unit of the numbers (a name :func:`tsanalyze._units.parse_unit` reads), for
        the widths and bounds the findings quote; None (default) quotes them bare.

    Returns
    -------
    CIConsistency

    Notes
    -----
    Expected half-width ``h = t_{n−1,(1+γ)/2} s/√n`` (independent samples). A claimed
    half-width below ``h/(1+rtol)`` claims more precision than the data support (serious
    when below ``h/2``); one above ``h(1+rtol)`` is reported as info (conservative or
    accounting for autocorrelation). ``implied_sd = claimed · √n / t``.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016, §I: a
       published number needs its CI and at least 20 samples.
       https://doi.org/10.1109/MASCOTS.2016.31
    """
    loc = _num(location, "location")
    s = _num(sd, "sd", low=0.0)
    k = _count(n, "n", 2)
    lo = _num(ci_low, "ci_low")
    hi = _num(ci_high, "ci_high")
    if hi < lo:
        raise InvalidArgumentError(f"ci_high: must be >= ci_low ({lo!r}), got {ci_high!r}")
    cl = check_confidence_level(confidence_level)
    tol = _num(rtol, "rtol", low=0.0)
    check_unit(unit)
    q = float(stats.t.ppf(0.5 + cl / 2.0, k - 1))
    expected = q * s / math.sqrt(k)
    claimed = (hi - lo) / 2.0
    ratio = claimed / expected if expected > 0 else (1.0 if claimed == 0 else math.inf)
    contains = lo <= loc <= hi
    warnings: list[Finding] = []
    if ratio < 1.0 / (1.0 + tol):
        warnings.append(
            Finding(
                "ci-too-narrow",
                f"claimed {100 * cl:g}% CI half-width {quote_time(claimed, unit)} is "
                f"{ratio:.2f} x the {quote_time(expected, unit)} that sd "
                f"{quote_time(s, unit)} and n {k} imply",
                "serious" if ratio < 0.5 else "warning",
            )
        )
    elif ratio > 1.0 + tol:
        warnings.append(
            Finding(
                "ci-too-wide",
                f"claimed {100 * cl:g}% CI half-width {quote_time(claimed, unit)} is "
                f"{ratio:.2f} x the {quote_time(expected, unit)} that sd and n imply "
                "(conservative, or another method)",
                "info",
            )
        )
    if not contains:
        warnings.append(
            Finding(
                "ci-excludes-location",
                f"claimed CI [{quote_time(lo, unit)}, {quote_time(hi, unit)}] does not "
                f"contain the location {quote_time(loc, unit)}",
                "serious",
            )
        )
    return CIConsistency(
        expected_half_width=expected,
        claimed_half_width=claimed,
        ratio=ratio,
        implied_sd=claimed * math.sqrt(k) / q,
        contains_location=contains,
        consistent=not any(w.severity != "info" for w in warnings),
        confidence_level=cl,
        warnings=tuple(warnings),
    )


def ci_overlap(ci_low1: float, ci_high1: float, ci_low2: float, ci_high2: float) -> bool:
    """Whether two closed intervals overlap (Pilot's first comparison step).

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-F. https://doi.org/10.1109/MASCOTS.2016.31
    """
    return max(ci_low1, ci_low2) <= min(ci_high1, ci_high2)
