"""Timing helper shared by the benchmark scripts (run as ``python benchmarks/<script>.py``,
so this directory is on ``sys.path``)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall-clock seconds of ``repeat`` calls of ``fn`` (the least disturbed by the
    other processes of a shared machine)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def poll_tree(
    proc: object, interval: float = 0.1
) -> tuple[dict[int, float], float, dict[int, float]]:
    """Poll a running ``subprocess.Popen`` and its descendants with psutil until it ends.

    Returns the peak resident memory (bytes) of each process by pid, the peak of their
    sum, and the last CPU time (user + system, seconds) seen of each process (the fork
    server and worker processes a ``RUSAGE_CHILDREN`` reading misses). Multiprocessing's
    resource tracker is left out.
    """
    import psutil

    root = psutil.Process(proc.pid)  # type: ignore[attr-defined]
    peaks: dict[int, float] = {}
    cpu_of: dict[int, float] = {}
    tree = 0.0
    while proc.poll() is None:  # type: ignore[attr-defined]
        total = 0
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            procs = []
        for q in procs:
            try:
                with q.oneshot():
                    if q.pid != root.pid and "resource_tracker" in " ".join(q.cmdline()):
                        continue
                    rss = q.memory_info().rss
                    c = q.cpu_times()
            except psutil.Error:
                continue
            total += rss
            peaks[q.pid] = max(peaks.get(q.pid, 0.0), rss)
            cpu_of[q.pid] = c.user + c.system
        tree = max(tree, total)
        time.sleep(interval)
    return peaks, tree, cpu_of
