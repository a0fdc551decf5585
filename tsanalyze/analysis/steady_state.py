"""Steady state of a benchmark series: stable segment, warm-up, cool-down, classification."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._units import parse_unit
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.changepoints import (
    ChangePoints,
    Drift,
    ModeSwitching,
    segment_arrays,
    segment_table,
)
from tsanalyze.stats.changepoints._decay import decay_rss
from tsanalyze.stats.changepoints._structure import local_noise, running_median, spike_mask
from tsanalyze.stats.changepoints.api import Method, changepoints
from tsanalyze.stats.robust_scale import robust_sd

__all__ = [
    "Classification",
    "SteadyState",
    "SteadyStateTrials",
    "steady_state",
    "steady_state_trials",
]

Classification = Literal["flat", "warm-up", "slowdown", "no steady state"]
Rule = Literal["backward", "pilot"]
Unit = Literal["ns", "us", "ms", "s"]
_UNIT_SECONDS: dict[str, float] = {u: parse_unit(u) * 1e-9 for u in ("ns", "us", "ms", "s")}


@result
class SteadyState(Result):
    """Where one series is stable, and what shape it has.

    Attributes
    ----------
    classification : {"flat", "warm-up", "slowdown", "no steady state"}
        Barrett et al. (2017) class of the series after merging equivalent segments. A
        drifting series is "no steady state".
    start, stop : int or None
        The stable segment [start, stop): by default the final level followed backwards
        from the end (``rule="backward"``), or Pilot's longest segment (``rule="pilot"``);
        ``None`` when there is none.
    warmup_samples : int or None
        Samples before the stable segment (= ``start``).
    warmup_seconds : float or None
        Time spent in those samples (from ``timestamps``, or the sum of the times times
        ``evals`` in the given ``unit``); ``None`` when it cannot be known.
    cooldown_samples : int or None
        Samples after the stable segment.
    stable_median : float or None
        Median of the stable segment.
    n : int
        Length of the series.
    changepoints : ChangePoints
        The raw change points, before merging.
    locations : tuple of int
        Change points left after merging equivalent neighbouring segments.
    segments : pandas.DataFrame
        The merged segments (segment, start, stop, n, median, mean).
    tolerance : float
        Relative difference of medians under which segments count as the same level
        (for the backward rule: the tolerance it derived from the noise, over the level).
    rule : {"backward", "pilot"}
        How the stable segment was chosen.
    drift : Drift or None
        The drift of the level, when the series drifts instead of settling.
    modes : ModeSwitching or None
        The modes, when the series alternates between levels (no warm-up is cut for them).
    warnings : tuple of Finding
    """

    classification: Classification
    start: int | None
    stop: int | None
    warmup_samples: int | None
    warmup_seconds: float | None
    cooldown_samples: int | None
    stable_median: float | None
    n: int
    changepoints: ChangePoints
    locations: tuple[int, ...]
    segments: pd.DataFrame
    tolerance: float
    rule: Rule = "backward"
    drift: Drift | None = None
    modes: ModeSwitching | None = None
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row: classification, start, stop, warm-up/cool-down, n, change points."""
        row = {
            "classification": self.classification,
            "start": self.start,
            "stop": self.stop,
            "warmup_samples": self.warmup_samples,
            "warmup_seconds": self.warmup_seconds,
            "cooldown_samples": self.cooldown_samples,
            "stable_median": self.stable_median,
            "n": self.n,
            "n_changes": len(self.locations),
            "locations": ";".join(str(v) for v in self.locations),
            "method": self.changepoints.method,
            "rule": self.rule,
            "drift_total_change": None if self.drift is None else self.drift.total_change,
            "n_modes": 0 if self.modes is None else len(self.modes.levels),
            "warnings": ";".join(w.code for w in self.warnings),
        }
        return pd.DataFrame([row])


@result
class SteadyStateTrials(Result):
    """Steady state across the trials (process executions) of one benchmark.

    Attributes
    ----------
    consistency : {"consistent", "inconsistent"}
        Barrett et al.: consistent when every trial has the same classification.
    classification : str or None
        The common classification of a consistent benchmark, else ``None``.
    trials : tuple of SteadyState
        One result per trial, in the order given.
    warnings : tuple of Finding
    """

    consistency: Literal["consistent", "inconsistent"]
    classification: Classification | None
    trials: tuple[SteadyState, ...]
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per trial (column ``trial``) plus ``consistency``."""
        frames = [t.to_frame().assign(trial=i) for i, t in enumerate(self.trials)]
        frame = pd.concat(frames, ignore_index=True)
        frame.insert(0, "trial", frame.pop("trial"))
        frame["consistency"] = self.consistency
        return frame


def merge_segments(x: Float64Array, locations: Sequence[int], tolerance: float) -> list[int]:
    """Merge neighbouring segments whose medians differ by less than ``tolerance`` times
    the median of the whole series; the closest pair is merged first, then medians are
    recomputed. Returns the change points that remain."""
    locs = sorted(int(v) for v in locations)
    ref = abs(float(np.median(x))) if x.size else 0.0
    limit = tolerance * ref
    bounds = [0, *locs, x.size]
    meds = [float(np.median(x[a:b])) for a, b in itertools.pairwise(bounds)]
    while len(meds) > 1:
        gaps = np.abs(np.diff(meds))
        j = int(np.argmin(gaps))
        if not gaps[j] < limit:
            break
        # merge segments j and j+1: drop the boundary between them, recompute one median
        del bounds[j + 1]
        del meds[j + 1]
        meds[j] = float(np.median(x[bounds[j] : bounds[j + 1]]))
    return bounds[1:-1]


#: a level within this many noise sds of the final level is the same level
_NOISE_TOLERANCE = 1.0
#: a departure shorter than this fraction of the series that returns is an excursion
_EXCURSION = 0.25
#: one-sided z beyond which the level just after the start is still in the warm-up
_STILL_WARM = 2.0


def _steady_state_iv(
    rule: str, tolerance: float | None, tail: float, evals: int, unit: str | None
) -> None:
    if rule not in ("backward", "pilot"):
        raise InvalidArgumentError(f"rule: expected 'backward' or 'pilot', got {rule!r}")
    if tolerance is not None and not (np.isfinite(tolerance) and tolerance >= 0):
        raise InvalidArgumentError(f"tolerance: must be a finite number >= 0, got {tolerance!r}")
    if not 0.0 < tail < 1.0:
        raise InvalidArgumentError(f"tail: must be strictly between 0 and 1, got {tail!r}")
    if isinstance(evals, bool) or not isinstance(evals, (int, np.integer)) or evals < 1:
        raise InvalidArgumentError(f"evals: must be an integer >= 1, got {evals!r}")
    if unit is not None and unit not in _UNIT_SECONDS:
        raise InvalidArgumentError(
            f"unit: expected one of {', '.join(_UNIT_SECONDS)} or None, got {unit!r}"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class _Cut:
    """What a rule decided: the stable segment, the class and the merged change points."""

    classification: Classification
    start: int | None
    stop: int | None
    locations: list[int]
    tolerance: float
    warnings: list[Finding]


def _pilot(arr: Float64Array, cp: ChangePoints, tolerance: float, tail: float) -> _Cut:
    """Pilot's rule: merge segments closer than ``tolerance`` × median, take the longest
    merged segment if it holds more than half of the samples; Barrett's classes."""
    n = int(arr.size)
    locs = merge_segments(arr, cp.locations, tolerance)
    seg_start, seg_stop, seg_n, meds, _ = segment_arrays(arr, locs)
    ref = abs(float(np.median(arr)))
    classification: Classification
    if not locs:
        classification = "flat"
    elif locs[-1] >= n * (1.0 - tail):
        classification = "no steady state"
    elif meds[-1] <= meds[:-1].min() + tolerance * ref:
        classification = "warm-up"
    else:
        classification = "slowdown"
    longest = int(np.argmax(seg_n))
    warnings: list[Finding] = []
    start: int | None = None
    stop: int | None = None
    if 2 * int(seg_n[longest]) > n:
        start, stop = int(seg_start[longest]), int(seg_stop[longest])
    else:
        warnings.append(
            Finding(
                "no-stable-segment",
                f"no segment holds more than half of the {n} samples "
                f"(longest: {int(seg_n[longest])})",
                "warning",
            )
        )
    return _Cut(classification, start, stop, locs, tolerance, warnings)


def _backward(
    arr: Float64Array, cp: ChangePoints, min_size: int, tolerance: float, tail: float
) -> _Cut:
    """The final level followed backwards from the end (see :func:`steady_state`)."""
    n = int(arr.size)
    if cp.drift is not None:
        return _Cut("no steady state", None, None, [], tolerance, [])
    keep = spike_mask(arr, min_size)
    clean = arr[keep]
    noise = local_noise(clean, min_size)
    bounds = [0, *cp.locations, n]
    segs = [(a, b, float(np.median(arr[a:b]))) for a, b in itertools.pairwise(bounds)]
    warnings: list[Finding] = []
    classification: Classification = "flat"
    # the anchor: the segment where the tail (the last `tail` of the run) begins
    last = next(k for k, (a, b, _) in enumerate(segs) if b > (1.0 - tail) * n)
    tol = max(_NOISE_TOLERANCE * noise, tolerance * abs(segs[last][2]))
    stop = n
    # Barrett's tail rule: a change of level inside the tail means the run has not
    # settled; the anchor's level is followed backwards and the rest is cool-down
    moved = [k for k in range(last + 1, len(segs)) if abs(segs[k][2] - segs[last][2]) > tol]
    if moved:
        classification = "no steady state"
        stop = segs[moved[0]][0]
    ref = segs[last][2]
    first = last  # index of the first segment of the stable level
    j = last - 1
    while j >= 0:
        if abs(segs[j][2] - ref) <= tol:  # the same level
            first, j = j, j - 1
        elif (
            j >= 1
            and segs[j][1] - segs[j][0] <= _EXCURSION * n
            and abs(segs[j - 1][2] - ref) <= tol
        ):  # a short excursion that returns
            first, j = j - 1, j - 2
        else:
            break
    start = segs[first][0]
    if start > 0:
        start = _refine(arr, keep, segs, first, start, stop, ref, noise, min_size)
        if classification == "flat":
            before = [v for _, _, v in segs[:first]]
            classification = "warm-up" if ref <= min(before) + tol else "slowdown"
    merged = [segs[k][0] for k in range(1, len(segs)) if abs(segs[k][2] - segs[k - 1][2]) > tol]
    rel = tol / abs(ref) if ref != 0 else 0.0
    return _Cut(classification, start, stop, merged, rel, warnings)


def _refine(
    arr: Float64Array,
    keep: np.ndarray,
    segs: list[tuple[int, int, float]],
    first: int,
    start: int,
    stop: int,
    ref: float,
    noise: float,
    min_size: int,
) -> int:
    """Move the boundary to where a decaying transition onto the stable level ends.

    Over the stretch from the start of the monotone run of segments that leads to the
    boundary (binary segmentation cuts a decay into a staircase) to twice as far past
    it, a linear decay ending at τ is fitted for every τ near and after the boundary.
    When it explains the stretch better than the staircase of segments found (Schwarz's
    criterion: 3 parameters against 2k + 1 for k steps), its τ is the start; otherwise
    the boundary is a step and stays. Then :func:`_settled` checks the level after it."""
    j = first - 1
    a = segs[j][0]
    sign = np.sign(segs[j][2] - ref)
    while j >= 1 and np.sign(segs[j - 1][2] - segs[j][2]) == sign:
        j -= 1
        a = segs[j][0]
    width = start - a
    b = min(stop, start + 2 * width + 2 * min_size)
    lo = max(2, start - min_size // 2 - a)
    hi = min(b - min_size, start + width) - a
    if hi < lo or b - a < 8:
        return start
    med = running_median(arr[a:b], min_size)
    y = np.where(keep[a:b], arr[a:b], med)
    if noise > 0:
        y = np.clip(y, med - 3.0 * noise, med + 3.0 * noise)
    y = y - float(y.mean())
    size = b - a
    cuts = [0, *(segs[i][0] - a for i in range(j + 1, first + 1)), size]
    cuts = sorted({c for c in cuts if 0 <= c <= size})
    rss_steps = sum(
        float(np.sum((y[u:v] - y[u:v].mean()) ** 2)) for u, v in itertools.pairwise(cuts)
    )
    if not rss_steps > 0.0:  # the steps fit the stretch exactly (values on a grid): no
        # decay fits better (and the criterion's log would be of zero)
        return _settled(arr, keep, start, stop, ref, segs[first - 1][2] > ref, min_size)
    best = (
        size * math.log(rss_steps / size) + (2.0 * (len(cuts) - 2) + 1.0) * math.log(size),
        start,
    )
    rss = decay_rss(y)[lo - 1 : hi]
    k = int(np.argmin(rss))
    if rss[k] > 0 and size * math.log(float(rss[k]) / size) + 3.0 * math.log(size) < best[0]:
        best = (0.0, a + lo + k)
    return _settled(arr, keep, best[1], stop, ref, segs[first - 1][2] > ref, min_size)


def _settled(
    arr: Float64Array,
    keep: np.ndarray,
    start: int,
    stop: int,
    ref: float,
    above: bool,
    min_size: int,
) -> int:
    """Move the start forward while the next min_size samples are still on the warm-up's
    side of the stable level by more than 2 sd of such a window mean (the sd of window
    means measured in the stable segment itself, so its dependence counts): the tail of a
    decay that the linear fit did not catch."""
    w = min_size
    tail = arr[start:stop][keep[start:stop]]
    k = tail.size // w
    if k < 8:
        return start
    means = tail[: k * w].reshape(k, w).mean(axis=1)
    sd = robust_sd(means)
    if not sd > 0:
        return start
    sign = 1.0 if above else -1.0
    s = start
    while s + w <= stop - w * 8:
        win = arr[s : s + w][keep[s : s + w]]
        if win.size < min_size or sign * (float(np.mean(win)) - ref) / sd <= _STILL_WARM:
            break
        s += w // 2
    return s


def steady_state(
    x: ArrayLike,
    *,
    rule: Rule = "backward",
    method: Method = "edm",
    min_size: int = 30,
    tolerance: float | None = None,
    tail: float = 0.25,
    unit: Unit | None = "ns",
    evals: int = 1,
    timestamps: ArrayLike | None = None,
    **options: Any,
) -> SteadyState:
    """Find the stable segment of a series, its warm-up and cool-down, and classify it.

    Parameters
    ----------
    x : array_like
        Per-evaluation times in time order (1-d, finite).
    rule : {"backward", "pilot"}
        How the stable segment is chosen. ``"backward"`` (default): the final level,
        followed backwards from the end of the run while earlier segments sit at the same
        level (short excursions that return are stepped over), with the end of a decaying
        warm-up placed where the decay reaches that level. ``"pilot"``: Pilot's rule, the
        longest segment after merging, if it holds more than half of the samples.
    method : str
        Change-point method (default robust ``"edm"``; see
        :func:`tsanalyze.changepoints`).
    min_size : int
        Smallest segment, passed to the change-point method.
    tolerance : float, optional
        Relative difference of segment medians that counts as no difference. Pilot's rule
        merges neighbouring segments closer than this (default 1%); the backward rule uses
        it as a floor under its noise-relative tolerance (default 0).
    tail : float
        A change of level in the last ``tail`` fraction of the series means "no steady
        state" (default 0.25, Barrett et al.).
    unit : {"ns", "us", "ms", "s"} or None
        Unit of ``x`` for ``warmup_seconds`` and for the levels the findings quote
        (default ns, the run format's); ``None`` leaves ``warmup_seconds`` unknown unless
        ``timestamps`` are given, and quotes levels as bare numbers.
    evals : int
        Evaluations per sample (the time of a sample is ``x * evals``).
    timestamps : array_like, optional
        Time (seconds) at the start of each sample, e.g. from ``start_ticks``; when given,
        ``warmup_seconds = timestamps[start] − timestamps[0]``.
    **options
        Passed to the change-point method (e.g. ``alpha`` of ``edm``).

    Returns
    -------
    SteadyState

    Notes
    -----
    Backward rule (default), what a careful reader of the plot does:

    1. change points by ``method``; with the default ``edm`` they hold under dependence, a
       drifting level comes back as a drift and alternating modes as modes, not shifts;
    2. a drift means the run never settles: *no steady state*, no stable segment;
    3. two levels are the same when they differ by less than the larger of one noise sd
       (robust sd of the spike-free samples around their running median) and
       ``tolerance`` × level;
    4. the walk starts at the segment where the last ``tail`` of the run begins; when a
       later segment is at another level, the run has not settled (*no steady state*,
       Barrett et al.) and the samples from there on are cool-down;
    5. from that segment backwards, earlier segments at the same level join the
       stable segment, and so does a departure shorter than a quarter of the run whose
       previous segment is back at the level (an excursion, a GC pause); the first
       segment that differs otherwise ends the walk;
    6. the boundary is then moved to where the transition ends: over the stretch from
       the start of the monotone run of segments before it to twice as far past it,
       a linear decay onto the stable level, μ + s(τ − i)₊, is fitted for every τ, and
       its τ is the start when it beats the staircase of segments found (Schwarz's
       criterion; binary segmentation alone cuts a decay about two thirds of the way
       down); then, while the next 2·min_size samples are still more than
       2 sd (of such window means in the stable segment) on the warm-up's side of the
       level, the start moves on by min_size;
    7. *flat* when nothing is cut, *warm-up* when the stable level is the fastest seen
       (within the tolerance), else *slowdown*.

    Pilot's rule (``rule="pilot"``, the first release's default): neighbouring segments
    whose medians differ by less than ``tolerance`` × median(x) are merged, closest first;
    *flat* when no change point remains, *no steady state* when one lies in the last
    ``tail``, *warm-up* when the last segment is the fastest, else *slowdown*; the stable
    segment is the longest merged segment if it holds more than half of the samples
    (else warning ``no-stable-segment``).

    References
    ----------
    .. [1] Traini, L., Cortellessa, V., Di Pompeo, D., & Tucci, M. (2023). Towards effective
       assessment of steady state performance in Java software: are we there yet? Empirical
       Software Engineering 28, 13 (the stable segment from the end backwards).
       https://doi.org/10.1007/s10664-022-10247-x
    .. [2] Barrett, E., Bolz-Tereick, C. F., Killick, R., Mount, S., & Tratt, L. (2017).
       Virtual machine warmup blows hot and cold. Proceedings of the ACM on Programming
       Languages 1(OOPSLA), 52 (classification, tail rule). https://doi.org/10.1145/3133876
    .. [3] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-A, the stable-segment rule. https://doi.org/10.1109/MASCOTS.2016.31

    Examples
    --------
    >>> from tsanalyze.datasets import simulate_series
    >>> x = simulate_series(2000, noise="t3-spikes", warmup=(300, 2.0), rng=4).x
    >>> res = steady_state(x)
    >>> res.classification, res.start, res.stop
    ('warm-up', 288, 2000)
    """
    _steady_state_iv(rule, tolerance, tail, evals, unit)
    arr = as_series_array(x, "x", min_size=1, positive=True)
    n = int(arr.size)
    ts: Float64Array | None = None
    if timestamps is not None:
        ts = as_series_array(timestamps, "timestamps", min_size=1)
        if ts.size != n:
            raise InvalidArgumentError(
                f"timestamps: expected {n} values (one per sample), got {ts.size}"
            )
    cp = changepoints(arr, method, min_size=min_size, **options)
    warnings = [
        cp.modes.finding(unit)
        if cp.modes is not None and unit is not None and w.code == "mode-switching"
        else w
        for w in cp.warnings
    ]
    if rule == "pilot":
        cut = _pilot(arr, cp, 0.01 if tolerance is None else tolerance, tail)
    else:
        cut = _backward(arr, cp, min_size, 0.0 if tolerance is None else tolerance, tail)
    warnings.extend(cut.warnings)
    start, stop = cut.start, cut.stop
    stable_median: float | None = None
    warmup_seconds: float | None = None
    if start is not None and stop is not None:
        stable_median = float(np.median(arr[start:stop]))
        if ts is not None:
            warmup_seconds = float(ts[start] - ts[0])
        elif unit is not None:
            warmup_seconds = float(arr[:start].sum()) * evals * _UNIT_SECONDS[unit]
    if cut.classification == "no steady state":
        if cp.drift is not None:
            why = f"the level drifts by {100.0 * cp.drift.total_change:+.1f}% over the run"
        else:
            where = cut.stop if rule == "backward" else cut.locations[-1]
            why = f"the level changes at sample {where}, in the last {tail:.0%} of the series"
        warnings.append(Finding("no-steady-state", why, "warning"))
    return SteadyState(
        classification=cut.classification,
        start=start,
        stop=stop,
        warmup_samples=start,
        warmup_seconds=warmup_seconds,
        cooldown_samples=None if stop is None else n - stop,
        stable_median=stable_median,
        n=n,
        changepoints=cp,
        locations=tuple(cut.locations),
        segments=segment_table(arr, cut.locations),
        tolerance=cut.tolerance,
        rule=rule,
        drift=cp.drift,
        modes=cp.modes,
        warnings=tuple(warnings),
    )


def steady_state_trials(
    trials: Sequence[ArrayLike] | ArrayLike, **kwargs: Any
) -> SteadyStateTrials:
    """Steady state of every trial of one benchmark, and whether they agree.

    Parameters
    ----------
    trials : sequence of array_like, or 2-d array (trials × samples)
        One series per trial (process execution).
    **kwargs
        Passed to :func:`steady_state`.

    Returns
    -------
    SteadyStateTrials
        ``consistency`` is ``"consistent"`` when all trials have the same classification
        (then ``classification`` is that class), else ``"inconsistent"``.

    References
    ----------
    .. [1] Barrett, E., Bolz-Tereick, C. F., Killick, R., Mount, S., & Tratt, L. (2017).
       Virtual machine warmup blows hot and cold. Proceedings of the ACM on Programming
       Languages 1(OOPSLA), 52. https://doi.org/10.1145/3133876
    """
    if isinstance(trials, np.ndarray) and trials.ndim == 2:
        series: list[Any] = list(trials)
    elif isinstance(trials, pd.DataFrame):
        raise InvalidArgumentError(
            "trials: pass one series per trial (a list or a 2-d array), not a DataFrame"
        )
    else:
        series = list(trials)  # type: ignore[arg-type]
    if not series:
        raise InvalidArgumentError("trials: needs at least one trial")
    results = tuple(steady_state(s, **kwargs) for s in series)
    classes = {r.classification for r in results}
    consistent = len(classes) == 1
    warnings: list[Finding] = []
    if not consistent:
        counts = pd.Series([r.classification for r in results]).value_counts()
        warnings.append(
            Finding(
                "inconsistent-trials",
                "trials disagree: " + ", ".join(f"{k} ×{v}" for k, v in counts.items()),
                "warning",
            )
        )
    return SteadyStateTrials(
        consistency="consistent" if consistent else "inconsistent",
        classification=results[0].classification if consistent else None,
        trials=results,
        warnings=tuple(warnings),
    )
