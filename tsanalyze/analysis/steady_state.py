"""Steady state of a benchmark series: stable segment, warm-up, cool-down, classification."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._units import parse_unit
from tsanalyze._validation import as_series_array
from tsanalyze.stats.changepoints import ChangePoints, segment_table
from tsanalyze.stats.changepoints.api import Method, changepoints

__all__ = [
    "Classification",
    "SteadyState",
    "SteadyStateTrials",
    "steady_state",
    "steady_state_trials",
]

Classification = Literal["flat", "warm-up", "slowdown", "no steady state"]
Unit = Literal["ns", "us", "ms", "s"]
_UNIT_SECONDS: dict[str, float] = {u: parse_unit(u) * 1e-9 for u in ("ns", "us", "ms", "s")}


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SteadyState(Result):
    """Where one series is stable, and what shape it has.

    Attributes
    ----------
    classification : {"flat", "warm-up", "slowdown", "no steady state"}
        Barrett et al. (2017) class of the series after merging equivalent segments.
    start, stop : int or None
        The stable segment [start, stop) by Pilot's rule (the longest segment, if it holds
        more than half of the samples); ``None`` when there is none.
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
        Relative difference of medians under which neighbouring segments are merged.
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
            "warnings": ";".join(w.code for w in self.warnings),
        }
        return pd.DataFrame([row])


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
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


def _steady_state_iv(tolerance: float, tail: float, evals: int, unit: str | None) -> None:
    if not (np.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance: must be a finite number >= 0, got {tolerance!r}")
    if not 0.0 < tail < 1.0:
        raise ValueError(f"tail: must be strictly between 0 and 1, got {tail!r}")
    if isinstance(evals, bool) or not isinstance(evals, (int, np.integer)) or evals < 1:
        raise ValueError(f"evals: must be an integer >= 1, got {evals!r}")
    if unit is not None and unit not in _UNIT_SECONDS:
        raise ValueError(f"unit: expected one of {', '.join(_UNIT_SECONDS)} or None, got {unit!r}")


def steady_state(
    x: ArrayLike,
    *,
    method: Method = "edm",
    min_size: int = 30,
    tolerance: float = 0.01,
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
    method : str
        Change-point method (default robust ``"edm"``; see
        :func:`tsanalyze.changepoints`).
    min_size : int
        Smallest segment, passed to the change-point method.
    tolerance : float
        Neighbouring segments whose medians differ by less than ``tolerance`` times the
        median of the series are merged (default 1%).
    tail : float
        A change point in the last ``tail`` fraction of the series means "no steady state"
        (default 0.25, Barrett et al.).
    unit : {"ns", "us", "ms", "s"} or None
        Unit of ``x`` for ``warmup_seconds`` (default ns, the run format's); ``None``
        leaves ``warmup_seconds`` unknown unless ``timestamps`` are given.
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
    1. Change points by ``method``; 2. neighbouring segments whose medians differ by less
    than ``tolerance`` × median(x) are merged, closest first; 3. classification (Barrett
    et al. 2017): *flat* when no change point remains; *no steady state* when one lies in
    the last ``tail`` of the series; otherwise *warm-up* when the last segment is the
    fastest (no earlier segment lower by more than the tolerance), else *slowdown*;
    4. stable segment (Pilot): the longest merged segment if it holds more than 50% of the
    samples, otherwise none (warning ``no-stable-segment``). Warm-up = samples before it,
    cool-down = samples after it.

    References
    ----------
    seed 001: Li et al., "Pilot: a framework that understands how to do performance
    benchmarks the right way", MASCOTS 2016 (stable-segment rule). E. Barrett,
    C. F. Bolz-Tereick, R. Killick, S. Mount, L. Tratt, "Virtual machine warmup blows hot
    and cold", OOPSLA 2017, doi:10.1145/3133876 (classification).

    Examples
    --------
    >>> from tsanalyze.datasets import simulate_series
    >>> x = simulate_series(2000, noise="t3-spikes", warmup=(300, 2.0), rng=4).x
    >>> res = steady_state(x)
    >>> res.classification, res.start, res.stop
    ('warm-up', 288, 2000)
    """
    _steady_state_iv(tolerance, tail, evals, unit)
    arr = as_series_array(x, "x", min_size=1)
    n = int(arr.size)
    ts: Float64Array | None = None
    if timestamps is not None:
        ts = as_series_array(timestamps, "timestamps", min_size=1)
        if ts.size != n:
            raise ValueError(f"timestamps: expected {n} values (one per sample), got {ts.size}")
    cp = changepoints(arr, method, min_size=min_size, **options)
    warnings = list(cp.warnings)
    locs = merge_segments(arr, cp.locations, tolerance)
    seg = segment_table(arr, locs)
    meds = seg["median"].to_numpy()
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
    longest = int(np.argmax(seg["n"].to_numpy()))
    start: int | None = None
    stop: int | None = None
    stable_median: float | None = None
    warmup_seconds: float | None = None
    if 2 * int(seg["n"].iloc[longest]) > n:
        start, stop = int(seg["start"].iloc[longest]), int(seg["stop"].iloc[longest])
        stable_median = float(meds[longest])
        if ts is not None:
            warmup_seconds = float(ts[start] - ts[0])
        elif unit is not None:
            warmup_seconds = float(arr[:start].sum()) * evals * _UNIT_SECONDS[unit]
    else:
        warnings.append(
            Finding(
                "no-stable-segment",
                f"no segment holds more than half of the {n} samples "
                f"(longest: {int(seg['n'].iloc[longest])})",
                "warning",
            )
        )
    if classification == "no steady state":
        warnings.append(
            Finding(
                "no-steady-state",
                f"a change point at sample {locs[-1]} lies in the last {tail:.0%} of the series",
                "warning",
            )
        )
    return SteadyState(
        classification=classification,
        start=start,
        stop=stop,
        warmup_samples=start,
        warmup_seconds=warmup_seconds,
        cooldown_samples=None if stop is None else n - stop,
        stable_median=stable_median,
        n=n,
        changepoints=cp,
        locations=tuple(locs),
        segments=seg,
        tolerance=tolerance,
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
    E. Barrett et al., "Virtual machine warmup blows hot and cold", OOPSLA 2017,
    doi:10.1145/3133876.
    """
    if isinstance(trials, np.ndarray) and trials.ndim == 2:
        series: list[Any] = list(trials)
    elif isinstance(trials, pd.DataFrame):
        raise ValueError(
            "trials: pass one series per trial (a list or a 2-d array), not a DataFrame"
        )
    else:
        series = list(trials)  # type: ignore[arg-type]
    if not series:
        raise ValueError("trials: needs at least one trial")
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
