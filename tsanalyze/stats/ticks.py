"""Intervals that respect the timer's tick: what rounding to a grid can hide.

A coarse clock records every time on a grid of step ``tick`` (the run's
``timer.precision_ns``, divided by the evaluations per sample; for imported files the
grid the values sit on). The recorded value of a time ``t`` is then ``t`` rounded to the
grid, off by at most half a tick. Rounding is monotone, so every order statistic of the
recorded sample is within half a tick of the same order statistic of the true times, and
so is every L-statistic (median, trimmed mean, mean) of the sample and of the population.
An interval for the recorded quantity, widened by half a tick on each side, is therefore
an interval for the quantity of the true times, whatever the distribution within a tick:
this is what :func:`widen_for_tick` and :func:`widen_ratio_for_ticks` do. Without it, a
series whose values take two or three grid values gives an order-statistic interval of
zero width, and two such series a ratio interval of zero width, claiming a certainty the
clock cannot give.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike
from tsanalyze._units import quote_time
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.timer import MIN_QUANTISATION_N, detect_tick

__all__ = [
    "MIN_DETECT",
    "Tick",
    "TickArg",
    "detect_grid",
    "resolve_tick",
    "tick_finding",
    "widen_for_tick",
    "widen_ratio_for_ticks",
]

#: what ``tick=`` accepts: a step (same unit as the values), "auto" (detect) or None (off)
TickArg = float | Literal["auto"] | None

#: distinct values a grid is first looked for among (then checked on all)
_HEAD = 256

#: a grid is looked for only from this many samples on (the rule of
#: :func:`tsanalyze.stats.timer.quantisation`)
MIN_DETECT = MIN_QUANTISATION_N

#: with two distinct values only, a rarer one holding less than this share of the values
#: (or a single one) is checked for being an outlier rather than the next tick
TWO_VALUE_SHARE = 0.05


@result
class Tick(Result):
    """The grid step of a series and where it came from.

    Attributes
    ----------
    tick : float
        Grid step in the unit of the values (0 when none is known).
    source : {"metadata", "detected", "metadata+detected", "none"}
        ``metadata``: the run's timer precision (per evaluation); ``detected``: the grid
        the values sit on; both when both are known (the larger step is used: the values
        cannot be finer than they are).
    share : float
        ``tick / |median|`` (NaN when the median is 0).
    """

    tick: float
    source: str
    share: float


def detect_grid(x: ArrayLike, *, min_size: int = MIN_DETECT) -> float | None:
    """Step of the grid the values sit on, the grid allowed to have any origin.

    Parameters
    ----------
    x : array_like
        Values (finite).
    min_size : int
        Fewer values than this: ``None`` (no detection).

    Returns
    -------
    float or None

    Notes
    -----
    :func:`tsanalyze.stats.timer.detect_tick` on ``x - min(x)``: per-evaluation times
    ``(ns - overhead) / evals`` sit on a grid of ``precision / evals`` whose origin is
    shifted by the overhead, so the grid is looked for in the differences from the
    minimum.
    """
    a = as_series_array(x, "x", min_size=1)
    if a.size < min_size:
        return None
    d, counts = np.unique(a - a.min(), return_counts=True)
    if d.size < 2:
        return None
    if d.size == 2 and counts.min() < max(2.0, TWO_VALUE_SHARE * a.size) and d[1] > abs(float(a.min())):
        # two values always sit on a grid (their difference); a rare one further from the
        # other than the smaller is from zero is an outlier, not a clock's next tick (no
        # grid of times has a step larger than a reading on it: one 1000 s outlier beside
        # 50 readings of 1 us made a tick of 1000 s and an interval of [-500, 500] s). A
        # near-constant series otherwise keeps the difference as its grid: identical
        # readings are a coarse clock's, whose step the difference bounds
        return None
    # a grid is found (or not) among the smallest distinct values first, then checked on
    # all of them: continuous values are rejected without testing every candidate step
    # on every value (3 s on 10^6 values, 1 ms this way)
    step = detect_tick(d[:_HEAD])
    if step is None or d.size <= _HEAD:
        return step
    r = d / step
    if float(np.abs(r - np.rint(r)).max()) <= max(1e-6, 8.0 * np.finfo(np.float64).eps * r[-1]):
        return step
    return detect_tick(d)


def resolve_tick(
    x: ArrayLike,
    tick: float | Literal["auto"] | None = "auto",
    *,
    min_size: int = MIN_DETECT,
) -> Tick:
    """The tick to account for in the intervals of ``x``.

    Parameters
    ----------
    x : array_like
        The series (per-evaluation times).
    tick : float, "auto" or None
        A known step (e.g. ``timer.precision_ns / evals``), combined with the detected
        grid (the larger wins); ``"auto"``: the detected grid only; ``None``: no tick
        (the values are taken as exact).
    min_size : int
        Fewest values for detection.

    Returns
    -------
    Tick
    """
    a = as_series_array(x, "x", min_size=1)
    med = float(np.median(a))
    if tick is None:
        return Tick(0.0, "none", 0.0)
    known = 0.0
    if tick != "auto":
        try:
            known = float(tick)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"tick: must be a number >= 0, 'auto' or None, got {tick!r}"
            ) from None
        if not (math.isfinite(known) and known >= 0):
            raise InvalidArgumentError(f"tick: must be a number >= 0, 'auto' or None, got {tick!r}")
    found = detect_grid(a, min_size=min_size) or 0.0
    step = max(known, found)
    if step == 0.0:
        source = "none"
    elif known > 0 and found > 0:
        source = "metadata+detected"
    else:
        source = "metadata" if known >= found else "detected"
    share = step / abs(med) if med != 0 else math.nan
    return Tick(step, source, share)


def widen_for_tick(lo: float, hi: float, tick: float) -> tuple[float, float]:
    """``[lo - tick/2, hi + tick/2]``: an interval for a location of the recorded values
    turned into one for the same location of the true times (rounding to the nearest
    grid value moves each time by at most half a tick)."""
    h = 0.5 * tick
    return lo - h, hi + h


def widen_ratio_for_ticks(
    lo: float, hi: float, est_a: float, est_b: float, tick_a: float, tick_b: float
) -> tuple[float, float]:
    """Widen an interval of the ratio ``theta_b / theta_a`` of two locations for the
    rounding of both sides.

    Each side's true location is within half a tick of the recorded one, so
    ``theta_b / theta_a`` lies in ``[(b - h_b) / (a + h_a), (b + h_b) / (a - h_a)]``
    around the recorded ``b / a``: the interval is scaled by those factors (with the
    recorded estimates standing in for the recorded population locations).

    Parameters
    ----------
    lo, hi : float
        Interval of the ratio of the recorded locations.
    est_a, est_b : float
        The recorded locations (> 0).
    tick_a, tick_b : float
        Grid steps of each side (0: exact values).

    Returns
    -------
    tuple of float
        The widened ``(lo, hi)``; unchanged when both ticks are 0; ``hi`` is inf when
        half a tick reaches the baseline's location.
    """
    ha, hb = 0.5 * tick_a, 0.5 * tick_b
    if ha == 0.0 and hb == 0.0:
        return lo, hi
    if not (est_a > 0 and est_b > 0) or not (math.isfinite(lo) and math.isfinite(hi)):
        return lo, hi
    down = (1.0 - hb / est_b) / (1.0 + ha / est_a)
    up = (1.0 + hb / est_b) / (1.0 - ha / est_a) if ha < est_a else math.inf
    return lo * max(down, 0.0), hi * up


def tick_finding(t: Tick, what: str = "interval", unit: str | None = None) -> Finding:
    """Info finding saying that (and by how much) an interval was widened for the tick,
    the tick quoted in ``unit``, the unit of the values (a bare number when None)."""
    where = {
        "metadata": "the timer's resolution per evaluation",
        "detected": "the grid the values sit on",
        "metadata+detected": "the timer's resolution per evaluation",
    }.get(t.source, "the tick")
    share = f", {t.share:.2%} of the median" if math.isfinite(t.share) else ""
    return Finding(
        "tick-widened",
        f"times are recorded on a grid of {quote_time(t.tick, unit)} ({where}{share}): the "
        f"{what} is widened by half a step on each side, as much as rounding to the grid can "
        "hide",
        "info",
    )
