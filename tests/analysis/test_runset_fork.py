"""Workers forked from the analysing process itself (issue 24): they inherit the jobs and
every module imported, give the serial numbers, and are not used while another thread
runs (a lock it holds at the fork would stay held in the child)."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading

import pytest

from tsanalyze import _workers
from tsanalyze.analysis.runset import executor


def test_batches_cover_every_job_once() -> None:
    for n in (1, 2, 7, 16, 17, 500, 1001):
        for workers in (1, 2, 3):
            got = [i for s, e in executor._batches(n, workers) for i in range(s, e)]
            assert got == list(range(n))


_FORKED_CHECK = """
from typing import Any
from tsanalyze import _workers
from tsanalyze.analysis.runset import analyze, executor
from tsanalyze.datasets import simulate_run

assert _workers.fork_ready(), "a fresh interpreter runs another thread"
df = simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=300, rng=4).frame
serial = analyze(df, jobs=1, rng=2)
forked: list[int] = []
real = executor.Runner._map_forked


def spy(self: Any, fn: Any, items: Any, on_done: Any) -> Any:
    forked.append(len(items))
    return real(self, fn, items, on_done)


# 600 samples, far below _PARALLEL_MIN_SAMPLES: forked because of the number of series
# (analyze gives the runner the number of series; a report of many short series)
executor._PARALLEL_MIN_SERIES = 2
executor.Runner._map_forked = spy
done: list[int] = []
parallel = analyze(df, jobs=2, rng=2, progress=lambda d, t: done.append(d))
assert forked and forked[0] == 2, forked  # the two series in forked workers
assert serial.to_dict() == parallel.to_dict()
assert done == list(range(1, len(done) + 1)), done  # every job counted once
assert executor._FORKED is None  # the jobs are not kept after the map
import gc
assert gc.get_freeze_count() == 0  # the objects frozen for the fork are collected again
"""


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_forked_workers_give_the_serial_numbers() -> None:
    # in a fresh interpreter: the test runner's own process may run threads (pytest-xdist
    # does), and then the fork path is rightly not taken
    done = subprocess.run(
        [sys.executable, "-c", _FORKED_CHECK], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]


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


def test_many_short_series_share_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Few samples but many series: each costs milliseconds however short it is, so the
    workers are used (a CI history of 5,800 series of 10 samples); not for a few."""
    monkeypatch.setattr(_workers, "fork_ready", lambda: True)
    many = executor._PARALLEL_MIN_SERIES
    assert executor.Runner(2, 1_000, many).fork == 2
    assert executor.Runner(2, 1_000, many - 1).fork == 0
    assert executor.Runner(2, executor._PARALLEL_MIN_SAMPLES, 1).fork == 2
    assert executor.Runner(1, 1_000, 10 * many).fork == 0
