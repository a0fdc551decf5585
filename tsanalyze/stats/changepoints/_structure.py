"""What a series does besides stepping: spikes, a steady drift, alternating modes.

Three helpers of the default change-point method (:mod:`.edm`) and of the steady-state
analysis:

- :func:`spike_mask` marks the samples that sit far above (or below) their local median
  — delays, spikes, bursts shorter than ``min_size`` — so that the level tests leave them
  out instead of replacing them;
- :func:`find_drift` fits a straight line and says whether it explains the movement of
  the level better than the steps found;
- :func:`find_modes` looks for a level that returns, again and again, to a few values.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import ndimage

from tsanalyze._typing import Float64Array, Int64Array
from tsanalyze.stats._memo import ContentMemo
from tsanalyze.stats.changepoints._base import Drift, ModeSwitching
from tsanalyze.stats.changepoints._selfnorm import sn_trend_statistic, trend_critical_value
from tsanalyze.stats.robust_scale import robust_sd

__all__ = ["find_drift", "find_modes", "local_noise", "running_median", "spike_mask"]

#: residual (in robust sd) beyond which a sample counts as a spike, a delay or a burst
SPIKE_K = 5.0
#: modes must be at least this many within-mode spreads apart
MODE_SEPARATION = 6.0
#: a visit is only counted once the level has come within this fraction of the gap
_CORE = 0.25


def running_median(x: Float64Array, half: int) -> Float64Array:
    """Running median over 2·half + 1 samples. Within ``half`` samples of either end the
    window stays 2·half + 1 samples wide (the median of the first, or last, 2·half + 1
    samples): a shrunken or mirrored window at the end holds only about half + 1
    distinct samples, and a chance cluster of delays there pulls the median onto the
    delays, which then look like the level and the undelayed samples like outliers."""
    if x.size < 3:
        return x.copy()
    size = min(2 * half + 1, 2 * ((x.size - 1) // 2) + 1)
    out: Float64Array = ndimage.median_filter(x, size=size, mode="mirror")
    h = size // 2
    if h > 0 and x.size > size:
        out[:h] = np.median(x[:size])
        out[-h:] = np.median(x[-size:])
    return out


#: spike masks and local noise by the series' content: the change-point search and the
#: steady-state analysis that follows it ask for the same ones (issue 24)
_MASKS: ContentMemo[np.ndarray] = ContentMemo(64)
_NOISE: ContentMemo[float] = ContentMemo(64)


def spike_mask(x: Float64Array, min_size: int, k: float = SPIKE_K) -> np.ndarray:
    """True for the samples that carry the level, False for spikes, delays and bursts.

    A sample is left out when it lies more than ``k`` robust standard deviations
    (1.4826 × MAD of all residuals) from the running median over 2·min_size + 1 samples.
    A burst shorter than ``min_size`` holds less than half of every window, so the
    running median ignores it and its samples are left out; a genuine level shift (at
    least ``min_size`` long) moves the running median with it and is kept. When more than
    half of the residuals are zero (heavily tied, coarse timer) nothing is left out.

    Notes
    -----
    The samples are *left out*, not replaced by their local median as before: on a
    series where a quarter of the evaluations carry one extra delay (a frequent small
    delay on top of a timer tick), replacing them copied the slow wander of the local
    median into a quarter of the samples, which made them serially dependent and turned
    into false shifts (26% of such series had an invented shift).
    """
    kept = _MASKS.get(x, (int(min_size), float(k)), lambda: _spike_mask(x, min_size, k))
    return kept.copy()  # the caller's own


def _spike_mask(x: Float64Array, min_size: int, k: float) -> np.ndarray:
    keep = np.ones(x.size, dtype=bool)
    if x.size < 3:
        return keep
    resid = x - running_median(x, min_size)
    scale = robust_sd(resid)
    if not scale > 0:
        return keep
    keep &= np.abs(resid) <= k * scale
    return keep


def local_noise(y: Float64Array, min_size: int) -> float:
    """Robust sd of ``y`` around its running median (the sample-to-sample noise)."""
    return _NOISE.get(y, int(min_size), lambda: _local_noise(y, min_size))


def _local_noise(y: Float64Array, min_size: int) -> float:
    if y.size < 3:
        return 0.0
    resid = y - running_median(y, min_size)
    return robust_sd(resid)


def find_drift(
    y: Float64Array,
    t: Int64Array,
    locations: list[int],
    hurst: float,
    alpha: float,
    n: int,
) -> Drift | None:
    """A linear drift of ``y`` (observed at sample positions ``t``), or None.

    Claimed when (1) the self-normalised trend statistic exceeds its critical value for
    ``hurst`` at level ``alpha`` and (2) the straight line fits ``y`` at least as well as
    the steps at ``locations`` (indices into ``y``; residual sums of squares; no steps
    found counts as a worse fit), judged by Schwarz's criterion (a line has 2 parameters,
    k steps 2k + 1). A staircase that a line explains is a drift; a step leaves the line a
    saw-tooth residual and stays a step.

    The slope is robust: the difference of the medians of the last and first thirds over
    the distance of their mean positions. Levels are relative to the median of ``y``.
    """
    m = y.size
    if m < 12:
        return None
    stat = sn_trend_statistic(y, t.astype(np.float64))
    crit = trend_critical_value(hurst, alpha)
    if not stat > crit:
        return None
    if locations:
        tc = t - t.mean()
        yc = y - y.mean()
        b = float(yc @ tc) / float(tc @ tc)
        rss_line = float(np.sum((yc - b * tc) ** 2))
        bounds = [0, *locations, m]
        rss_steps = sum(
            float(np.sum((y[a:c] - y[a:c].mean()) ** 2)) for a, c in itertools.pairwise(bounds)
        )
        # Schwarz criterion: a line has 2 parameters, k steps 2k + 1 (levels and places)
        if rss_steps <= 0 or rss_line <= 0:
            return None
        bic_line = m * math.log(rss_line / m) + 2 * math.log(m)
        bic_steps = m * math.log(rss_steps / m) + (2 * len(locations) + 1) * math.log(m)
        if bic_line > bic_steps:
            return None
    third = m // 3
    slope = float(np.median(y[-third:]) - np.median(y[:third])) / float(
        t[-third:].mean() - t[:third].mean()
    )
    med = float(np.median(y))
    centre = float(np.median(y[third:-third])) if m >= 3 * third + 1 else med
    mid = float(t[third:-third].mean()) if m >= 3 * third + 1 else float(t.mean())
    start_level = centre - slope * mid
    end_level = centre + slope * (n - 1 - mid)
    scale = abs(med) if med != 0 else 1.0
    return Drift(
        slope_per_1000=1000.0 * slope / scale,
        total_change=slope * (n - 1) / scale,
        start_level=start_level,
        end_level=end_level,
        statistic=float(stat),
        critical_value=float(crit),
    )


def _otsu(v: Float64Array) -> float:
    """Threshold that splits the values into two groups with the largest between-group
    variance (Otsu 1979, on sorted values)."""
    s = np.sort(v)
    n = s.size
    c = np.cumsum(s)
    k = np.arange(1, n, dtype=np.float64)
    m1 = c[:-1] / k
    m2 = (c[-1] - c[:-1]) / (n - k)
    j = int(np.argmax(k * (n - k) * (m1 - m2) ** 2))
    return float(s[j] + s[j + 1]) / 2.0


#: values used for the split threshold and the timer resolution (a thinned path is as
#: good for a threshold, and a tick shows in any 50 000 tied values)
_THIN = 50_000


def find_modes(
    y: Float64Array, t: Int64Array, min_size: int, noise: float | None = None
) -> ModeSwitching | None:
    """Two modes that the series visits in turn (at least two visits each), or None.

    The level is followed by a running median over about ``min_size`` samples. Its values
    are split in two groups (Otsu's threshold); the modes are the groups' medians, and they
    count only when their gap is at least 6 times the spread of the level within a mode
    (the larger of the groups' robust sd, the sd a running median of pure noise has, and
    the timer's resolution) — a stationary wander split in two is about 2.7 spreads apart.
    A visit starts when the level comes within a quarter of the gap of a mode; visits
    shorter than ``min_size`` are merged into their neighbours. Mode switching is
    reported when both modes have at least two visits (at least three switches): one
    switch is a step, two are an excursion. ``noise`` is :func:`local_noise` of ``y`` when
    the caller has it.
    """
    h = max(2, min_size // 2)
    if y.size < 4 * min_size:
        return None
    path = running_median(y, h)
    step = max(1, path.size // _THIN)
    thr = _otsu(path[::step])
    lo, hi = path[path <= thr], path[path > thr]
    if lo.size < min_size or hi.size < min_size:
        return None
    c1, c2 = float(np.median(lo)), float(np.median(hi))
    gap = c2 - c1
    if not gap > 0:
        return None
    s1 = robust_sd(lo, center=c1)
    s2 = robust_sd(hi, center=c2)
    distinct = np.unique(y[::step])
    quantum = float(np.min(np.diff(distinct))) if distinct.size > 1 else 0.0
    # sd of a running median of w samples of pure noise: 1.2533 sd / sqrt(w)
    sd = local_noise(y, min_size) if noise is None else noise
    noise = 1.2533 * sd / math.sqrt(2 * h + 1)
    spread = max(math.sqrt((s1 * s1 + s2 * s2) / 2.0), noise, quantum)
    separation = gap / spread if spread > 0 else math.inf
    if separation < MODE_SEPARATION:
        return None
    state = np.full(path.size, -1, dtype=np.int64)
    state[path <= c1 + _CORE * gap] = 0
    state[path >= c2 - _CORE * gap] = 1
    seen = np.flatnonzero(state >= 0)
    if seen.size == 0:
        return None
    # transitional samples keep the mode last visited (forward fill, first from the back)
    last = np.maximum.accumulate(np.where(state >= 0, np.arange(state.size), -1))
    state = np.where(last >= 0, state[np.maximum(last, 0)], state[seen[0]])
    cuts = np.flatnonzero(np.diff(state)) + 1
    bounds = [0, *cuts.tolist(), state.size]
    runs: list[list[int]] = []
    for a, b in itertools.pairwise(bounds):
        s = int(state[a])
        if runs and (b - a < min_size or runs[-1][2] == s):
            runs[-1][1] = b
        else:
            runs.append([a, b, s])
    # a short first run merged nowhere: join it to the next
    if len(runs) > 1 and runs[0][1] - runs[0][0] < min_size:
        runs[1][0] = runs[0][0]
        del runs[0]
    merged: list[list[int]] = []
    for r in runs:
        if merged and merged[-1][2] == r[2]:
            merged[-1][1] = r[1]
        else:
            merged.append(r)
    visits = tuple(sum(1 for r in merged if r[2] == s) for s in (0, 1))
    if min(visits) < 2:
        return None
    levels = tuple(float(np.median(y[state == s])) for s in (0, 1))
    n_all = int(t[-1]) + 1
    spans = [(int(t[a]), int(t[b]) if b < t.size else n_all, s) for a, b, s in merged]
    sojourn = tuple(
        float(np.mean([stop - start for start, stop, s_ in spans if s_ == s])) for s in (0, 1)
    )
    return ModeSwitching(
        levels=levels,
        mean_sojourn=sojourn,
        visits=visits,
        separation=float(separation),
        runs=tuple(spans),
    )
