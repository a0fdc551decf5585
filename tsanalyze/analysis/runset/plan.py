"""What a run-set analysis computes, decided before anything runs.

:func:`layout` indexes the frame (where each (run, benchmark) series lives, which side each
run belongs to); :func:`series_jobs`, :func:`comparison_jobs` and :func:`trials_jobs` turn it
into picklable jobs, each with its own seed spawned from the root seed, so that the result
does not depend on how many workers run them (:mod:`.executor`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from tsanalyze import schema
from tsanalyze.analysis._seed import family_seeds
from tsanalyze.analysis.runset.results import MIN_TRIALS
from tsanalyze.analysis.series import SeriesAnalysis, series_inputs
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.estimators import LocationEstimatorName

__all__ = [
    "CompareJob",
    "Layout",
    "ReadSeriesJob",
    "SeriesJob",
    "SeriesSource",
    "SideRef",
    "TrialsJob",
    "comparison_jobs",
    "declared_order",
    "interleaved",
    "layout",
    "match_run",
    "read_series_jobs",
    "series_job",
    "series_jobs",
    "side_of",
    "source_layout",
    "trials_jobs",
]

RunsMeta = Mapping[str, Mapping[str, Any]]
#: evals: compare() turns the run's timer resolution into a per-evaluation tick (issue 23)
_COMPARE_COLUMNS = ("run", "round", "sample", "evals", "time_ns")


#: reads one series where it is called: ``reader(columns)`` -> the series' run-format frame
SeriesReader = Callable[[Sequence[str]], pd.DataFrame]


@runtime_checkable
class SeriesSource(Protocol):
    """Run files planned from their metadata, whose series the workers read themselves.

    :func:`tsanalyze.io.series_source.parquet_series` makes one (the analysis layer reads
    no file: it only calls the readers it is given, on the workers).
    """

    @property
    def runs(self) -> Mapping[str, Mapping[str, Any]]:
        """Run id -> its metadata (``"file"``: the path or URL it is read from)."""

    @property
    def keys(self) -> Sequence[tuple[str, str]]:
        """Every (run, benchmark) series the files hold."""

    @property
    def n_samples(self) -> int:
        """Samples in all (from the footers)."""

    def reader(self, run: str, benchmark: str) -> SeriesReader:
        """A small picklable callable that reads that one series, and only it."""


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
class ReadSeriesJob:
    """One series to analyse, read by the task itself (a :class:`SeriesSource`'s reader)."""

    reader: SeriesReader
    benchmark: str
    run: str
    seed: int
    estimator: LocationEstimatorName
    confidence_level: float
    raw: bool

    def job(self) -> SeriesJob:
        """Read the series and make its :class:`SeriesJob` (as :func:`series_jobs` would)."""
        return series_job(
            self.reader(()), self.run, self.benchmark, self.seed, self.estimator,
            self.confidence_level, self.raw,
        )  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class SideRef:
    """One side of a comparison, read by the task itself: each series' stable segment
    ``[start, stop)`` (in sample order), as :func:`comparison_jobs` slices the frame."""

    parts: tuple[tuple[SeriesReader, str, int, int], ...]  # reader, run, start, stop
    runs: tuple[str, ...]  # the categories of ``run`` (every run, in run order)
    meta: Mapping[str, Any]  # run id -> metadata of the side's runs

    def frame(self) -> pd.DataFrame:
        """The rows of the segments, with the columns of :func:`comparison_jobs`' sides
        (read one series at a time into columns allocated once; ``run`` from codes)."""
        code = {r: i for i, r in enumerate(self.runs)}
        n = sum(stop - start for _, _, start, stop in self.parts)
        runs = np.empty(n, np.int32)
        cols: dict[str, np.ndarray] = {}
        at = 0
        for read, rid, start, stop in self.parts:
            df = read(())
            for c in _COMPARE_COLUMNS[1:]:
                v = df[c].to_numpy()
                if c not in cols:
                    cols[c] = np.empty(n, v.dtype)
                cols[c][at : at + stop - start] = v[start:stop]
            runs[at : at + stop - start] = code[rid]
            at += stop - start
            del df
        cats = pd.Index(self.runs, dtype=object)
        run = pd.Categorical.from_codes(runs, categories=cats)
        side = pd.DataFrame({"run": run, **cols}, copy=False)
        side.attrs["runs"] = schema.RunsAttr(self.meta)
        return side


@dataclasses.dataclass(frozen=True, slots=True)
class CompareJob:
    """One comparison (:func:`tsanalyze.compare`) and the family it is adjusted in."""

    family: int
    kind: Literal["benchmark", "run"]
    benchmark: str
    baseline_benchmark: str
    run: str
    baseline_run: str
    a: pd.DataFrame | SideRef
    b: pd.DataFrame | SideRef
    estimator: LocationEstimatorName
    confidence_level: float
    seed: int
    #: None: compare() pairs by shared rounds; False: the run was not interleaved
    paired: bool | None = None
    #: dependence assessments already made of the sides' series, kept by the worker
    #: before it compares (:func:`tsanalyze.stats.dependence.keep`; issue 24)
    assessments: tuple[Any, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class TrialsJob:
    """One benchmark's runs to summarise as trials."""

    benchmark: str
    segments: dict[str, np.ndarray]
    classifications: tuple[str, ...]
    estimator: LocationEstimatorName
    confidence_level: float
    seed: int
    #: the side the runs are trials of ("" when they are runs of several sides)
    side: str = ""
    #: dependence assessments already made of the segments (as in :class:`CompareJob`)
    assessments: tuple[Any, ...] = ()


def side_of(rid: str, meta: Mapping[str, Any] | None, sides: Mapping[str, str] | None) -> str:
    """The side run ``rid`` belongs to: ``sides[rid]`` when given (the CLI gives the
    directory or glob a file was found under), else the file it was read from, else the
    run itself."""
    if sides and rid in sides:
        return str(sides[rid])
    return str((meta or {}).get("file") or rid)


def layout(df: pd.DataFrame, runs_meta: RunsMeta, sides: Mapping[str, str] | None = None) -> Layout:
    """Index a run-set frame by (run, benchmark); runs in metadata order, then as found.
    Each run is put on its side (:func:`side_of`)."""
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
    group_of = {rid: side_of(rid, runs_meta.get(rid), sides) for rid in run_order}
    return Layout(run_order, keys, rows, group_of)


def match_run(
    baseline: str, runs_meta: RunsMeta, order: Sequence[str],
    group_of: Mapping[str, str] | None = None,
) -> str:  # fmt: skip
    """The (first) run id that ``baseline`` names: a run id, a side label, or the file
    (or directory) a run came from."""
    if baseline in order:
        return baseline
    for rid in order:
        if group_of and group_of.get(rid) == baseline:
            return rid
    target = Path(baseline).expanduser()
    for rid in order:
        file = runs_meta.get(rid, {}).get("file")
        if file and (Path(file) == target or Path(file).resolve() == target.resolve()):
            return rid
        side = (group_of or {}).get(rid)
        if side and Path(side).resolve() == target.resolve():
            return rid
    raise InvalidArgumentError(
        f"baseline: {baseline!r} is neither a run id nor a file of this run set"
    )


def interleaved(df: pd.DataFrame | None, rid: str, meta: Mapping[str, Any] | None) -> bool:
    """Was run ``rid`` recorded in interleaved rounds (so its benchmarks pair by round)?

    The collector records ``collector.interleave``; imported runs (hyperfine, Go, JMH,
    ...) ran their benchmarks one after another, and their ``round`` is only the sample
    index. Without metadata, a ``position`` that varies within the run says interleaved.
    """
    if meta is not None:
        return schema.interleaved(meta)
    if df is None or "position" not in df.columns:
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


def series_job(
    df: pd.DataFrame, rid: str, name: str, seed: int, estimator: LocationEstimatorName,
    confidence_level: float, raw: bool,
) -> SeriesJob:  # fmt: skip
    """The job of one series from its own frame (the rows of :func:`series_jobs`' slice)."""
    inputs = series_inputs(
        df["evals"].to_numpy() if "evals" in df.columns else None,
        df["ns"].to_numpy(dtype=np.float64) if "ns" in df.columns else None,
        df.attrs.get("runs", {}).get(rid),
    )  # fmt: skip
    x = df["time_ns"].to_numpy(dtype=np.float64)
    return SeriesJob(name, rid, x, seed, estimator, confidence_level, raw, inputs)


def source_layout(source: SeriesSource, sides: Mapping[str, str] | None = None) -> Layout:
    """:func:`layout` of run files planned from their metadata: the same run order, keys
    and sides, and no row positions (each task reads its own series)."""
    runs_meta = source.runs
    found = {r for r, _ in source.keys}
    run_order = [r for r in runs_meta if r in found]
    rank = {r: i for i, r in enumerate(run_order)}
    keys = sorted(dict.fromkeys(source.keys), key=lambda rb: (rb[1], rank[rb[0]]))
    group_of = {rid: side_of(rid, runs_meta.get(rid), sides) for rid in run_order}
    return Layout(run_order, keys, {}, group_of)


def read_series_jobs(
    source: SeriesSource, lay: Layout, seeds: Sequence[int], estimator: LocationEstimatorName,
    confidence_level: float, raw: bool,
) -> list[ReadSeriesJob]:  # fmt: skip
    """One job per series in ``lay.keys`` order, each reading its series where it runs."""
    return [
        ReadSeriesJob(source.reader(rid, name), name, rid, seed, estimator, confidence_level, raw)
        for (rid, name), seed in zip(lay.keys, seeds, strict=True)
    ]


def declared_order(names: Sequence[str], meta: Mapping[str, Any] | None) -> list[str]:
    """``names`` in the order the run declared its targets (hyperfine's commands are
    listed in the order given), else sorted by name. The first is the default baseline."""
    spec = ((meta or {}).get("target") or {}).get("spec")
    if isinstance(spec, list):
        declared = [
            str(e.get("command", e.get("benchmark"))) for e in spec if isinstance(e, Mapping)
        ]
        if set(names) <= set(declared):
            return [d for d in dict.fromkeys(declared) if d in set(names)]
    return sorted(names)


def comparison_jobs(
    df: pd.DataFrame | None, lay: Layout, results: Sequence[SeriesAnalysis], base_run: str,
    baseline_benchmark: str | None, estimator: LocationEstimatorName, confidence_level: float,
    root_seed: int, runs_meta: RunsMeta | None = None, source: SeriesSource | None = None,
) -> list[CompareJob]:  # fmt: skip
    """The comparisons the user asked for, each on the series' analysed segments.

    Sides are what the user gave: a file with every run it holds (trials), a directory or
    glob when the caller says so (``sides`` of :func:`layout`), or one run. Two kinds:

    * **side against the baseline side** (``kind="run"``), every benchmark both hold,
      unpaired (run level when a side holds several runs); one Holm family per candidate
      side; seeds as :func:`tsanalyze.compare_runs` draws them from the root seed
      (:func:`~tsanalyze.analysis._seed.family_seeds`), so ``compare_runs(a, b, rng=seed)``
      and ``df.tsa.compare`` give the same numbers;
    * **benchmarks of one side against its baseline benchmark** (``kind="benchmark"``,
      paired by round when interleaved): only when asked (``baseline_benchmark``), or when
      the runs declared their benchmarks alternatives (:func:`tsanalyze.schema.alternatives`:
      a collector run of several targets, hyperfine's commands) and none of them was
      measured on another side. Baseline: the first target declared (else by name). A
      suite of unrelated benchmarks (Go, Google Benchmark, JMH, pyperf, ...) is never
      compared within itself; JMH forks and pyperf worker processes are trials of one
      side, never compared with each other.

    With a ``source`` (run files planned from their metadata; ``df`` is then None), each
    side is a :class:`SideRef`: the task reads the segments itself.
    """
    by_key = {(s.run, s.benchmark): s for s in results}
    if source is not None:
        meta = source.runs
        order = tuple(lay.run_order)

        def segment(runs: Sequence[str], name: str) -> pd.DataFrame | SideRef:
            parts = tuple(
                (source.reader(rid, name), rid, by_key[(rid, name)].start,
                 by_key[(rid, name)].stop)
                for rid in runs if (rid, name) in by_key
            )  # fmt: skip
            return SideRef(parts, order, {rid: meta[rid] for rid in runs if rid in meta})

    else:
        assert df is not None
        cols = [c for c in _COMPARE_COLUMNS if c in df.columns]
        # issue 24: the frame's attrs (every run's metadata) would be deep-copied by pandas
        # on every slice; each side carries only the metadata of its own runs
        bare = pd.DataFrame({c: df[c] for c in cols}, copy=False)
        meta = runs_meta if runs_meta is not None else df.attrs.get("runs", {})

        made: dict[tuple[tuple[str, ...], str], pd.DataFrame] = {}

        def segment(runs: Sequence[str], name: str) -> pd.DataFrame | SideRef:
            # the baseline side is the same frame in every comparison with it (only read)
            key = (tuple(runs), name)
            if key in made:
                return made[key]
            parts = []
            for rid in runs:
                if (rid, name) in by_key:
                    s = by_key[(rid, name)]
                    parts.append(lay.rows[(rid, name)][s.start : s.stop])
            side = bare.iloc[np.concatenate(parts)]
            side.attrs["runs"] = schema.RunsAttr({rid: meta[rid] for rid in runs if rid in meta})
            made[key] = side
            return side

    groups = lay.groups
    names_in_group = {
        g: sorted({b for r, b in lay.keys if r in set(runs)}) for g, runs in groups.items()
    }
    out: list[CompareJob] = []
    family = 0
    for g, runs in groups.items():
        names = names_in_group[g]
        elsewhere = any(set(names) & set(names_in_group[h]) for h in groups if h != g)
        if baseline_benchmark is not None:
            base = baseline_benchmark
        elif (
            len(names) >= 2
            and not elsewhere
            and all(schema.alternatives(meta.get(r)) for r in runs)
        ):
            base = declared_order(names, meta.get(runs[0]))[0]
        else:
            continue
        if base not in names or len(names) < 2:
            continue
        family += 1
        candidates = [name for name in names if name != base]
        for name, seed in zip(candidates, family_seeds(root_seed, len(candidates)), strict=True):
            both = [r for r in runs if (r, base) in by_key and (r, name) in by_key]
            if not both:
                continue
            paired = None if all(interleaved(df, r, meta.get(r)) for r in both) else False
            where = both[0] if len(both) == 1 else g
            out.append(
                CompareJob(
                    family, "benchmark", name, base, where, where, segment(both, base),
                    segment(both, name), estimator, confidence_level, seed, paired,
                )
            )  # fmt: skip
    base_group = lay.group_of[base_run]
    for g, runs in groups.items():
        shared = sorted(set(names_in_group[base_group]) & set(names_in_group[g]))
        if g == base_group or not shared:
            continue
        family += 1
        # compare_runs' seeds: one per shared benchmark (sorted), from the root seed
        for name, seed in zip(shared, family_seeds(root_seed, len(shared)), strict=True):
            out.append(
                CompareJob(
                    family, "run", name, name, g, base_group, segment(groups[base_group], name),
                    segment(runs, name), estimator, confidence_level, int(seed),
                )
            )  # fmt: skip
    return out


def trials_jobs(
    results: Sequence[SeriesAnalysis], lay: Layout, estimator: LocationEstimatorName,
    confidence_level: float, root_seed: int,
) -> list[TrialsJob]:  # fmt: skip
    """One job per benchmark measured in several runs of one side (JMH forks, pyperf
    worker processes, the runs of one file or directory): those runs are its trials, and
    the report shows them as one row. When no side holds several runs (each run its own
    side), a benchmark measured in at least ``MIN_TRIALS`` runs also gets a trials summary
    across them (beside the run-against-run comparisons)."""
    per_side = any(len(runs) > 1 for runs in lay.groups.values())
    by_side: dict[tuple[str, str], list[SeriesAnalysis]] = {}
    for s in results:
        side = lay.group_of[s.run] if per_side else ""
        by_side.setdefault((side, s.benchmark), []).append(s)
    seeds = np.random.SeedSequence([root_seed, 2]).generate_state(len(by_side) + 1).tolist()
    least = 2 if per_side else MIN_TRIALS
    return [
        TrialsJob(
            name,
            {s.run: s.segment for s in group},
            tuple(s.classification for s in group),
            estimator,
            confidence_level,
            int(seed),
            side,
        )
        for ((side, name), group), seed in zip(by_side.items(), seeds, strict=False)
        if len(group) >= least
    ]
