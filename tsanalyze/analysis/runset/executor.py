"""Runs the jobs of a run-set analysis: serially, or in one pool of worker processes.

Each job carries its own seed (:mod:`.plan`), so the results do not depend on the number
of workers or on the order in which they finish.

Where it can (:func:`tsanalyze._workers.fork_ready`), each :meth:`Runner.map` forks its
workers from this process after the jobs are made: they start with every module
imported and the jobs in memory, take them by position in batches, and send back only
the results (issue 24). Otherwise the jobs are sent to a pool forked from the fork
server, kept warm for the next analysis.
"""

from __future__ import annotations

import gc
import importlib
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

import pandas as pd

from tsanalyze import _workers
from tsanalyze._lru import LRU
from tsanalyze._result import Finding
from tsanalyze.analysis.compare import Comparison, compare
from tsanalyze.analysis.compare.edges import prepare_side
from tsanalyze.analysis.compare.sides import PreparedSide
from tsanalyze.analysis.runset.plan import CompareJob, ReadSeriesJob, SeriesJob, SideRef, TrialsJob
from tsanalyze.analysis.runset.results import TrialsRow
from tsanalyze.analysis.series import SeriesAnalysis, analyze_series
from tsanalyze.stats.dependence import keep, kept

__all__ = [
    "Runner",
    "run_compare",
    "run_read_series_kept",
    "run_series",
    "run_series_kept",
    "run_trials",
    "shutdown_pools",
]

#: below this many samples in total, worker processes cost more than they save ...
_PARALLEL_MIN_SAMPLES = 100_000
#: ... unless there are this many series: each costs ~1.5 ms to analyse and ~2.5 ms to
#: compare however short it is (a CI history: 5,800 series of 10 samples, 58,000
#: samples in all, took 23 s in one process, 12 s in two)
_PARALLEL_MIN_SERIES = 200

#: one pool per worker count, kept for the life of the process: a second analysis (a
#: notebook, a test suite, ``report`` then ``compare``) finds its workers started and warm
_POOLS: dict[int, ProcessPoolExecutor] = {}


def _pool(workers: int) -> ProcessPoolExecutor:
    """The shared pool of ``workers`` processes (a new one if the last one broke)."""
    pool = _POOLS.get(workers)
    if pool is None or getattr(pool, "_broken", False) or getattr(pool, "_shutdown_thread", False):
        _workers.ensure_server()
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=_workers.context(), initializer=_workers.worker_init
        )
        _POOLS[workers] = pool
    return pool


def shutdown_pools() -> None:
    """Shut every shared pool down (tests; the interpreter does it at exit anyway)."""
    for pool in _POOLS.values():
        pool.shutdown()
    _POOLS.clear()


J = TypeVar("J")
R = TypeVar("R")

#: the function and jobs of the map running in forked workers, inherited by them (set in
#: the parent just before the fork, cleared after)
_FORKED: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _forked_init() -> None:
    """Initializer of a forked worker: one BLAS thread, as the serial path uses, and its
    freed memory held for its next jobs (:func:`tsanalyze._workers.hold_freed_memory`)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    _workers.hold_freed_memory()


def _forked_batch(start: int, stop: int) -> list[Any]:
    """In a forked worker: the results of the inherited jobs ``start:stop``."""
    assert _FORKED is not None, "a forked batch needs the jobs of its parent"
    fn, items = _FORKED
    return [fn(items[i]) for i in range(start, stop)]


def _batches(n: int, workers: int) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges covering ``range(n)`` in order, each about a quarter of the
    jobs left per worker: large first (a batch costs one message), one job at the end, so
    that the workers finish together (guided self-scheduling: Polychronopoulos & Kuck,
    IEEE Transactions on Computers C-36(12), 1987). Equal batches of 1/16 per worker
    left one worker idle for up to a batch at the end of each map."""
    out: list[tuple[int, int]] = []
    start = 0
    while start < n:
        size = max(1, -(-(n - start) // (4 * workers)))
        out.append((start, start + size))
        start += size
    return out


def run_series(job: SeriesJob) -> SeriesAnalysis:
    """Analyse one series."""
    return analyze_series(
        job.x, benchmark=job.benchmark, run=job.run, estimator=job.estimator,
        confidence_level=job.confidence_level, raw=job.raw, rng=job.seed, **job.inputs,
    )  # fmt: skip


def run_series_kept(job: SeriesJob) -> tuple[SeriesAnalysis, Any]:
    """Analyse one series; also the dependence assessment of its segment made on the way
    (None if none was), for the jobs that compare it or summarise its trials to keep
    (:func:`tsanalyze.stats.dependence.keep`): one assessment per series, whichever
    process runs which job (issue 24)."""
    s = run_series(job)
    return s, kept(s.segment) if s.segment.size else None


def run_read_series_kept(job: ReadSeriesJob) -> tuple[SeriesAnalysis, Any]:
    """Read one series where this runs (a worker), then :func:`run_series_kept`."""
    return run_series_kept(job.job())


#: the sides made of the frames of the last comparisons, by (id, name), with the frame
#: (held, so that its id is not reused): a report's baseline side is in every comparison
#: with it, and making a side of a frame (pandas column reads) was a fifth of a
#: comparison of 10 samples (issue 24)
_PREPARED: LRU[tuple[int, str], tuple[Any, PreparedSide]] = LRU(512)


def _prepared(x: Any, name: str) -> Any:
    """The side of ``x`` (a frame of a job, never changed) made once, else ``x``."""
    if not isinstance(x, pd.DataFrame):
        return x
    key = (id(x), name)
    hit = _PREPARED.get(key)
    if hit is not None and hit[0] is x:
        return hit[1]
    side = prepare_side(x, name)
    _PREPARED.put(key, (x, side))
    return side


def run_compare(job: CompareJob) -> Comparison:
    """Make one comparison (its verdict is given again after the family's adjustment); a
    side given as a :class:`SideRef` is read here."""
    keep(job.assessments)
    a = job.a.frame() if isinstance(job.a, SideRef) else _prepared(job.a, "a")
    b = job.b.frame() if isinstance(job.b, SideRef) else _prepared(job.b, "b")
    return compare(
        a, b, estimator=job.estimator, confidence_level=job.confidence_level,
        benchmark=job.benchmark, paired=job.paired, rng=job.seed,
    )  # fmt: skip


def run_trials(job: TrialsJob) -> TrialsRow:
    """Summarise one benchmark's runs as trials (two-level bootstrap, steady-state agreement)."""
    from tsanalyze.analysis.trials import estimate_trials

    keep(job.assessments)
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
    return TrialsRow.of(
        t, benchmark=job.benchmark, runs=tuple(job.segments),
        classifications=job.classifications, consistent=consistent, warnings=tuple(found),
    )  # fmt: skip


class Runner:
    """Runs jobs serially, in workers forked at each map, or in the shared pool of worker
    processes forked from the fork server (kept warm).

    Parameters
    ----------
    workers : int
        Worker processes; 1 runs everything in this process.
    n_samples : int
        Samples in the run set: below 100 000 (and below 200 series) a pool costs more
        than it saves, and none is used.
    n_series : int
        Series in the run set: from 200 on, the fixed cost of each series' analysis and
        comparisons is worth sharing among workers, however few samples they hold.
    """

    def __init__(self, workers: int, n_samples: int, n_series: int = 0) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.fork = 0  # workers to fork from this process at each map (0: none)
        if workers > 1 and (
            n_samples >= _PARALLEL_MIN_SAMPLES or n_series >= _PARALLEL_MIN_SERIES
        ):
            if _workers.fork_ready():
                self.fork = workers
                for name in _workers.PRELOAD:  # imported once, here, before the forks
                    importlib.import_module(name)
            else:
                self.pool = _pool(workers)

    def map(self, fn: Callable[[J], R], items: Sequence[J], on_done: Callable[[], None]) -> list[R]:
        """``[fn(item) for item in items]``, calling ``on_done()`` after each."""
        out: list[Any] = [None] * len(items)
        if self.fork and len(items) > 1:
            if _workers.fork_ready():
                return self._map_forked(fn, items, on_done)
            self.pool = _pool(self.fork)  # a thread started since: the fork server's pool
        if self.pool is None:
            from threadpoolctl import threadpool_limits

            # one BLAS thread, as in the workers (_workers.py): the same numbers whatever
            # the number of jobs, to the last bit
            with threadpool_limits(limits=1):
                for i, item in enumerate(items):
                    out[i] = fn(item)
                    on_done()
            return out
        futures = {self.pool.submit(fn, item): i for i, item in enumerate(items)}
        try:
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                on_done()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        return out

    def _map_forked(
        self, fn: Callable[[J], R], items: Sequence[J], on_done: Callable[[], None]
    ) -> list[R]:
        """:meth:`map` in workers forked now, which inherit ``fn`` and ``items``."""
        global _FORKED
        out: list[Any] = [None] * len(items)
        workers = min(self.fork, len(items))
        _FORKED = (fn, items)
        # every object this process holds now is left out of the garbage collections of
        # the children (and of this process, which only waits, until the map ends): a
        # child's first full collection visited every inherited object, so copied
        # (page faults) most of the parent's heap: 0.25 s per worker and map on a report
        # of 580 series, where the comparisons' map took 1 s (Python's gc.freeze)
        gc.freeze()
        try:
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_forked_init) as pool:
                futures = {pool.submit(_forked_batch, *b): b for b in _batches(len(items), workers)}
                try:
                    for fut in as_completed(futures):
                        start, stop = futures[fut]
                        out[start:stop] = fut.result()
                        for _ in range(start, stop):
                            on_done()
                except BaseException:
                    for fut in futures:
                        fut.cancel()
                    raise
        finally:
            _FORKED = None
            gc.unfreeze()
        return out

    def close(self) -> None:
        """Nothing to release: the pool stays up for the next analysis (see ``_POOLS``)."""
