"""The worker processes' start method and server, importable without the analysis.

:mod:`tsanalyze.analysis.runset.executor` runs jobs in worker processes forked from this
process once it has imported the analysis (:func:`fork_ready`: where ``fork`` exists and
no other thread runs, so that no lock can be inherited held): the workers start warm and
inherit the jobs instead of receiving them (issue 24: a fork server imported the analysis
a second time, ~1.9 s of CPU for a 100-run report). Otherwise they are forked from a
*fork server* that imports the analysis once (``PRELOAD``); the command line can start
that server before it reads the files (:func:`start_early`), so that the server's
imports overlap the reading instead of following it; this module is stdlib only for that
reason (importing the executor would first import the whole analysis in this process).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "PRELOAD",
    "context",
    "ensure_server",
    "fork_ready",
    "hold_freed_memory",
    "start_early",
    "start_early_for",
    "worker_init",
]

#: modules the worker server imports once, so that no worker pays for them; the last
#: one compiles (or loads from numba's cache) the kernels, so workers start warm
PRELOAD = (
    "tsanalyze.analysis.runset.executor",
    "tsanalyze.analysis.compare",
    "tsanalyze.analysis.trials",
    "tsanalyze.stats.bootstrap",
    "tsanalyze.stats._warm",
)

#: one thread per worker for the BLAS/OpenMP libraries: the workers already fill the
#: cores, and OpenBLAS threads competing with them made a lag-1 autocorrelation of 10^5
#: values take 5 ms instead of 0.07 ms on a loaded 2-core machine (issue 24)
SINGLE_THREADED = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}

#: a worker's allocations up to this size come from its heap, not from a fresh mapping
#: (glibc's ``M_MMAP_THRESHOLD``, at its largest; see :func:`hold_freed_memory`)
HEAP_ALLOC_BYTES = 32 * 1024 * 1024
#: freed heap a worker keeps for its next allocations instead of returning it to the
#: system (glibc's ``M_TRIM_THRESHOLD``)
HOLD_FREED_BYTES = 64 * 1024 * 1024
#: glibc's ``mallopt`` parameter numbers (``<malloc.h>``)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3

#: run files this large in total are worth starting the workers for before reading them
EARLY_BYTES = 512 * 1024


def context() -> Any:
    """forkserver (spawn where unavailable), never plain fork: the caller may hold threads
    (progress bars), and fork with threads can deadlock."""
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


def fork_ready() -> bool:
    """Can workers be forked from this process itself? Where ``fork`` exists and this
    process runs no other thread (a thread holding a lock at the fork would leave it held
    for ever in the child)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def worker_init() -> None:
    """Initializer of every worker: single-threaded numerical libraries (for spawned
    workers, which import numpy after this; forked ones inherit the server's setting),
    and freed memory held (:func:`hold_freed_memory`)."""
    for key, value in SINGLE_THREADED.items():
        os.environ.setdefault(key, value)
    hold_freed_memory()


def hold_freed_memory() -> bool:
    """Serve allocations up to ``HEAP_ALLOC_BYTES`` from the heap and keep up to
    ``HOLD_FREED_BYTES`` of it when freed, in this process (glibc only; False elsewhere,
    where nothing changes).

    A worker forked from a process that has analysed many series returned the freed top
    of its heap to the system after each comparison's bootstrap and took it back, zeroed,
    for the next: 890,000 page faults and 1.6 s of system time in the 500 comparisons of a
    100-run report, whose serial run in the parent faulted 30,000 times (issue 24). A
    fixed trim threshold (which also stops glibc's dynamic one) lets the worker reuse its
    freed memory: 26,000 faults, and the comparisons' map takes 2.3 s instead of 3.1 s.
    Both thresholds are set: setting one stops glibc's dynamic adjustment of the other,
    and a mapping threshold left at its initial 128 KiB would map (and fault in) every
    bootstrap matrix afresh. A worker lives for one analysis, so what it holds is
    returned when it ends.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, HEAP_ALLOC_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, HOLD_FREED_BYTES)
    )


def ensure_server() -> None:
    """Start the fork server (if the platform has one and it is not running) with
    single-threaded numerical libraries; this process's environment is left as it was."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    context()
    from multiprocessing import forkserver

    saved = {k: os.environ.get(k) for k in SINGLE_THREADED}
    for key, value in SINGLE_THREADED.items():
        os.environ.setdefault(key, value)
    try:
        forkserver.ensure_running()
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def start_early() -> None:
    """Start the fork server now; it imports ``PRELOAD`` in the background."""
    ensure_server()


def start_early_for(paths: Iterable[str | os.PathLike[str]], jobs: int | None) -> bool:
    """:func:`start_early` when workers will likely be used: ``jobs`` is not 1 and the
    files (directories: their ``*.parquet`` files) hold at least ``EARLY_BYTES``."""
    if jobs == 1 or (jobs is None and (os.cpu_count() or 1) < 2):
        return False
    total = 0
    try:
        for p in map(Path, paths):
            if p.is_dir():
                total += sum(f.stat().st_size for f in p.rglob("*.parquet"))
            elif p.is_file():
                total += p.stat().st_size
            if total >= EARLY_BYTES:
                break
    except OSError:  # the reader will say what is wrong with the path
        return False
    if total < EARLY_BYTES:
        return False
    start_early()
    return True
