"""Workers forked from the analysing process itself (issue 24): they inherit the jobs and
every module imported, give the serial numbers, and are not used while another thread
runs (a lock it holds at the fork would stay held in the child)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tsanalyze import _workers
from tsanalyze.analysis.runset import analyze, executor
from tsanalyze.datasets import simulate_run


def test_batches_cover_every_job_once() -> None:
    for n in (1, 2, 7, 16, 17, 500, 1001):
        for workers in (1, 2, 3):
            got = [i for s, e in executor._batches(n, workers) for i in range(s, e)]
            assert got == list(range(n))


def test_forked_workers_give_the_serial_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    if not _workers.fork_ready():
        pytest.skip("this process cannot fork its workers (no fork, or another thread)")
    df = simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=300, rng=4).frame
    serial = analyze(df, jobs=1, rng=2)
    forked: list[int] = []
    real = executor.Runner._map_forked

    def spy(self: executor.Runner, fn: Any, items: Any, on_done: Any) -> Any:
        forked.append(len(items))
        return real(self, fn, items, on_done)

    monkeypatch.setattr(executor, "_PARALLEL_MIN_SAMPLES", 0)
    monkeypatch.setattr(executor.Runner, "_map_forked", spy)
    done: list[int] = []
    parallel = analyze(df, jobs=2, rng=2, progress=lambda d, t: done.append(d))
    assert forked[0] == 2  # the two series in forked workers
    assert serial.to_dict() == parallel.to_dict()
    assert done == list(range(1, len(done) + 1))  # every job counted once
    assert executor._FORKED is None  # the jobs are not kept after the map


def test_a_running_thread_sends_the_jobs_to_the_fork_server() -> None:
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not _workers.fork_ready()
        runner = executor.Runner(2, 10**6)
        assert runner.fork == 0
        assert runner.pool is not None or "forkserver" not in _workers.context().get_start_method()
    finally:
        stop.set()
        t.join()
