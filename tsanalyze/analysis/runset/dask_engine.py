"""The Dask engine of a run-set analysis: the same jobs, run as tasks of a Dask cluster.

:class:`DaskRunner` has the interface of :class:`~tsanalyze.analysis.runset.executor.Runner`
(``map(fn, items, on_done)``, ``close()``), so :func:`~tsanalyze.analysis.runset.analyze`
plans the same jobs and reduces the same results whichever engine runs them. Each job
carries its own seed (:mod:`.plan`), so the results are identical to the local engine's,
whatever the number of workers or the order in which tasks finish.

The cluster: a ``client=`` given by the caller (never closed here), else the scheduler at
``scheduler=`` or at the ``DASK_SCHEDULER_ADDRESS`` environment variable (Dask's own
convention), else a :class:`distributed.LocalCluster` started for this analysis and closed
after it. Dask is an optional extra: without it, :func:`dask_client` raises an
:class:`~tsanalyze.errors.InvalidArgumentError` that says how to install it, in one line.

References
----------
Rocklin, M. "Dask: Parallel computation with blocked algorithms and task scheduling"
(SciPy 2015). https://doi.org/10.25080/Majora-7b98e3ed-013
"""

from __future__ import annotations

import copy
import functools
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tsanalyze import _workers
from tsanalyze.errors import InvalidArgumentError

__all__ = [
    "INSTALL_HINT",
    "DaskRunner",
    "close_owned",
    "dask_client",
    "on_own_copy",
    "require_distributed",
]

#: the one line said when ``--engine dask`` is asked for without Dask installed
INSTALL_HINT = (
    "--engine dask needs dask.distributed, which is not installed: pip install 'tsanalyze[dask]'"
)

J = TypeVar("J")
R = TypeVar("R")


def require_distributed() -> Any:
    """The :mod:`distributed` module, or an error with the install hint when it is missing."""
    try:
        import distributed
    except ImportError:
        raise InvalidArgumentError(INSTALL_HINT) from None
    return distributed


#: environment of the workers of a local cluster started here. Dask's nanny sets
#: ``MALLOC_TRIM_THRESHOLD_``, which turns off glibc's adaptive mmap threshold: every
#: array of a few MB (a series' null simulations, a comparison's bootstrap) is then mapped
#: and page-faulted afresh, about 1.5x the CPU time of the same work in a plain process
#: (measured on the history engine). A fixed mmap threshold gives the plain process's
#: speed back: the one the report's forked workers set (``_workers.hold_freed_memory``).
WORKER_ENV = {"MALLOC_MMAP_THRESHOLD_": str(_workers.HEAP_ALLOC_BYTES)}


def dask_client(scheduler: str | None = None, workers: int | None = None) -> tuple[Any, bool]:
    """A Dask client, and whether this module started it (then it is closed after use).

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler (``tcp://host:8786``); default the
        ``DASK_SCHEDULER_ADDRESS`` environment variable, else a new local cluster.
    workers : int, optional
        Workers of a new local cluster (one thread each); default: Dask's choice.
    """
    distributed = require_distributed()
    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address:
        try:
            return distributed.Client(address, timeout="30s"), True
        except (OSError, TimeoutError) as e:
            raise InvalidArgumentError(
                f"scheduler: cannot reach the Dask scheduler at {address!r} ({e})"
            ) from None
    import dask

    # silence_logs: a worker slow to stop on a busy machine is not the user's concern
    with dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v
                          for k, v in WORKER_ENV.items()}):  # fmt: skip
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, dashboard_address=":0",
            silence_logs=logging.ERROR,
        )  # fmt: skip
    return distributed.Client(cluster), True


def on_own_copy(fn: Callable[..., R], item: Any, *args: Any) -> R:
    """``fn(item, *args)`` on a deep copy of the task's data, made on the worker.

    A task's arrays arrive as read-only views of the received message; on them, means
    differed from the local engine's in the last bits (checked on a 2-worker
    LocalCluster). A copy is memory numpy allocated, as the local engine's arrays are.
    """
    return fn(copy.deepcopy(item), *args)


def close_owned(client: Any) -> None:
    """Close a client this process started, and its local cluster."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


class DaskRunner:
    """Runs jobs as Dask tasks (:class:`~tsanalyze.analysis.runset.executor.Runner`'s
    interface).

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster to use; it stays open. Without one, :func:`dask_client` connects to
        ``scheduler`` (or ``DASK_SCHEDULER_ADDRESS``) or starts a local cluster of
        ``workers`` workers, closed by :meth:`close`.
    scheduler : str, optional
        Address of a running scheduler.
    workers : int, optional
        Workers of a local cluster started here.
    """

    def __init__(
        self, client: Any = None, scheduler: str | None = None, workers: int | None = None
    ) -> None:
        distributed = require_distributed()
        self._as_completed = distributed.as_completed
        if client is not None:
            self.client, self._owned = client, False
        else:
            self.client, self._owned = dask_client(scheduler, workers)

    def map(self, fn: Callable[[J], R], items: Sequence[J], on_done: Callable[[], None]) -> list[R]:
        """``[fn(item) for item in items]`` as Dask tasks, calling ``on_done()`` after each."""
        if not items:
            return []
        # pure=False: two jobs that pickle alike are still two tasks (each has its seed
        # anyway, but hashing every array to find out would cost a pass over the data)
        # scattered first: each job goes to a worker once as data, not inside the task
        # graph (which Dask warns about above a few MB and sends through the scheduler)
        data = self.client.scatter(list(items))
        futures = self.client.map(functools.partial(on_own_copy, fn), data, pure=False)
        where = {f.key: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(items)
        try:
            for fut in self._as_completed(futures):
                out[where[fut.key]] = fut.result()
                fut.release()
                data[where[fut.key]].release()
                on_done()
        except BaseException:
            self.client.cancel([*futures, *data])
            raise
        return out

    def close(self) -> None:
        """Close the client and the cluster when this runner started them."""
        if self._owned:
            close_owned(self.client)
