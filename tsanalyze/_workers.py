"""The worker processes' start method and server, importable without the analysis.

:mod:`tsanalyze.analysis.runset.executor` runs jobs in a pool of worker processes forked
from a *fork server* that imports the analysis once (``PRELOAD``). The command line
starts that server before it reads the files (:func:`start_early`), so that the server's
imports overlap the reading instead of following it; this module is stdlib only for that
reason (importing the executor would first import the whole analysis in this process).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["PRELOAD", "context", "start_early", "start_early_for"]

#: modules the worker server imports once, so that no worker pays for them; the last
#: one compiles (or loads from numba's cache) the kernels, so workers start warm
PRELOAD = (
    "tsanalyze.analysis.runset.executor",
    "tsanalyze.analysis.compare",
    "tsanalyze.analysis.trials",
    "tsanalyze.stats.bootstrap",
    "statsmodels.tsa.stattools",
    "tsanalyze.stats._warm",
)

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


def start_early() -> None:
    """Start the fork server now; it imports ``PRELOAD`` in the background."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    context()
    from multiprocessing import forkserver

    forkserver.ensure_running()


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
