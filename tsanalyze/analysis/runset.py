"""Analysis of a run set: every (run, benchmark) series, trials grouped, comparisons.

:func:`analyze` is what ``tsanalyze report`` computes. It takes the tidy frame of
:func:`tsanalyze.read_runs` (or one series) and returns a frozen :class:`RunAnalysis`
(or a :class:`~tsanalyze.analysis.series.SeriesAnalysis` for one series). Independent
series are analysed in parallel worker processes; the result does not depend on the
number of workers, because each series gets its own seed spawned from one root seed.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze import schema
from tsanalyze._result import Finding, Result, to_builtin
from tsanalyze._typing import ArrayLike, RNGType
from tsanalyze._validation import check_confidence_level, check_positive_int, check_rng
from tsanalyze.analysis.series import EstimatorName, SeriesAnalysis, analyze_series
from tsanalyze.errors import InvalidArgumentError, InvalidRunError, NotEnoughData

__all__ = ["MIN_TRIALS", "ComparisonRow", "RunAnalysis", "TrialsRow", "analyze", "analyze_runs"]

#: a benchmark measured in this many runs gets a trials summary (with two runs, the
#: run-against-run comparison already says whether they differ)
MIN_TRIALS = 3
#: below this many samples in total, worker processes cost more than they save
_PARALLEL_MIN_SAMPLES = 100_000

ProgressCallback = Callable[[int, int], None]

#: modules the worker server imports once, so that no worker pays for them
_PRELOAD = (
    "tsanalyze.analysis.runset",
    "tsanalyze.analysis.compare",
    "tsanalyze.analysis.trials",
    "tsanalyze.stats.bootstrap",
    "statsmodels.tsa.stattools",
)


@dataclasses.dataclass(frozen=True, slots=True)
class ComparisonRow(Result):
    """One comparison of a candidate series against its baseline.

    ``kind`` is ``"benchmark"`` (two benchmarks interleaved in one run: paired rounds) or
    ``"run"`` (one benchmark on two sides; a side is a file with all the runs it holds, or
    one run when there is no file; ``run``/``baseline_run`` then name the sides). ``ratio``
    is candidate / baseline of the estimator; ``verdict`` is faster / slower / same / inconclusive after the
    multiplicity adjustment of the family the comparison belongs to.
    """

    kind: str
    benchmark: str
    baseline_benchmark: str
    run: str
    baseline_run: str
    ratio: float
    ci_low: float
    ci_high: float
    confidence_level: float
    pvalue: float
    pvalue_adjusted: float
    test: str
    verdict: str
    paired: bool
    warnings: tuple[Finding, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class TrialsRow(Result):
    """One benchmark measured in several runs (trials), summarised across them.

    ``estimate``/``ci_low``/``ci_high`` come from the two-level (run, then sample)
    bootstrap of :func:`tsanalyze.analysis.trials.estimate_trials` on the stable segments;
    ``disagree`` says the per-run estimates differ beyond their CIs (Cochran's Q);
    ``classifications`` are the runs' steady-state classes, ``consistent`` whether they
    all agree (Barrett et al. 2017).
    """

    benchmark: str
    runs: tuple[str, ...]
    n_trials: int
    estimator: str
    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    method: str
    between_sd: float
    within_se: float
    between_share: float
    heterogeneity_pvalue: float
    disagree: bool
    classifications: tuple[str, ...]
    consistent: bool
    warnings: tuple[Finding, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class RunAnalysis(Result):
    """What a run set says: one :class:`SeriesAnalysis` per (run, benchmark), and the
    comparisons chosen from how the data were collected.

    Attributes
    ----------
    series : tuple of SeriesAnalysis
        Grouped by benchmark (sorted by name), then the runs (trials) of each benchmark
        in the order they were given.
    comparisons : tuple of ComparisonRow
    trials : tuple of TrialsRow
        One per benchmark measured in at least ``MIN_TRIALS`` runs of one side (file);
        when no file holds several runs, in at least ``MIN_TRIALS`` runs in all.
    runs : tuple of (run id, file) pairs
        The runs in the order given (file is "" when unknown).
    baseline_run, baseline_benchmark : str or None
        The baselines the comparisons used: the baseline side (its file, or the run id
        when there is no file) and benchmark (None when no comparison of that kind was
        made, or, for benchmarks, when different runs used different baselines).
    estimator, confidence_level, raw, seed :
        The settings used (``seed`` is the root seed; each series records its own).
    noise_floor : NoiseFloor or None
        What a designated reference benchmark's noise floor explains of each benchmark's
        sd (:func:`tsanalyze.noise_floor`, seed 003), when ``reference`` was given.
    warnings : tuple of Finding
    """

    series: tuple[SeriesAnalysis, ...]
    comparisons: tuple[ComparisonRow, ...]
    trials: tuple[TrialsRow, ...]
    runs: tuple[tuple[str, str], ...]
    baseline_run: str | None
    baseline_benchmark: str | None
    estimator: str
    confidence_level: float
    raw: bool
    seed: int | None
    noise_floor: Any = None
    warnings: tuple[Finding, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_builtin(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """The summary table: one row per series (scalar fields of each SeriesAnalysis)."""
        if not self.series:
            return pd.DataFrame()
        return pd.concat([s.to_frame() for s in self.series], ignore_index=True)

    def comparisons_frame(self) -> pd.DataFrame:
        """The comparison table: one row per comparison."""
        if not self.comparisons:
            return pd.DataFrame(columns=[f.name for f in dataclasses.fields(ComparisonRow)])
        return pd.concat([c.to_frame() for c in self.comparisons], ignore_index=True)

    @property
    def regression(self) -> bool:
        """Whether any comparison's verdict is ``slower``."""
        return any(c.verdict == "slower" for c in self.comparisons)


@dataclasses.dataclass(frozen=True, slots=True)
class _Job:
    benchmark: str
    run: str
    x: np.ndarray
    sample_ns: np.ndarray | None
    evals: int
    seed: int
    estimator: EstimatorName
    confidence_level: float
    raw: bool
    timer: dict[str, Any]


def _run_job(job: _Job) -> SeriesAnalysis:
    return analyze_series(
        job.x,
        benchmark=job.benchmark,
        run=job.run,
        estimator=job.estimator,
        confidence_level=job.confidence_level,
        raw=job.raw,
        evals=job.evals,
        sample_ns=job.sample_ns,
        timer=job.timer,
        rng=job.seed,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _CompareJob:
    family: int
    kind: str
    benchmark: str
    baseline_benchmark: str
    run: str
    baseline_run: str
    a: pd.DataFrame
    b: pd.DataFrame
    estimator: str
    confidence_level: float
    seed: int
    #: None: compare() pairs by shared rounds; False: the run was not interleaved
    paired: bool | None = None


def _run_compare(job: _CompareJob) -> Any:
    from tsanalyze.analysis.compare import compare

    return compare(
        job.a,
        job.b,
        estimator=job.estimator,
        confidence_level=job.confidence_level,
        benchmark=job.benchmark,
        paired=job.paired,
        rng=job.seed,
    )


def _interleaved(df: pd.DataFrame, rid: str, meta: Mapping[str, Any] | None) -> bool:
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


@dataclasses.dataclass(frozen=True, slots=True)
class _TrialsJob:
    benchmark: str
    segments: dict[str, np.ndarray]
    classifications: tuple[str, ...]
    estimator: EstimatorName
    confidence_level: float
    seed: int


def _run_trials(job: _TrialsJob) -> TrialsRow:
    from tsanalyze.analysis.trials import estimate_trials

    t = estimate_trials(
        job.segments, job.estimator, confidence_level=job.confidence_level, rng=job.seed
    )
    consistent = len(set(job.classifications)) == 1
    found = list(t.warnings)
    if not consistent:
        counts = {c: job.classifications.count(c) for c in dict.fromkeys(job.classifications)}
        found.append(
            Finding(
                "trials-inconsistent",
                "the runs disagree on the steady state: "
                + ", ".join(f"{c} in {k}" for c, k in counts.items()),
                "warning",
            )
        )
    return TrialsRow(
        benchmark=job.benchmark,
        runs=tuple(job.segments),
        n_trials=int(t.n_trials),
        estimator=job.estimator,
        estimate=float(t.estimate),
        ci_low=float(t.ci_low),
        ci_high=float(t.ci_high),
        confidence_level=float(t.confidence_level),
        method=str(t.method),
        between_sd=float(t.between_sd),
        within_se=float(t.within_se),
        between_share=float(t.between_share),
        heterogeneity_pvalue=float(t.heterogeneity_pvalue),
        disagree=bool(t.disagree),
        classifications=job.classifications,
        consistent=consistent,
        warnings=tuple(found),
    )


def _trials_jobs(
    results: Sequence[SeriesAnalysis],
    layout: _Layout,
    estimator: EstimatorName,
    confidence_level: float,
    root_seed: int,
) -> list[_TrialsJob]:
    # trials are the runs of one side (a file); when every side is a single run (a frame
    # not read from files), all runs of a benchmark are its trials
    per_file = any(len(runs) > 1 for runs in layout.groups.values())
    by_side: dict[tuple[str, str], list[SeriesAnalysis]] = {}
    for s in results:
        side = layout.group_of[s.run] if per_file else ""
        by_side.setdefault((side, s.benchmark), []).append(s)
    seeds = np.random.SeedSequence([root_seed, 2]).generate_state(len(by_side) + 1).tolist()
    return [
        _TrialsJob(
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


def _analyze_iv(df: pd.DataFrame, jobs: int | None) -> int:
    missing = [c for c in ("benchmark", "run", "sample", "time_ns") if c not in df.columns]
    if missing:
        raise InvalidRunError(
            f"df: missing column(s) {', '.join(missing)}; expected the frame of tsanalyze.read_runs"
        )
    if len(df) == 0:
        raise NotEnoughData("df: holds no samples")
    if jobs is None:
        return max(1, os.cpu_count() or 1)
    return check_positive_int(jobs, "jobs")


def _match_run(baseline: str, runs: dict[str, dict[str, Any]], order: Sequence[str]) -> str:
    if baseline in order:
        return baseline
    target = Path(baseline).expanduser()
    for rid in order:
        file = runs.get(rid, {}).get("file")
        if file and (Path(file) == target or Path(file).resolve() == target.resolve()):
            return rid
    raise InvalidArgumentError(f"baseline: {baseline!r} is neither a run id nor a file of this run set")


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
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


def _layout(df: pd.DataFrame, runs_meta: dict[str, dict[str, Any]]) -> _Layout:
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
    return _Layout(run_order, keys, rows, group_of)


def _series_jobs(
    df: pd.DataFrame,
    layout: _Layout,
    runs_meta: dict[str, dict[str, Any]],
    seeds: list[int],
    estimator: EstimatorName,
    confidence_level: float,
    raw: bool,
) -> list[_Job]:
    time_ns = df["time_ns"].to_numpy(dtype=np.float64)
    ns = df["ns"].to_numpy(dtype=np.float64) if "ns" in df.columns else None
    evals_col = df["evals"].to_numpy() if "evals" in df.columns else None
    jobs: list[_Job] = []
    for (rid, name), seed in zip(layout.keys, seeds, strict=True):
        idx = layout.rows[(rid, name)]
        evals = int(np.median(evals_col[idx])) if evals_col is not None else 1
        jobs.append(
            _Job(
                benchmark=name,
                run=rid,
                x=time_ns[idx],
                sample_ns=None if ns is None else ns[idx],
                evals=max(1, evals),
                seed=seed,
                estimator=estimator,
                confidence_level=confidence_level,
                raw=raw,
                timer=dict(runs_meta.get(rid, {}).get("timer") or {}),
            )
        )
    return jobs


class _Runner:
    """Runs jobs serially, or in one pool of worker processes kept for every phase."""

    def __init__(self, workers: int, n_samples: int) -> None:
        self.pool: ProcessPoolExecutor | None = None
        if workers > 1 and n_samples >= _PARALLEL_MIN_SAMPLES:
            # forkserver (spawn where unavailable), never plain fork: the caller may hold
            # threads (progress bars), and fork with threads can deadlock. The server
            # imports the analysis once, so workers start fast.
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            if "forkserver" in methods:
                ctx.set_forkserver_preload(list(_PRELOAD))
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)

    def map(
        self, fn: Callable[[Any], Any], items: Sequence[Any], on_done: Callable[[], None]
    ) -> list[Any]:
        out: list[Any] = [None] * len(items)
        if self.pool is None:
            for i, item in enumerate(items):
                out[i] = fn(item)
                on_done()
            return out
        futures = {self.pool.submit(fn, item): i for i, item in enumerate(items)}
        for fut in as_completed(futures):
            out[futures[fut]] = fut.result()
            on_done()
        return out

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def analyze(
    data: pd.DataFrame | pd.Series | ArrayLike,
    *,
    estimator: EstimatorName = "median",
    confidence_level: float = 0.95,
    raw: bool = False,
    baseline: str | None = None,
    baseline_benchmark: str | None = None,
    jobs: int | None = 1,
    rng: RNGType = None,
    reference: str | None = None,
    progress: ProgressCallback | None = None,
) -> RunAnalysis | SeriesAnalysis:
    """Analyse a run set (or one series): steady state, dependence, estimates, comparisons.

    Parameters
    ----------
    data : DataFrame, Series or array_like
        The frame of :func:`tsanalyze.read_runs` (columns ``benchmark``, ``run``,
        ``sample``, ``time_ns``, and ``ns``/``evals`` when present), or one series of
        per-evaluation times in ns (then a :class:`SeriesAnalysis` is returned).
    estimator : {"median", "min", "mean", "trimmed_mean"}
        Location estimator of every estimate and comparison.
    confidence_level : float
        Of every CI.
    raw : bool
        Analyse whole series instead of their stable segments.
    baseline : str, optional
        Run id or file of the baseline for side-against-side comparisons (default: the
        first run given). A side is a file with every run it holds (trials), or one run
        when the frame did not come from files.
    baseline_benchmark : str, optional
        Benchmark that the other benchmarks of the same run are compared against. By
        default benchmarks are compared with each other only when the run set is a single
        run, against its first benchmark by name.
    jobs : int or None, default 1
        Worker processes; ``None`` uses every core (the CLI's default). The result does
        not depend on it. With more than one worker a script must guard its top level with
        ``if __name__ == "__main__":``, as :mod:`multiprocessing` requires.
    rng : int, Generator or None
        Root of the randomness; each series gets a seed spawned from it.
    progress : callable, optional
        Called as ``progress(done, total)`` after each series and comparison.
    reference : str, optional
        A reference benchmark measured in the runs (a task with no variation of its own,
        like Boyer's LFSR loop): the share of each benchmark's sd its noise floor explains
        is reported (seed 003).

    Returns
    -------
    RunAnalysis or SeriesAnalysis

    Notes
    -----
    Comparisons are chosen from how the data were collected. One benchmark measured on
    several sides (an old and a new version) is compared with the baseline side, unpaired;
    a side with several runs (trials) is compared at the run level (:func:`compare`), and
    a benchmark with at least ``MIN_TRIALS`` runs on one side gets a trials summary. Benchmarks measured in one run share rounds, so they are compared with the
    run's baseline benchmark as paired comparisons: in every run when
    ``baseline_benchmark`` is given, otherwise in each run none of whose benchmarks was
    measured in another run (baseline: its first benchmark by name). Each family (one run's
    benchmark comparisons; one candidate run's comparisons with the baseline run) is
    adjusted for multiplicity (Holm) before its verdicts.

    References
    ----------
    seed 001: Li et al., "Pilot" (MASCOTS 2016); seed 002: zenbench methodology
    (interleaved paired rounds).

    Examples
    --------
    >>> from tsanalyze.datasets import simulate_run
    >>> sim = simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=500, noise="gaussian", rng=1)
    >>> result = analyze(sim.frame, rng=1)
    >>> [(c.benchmark, c.baseline_benchmark, c.paired, c.verdict) for c in result.comparisons]
    [('b', 'a', True, 'slower')]
    >>> round(result.comparisons[0].ratio, 2)
    1.1
    """
    check_confidence_level(confidence_level)
    if not isinstance(data, pd.DataFrame):
        values = (
            data.to_numpy(np.float64)
            if isinstance(data, pd.Series)
            else np.asarray(data, dtype=np.float64)
        )
        return analyze_series(
            values, estimator=estimator, confidence_level=confidence_level, raw=raw, rng=rng
        )
    return analyze_runs(
        data, estimator=estimator, confidence_level=confidence_level, raw=raw, baseline=baseline,
        baseline_benchmark=baseline_benchmark, jobs=jobs, rng=rng, progress=progress,
        reference=reference,
    )  # fmt: skip


def analyze_runs(
    data: pd.DataFrame,
    *,
    estimator: EstimatorName = "median",
    confidence_level: float = 0.95,
    raw: bool = False,
    baseline: str | None = None,
    baseline_benchmark: str | None = None,
    jobs: int | None = 1,
    rng: RNGType = None,
    reference: str | None = None,
    progress: ProgressCallback | None = None,
) -> RunAnalysis:
    """:func:`analyze` for a run-set frame; always returns a :class:`RunAnalysis`.

    Parameters and Notes as in :func:`analyze`.

    Returns
    -------
    RunAnalysis
    """
    check_confidence_level(confidence_level)
    workers = _analyze_iv(data, jobs)
    _, root_seed = check_rng(rng)
    if root_seed is None:  # a Generator was given: draw the root seed from it
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng()
        root_seed = int(gen.integers(0, 2**32))
    runs_meta: dict[str, dict[str, Any]] = dict(data.attrs.get("runs", {}))
    layout = _layout(data, runs_meta)
    run_order = layout.run_order
    base_run = _match_run(baseline, runs_meta, run_order) if baseline is not None else run_order[0]
    if baseline_benchmark is not None and all(b != baseline_benchmark for _, b in layout.keys):
        raise InvalidArgumentError(
            f"baseline_benchmark: no benchmark named {baseline_benchmark!r} in this run set"
        )
    if reference is not None and all(b != reference for _, b in layout.keys):
        raise InvalidArgumentError(f"reference: no benchmark named {reference!r} in this run set")
    children = np.random.SeedSequence(root_seed).spawn(len(layout.keys))
    seeds = [int(c.generate_state(1, dtype=np.uint32)[0]) for c in children]
    job_list = _series_jobs(data, layout, runs_meta, seeds, estimator, confidence_level, raw)

    done = [0, len(job_list)]

    def tick() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], done[1])

    runner = _Runner(workers, len(data))
    try:
        results: list[SeriesAnalysis] = runner.map(_run_job, job_list, tick)
        cmp_jobs = _comparison_jobs(
            data,
            layout,
            results,
            base_run,
            baseline_benchmark,
            estimator,
            confidence_level,
            root_seed,
            runs_meta,
        )
        trial_jobs = _trials_jobs(results, layout, estimator, confidence_level, root_seed)
        done[1] += len(cmp_jobs) + len(trial_jobs)
        compared = runner.map(_run_compare, cmp_jobs, tick)
        trials: list[TrialsRow] = runner.map(_run_trials, trial_jobs, tick)
    finally:
        runner.close()
    comparisons = _verdicts(cmp_jobs, compared)
    floor = None
    if reference is not None:
        from tsanalyze.analysis.noise import noise_floor

        floor = noise_floor(data, reference)
    return RunAnalysis(
        series=tuple(results),
        comparisons=tuple(comparisons),
        trials=tuple(trials),
        runs=tuple((rid, str(runs_meta.get(rid, {}).get("file", ""))) for rid in run_order),
        baseline_run=(
            layout.group_of[base_run] if any(c.kind == "run" for c in comparisons) else None
        ),
        baseline_benchmark=_used_baseline_benchmark(comparisons),
        estimator=estimator,
        confidence_level=float(confidence_level),
        raw=bool(raw),
        seed=root_seed,
        noise_floor=floor,
        warnings=() if floor is None else tuple(floor.warnings),
    )


def _used_baseline_benchmark(comparisons: Sequence[ComparisonRow]) -> str | None:
    names = {c.baseline_benchmark for c in comparisons if c.kind == "benchmark"}
    return names.pop() if len(names) == 1 else None


_COMPARE_COLUMNS = ("run", "round", "sample", "time_ns")


def _comparison_jobs(
    df: pd.DataFrame,
    layout: _Layout,
    results: Sequence[SeriesAnalysis],
    base_run: str,
    baseline_benchmark: str | None,
    estimator: str,
    confidence_level: float,
    root_seed: int,
    runs_meta: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[_CompareJob]:
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
                parts.append(layout.rows[(rid, name)][s.start : s.stop])
        return df.iloc[np.concatenate(parts)][cols]

    names_in_run = {rid: sorted(b for r, b in layout.keys if r == rid) for rid in layout.run_order}
    groups = layout.groups
    names_in_group = {
        g: sorted({b for rid in runs for b in names_in_run[rid]}) for g, runs in groups.items()
    }
    seeds = iter(np.random.SeedSequence([root_seed, 1]).generate_state(len(results) + 1).tolist())
    out: list[_CompareJob] = []
    family = 0
    # benchmarks of one run against the baseline benchmark (paired when interleaved): in
    # every run when a baseline benchmark is named; otherwise in the runs none of whose
    # benchmarks was measured on another side (those are compared side against side)
    for rid in layout.run_order:
        names = names_in_run[rid]
        mine = layout.group_of[rid]
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
        paired = None if _interleaved(df, rid, (runs_meta or {}).get(rid)) else False
        for name in names:
            if name != base:
                out.append(
                    _CompareJob(
                        family, "benchmark", name, base, rid, rid, a, segment([rid], name),
                        estimator, confidence_level, int(next(seeds)), paired,
                    )
                )  # fmt: skip
    # each other side against the baseline side, benchmark by benchmark (Holm per side);
    # several runs on a side are compared at the run level by compare()
    base_group = layout.group_of[base_run]
    for g, runs in groups.items():
        shared = sorted(set(names_in_group[base_group]) & set(names_in_group[g]))
        if g == base_group or not shared:
            continue
        family += 1
        for name in shared:
            out.append(
                _CompareJob(
                    family, "run", name, name, g, base_group, segment(groups[base_group], name),
                    segment(runs, name), estimator, confidence_level, int(next(seeds)),
                )
            )  # fmt: skip
    return out


def _verdicts(jobs: Sequence[_CompareJob], compared: Sequence[Any]) -> list[ComparisonRow]:
    """Holm-adjust each family's p-values, then give the verdicts (as compare_runs does)."""
    from tsanalyze.analysis.compare import verdict
    from tsanalyze.stats.multiplicity import adjust_pvalues

    rows: list[ComparisonRow | None] = [None] * len(jobs)
    for fam in sorted({j.family for j in jobs}):
        idx = [i for i, j in enumerate(jobs) if j.family == fam]
        padj = adjust_pvalues([compared[i].pvalue for i in idx], "holm")
        for i, pa in zip(idx, padj, strict=True):
            c, j = compared[i], jobs[i]
            pa_f = float(pa)
            v = verdict(c.ci_low, c.ci_high, pa_f, threshold=c.threshold, alpha=c.alpha)
            c2 = dataclasses.replace(c, pvalue_adjusted=pa_f, verdict=v)
            rows[i] = _row(c2, j.kind, j.benchmark, j.baseline_benchmark, j.run, j.baseline_run)
    return [r for r in rows if r is not None]


def _row(
    c: Any, kind: str, benchmark: str, baseline_benchmark: str, run: str, baseline_run: str
) -> ComparisonRow:
    return ComparisonRow(
        kind=kind,
        benchmark=benchmark,
        baseline_benchmark=baseline_benchmark,
        run=run,
        baseline_run=baseline_run,
        ratio=float(c.ratio),
        ci_low=float(c.ci_low),
        ci_high=float(c.ci_high),
        confidence_level=float(c.confidence_level),
        pvalue=float(c.pvalue),
        pvalue_adjusted=float("nan") if c.pvalue_adjusted is None else float(c.pvalue_adjusted),
        test=str(c.test),
        verdict=str(c.verdict),
        paired=bool(c.paired),
        warnings=tuple(c.warnings),
    )
