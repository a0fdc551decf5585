"""Where the per-series work of :func:`tsanalyze.history` runs: here, or as Dask tasks.

The analysis of a history has two passes over its series with one reduction between
them. First, per series, the noise fit, the calibrated null and the first scan's p-value;
then, on the client, the Benjamini–Hochberg procedure over all the series' p-values gives
the threshold of the binary segmentation; second, per series, the segmentation, the
commit sets and ratio intervals, and the outlier runs. The changes of all series are then
reduced on the client again (environment shifts, ordering).

Each series draws its random numbers from its own seed, made from the root seed and the
series' name (benchmark, machine, env): not from its place in the list, nor from the
number of commits or of other series. So the result is the same whichever engine runs the
passes, on however many workers, in whatever order the tasks finish; and appending
commits or benchmarks to a history leaves the random streams of the other series alone.

With the Dask engine the first pass's results (each series' detector, with its null
series) stay on the workers as futures: only the p-values travel to the client, and the
second pass runs where the first one left its data.

References
----------
Rocklin, M. "Dask: Parallel computation with blocked algorithms and task scheduling"
(SciPy 2015). https://doi.org/10.25080/Majora-7b98e3ed-013
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from tsanalyze.errors import InvalidArgumentError

__all__ = ["ENGINES", "series_seed", "two_passes"]

ENGINES = ("local", "dask")


J = TypeVar("J")
W = TypeVar("W")
K = TypeVar("K")
A = TypeVar("A")
R = TypeVar("R")


def series_seed(root: int, benchmark: str, machine: str, env: str) -> int:
    """The seed of one series: from the root seed and the series' name only (SHA-256 of
    the name as the spawn key of a :class:`numpy.random.SeedSequence`)."""
    digest = hashlib.sha256("\x00".join((benchmark, machine, env)).encode("utf-8")).digest()
    key = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    seq = np.random.SeedSequence(root, spawn_key=tuple(key))
    return int(seq.generate_state(1, dtype=np.uint64)[0])


def two_passes(
    jobs: Sequence[J],
    first: Callable[[J], W],
    key: Callable[[W], K],
    decide: Callable[[list[K]], list[A]],
    second: Callable[[W, A], R],
    *,
    engine: str = "local",
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> list[R]:
    """``[second(w, a) for w, a in zip(ws, decide([key(w) for w in ws]))]`` with
    ``ws = [first(j) for j in jobs]``: both passes per item, ``decide`` on the client.

    Parameters
    ----------
    engine : {"local", "dask"}
        ``"dask"``: each pass's items are Dask tasks; the first pass's results stay on
        the workers. The cluster: ``client`` (left open), else the scheduler at
        ``scheduler`` (or ``DASK_SCHEDULER_ADDRESS``), else a local cluster of
        ``workers`` workers started and closed here.
    """
    if engine not in ENGINES:
        raise InvalidArgumentError(f"engine: expected 'local' or 'dask', got {engine!r}")
    if engine == "local":
        from threadpoolctl import threadpool_limits

        # one BLAS thread, as in a Dask worker (and the report's workers): a multi-threaded
        # BLAS sums in another order, and the last bits of a p-value would depend on it
        with threadpool_limits(limits=1):
            ws = [first(j) for j in jobs]
            args = decide([key(w) for w in ws])
            return [second(w, a) for w, a in zip(ws, args, strict=True)]
    from tsanalyze.analysis.runset.dask_engine import (
        close_owned,
        dask_client,
        on_own_copy,
        require_distributed,
    )

    require_distributed()
    owned = client is None
    if owned:  # a local cluster gets the workers' malloc settings (dask_engine.WORKER_ENV)
        client, _ = dask_client(scheduler, workers)
    futures: list[Any] = []
    try:
        if not jobs:
            decide([])
            return []
        data = client.scatter(list(jobs))
        # pure=False: tasks that pickle alike are still distinct (each series has its seed)
        ws = client.map(on_own_copy, [first] * len(data), data, pure=False)
        keys = client.map(key, ws, pure=False)
        futures = [*data, *ws, *keys]
        args = decide(client.gather(keys))
        sent = client.scatter(list(args))
        out = client.map(on_own_copy, [second] * len(ws), ws, sent, pure=False)
        futures += [*sent, *out]
        result: list[R] = client.gather(out)
        return result
    except BaseException:
        if futures:
            client.cancel(futures)
        raise
    finally:
        for f in futures:
            f.release()
        if owned:
            close_owned(client)
