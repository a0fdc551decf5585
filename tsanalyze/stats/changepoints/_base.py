"""The result type shared by every change-point method, and segment summaries."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import Float64Array
from tsanalyze._units import format_times

__all__ = ["ChangePoints", "Drift", "ModeSwitching", "segment_arrays", "segment_table"]

#: Columns of :attr:`ChangePoints.segments` (stable names).
SEGMENT_COLUMNS = ("segment", "start", "stop", "n", "median", "mean")


def segment_table(x: Float64Array, locations: Sequence[int]) -> pd.DataFrame:
    """One row per segment between change points: start, stop (exclusive), n, median, mean.

    ``locations`` are 0-based indices of the first sample of each new segment.
    """
    starts, stops, sizes, medians, means = segment_arrays(x, locations)
    return pd.DataFrame(
        {
            "segment": np.arange(sizes.size, dtype=np.int64),
            "start": starts,
            "stop": stops,
            "n": sizes,
            "median": medians,
            "mean": means,
        },  # in SEGMENT_COLUMNS order: no columns= (a reindex costing 2x the frame)
        copy=False,
    )


def segment_arrays(x: Float64Array, locations: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The columns of :func:`segment_table` but ``segment``, as arrays: ``start``,
    ``stop``, ``n``, ``median``, ``mean`` (no frame: 0.2 ms a series, for the rules that
    only read them)."""
    bounds = np.array([0, *(int(v) for v in locations), int(x.size)], dtype=np.int64)
    starts, stops = bounds[:-1], bounds[1:]
    sizes = stops - starts
    medians = np.array(
        [
            float(np.median(x[a:b])) if b > a else float("nan")
            for a, b in zip(starts, stops, strict=True)
        ]
    )
    sums = np.add.reduceat(x, starts[sizes > 0]) if x.size else np.zeros(0)
    means = np.full(sizes.size, np.nan)
    means[sizes > 0] = sums / sizes[sizes > 0]
    return starts, stops, sizes, medians, means


@result
class Drift(Result):
    """A level that moves steadily over the run instead of stepping.

    Attributes
    ----------
    slope_per_1000 : float
        Relative change of the level per 1000 samples (a fraction of the median: 0.007
        is +0.7% per 1000 samples).
    total_change : float
        Relative change of the level from the first to the last sample (fraction).
    start_level, end_level : float
        The fitted level at the first and at the last sample (units of the input), for
        drawing the drift line.
    statistic, critical_value : float
        The self-normalised trend statistic and the critical value it exceeded.
    """

    slope_per_1000: float
    total_change: float
    start_level: float
    end_level: float
    statistic: float
    critical_value: float


@result
class ModeSwitching(Result):
    """A series that alternates between a few levels (modes) instead of stepping once.

    Attributes
    ----------
    levels : tuple of float
        Median of the samples in each mode (units of the input), ascending.
    mean_sojourn : tuple of float
        Mean length of a visit to each mode, in samples (visits shorter than about
        half of ``min_size`` are not seen).
    visits : tuple of int
        Number of visits to each mode.
    separation : float
        Gap between the modes over the spread of the level within a mode.
    runs : tuple of (int, int, int)
        Every visit as (first sample, stop (exclusive), mode index), in time order, for
        marking the modes on a figure.
    """

    levels: tuple[float, ...]
    mean_sojourn: tuple[float, ...]
    visits: tuple[int, ...]
    separation: float
    runs: tuple[tuple[int, int, int], ...]

    @property
    def start(self) -> int:
        """First sample of the first visit to a mode."""
        return self.runs[0][0] if self.runs else 0

    def finding(self, unit: str | None = None) -> Finding:
        """The ``mode-switching`` warning, its levels quoted in ``unit``, the unit of the
        series (a name :func:`tsanalyze._units.parse_unit` reads; bare numbers when None)."""
        return Finding(
            "mode-switching",
            f"the series alternates between {format_times(self.levels, unit)} (mean visits "
            + " and ".join(f"{s:.0f}" for s in self.mean_sojourn)
            + f" samples; {sum(self.visits)} visits): modes, not shifts",
            "warning",
        )


@result
class ChangePoints(Result):
    """Change points of one series.

    Attributes
    ----------
    method : str
        The method that found them (``"edm"``, ``"edm-multi"``, ``"e-divisive"``, ...).
    locations : tuple of int
        Sorted 0-based index of the first sample of each new segment (the number of
        samples before the change; the same numbers as R ``breakout()$loc``).
    segments : pandas.DataFrame
        One row per segment: ``segment``, ``start``, ``stop`` (exclusive), ``n``,
        ``median``, ``mean`` (in the units of the input).
    n : int
        Length of the series.
    min_size : int
        Smallest segment the search allowed.
    statistic : tuple of float
        The test or scan statistic behind each change (same order as ``locations``);
        empty where the method has none per change.
    pvalue : tuple of float
        A p-value per change where the method gives one (permutation or asymptotic),
        else empty.
    compat : str or None
        ``"breakoutdetection"`` for the compatible EDM variants, else ``None``.
    params : dict
        The parameters the method used (penalty, significance level, ...).
    seed : int or None
        Seed of the permutations (``None`` when the method uses no randomness or a
        Generator was given).
    drift : Drift or None
        Set when the level drifts steadily (the default method then reports no shifts
        and a finding with code ``drift``).
    modes : ModeSwitching or None
        Set when the series alternates between modes (the changes between modes are then
        not listed as shifts; a finding with code ``mode-switching`` says so).
    warnings : tuple of Finding
        Anything the caller should know (series too short, constant series, drift,
        mode switching, ...).
    """

    method: str
    locations: tuple[int, ...]
    segments: pd.DataFrame
    n: int
    min_size: int
    statistic: tuple[float, ...] = ()
    pvalue: tuple[float, ...] = ()
    compat: str | None = None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed: int | None = None
    drift: Drift | None = None
    modes: ModeSwitching | None = None
    warnings: tuple[Finding, ...] = ()

    @classmethod
    def of(
        cls,
        x: Float64Array,
        method: str,
        locations: Sequence[int],
        *,
        min_size: int,
        warnings: Iterable[Finding] = (),
        **fields: Any,
    ) -> ChangePoints:
        """The changes ``method`` found at ``locations`` of the series ``x``: ``segments``
        and ``n`` follow from them; ``fields`` are the other attributes."""
        locs = tuple(locations)
        return cls(
            method=method,
            locations=locs,
            segments=segment_table(x, locs),
            n=int(x.size),
            min_size=min_size,
            warnings=tuple(warnings),
            **fields,
        )

    @property
    def n_changes(self) -> int:
        """Number of change points."""
        return len(self.locations)

    def to_frame(self) -> pd.DataFrame:
        """The segments table, with the method repeated on every row."""
        frame = self.segments.copy()
        frame.insert(0, "method", self.method)
        return frame
