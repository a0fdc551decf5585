""":func:`analyze`: what ``tsanalyze report`` computes for a run set (or one series).

Plan (:mod:`.plan`), run the jobs (:mod:`.executor`), then adjust each family of
comparisons for multiplicity and give their verdicts (:func:`family_verdicts`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._typing import ArrayLike, RNGType
from tsanalyze._validation import check_confidence_level, check_positive_int, check_rng
from tsanalyze.analysis.compare import Comparison, adjust_verdicts
from tsanalyze.analysis.runset import plan
from tsanalyze.analysis.runset.executor import Runner, run_compare, run_series, run_trials
from tsanalyze.analysis.runset.results import ComparisonRow, RunAnalysis
from tsanalyze.analysis.series import analyze_series
from tsanalyze.errors import InvalidArgumentError, InvalidRunError, NotEnoughData
from tsanalyze.stats.estimators import LocationEstimatorName

__all__ = ["ProgressCallback", "analyze", "family_verdicts"]

ProgressCallback = Callable[[int, int], None]


def analyze(
    data: pd.DataFrame | pd.Series | ArrayLike,
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
) -> RunAnalysis:
    """Analyse a run set (or one series): steady state, dependence, estimates, comparisons.

    Parameters
    ----------
    data : DataFrame, Series or array_like
        The frame of :func:`tsanalyze.read_runs` (columns ``benchmark``, ``run``,
        ``sample``, ``time_ns``, and ``ns``/``evals`` when present), or one series of
        per-evaluation times in ns (then the result holds that one series, unlabelled,
        analysed with ``rng`` itself, and no comparison).
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
    RunAnalysis

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
        return _one_series(data, estimator, confidence_level, raw, rng)
    workers = _analyze_iv(data, jobs)
    root_seed = _root_seed(rng)
    runs_meta: dict[str, dict[str, Any]] = dict(data.attrs.get("runs", {}))
    lay = plan.layout(data, runs_meta)
    run_order = lay.run_order
    base_run = (
        plan.match_run(baseline, runs_meta, run_order) if baseline is not None else run_order[0]
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
    job_list = plan.series_jobs(data, lay, runs_meta, seeds, estimator, confidence_level, raw)

    done = [0, len(job_list)]

    def tick() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], done[1])

    runner = Runner(workers, len(data))
    try:
        results = runner.map(run_series, job_list, tick)
        cmp_jobs = plan.comparison_jobs(
            data, lay, results, base_run, baseline_benchmark, estimator, confidence_level,
            root_seed, runs_meta,
        )  # fmt: skip
        trial_jobs = plan.trials_jobs(results, lay, estimator, confidence_level, root_seed)
        done[1] += len(cmp_jobs) + len(trial_jobs)
        compared = runner.map(run_compare, cmp_jobs, tick)
        trials = runner.map(run_trials, trial_jobs, tick)
    finally:
        runner.close()
    comparisons = family_verdicts(cmp_jobs, compared)
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
            lay.group_of[base_run] if any(c.kind == "run" for c in comparisons) else None
        ),
        baseline_benchmark=_used_baseline_benchmark(comparisons),
        estimator=estimator,
        confidence_level=float(confidence_level),
        raw=bool(raw),
        seed=root_seed,
        noise_floor=floor,
        warnings=() if floor is None else tuple(floor.warnings),
    )


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
    if jobs is None:
        return max(1, os.cpu_count() or 1)
    return check_positive_int(jobs, "jobs")


def _root_seed(rng: RNGType) -> int:
    _, root_seed = check_rng(rng)
    if root_seed is None:  # a Generator was given: draw the root seed from it
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng()
        root_seed = int(gen.integers(0, 2**32))
    return root_seed


def family_verdicts(
    jobs: Sequence[plan.CompareJob], compared: Sequence[Comparison]
) -> list[ComparisonRow]:
    """Holm-adjust each family's p-values, give the verdicts again, add each its context."""
    rows: list[ComparisonRow | None] = [None] * len(jobs)
    for fam in sorted({j.family for j in jobs}):
        idx = [i for i, j in enumerate(jobs) if j.family == fam]
        for i, c in zip(idx, adjust_verdicts([compared[i] for i in idx], "holm"), strict=True):
            j = jobs[i]
            rows[i] = ComparisonRow.of(
                c, kind=j.kind, run=j.run, baseline_run=j.baseline_run,
                baseline_benchmark=j.baseline_benchmark,
            )  # fmt: skip
    return [r for r in rows if r is not None]


def _used_baseline_benchmark(comparisons: Sequence[ComparisonRow]) -> str | None:
    names = {c.baseline_benchmark for c in comparisons if c.kind == "benchmark"}
    return names.pop() if len(names) == 1 else None
