""":func:`analyze`: what ``tsanalyze report`` computes for a run set (or one series).

Plan (:mod:`.plan`), run the jobs (:mod:`.executor`), then adjust each family of
comparisons for multiplicity and give their verdicts (:func:`family_verdicts`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._result import Finding
from tsanalyze._typing import ArrayLike, RNGType
from tsanalyze._units import format_percent, format_pvalue, name_some
from tsanalyze._validation import check_confidence_level, check_positive_int
from tsanalyze.analysis._seed import root_seed as _root_seed
from tsanalyze.analysis.compare import Comparison, adjust_verdicts
from tsanalyze.analysis.runset import plan
from tsanalyze.analysis.runset.executor import (
    Runner,
    run_compare,
    run_read_series_kept,
    run_series_kept,
    run_trials,
)
from tsanalyze.analysis.runset.results import ComparisonRow, RunAnalysis, TrialsRow
from tsanalyze.analysis.series import analyze_series
from tsanalyze.analysis.trials import findings_once
from tsanalyze.errors import InvalidArgumentError, InvalidRunError, NotEnoughData
from tsanalyze.stats.estimators import LocationEstimatorName

__all__ = ["ProgressCallback", "analyze", "family_verdicts", "verdict_finding"]

ProgressCallback = Callable[[int, int], None]


def analyze(
    data: pd.DataFrame | plan.SeriesSource | pd.Series | ArrayLike,
    *,
    estimator: LocationEstimatorName = "median",
    confidence_level: float = 0.95,
    raw: bool = False,
    baseline: str | None = None,
    baseline_benchmark: str | None = None,
    jobs: int | None = 1,
    rng: RNGType = None,
    reference: str | None = None,
    progress: ProgressCallback | None = None,
    sides: Mapping[str, str] | None = None,
    engine: str = "local",
    client: Any = None,
    scheduler: str | None = None,
) -> RunAnalysis:
    """Analyse a run set (or one series): steady state, dependence, estimates, comparisons.

    Parameters
    ----------
    data : DataFrame, SeriesSource, Series or array_like
        The frame of :func:`tsanalyze.read_runs` (columns ``benchmark``, ``run``,
        ``sample``, ``time_ns``, and ``ns``/``evals`` when present); or Parquet run files
        planned from their metadata (:func:`tsanalyze.io.series_source.parquet_series`),
        whose series each task reads itself (on a Dask worker with ``engine="dask"``:
        this process never holds the samples; the result is the frame's); or one series
        of per-evaluation times in ns (then the result holds that one series, unlabelled,
        analysed with ``rng`` itself, and no comparison).
    estimator : {"median", "min", "mean", "trimmed_mean"}
        Location estimator of every estimate and comparison.
    confidence_level : float
        Of every CI.
    raw : bool
        Analyse whole series instead of their stable segments.
    baseline : str, optional
        Run id, file or side of the baseline for side-against-side comparisons (default:
        the side of the first run given). A side is a file with every run it holds
        (trials), or what ``sides`` says, or one run when the frame did not come from files.
    baseline_benchmark : str, optional
        Benchmark that the other benchmarks of each side are compared against (asking for
        comparisons inside a run). Without it, benchmarks of one run are compared only when
        the run declared them alternatives (:func:`tsanalyze.schema.alternatives`: a
        collector run of several targets, hyperfine's commands) and none was measured on
        another side; baseline: the first target declared, else the first by name.
    jobs : int or None, default 1
        Worker processes; ``None`` uses every core (the CLI's default). The result does
        not depend on it. With more than one worker a script must guard its top level with
        ``if __name__ == "__main__":``, as :mod:`multiprocessing` requires.
    rng : int, Generator or None
        Root of the randomness; each series gets a seed spawned from it. None uses the
        default seed (0), so the same input gives the same result; pass a Generator
        (e.g. ``numpy.random.default_rng()``) for a fresh seed, recorded as ``seed``.
    progress : callable, optional
        Called as ``progress(done, total)`` after each series and comparison.
    reference : str, optional
        A reference benchmark measured in the runs (a task with no variation of its own,
        like Boyer's LFSR loop): the share of each benchmark's sd its noise floor explains
        is reported (Boyer 2008).
    sides : mapping, optional
        Run id -> side label, overriding the default side of a run (its file). The CLI
        puts the runs found under one directory (or glob) given on the command line on one
        side, so that they are trials of it.
    engine : {"local", "dask"}
        Who runs the per-series jobs, the trials summaries and the comparisons: this
        process and its pool of ``jobs`` workers, or a Dask cluster
        (:mod:`.dask_engine`; needs ``pip install 'tsanalyze[dask]'``). Multiplicity
        adjustment and verdicts are made here on the reduced results either way, and the
        result is the same with either engine.
    client : distributed.Client, optional
        With ``engine="dask"``: the cluster to use (left open). Without it, the scheduler
        at ``scheduler`` (or ``DASK_SCHEDULER_ADDRESS``), else a ``LocalCluster`` of
        ``jobs`` workers started for this analysis and closed after it.
    scheduler : str, optional
        With ``engine="dask"``: address of a running scheduler (``tcp://host:8786``).

    Returns
    -------
    RunAnalysis

    Notes
    -----
    What is compared (:func:`tsanalyze.analysis.runset.plan.comparison_jobs`): sides are
    what the user gave. One benchmark measured on several sides (an old and a new version)
    is compared with the baseline side, unpaired; a side with several runs (trials) is
    compared at the run level (:func:`compare`). Benchmarks of one side are compared with
    its baseline benchmark (paired by round when interleaved) only when asked
    (``baseline_benchmark``) or when they were declared alternatives. Each family (one
    side's benchmark comparisons; one candidate side's comparisons with the baseline side)
    is adjusted for multiplicity (Holm) before its verdicts.

    Trials: the runs of one benchmark on one side (JMH forks, pyperf worker processes, the
    runs of one file or directory) are summarised as one :class:`TrialsRow` with the
    two-level estimate, and their series' findings are said once for the benchmark.

    References
    ----------
    Li et al., "Pilot" (MASCOTS 2016); zenbench methodology (interleaved paired rounds);
    Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013).

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
    if not isinstance(data, (pd.DataFrame, plan.SeriesSource)):
        return _one_series(data, estimator, confidence_level, raw, rng)
    frame = data if isinstance(data, pd.DataFrame) else None
    source = None if isinstance(data, pd.DataFrame) else data
    rows: pd.DataFrame | None = None
    if frame is not None:
        workers = _analyze_iv(frame, jobs)
        runs_meta: dict[str, Any] = dict(frame.attrs.get("runs", {}))
        # the planning reads columns of the frame: pandas would deep-copy every run's
        # metadata (attrs) at each access; it gets runs_meta beside the frame (issue 24)
        rows = frame.copy(deep=False)
        rows.attrs = {}
        lay = plan.layout(rows, runs_meta, sides)
        n_samples = len(frame)
    else:
        assert source is not None
        workers = _source_iv(source, jobs, reference)
        runs_meta = dict(source.runs)
        lay = plan.source_layout(source, sides)
        n_samples = int(source.n_samples)
    root_seed = _root_seed(rng)
    run_order = lay.run_order
    base_run = (
        plan.match_run(baseline, runs_meta, run_order, lay.group_of)
        if baseline is not None
        else run_order[0]
    )
    names = {b for _, b in lay.keys}
    if baseline_benchmark is not None and baseline_benchmark not in names:
        raise InvalidArgumentError(
            f"baseline_benchmark: no benchmark named {baseline_benchmark!r} in this run set"
        )
    if reference is not None and reference not in names:
        raise InvalidArgumentError(f"reference: no benchmark named {reference!r} in this run set")
    children = np.random.SeedSequence(root_seed).spawn(len(lay.keys))
    seeds = [int(c.generate_state(1, dtype=np.uint32)[0]) for c in children]
    job_list: Sequence[Any]
    if rows is not None:
        job_list = plan.series_jobs(rows, lay, runs_meta, seeds, estimator, confidence_level, raw)
    else:
        assert source is not None
        job_list = plan.read_series_jobs(source, lay, seeds, estimator, confidence_level, raw)

    done = [0, len(job_list)]

    def tick() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], done[1])

    runner = _runner(engine, workers, n_samples, len(job_list), client, scheduler, jobs)
    try:
        pairs = runner.map(
            run_series_kept if source is None else run_read_series_kept, job_list, tick
        )
        results = [s for s, _ in pairs]
        cmp_jobs = plan.comparison_jobs(
            rows, lay, results, base_run, baseline_benchmark,
            estimator, confidence_level, root_seed, runs_meta, source,
        )  # fmt: skip
        trial_jobs = plan.trials_jobs(results, lay, estimator, confidence_level, root_seed)
        cmp_jobs, trial_jobs = _with_assessments(lay, pairs, cmp_jobs, trial_jobs)
        done[1] += len(cmp_jobs) + len(trial_jobs)
        # one batch, the long trials first: workers do not idle while the last trials run
        # (each job has its own seed, so the order changes nothing in the results)
        both = runner.map(_run_job, [*trial_jobs, *cmp_jobs], tick)
        trials, compared = both[: len(trial_jobs)], both[len(trial_jobs) :]
    finally:
        runner.close()
    comparisons = family_verdicts(cmp_jobs, compared)
    by_key = {(s.run, s.benchmark): s for s in results}
    trials = [_with_context(t, j, by_key) for t, j in zip(trials, trial_jobs, strict=True)]
    floor = None
    if reference is not None:
        from tsanalyze.analysis.noise import noise_floor

        assert frame is not None  # _source_iv refuses a reference without the frame
        floor = noise_floor(frame, reference)
    return RunAnalysis(
        series=tuple(results),
        comparisons=tuple(comparisons),
        trials=tuple(trials),
        runs=tuple((rid, str(runs_meta.get(rid, {}).get("file", ""))) for rid in run_order),
        baseline_run=(
            lay.group_of[base_run] if any(c.kind == "run" for c in comparisons) else None
        ),
        baseline_benchmark=_used_baseline_benchmark(comparisons),
        estimator=estimator,
        confidence_level=float(confidence_level),
        raw=bool(raw),
        seed=root_seed,
        noise_floor=floor,
        warnings=(
            *(_side_coverage(lay, bool(comparisons)) if sides else ()),
            *_single_run_verdicts(comparisons),
            *(() if floor is None else floor.warnings),
        ),
    )


def _single_run_verdicts(comparisons: Sequence[ComparisonRow]) -> tuple[Finding, ...]:
    """One warning for the run set when comparisons of one run against another say slower
    or faster: their intervals hold the noise within the two runs only (``single-runs``
    on each comparison, :mod:`tsanalyze.analysis.compare.sides`). On real JMH forks of
    unchanged code 11 of 49 such comparisons said slower or faster; none of 10 with five
    forks a side did (Kalibera & Jones 2013)."""
    single = [c for c in comparisons if any(w.code == "single-runs" for w in c.warnings)]
    called = [c for c in single if c.verdict in ("slower", "faster")]
    if not called:
        return ()
    names = name_some(sorted({c.benchmark for c in called}), quote=False)
    return (
        Finding(
            "single-run-verdicts",
            f"{len(called)} of {len(single)} comparisons of one run against another say "
            f"slower or faster ({names}): runs of the same code can differ by more "
            "than the noise within a run (JVM forks of unchanged code by up to 43%), which "
            "one run a side cannot show; measure several runs a side (trials) before "
            "acting on them",
            "warning",
        ),
    )


def _side_coverage(lay: plan.Layout, compared: bool) -> tuple[Finding, ...]:
    """When several sides were given (``sides``: several arguments of the command line):
    a warning when no benchmark is on two of them and nothing at all was compared (names
    differ: a renamed benchmark, Go's -GOMAXPROCS suffix from machines of different core
    counts); a note naming the benchmarks on one side only when others are shared (a
    renamed or removed benchmark). Sides that each compare their own alternatives
    (collector runs of unrelated targets), and the files of one directory, get neither."""
    by_side: dict[str, list[str]] = {}
    for rid, b in lay.keys:
        names = by_side.setdefault(lay.group_of[rid], [])
        if b not in names:
            names.append(b)
    if len(by_side) < 2:
        return ()
    sides_of: dict[str, list[str]] = {}
    for side, names in by_side.items():
        for b in names:
            sides_of.setdefault(b, []).append(side)
    if any(len(v) > 1 for v in sides_of.values()):
        lonely = sorted((b, v[0]) for b, v in sides_of.items() if len(v) == 1)
        if not lonely:
            return ()
        listed = ", ".join(f"{b!r} ({side})" for b, side in lonely[:4])
        return (
            Finding(
                "one-side-only",
                f"{len(lonely)} benchmark(s) on one side only, not compared across sides: "
                f"{listed}{', ...' if len(lonely) > 4 else ''}",
                "info",
            ),
        )
    if compared:
        return ()
    shown = "; ".join(
        f"{side}: {name_some(sorted(names))}"
        for side, names in list(by_side.items())[:3]
    ) + ("; ..." if len(by_side) > 3 else "")
    return (
        Finding(
            "nothing-compared",
            f"the {len(by_side)} sides share no benchmark, so none is compared across them "
            f"(names must match exactly; {shown})",
            "warning",
        ),
    )


def _runner(
    engine: str, workers: int, n_samples: int, n_series: int, client: Any,
    scheduler: str | None, jobs: int | None,
) -> Any:  # fmt: skip
    """The runner of ``engine``: the local pool, or a Dask cluster (:mod:`.dask_engine`)."""
    if engine == "local":
        return Runner(workers, n_samples, n_series)
    if engine != "dask":
        raise InvalidArgumentError(f"engine: expected 'local' or 'dask', got {engine!r}")
    from tsanalyze.analysis.runset.dask_engine import DaskRunner

    return DaskRunner(client, scheduler, jobs)


def _with_assessments(
    lay: plan.Layout, pairs: Sequence[tuple[Any, Any]], cmp_jobs: list[plan.CompareJob],
    trial_jobs: list[plan.TrialsJob],
) -> tuple[list[plan.CompareJob], list[plan.TrialsJob]]:  # fmt: skip
    """The jobs, each with the dependence assessments already made of its series (issue
    24: a worker that compares a series need not assess it again; an entry is only ever
    the assessment of the very samples of its key, so a spare one changes nothing)."""
    found = {(s.run, s.benchmark): entry for s, entry in pairs if entry is not None}
    groups = lay.groups

    def of(where: str, name: str) -> tuple[Any, ...]:
        runs = groups.get(where, [where])
        return tuple(found[(r, name)] for r in runs if (r, name) in found)

    cmp_jobs = [
        dataclasses.replace(
            j, assessments=(*of(j.baseline_run, j.baseline_benchmark), *of(j.run, j.benchmark))
        )
        for j in cmp_jobs
    ]
    trial_jobs = [
        dataclasses.replace(
            j,
            assessments=tuple(
                found[(r, j.benchmark)] for r in j.segments if (r, j.benchmark) in found
            ),
        )
        for j in trial_jobs
    ]
    return cmp_jobs, trial_jobs


def _run_job(job: object) -> Any:
    """A comparison or a trials summary, whichever ``job`` is (one batch for the pool)."""
    if isinstance(job, plan.TrialsJob):
        return run_trials(job)
    assert isinstance(job, plan.CompareJob)
    return run_compare(job)


def _one_series(
    data: pd.Series | ArrayLike, estimator: LocationEstimatorName, confidence_level: float,
    raw: bool, rng: RNGType,
) -> RunAnalysis:  # fmt: skip
    values = (
        data.to_numpy(np.float64) if isinstance(data, pd.Series) else np.asarray(data, np.float64)
    )
    s = analyze_series(
        values, estimator=estimator, confidence_level=confidence_level, raw=raw, rng=rng
    )
    return RunAnalysis(
        series=(s,), comparisons=(), trials=(), runs=(), baseline_run=None,
        baseline_benchmark=None, estimator=estimator, confidence_level=float(confidence_level),
        raw=bool(raw), seed=s.seed,
    )  # fmt: skip


def _analyze_iv(df: pd.DataFrame, jobs: int | None) -> int:
    missing = [c for c in ("benchmark", "run", "sample", "time_ns") if c not in df.columns]
    if missing:
        raise InvalidRunError(
            f"df: missing column(s) {', '.join(missing)}; expected the frame of tsanalyze.read_runs"
        )
    if len(df) == 0:
        raise NotEnoughData("df: holds no samples")
    _check_columns(df)
    return _workers_of(jobs)


def _check_columns(df: pd.DataFrame) -> None:
    """The columns the analysis reads: real-number times, and series keys and sample
    numbers without missing values (before, text, timestamps or categories were
    converted to times silently, and a missing key failed deep in the planning)."""
    for c in ("benchmark", "run", "sample", "time_ns"):
        if not isinstance(df[c], pd.Series):
            raise InvalidRunError(f"df: column {c!r} appears more than once")
    dtype = df["time_ns"].dtype
    if (
        not pd.api.types.is_numeric_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_complex_dtype(dtype)
    ):
        raise InvalidRunError(
            f"df: column 'time_ns' is not numeric (dtype {dtype}); expected times in ns as "
            "real numbers"
        )
    for c in ("benchmark", "run", "sample"):
        missing = np.flatnonzero(df[c].isna().to_numpy())
        if missing.size:
            raise InvalidRunError(f"df: column {c!r} has a missing value at row {missing[0]}")


def _workers_of(jobs: int | None) -> int:
    if jobs is None:
        return max(1, os.cpu_count() or 1)
    return check_positive_int(jobs, "jobs")


def _source_iv(source: plan.SeriesSource, jobs: int | None, reference: str | None) -> int:
    if not source.keys or source.n_samples <= 0:
        raise NotEnoughData("data: the run files hold no samples")
    if reference is not None:
        raise InvalidArgumentError(
            "reference: the noise floor needs the samples of every series at once; "
            "analyse the frame of read_runs instead"
        )
    return _workers_of(jobs)


def _with_context(
    t: TrialsRow, job: plan.TrialsJob, by_key: Mapping[tuple[str, str], Any]
) -> TrialsRow:
    """The trials row with its side and, said once, its runs' findings (``by_key``: the
    series' results by (run, benchmark), made once for every trials row)."""
    if not job.side:  # trials across sides: each run is also reported on its own
        return t
    per_run = [by_key[(rid, job.benchmark)].warnings for rid in job.segments]
    return dataclasses.replace(t, side=job.side, warnings=(*t.warnings, *findings_once(per_run)))


def family_verdicts(
    jobs: Sequence[plan.CompareJob], compared: Sequence[Comparison]
) -> list[ComparisonRow]:
    """Holm-adjust each family's p-values, give the verdicts again, add each its context
    and, for a faster or slower verdict, the finding that says so (:func:`verdict_finding`)."""
    rows: list[ComparisonRow | None] = [None] * len(jobs)
    for fam in sorted({j.family for j in jobs}):
        idx = [i for i, j in enumerate(jobs) if j.family == fam]
        for i, c in zip(idx, adjust_verdicts([compared[i] for i in idx], "holm"), strict=True):
            j = jobs[i]
            found = verdict_finding(c, j.kind, j.baseline_benchmark)
            rows[i] = ComparisonRow.of(
                c, kind=j.kind, run=j.run, baseline_run=j.baseline_run,
                baseline_benchmark=j.baseline_benchmark,
                warnings=(*c.warnings, *(() if found is None else (found,))),
            )  # fmt: skip
    return [r for r in rows if r is not None]


def verdict_finding(c: Comparison, kind: str, baseline_benchmark: str) -> Finding | None:
    """The finding a faster or slower verdict makes: ``regression`` (warning) for a
    candidate side slower than the baseline side; ``slower``/``faster`` (info) otherwise.
    A regression is a result to act on, not a number to distrust, so it is not serious."""
    if c.verdict not in ("slower", "faster"):
        return None
    change = format_percent(abs(c.ratio - 1.0), 2)
    what = f"than {baseline_benchmark}" if kind == "benchmark" else "than on the baseline side"
    numbers = (
        f"(ratio {c.ratio:.3f}, CI {c.ci_low:.3f}–{c.ci_high:.3f}, adjusted p "
        f"{format_pvalue(c.pvalue_adjusted)})"
    )
    if kind == "run" and c.verdict == "slower":
        return Finding("regression", f"{change} slower {what} {numbers}", "warning")
    return Finding(c.verdict, f"{change} {c.verdict} {what} {numbers}", "info")


def _used_baseline_benchmark(comparisons: Sequence[ComparisonRow]) -> str | None:
    names = {c.baseline_benchmark for c in comparisons if c.kind == "benchmark"}
    return names.pop() if len(names) == 1 else None
