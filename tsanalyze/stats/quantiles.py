"""Distribution-free confidence intervals for quantiles from order statistics.

The number of samples below the population q-quantile is Binomial(n, q), so the interval
between two order statistics covers that quantile with a probability that depends on
nothing but n and q. benchstat reports the median this way; we reproduce its ranks
exactly (exact binomial up to n = 30, normal approximation with continuity correction
above) and extend it to dependent samples through an effective sample size.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
from scipy.stats import binom, norm

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike
from tsanalyze._validation import as_series_array, check_confidence_level
from tsanalyze.errors import InvalidArgumentError

__all__ = [
    "OrderStatisticRanks", "QuantileCI", "min_samples_for_ci", "order_statistic_ranks", "quantile_ci",
]  # fmt: skip

#: up to this n the exact binomial search is used, above it the normal approximation
#: (go-moremath's ``quantileCIApproxThreshold``, which benchstat uses)
_EXACT_MAX_N = 30


@dataclasses.dataclass(frozen=True, slots=True)
class OrderStatisticRanks:
    """1-based orders (lo_order, hi_order) bounding a quantile CI, as benchstat computes.

    ``lo_order < 1`` means the lower bound is -inf, ``hi_order > n`` that the upper bound
    is +inf (too few samples for the level). ``confidence`` is the interval's actual
    coverage (>= the requested level); ``ambiguous`` marks ties in the choice.
    """

    n: int
    quantile: float
    lo_order: int
    hi_order: int
    confidence: float
    ambiguous: bool


def order_statistic_ranks(n: int, q: float, confidence_level: float) -> OrderStatisticRanks:
    """Orders of the distribution-free CI of the q-quantile in a sample of n.

    Parameters
    ----------
    n : int
        Sample size (>= 1).
    q : float
        Quantile in [0, 1].
    confidence_level : float

    Returns
    -------
    OrderStatisticRanks

    Notes
    -----
    The number of samples below the q-quantile is K ~ Binomial(n, q); the population
    quantile lies between order statistics X_(l) and X_(r) (1-based) when l <= K < r.
    For n <= 30 (exact): start at the lower mode ceil((n + 1) q) - 1 and add the
    neighbouring binomial probabilities, always the larger one (the left one on ties),
    until the sum reaches the level. Above 30: normal approximation N(nq, nq(1-q)),
    bounds rounded out to half-integers (continuity correction), then a left-biased
    interval one order shorter is taken if it still reaches the level. This is the
    algorithm of go-moremath ``stats.QuantileCI`` used by benchstat
    (golang.org/x/perf/benchmath), re-implemented here.

    References
    ----------
    benchstat / go-moremath ``QuantileCI`` (BSD-3-Clause, The Go Authors).
    David, H. A., Nagaraja, H. N. (2003), Order Statistics, 3rd ed., §7.1.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidArgumentError(f"n: must be an integer >= 1, got {n!r}")
    if not 0.0 <= q <= 1.0:
        raise InvalidArgumentError(f"q: must be in [0, 1], got {q!r}")
    cl = check_confidence_level(confidence_level)
    return _ranks(int(n), float(q), float(cl))


@functools.lru_cache(maxsize=1024)
def _ranks(n: int, q: float, cl: float) -> OrderStatisticRanks:
    """:func:`order_statistic_ranks` of checked arguments, kept: a report asks for the
    same few (n, q, level) in most of its series (scipy's distributions cost ~0.1 ms a
    call; issue 24). The result is frozen, so sharing it is safe."""
    ambiguous = False
    if n <= _EXACT_MAX_N:
        x = 0 if q == 0 else int(math.ceil((n + 1) * q) - 1)
        pmf = binom(n, q).pmf
        accum = float(pmf(x))
        lo, hi = x, x + 1
        lp, rp = float(pmf(lo - 1)), float(pmf(hi))
        ambiguous = rp == accum
        while accum < cl and (lp > 0 or rp > 0):
            ambiguous = lp == rp
            if lp >= rp:
                accum += lp
                lo -= 1
                lp = float(pmf(lo - 1))
            else:
                accum += rp
                hi += 1
                rp = float(pmf(hi))
        conf = accum
    else:
        mu = n * q
        sd = math.sqrt(n * q * (1 - q))
        alpha = (1 - cl) / 2
        l1 = float(norm.ppf(alpha, mu, sd)) if sd > 0 else mu
        r1 = 2 * mu - l1
        lo = math.floor(math.floor(l1 - 0.5) + 0.5) + 1
        hi = math.floor(math.ceil(r1 - 0.5) + 0.5) + 1

        def cdf(a: int, b: int) -> float:
            if sd == 0:
                return 1.0
            return float(norm.cdf(b - 0.5, mu, sd) - norm.cdf(a - 0.5, mu, sd))

        conf = cdf(lo, hi)
        biased = cdf(lo, hi - 1)
        if cl <= biased < conf:
            conf, ambiguous = biased, True
            hi -= 1
        if lo <= 0 and hi >= n + 1:
            conf, ambiguous = 1.0, False
    lo = max(lo, 0)
    hi = min(hi, n + 1)
    return OrderStatisticRanks(n, float(q), lo, hi, float(conf), bool(ambiguous))


@result
class QuantileCI(Result):
    """Order-statistic confidence interval of a quantile.

    Attributes
    ----------
    quantile : float
    estimate : float
        Sample quantile (numpy's linear interpolation; the usual median).
    ci_low, ci_high : float
        Order statistics bounding the interval (±inf when the sample is too small).
    confidence_level : float
        Requested level.
    achieved_confidence : float
        Actual binomial coverage of the chosen orders (>= requested), for n_eff.
    lo_order, hi_order : int
        1-based orders in the sample (after mapping from n_eff to n).
    n : int
    effective_sample_size : float
        Sample size the binomial used (n for independent samples).
    relative_halfwidth : float
        benchstat's "±": max(ci_high / estimate - 1, 1 - ci_low / estimate).
    warnings : tuple of Finding
    """

    quantile: float
    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    achieved_confidence: float
    lo_order: int
    hi_order: int
    n: int
    effective_sample_size: float
    relative_halfwidth: float
    warnings: tuple[Finding, ...] = ()


def quantile_ci(
    x: ArrayLike,
    q: float = 0.5,
    *,
    confidence_level: float = 0.95,
    effective_sample_size: float | None = None,
) -> QuantileCI:
    """Distribution-free CI of the q-quantile from two order statistics.

    Parameters
    ----------
    x : array_like
        Samples (at least 1).
    q : float, default 0.5
        Quantile (0.5 = median).
    confidence_level : float, default 0.95
    effective_sample_size : float, optional
        Effective number of independent samples when samples are dependent (e.g.
        ``n / tau`` of the indicator series 1{x <= quantile}); default n.

    Returns
    -------
    QuantileCI

    Notes
    -----
    With n_eff = n this is exactly benchstat's interval (see
    :func:`order_statistic_ranks`). With n_eff < n the orders are found for round(n_eff)
    and mapped to the sample by scaling their position: l -> floor(l (n + 1) /
    (n_eff + 1)), r -> ceil(r (n + 1) / (n_eff + 1)); this widens the interval by
    sqrt(n / n_eff) on the rank scale, as the long-run variance of the indicator series
    requires (the CLT for sample quantiles of mixing sequences).

    References
    ----------
    .. [1] benchstat (golang.org/x/perf/benchmath, ``AssumeNothing.Summary``).
    .. [2] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016, §III-D
       (dependence, subsessions). https://doi.org/10.1109/MASCOTS.2016.31
    """
    a = as_series_array(x, "x", min_size=1)
    if not 0.0 <= q <= 1.0:
        raise InvalidArgumentError(f"q: must be in [0, 1], got {q!r}")
    cl = check_confidence_level(confidence_level)
    n = a.size
    neff = float(n) if effective_sample_size is None else float(effective_sample_size)
    if not (math.isfinite(neff) and neff > 0):
        raise InvalidArgumentError(
            f"effective_sample_size: must be a positive number, got {effective_sample_size!r}"
        )
    neff = min(neff, float(n))
    m = max(1, round(neff))
    ranks = order_statistic_ranks(m, q, cl)
    lo, hi = ranks.lo_order, ranks.hi_order
    if m < n:
        lo = math.floor(lo * (n + 1) / (m + 1)) if lo >= 1 else 0
        hi = math.ceil(hi * (n + 1) / (m + 1)) if hi <= m else n + 1
        lo = max(lo, 0)
        hi = min(hi, n + 1)
        if 1 <= lo and hi <= n and hi <= lo:
            hi = lo + 1
    kth = [k - 1 for k in (lo, hi) if 1 <= k <= n]
    part = np.partition(a, kth) if kth else a
    ci_low = float(part[lo - 1]) if lo >= 1 else -math.inf
    ci_high = float(part[hi - 1]) if hi <= n else math.inf
    est = float(np.quantile(a, q))
    found: list[Finding] = []
    if not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        need = min_samples_for_ci(q, cl)
        found.append(
            Finding(
                "ci-unbounded",
                f"too few samples for a {cl:.0%} interval of the {q:g}-quantile "
                + (f"(need >= {need} independent samples)" if need else "(need > 50)"),
                "warning",
            )
        )
    if est != 0 and math.isfinite(ci_low) and math.isfinite(ci_high):
        if np.sign(ci_low) == np.sign(est) == np.sign(ci_high):
            rel = max(ci_high / est - 1.0, 1.0 - ci_low / est)
        else:
            rel = math.nan
    elif est == 0 and ci_low == 0 and ci_high == 0:
        rel = 0.0
    else:
        rel = math.inf if not (math.isfinite(ci_low) and math.isfinite(ci_high)) else math.nan
    return QuantileCI(
        quantile=float(q),
        estimate=est,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence_level=cl,
        achieved_confidence=ranks.confidence,
        lo_order=lo,
        hi_order=hi,
        n=n,
        effective_sample_size=neff,
        relative_halfwidth=float(rel),
        warnings=tuple(found),
    )


def _finite(r: OrderStatisticRanks) -> bool:
    return r.lo_order >= 1 and r.hi_order <= r.n


def min_samples_for_ci(q: float, confidence_level: float, limit: int = 50) -> int | None:
    """Fewest independent samples whose order statistics bound the ``q``-quantile on both
    sides at ``confidence_level`` (:func:`order_statistic_ranks`); None above ``limit``."""
    return next(
        (k for k in range(2, limit + 1) if _finite(order_statistic_ranks(k, q, confidence_level))),
        None,
    )
