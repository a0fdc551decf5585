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
