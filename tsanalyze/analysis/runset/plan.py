"""What a run-set analysis computes, decided before anything runs.

:func:`layout` indexes the frame (where each (run, benchmark) series lives, which side each
run belongs to); :func:`series_jobs`, :func:`comparison_jobs` and :func:`trials_jobs` turn it
into picklable jobs, each with its own seed spawned from the root seed, so that the result
does not depend on how many workers run them (:mod:`.executor`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze import schema
from tsanalyze.analysis.runset.results import MIN_TRIALS
from tsanalyze.analysis.series import SeriesAnalysis, series_inputs
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.estimators import LocationEstimatorName

__all__ = [
    "CompareJob",
    "Layout",
    "SeriesJob",
    "TrialsJob",
    "comparison_jobs",
    "interleaved",
    "layout",
    "match_run",
    "series_jobs",
    "trials_jobs",
]

RunsMeta = Mapping[str, Mapping[str, Any]]
#: evals: compare() turns the run's timer resolution into a per-evaluation tick (issue 23)
_COMPARE_COLUMNS = ("run", "round", "sample", "evals", "time_ns")


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    """Where each series lives in the frame: row positions in time (sample) order."""

    run_order: list[str]
    keys: list[tuple[str, str]]  # (run, benchmark), grouped by benchmark name, then run order
    rows: dict[tuple[str, str], np.ndarray]
    group_of: dict[str, str]  # run -> its side: the file it came from, else the run itself

    @property
    def groups(self) -> dict[str, list[str]]:
        """Sides in the order given, each with its runs (trials) in run order."""
        out: dict[str, list[str]] = {}
        for rid in self.run_order:
            out.setdefault(self.group_of[rid], []).append(rid)
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class SeriesJob:
    """One series to analyse (:func:`tsanalyze.analysis.series.analyze_series`)."""

    benchmark: str
    run: str
    x: np.ndarray
    seed: int
    estimator: LocationEstimatorName
    confidence_level: float
    raw: bool
    inputs: dict[str, Any]  # evals, sample_ns, timer (series_inputs)


@dataclasses.dataclass(frozen=True, slots=True)
class CompareJob:
    """One comparison (:func:`tsanalyze.compare`) and the family it is adjusted in."""

    family: int
    kind: Literal["benchmark", "run"]
    benchmark: str
    baseline_benchmark: str
    run: str
    baseline_run: str
    a: pd.DataFrame
    b: pd.DataFrame
    estimator: LocationEstimatorName
    confidence_level: float
    seed: int
    #: None: compare() pairs by shared rounds; False: the run was not interleaved
    paired: bool | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class TrialsJob:
    """One benchmark's runs to summarise as trials."""

    benchmark: str
    segments: dict[str, np.ndarray]
    classifications: tuple[str, ...]
    estimator: LocationEstimatorName
    confidence_level: float
    seed: int


def layout(df: pd.DataFrame, runs_meta: RunsMeta) -> Layout:
    """Index a run-set frame by (run, benchmark); runs in metadata order, then as found."""
    run_codes, run_names = pd.factorize(df["run"], sort=False)
    bench_codes, bench_names = pd.factorize(df["benchmark"], sort=False)
    runs = [str(r) for r in run_names]
    benches = [str(b) for b in bench_names]
    run_order = [r for r in runs_meta if r in set(runs)] + [r for r in runs if r not in runs_meta]
    key = run_codes.astype(np.int64) * len(benches) + bench_codes
    order = np.lexsort((df["sample"].to_numpy(), key))
    sorted_key = key[order]
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    stops = np.r_[starts[1:], sorted_key.size]
    rows: dict[tuple[str, str], np.ndarray] = {}
    for a, b in zip(starts, stops, strict=True):
        k = int(sorted_key[a])
        rows[(runs[k // len(benches)], benches[k % len(benches)])] = order[a:b]
    rank = {r: i for i, r in enumerate(run_order)}
    # trials grouped: benchmarks by name (the order rows arrive in is shuffled by
    # interleaving, so it would not be reproducible), each one's runs in run order
    keys = sorted(rows, key=lambda rb: (rb[1], rank[rb[0]]))
    group_of = {rid: str(runs_meta.get(rid, {}).get("file") or rid) for rid in run_order}
    return Layout(run_order, keys, rows, group_of)


def match_run(baseline: str, runs_meta: RunsMeta, order: Sequence[str]) -> str:
    """The run id that ``baseline`` names (a run id, or the file a run came from)."""
    if baseline in order:
        return baseline
    target = Path(baseline).expanduser()
    for rid in order:
        file = runs_meta.get(rid, {}).get("file")
        if file and (Path(file) == target or Path(file).resolve() == target.resolve()):
            return rid
    raise InvalidArgumentError(f"baseline: {baseline!r} is neither a run id nor a file of this run set")


def interleaved(df: pd.DataFrame, rid: str, meta: Mapping[str, Any] | None) -> bool:
    """Was run ``rid`` recorded in interleaved rounds (so its benchmarks pair by round)?

    The collector records ``collector.interleave``; imported runs (hyperfine, Go, JMH,
    ...) ran their benchmarks one after another, and their ``round`` is only the sample
    index. Without metadata, a ``position`` that varies within the run says interleaved.
    """
    if meta is not None:
        return schema.interleaved(meta)
    if "position" not in df.columns:
        return True
    pos = df.loc[df["run"] == rid, "position"]
    return bool(pos.nunique() > 1)


def series_jobs(
    df: pd.DataFrame, lay: Layout, runs_meta: RunsMeta, seeds: Sequence[int],
    estimator: LocationEstimatorName, confidence_level: float, raw: bool,
) -> list[SeriesJob]:  # fmt: skip
    """One job per (run, benchmark) series, in ``lay.keys`` order."""
    time_ns = df["time_ns"].to_numpy(dtype=np.float64)
    ns = df["ns"].to_numpy(dtype=np.float64) if "ns" in df.columns else None
    evals = df["evals"].to_numpy() if "evals" in df.columns else None
    jobs: list[SeriesJob] = []
    for (rid, name), seed in zip(lay.keys, seeds, strict=True):
        idx = lay.rows[(rid, name)]
        inputs = series_inputs(
            None if evals is None else evals[idx], None if ns is None else ns[idx],
            runs_meta.get(rid),
        )  # fmt: skip
        jobs.append(
            SeriesJob(name, rid, time_ns[idx], seed, estimator, confidence_level, raw, inputs)
        )
    return jobs


def comparison_jobs(
    df: pd.DataFrame, lay: Layout, results: Sequence[SeriesAnalysis], base_run: str,
    baseline_benchmark: str | None, estimator: LocationEstimatorName, confidence_level: float,
    root_seed: int, runs_meta: RunsMeta | None = None,
) -> list[CompareJob]:  # fmt: skip
    """The comparisons the design calls for, each on the series' analysed segments.

    A *side* is a file (all the runs it holds are trials of one side) or, for runs not
    read from a file, one run. Families (for Holm): one per run for the benchmark-vs-
    baseline-benchmark comparisons; one per candidate side for side-vs-baseline-side.
    """
    cols = [c for c in _COMPARE_COLUMNS if c in df.columns]
    by_key = {(s.run, s.benchmark): s for s in results}

    def segment(runs: Sequence[str], name: str) -> pd.DataFrame:
        parts = []
        for rid in runs:
            if (rid, name) in by_key:
                s = by_key[(rid, name)]
                parts.append(lay.rows[(rid, name)][s.start : s.stop])
        return df.iloc[np.concatenate(parts)][cols]

    names_in_run = {rid: sorted(b for r, b in lay.keys if r == rid) for rid in lay.run_order}
    groups = lay.groups
    names_in_group = {
        g: sorted({b for rid in runs for b in names_in_run[rid]}) for g, runs in groups.items()
    }
    seeds = iter(np.random.SeedSequence([root_seed, 1]).generate_state(len(results) + 1).tolist())
    out: list[CompareJob] = []
    family = 0
    # benchmarks of one run against the baseline benchmark (paired when interleaved): in
    # every run when a baseline benchmark is named; otherwise in the runs none of whose
    # benchmarks was measured on another side (those are compared side against side)
    for rid in lay.run_order:
        names = names_in_run[rid]
        mine = lay.group_of[rid]
        elsewhere = any(set(names) & set(names_in_group[g]) for g in groups if g != mine)
        if baseline_benchmark is not None:
            base = baseline_benchmark
        elif not elsewhere and names:
            base = names[0]
        else:
            continue
        if base not in names or len(names) < 2:
            continue
        family += 1
        a = segment([rid], base)
        paired = None if interleaved(df, rid, (runs_meta or {}).get(rid)) else False
        for name in names:
            if name != base:
                out.append(
                    CompareJob(
                        family, "benchmark", name, base, rid, rid, a, segment([rid], name),
                        estimator, confidence_level, int(next(seeds)), paired,
                    )
                )  # fmt: skip
    # each other side against the baseline side, benchmark by benchmark (Holm per side);
    # several runs on a side are compared at the run level by compare()
    base_group = lay.group_of[base_run]
    for g, runs in groups.items():
        shared = sorted(set(names_in_group[base_group]) & set(names_in_group[g]))
        if g == base_group or not shared:
            continue
        family += 1
        for name in shared:
            out.append(
                CompareJob(
                    family, "run", name, name, g, base_group, segment(groups[base_group], name),
                    segment(runs, name), estimator, confidence_level, int(next(seeds)),
                )
            )  # fmt: skip
    return out


def trials_jobs(
    results: Sequence[SeriesAnalysis], lay: Layout, estimator: LocationEstimatorName,
    confidence_level: float, root_seed: int,
) -> list[TrialsJob]:  # fmt: skip
    """One job per benchmark measured in at least ``MIN_TRIALS`` runs of one side."""
    # trials are the runs of one side (a file); when every side is a single run (a frame
    # not read from files), all runs of a benchmark are its trials
    per_file = any(len(runs) > 1 for runs in lay.groups.values())
    by_side: dict[tuple[str, str], list[SeriesAnalysis]] = {}
    for s in results:
        side = lay.group_of[s.run] if per_file else ""
        by_side.setdefault((side, s.benchmark), []).append(s)
    seeds = np.random.SeedSequence([root_seed, 2]).generate_state(len(by_side) + 1).tolist()
    return [
        TrialsJob(
            name,
            {s.run: s.segment for s in group},
            tuple(s.classification for s in group),
            estimator,
            confidence_level,
            int(seed),
        )
        for ((_, name), group), seed in zip(by_side.items(), seeds, strict=False)
        if len(group) >= MIN_TRIALS
    ]
