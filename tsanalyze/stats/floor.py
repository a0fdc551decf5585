"""The floor of the run time: an interval for the lower endpoint from the fastest samples.

The minimum of a series does not estimate a typical time. Under the delay model of
Chen & Revels (noise only ever adds time) it estimates the *floor* ``theta``: the time the
code takes when nothing delays it, the lower endpoint of the distribution of the times.
The floor lies at or below every sample, so an interval whose lower end is the sample
minimum (the percentile bootstrap of the minimum) never contains it when the floor is
approached continuously. :func:`floor_interval` instead bounds the floor from below by
extreme-value theory on the ``k`` smallest samples.

Near a finite lower endpoint, ``P(X <= theta + x) ~ (x / sigma)^alpha`` (the Weibull
domain of attraction for minima; ``alpha = 1`` when the density is positive at the floor,
``alpha = 2`` when it starts linearly, like a gamma(2)). The ``k`` smallest of ``n``
samples then behave like ``theta + sigma (Gamma_i / n)^(1/alpha)``, ``Gamma_i`` the
arrival times of a unit Poisson process (Weissman 1978; Hall 1982). Given ``alpha``, the
model is a location-scale family in ``(theta, sigma)``, and the pivot
``t = (X_(1) - theta) / (X_(k) - X_(1))`` has a distribution that depends on ``alpha``
and on the configuration of the ``k`` smallest only. Its conditional distribution given
that configuration (Fisher-Fraser conditional inference, equivalently the posterior under
the right-invariant prior ``d theta d sigma / sigma``) has the closed form

    p(t | alpha) ~ alpha^(k-1) prod_{i<k} (R_i + t)^(alpha - 1) (1 + t)^-(alpha (k-1) + 1),

``R_i = (X_(i) - X_(1)) / (X_(k) - X_(1))``, and gives exact conditional coverage when
``alpha`` is known. ``alpha`` is not known: it is integrated out under a flat prior on the
extreme-value index ``-1/alpha`` (``alpha`` between 0.25 and 30), which kept the coverage
of the one-sided 95% bound between 94% and 97% on exact Weibull-domain tails with alpha
from 0.5 to 5, and between 93.8% and 95.2% on Pareto, exponential and gamma(2) lower tails
(n = 200 and 2000, 600 series each). The
interval is ``[X_(1) - t_q (X_(k) - X_(1)), X_(1)]``, ``t_q`` the level quantile of ``t``:
its upper end is the sample minimum, since the floor can be no higher.
"""

from __future__ import annotations

import math

import numpy as np

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._units import check_unit, quote_time
from tsanalyze._validation import as_series_array, check_confidence_level
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.ticks import TickArg, resolve_tick

__all__ = [
    "FLOOR_MIN_SAMPLES",
    "FloorInterval",
    "floor_interval",
    "floor_ratio_ci",
    "tail_size",
]

#: fewer samples than this: the interval is given but flagged serious (too few to say)
FLOOR_MIN_SAMPLES = 20
#: fewer than this: no interval at all
_FLOOR_MIN_K = 5
#: most order statistics used (the cost grows with k; the bias does too)
_K_MAX = 1000
#: a posterior probability above 1/2 that the tail index exceeds this: no floor is visible
STEEP_ALPHA_SERIOUS = 8.0
#: a posterior median tail index above this: warning (a steep tail looks like no floor)
STEEP_ALPHA_WARNING = 3.0

# integration grids: t = (X_(1) - theta) / (X_(k) - X_(1)) on a log scale, alpha on a log
# scale; the flat prior on -1/alpha is alpha^-2 d alpha = alpha^-1 d log alpha
_LOG_T = np.linspace(math.log(1e-12), math.log(1e4), 800)
_T = np.exp(_LOG_T)
_LOG1P_T = np.log1p(_T)
_LOG_ALPHA = np.linspace(math.log(0.25), math.log(30.0), 64)
_ALPHA = np.exp(_LOG_ALPHA)


@result
class FloorInterval(Result):
    """Interval for the floor (lower endpoint) of the run time.

    Attributes
    ----------
    estimate : float
        The sample minimum.
    ci_low, ci_high : float
        The interval: ``ci_high`` is the sample minimum (plus half a tick on a grid), the
        floor can be no higher; ``ci_low`` bounds the floor from below.
    confidence_level : float
    method : {"floor-endpoint", "floor-hit", "none"}
        ``floor-hit``: the minimum occurs more than once (an atom at the floor, or the
        floor's grid cell reached repeatedly); ``floor-endpoint``: extrapolated from
        the fastest samples.
    n : int
        Samples (block minima when ``block > 1``).
    k : int
        Order statistics used.
    block : int
        Samples per block (1: the samples themselves).
    n_at_minimum : int
        How often the minimum value occurs.
    tick : float
        Grid step accounted for (0: exact values).
    tail_index : float
        Posterior median of ``alpha`` (1: density positive at the floor; larger: the
        density falls to 0 there). NaN when not fitted.
    p_steep : float
        Posterior probability that ``alpha`` exceeds 8 (no floor visible).
    extrapolation : float
        ``(X_(1) - ci_low) / (X_(k) - X_(1))``: how far below the minimum the lower end
        reaches, in units of the spread of the ``k`` smallest.
    distance : float
        ``estimate - ci_low``: the interval's width below the minimum.
    warnings : tuple of Finding
    """

    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    method: str
    n: int
    k: int
    block: int
    n_at_minimum: int
    tick: float
    tail_index: float
    p_steep: float
    extrapolation: float
    distance: float
    warnings: tuple[Finding, ...] = ()


def tail_size(n: int) -> int:
    """Order statistics used for ``n`` samples: ``round(2 sqrt(n))``, at least 5 (or n),
    at most 1000. ``k / n -> 0`` keeps the Weibull-tail approximation's bias small (on a
    gamma(2) tail, ``n / 10`` order statistics covered 88.5% at n = 2000)."""
    return int(min(n, max(_FLOOR_MIN_K, min(_K_MAX, round(2.0 * math.sqrt(n))))))


def _smallest(a: Float64Array, k: int) -> Float64Array:
    if k >= a.size:
        return np.sort(a)
    return np.sort(np.partition(a, k - 1)[:k])


def _spread_ties(low: Float64Array, a: Float64Array, half: float) -> Float64Array:
    """Spread the values of each grid cell evenly over the cell (the expected positions
    of uniformly placed points), for the smallest values ``low`` of ``a``."""
    vals, start, counts = np.unique(low, return_index=True, return_counts=True)
    counts = counts.astype(np.float64)
    # the last cell may hold more values of the whole sample than of ``low``
    counts[-1] = float(np.count_nonzero(a == vals[-1]))
    group = np.repeat(np.arange(vals.size), np.diff(np.append(start, low.size)))
    rank = np.arange(low.size) - start[group]
    return low - half + 2.0 * half * (rank + 0.5) / counts[group]


def _posterior_t(r: Float64Array, level: float) -> tuple[float, float, float]:
    """Quantile ``level`` of the pivot t, posterior median of alpha and P(alpha > 8)."""
    k = r.size
    s = np.log(r[:-1][None, :] + _T[:, None]).sum(axis=1)  # sum_{i<k} log(R_i + t)
    lp = (
        (_ALPHA[None, :] - 1.0) * s[:, None]
        - (_ALPHA[None, :] * (k - 1) + 1.0) * _LOG1P_T[:, None]
        + (k - 2) * _LOG_ALPHA[None, :]
        + _LOG_T[:, None]
    )
    w = np.exp(lp - lp.max())
    pt = w.sum(axis=1)
    cdf = np.cumsum(pt)
    cdf /= cdf[-1]
    tq = float(np.exp(np.interp(level, cdf, _LOG_T)))
    pa = w.sum(axis=0)
    pa /= pa.sum()
    ca = np.cumsum(pa)
    med = float(_ALPHA[min(int(np.searchsorted(ca, 0.5)), _ALPHA.size - 1)])
    steep = float(pa[_ALPHA > STEEP_ALPHA_SERIOUS].sum())
    return tq, med, steep


def _hit_gap(count: int, beta: float) -> float:
    """How far (in ticks) below the minimum's cell the floor can be when that cell holds
    ``count`` samples and none lies below it.

    With the floor ``d`` ticks under a cell of one tick and ``P(X <= floor + x) ~ x^2``
    (a density growing no faster than linearly from the floor, tail index <= 2), the
    expected count under the cell is ``r = d^2 / (2 d + 1)`` times the cell's; given
    ``count`` samples in the two, none falls under the cell with probability
    ``(1 + r)^-count``. The largest ``d`` with that probability at least ``beta`` solves
    ``r = beta^(-1/count) - 1``: ``d = r + sqrt(r^2 + r)`` (0.9 ticks for 12 samples, 7.4
    for 2).
    """
    r = beta ** (-1.0 / count) - 1.0
    return r + math.sqrt(r * r + r)


def _block_minima(a: Float64Array, block: int) -> Float64Array:
    m = a.size // block
    head = a[: m * block].reshape(m, block).min(axis=1)
    return head if m * block == a.size else np.append(head, a[m * block :].min())


def floor_interval(
    x: ArrayLike,
    *,
    confidence_level: float = 0.95,
    tick: TickArg = None,
    k: int | None = None,
    block: int = 1,
    unit: str | None = None,
) -> FloorInterval:
    """One-sided interval for the floor of the run time (the lower endpoint).

    Parameters
    ----------
    x : array_like
        Per-evaluation times of one series.
    confidence_level : float, default 0.95
        Probability that ``ci_low`` is at or below the floor.
    tick : float, "auto" or None, default None
        Grid step of the values (timer resolution per evaluation); ``"auto"`` detects it,
        None takes the values as exact.
    k : int, optional
        Order statistics used (default :func:`tail_size`).
    block : int, default 1
        Use the minima of consecutive blocks of this many samples (dependent samples:
        the fastest samples then come from different blocks).
    unit : str, optional
        Unit of ``x`` (a name :func:`tsanalyze._units.parse_unit` reads), for the tick and
        the gap the findings quote; None (default) quotes them as bare numbers.

    Returns
    -------
    FloorInterval

    Notes
    -----
    *Floor hit.* When the smallest value occurs more than once on exact values, the
    distribution has an atom there (the delay model's evaluations with no delay): the
    floor is that value and the interval is the point. On a grid of step ``tick`` a
    recorded time stands for a true time up to a tick either side of it (a clock that
    counts ticks reads the start and the end each up to a tick late); when the minimum
    repeats, the floor's cell has been reached repeatedly and the interval is the minimum
    ± one tick, extended below by the gap :func:`_hit_gap` allows for a floor just under
    the cell that none of the ``c`` hits reached (0.9 ticks for 12 hits, 7.4 for 2). A
    lone minimum one tick under a cell of two or more is a hit too (a counting clock
    records a time at the floor in one of two neighbouring cells).

    *Endpoint.* Otherwise the ``k`` smallest values (spread evenly over their cells on a
    grid) give ``[X_(1) - t_q (X_(k) - X_(1)), X_(1)]`` with ``t_q`` from the posterior
    of the pivot (module docstring); on a grid the upper end is raised by a tick and the
    lower end reaches at least a tick under the minimum.

    Findings: ``floor-too-few`` (serious) below 20 samples; ``floor-not-located``
    (serious) when the posterior puts more than half its mass on a tail index above 8
    (a tail so steep that it cannot be told from one without a floor: the lower tail of a
    Gaussian, or a rare fast path far below the rest); ``floor-steep-tail`` (warning)
    when the tail index is above 3; ``floor-hit`` (info).

    Measured coverage of the 95% bound (``tests/stats/test_floor.py``, 600 series each)
    on continuous floors: Pareto(2.5), exponential and gamma(2) lower tails 93.8-95.2% at
    n = 200 and 2000, none flagged; the interval reaches about 4 times the sample
    minimum's distance to the floor below the minimum at n = 2000 and about 8 times at
    n = 200 (means). On a grid the floor-hit interval held the floor in every series.

    References
    ----------
    Hall, P. (1982). On estimating the endpoint of a distribution. Annals of Statistics
    10(2), 556-568. doi:10.1214/aos/1176345796.
    Weissman, I. (1981). Confidence intervals for the threshold parameter.
    Communications in Statistics - Theory and Methods 10(6), 549-557.
    Weissman, I. (1978). Estimation of parameters and large quantiles based on the k
    largest observations. JASA 73, 812-815. doi:10.1080/01621459.1978.10480104.
    de Haan, L. (1981). Estimation of the minimum of a function using order statistics.
    JASA 76, 467-469. doi:10.1080/01621459.1981.10477669.
    Fraser, D. A. S. (1968). The Structure of Inference. Wiley (conditional inference in
    location-scale models).
    Loh, W.-Y. (1984). Estimating an endpoint of a distribution with resampling methods.
    Annals of Statistics 12(4), 1543-1550. doi:10.1214/aos/1176346811 (why the bootstrap of
    the minimum fails).
    Chen, J., Revels, J. (2016). Robust benchmarking in noisy environments. IEEE HPEC
    (arXiv:1608.04295): the minimum as the estimator of the delay-free time.
    """
    a = as_series_array(x, "x", min_size=1)
    cl = check_confidence_level(confidence_level)
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise InvalidArgumentError(f"block: must be an integer >= 1, got {block!r}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 3):
        raise InvalidArgumentError(f"k: must be an integer >= 3, got {k!r}")
    check_unit(unit)
    t = resolve_tick(a, tick)
    half = 0.5 * t.tick
    if block > 1:
        a = _block_minima(a, int(block))
    n = a.size
    kk = tail_size(n) if k is None else min(int(k), n)
    low = _smallest(a, kk)
    x1 = float(low[0])
    c1 = int(np.count_nonzero(a == x1))
    found: list[Finding] = []

    def out(lo: float, hi: float, method: str, **kw: float) -> FloorInterval:
        fields: dict[str, float] = {
            "tail_index": math.nan,
            "p_steep": math.nan,
            "extrapolation": math.nan,
        }
        fields.update(kw)
        return FloorInterval(
            estimate=x1, ci_low=float(lo), ci_high=float(hi), confidence_level=cl, method=method,
            n=n, k=kk, block=int(block), n_at_minimum=c1, tick=t.tick, distance=x1 - float(lo),
            warnings=tuple(found), **fields,
        )  # fmt: skip

    if n < FLOOR_MIN_SAMPLES:
        found.append(
            Finding(
                "floor-too-few",
                f"{n} samples are too few to locate the floor of the run time from the "
                "fastest ones; the minimum's interval cannot be trusted",
                "serious",
            )
        )
    # a clock counting ticks records a time at the floor in one of two neighbouring cells,
    # so a lone minimum a tick under a crowded cell is a hit too (cells of two ticks)
    c2 = int(np.count_nonzero(a == x1 + t.tick)) if half > 0 and c1 == 1 else 0
    if c1 >= 2 or c2 >= 2:
        # the floor is hit: an atom of the distribution (the delay model's evaluations
        # that nothing delayed), or on a grid the floor's cell reached again and again
        if half == 0.0:
            found.append(
                Finding(
                    "floor-hit",
                    f"the minimum occurs {c1} times: the floor is hit (an atom of the "
                    "distribution); its interval is that value",
                    "info",
                )
            )
            return out(x1, x1, "floor-hit")
        count, cells = (c1, 1) if c1 >= 2 else (1 + c2, 2)
        gap = _hit_gap(count, 1.0 - cl) * cells * t.tick
        what = f"occurs {c1} times" if c1 >= 2 else f"has {c2} samples a tick above it"
        found.append(
            Finding(
                "floor-hit",
                f"the minimum {what} on a grid of {quote_time(t.tick, unit)}: the floor's cell "
                f"is hit; its interval is that value ± one tick, extended "
                f"{quote_time(gap, unit, digits=3)} below for a floor just under the cell that "
                "no sample reached",
                "info",
            )
        )
        return out(x1 - t.tick - gap, x1 + t.tick, "floor-hit")
    if kk < _FLOOR_MIN_K:
        found.append(
            Finding("floor-too-few", f"{n} sample(s): no interval for the floor", "serious")
        )
        return out(math.nan, math.nan, "none")
    y = _spread_ties(low, a, t.tick) if half > 0 else low
    span = float(y[-1] - y[0])
    if span <= 0.0:  # pragma: no cover - k equal values are a floor hit (handled above)
        return out(x1 - t.tick, x1 + t.tick, "floor-hit")
    tq, alpha, steep = _posterior_t((y - y[0]) / span, cl)
    # a clock that counts ticks records a time with up to a whole tick of error either
    # way (start and end each read late by up to a tick); the floor is an edge, so the
    # interval takes the whole tick: the floor can be a tick above the recorded minimum
    lo = float(y[0]) - tq * span
    hi = x1 + t.tick
    if half > 0:
        lo = min(lo, x1 - t.tick)
    method = "floor-endpoint"
    # on a grid, a lower end within two ticks of the minimum locates the floor as well as
    # the clock allows, whatever the shape of a tail a few cells long
    located = t.tick > 0 and x1 - lo <= 2.0 * t.tick
    if located:
        pass
    elif steep > 0.5:
        found.append(
            Finding(
                "floor-not-located",
                f"the fastest {kk} samples show no floor: their spacing fits a tail index "
                f"above {STEEP_ALPHA_SERIOUS:g} (posterior probability {steep:.0%}), as the "
                "lower tail of a Gaussian (no floor) or a rare fast path far below the rest "
                "does; the minimum's interval cannot be trusted, prefer the median",
                "serious",
            )
        )
    elif alpha > STEEP_ALPHA_WARNING:
        found.append(
            Finding(
                "floor-steep-tail",
                f"the density of the times falls steeply toward the floor (tail index about "
                f"{alpha:.2g}): such a tail is hard to tell from one without a floor, and "
                "the interval assumes there is one",
                "warning",
            )
        )
    return out(
        lo, hi, method, tail_index=alpha, p_steep=steep,
        extrapolation=(x1 - lo) / span if span > 0 else math.nan,
    )  # fmt: skip


def floor_ratio_ci(
    x: ArrayLike,
    y: ArrayLike,
    *,
    confidence_level: float = 0.95,
    tick_x: TickArg = None,
    tick_y: TickArg = None,
    block_x: int = 1,
    block_y: int = 1,
    unit: str | None = None,
) -> tuple[float, float, list[Finding]]:
    """Interval of the ratio of floors ``theta_y / theta_x`` (candidate / baseline).

    Each floor gets a one-sided interval at level ``1 - (1 - confidence_level) / 2``
    (:func:`floor_interval`; Bonferroni, so both hold together with probability at least
    ``confidence_level``), and the ratio lies in ``[low_y / high_x, high_y / low_x]``.
    ``unit`` is the unit of ``x`` and ``y``, for the findings (see :func:`floor_interval`).

    Returns
    -------
    (low, high, findings)
        ``high`` is inf when the baseline's lower bound is not positive.
    """
    level = 1.0 - (1.0 - check_confidence_level(confidence_level)) / 2.0
    fx = floor_interval(x, confidence_level=level, tick=tick_x, block=block_x, unit=unit)
    fy = floor_interval(y, confidence_level=level, tick=tick_y, block=block_y, unit=unit)
    findings = list(fx.warnings) + list(fy.warnings)
    if not (fx.ci_high > 0 and math.isfinite(fx.ci_low + fy.ci_low)):
        return math.nan, math.nan, findings
    lo = max(fy.ci_low, 0.0) / fx.ci_high
    hi = fy.ci_high / fx.ci_low if fx.ci_low > 0 else math.inf
    return lo, hi, findings
