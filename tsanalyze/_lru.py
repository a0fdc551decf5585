"""A bounded, thread-safe map that drops its least recently used entries.

What a process keeps to avoid computing or reading the same thing twice (issue 24): the
dependence assessments of series (:mod:`tsanalyze.stats.dependence`), per-side results
by content (:class:`tsanalyze.stats._memo.ContentMemo`) and small run files read whole
(:mod:`tsanalyze.io.series_reader`). Threads (a Dask worker's) may share one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

__all__ = ["LRU"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A map of at most ``size`` entries; the least recently used is dropped first.

    Parameters
    ----------
    size : int
        Entries kept (may be changed later; applies at the next :meth:`put`).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K) -> V | None:
        """The value kept under ``key`` (now the most recently used), else None."""
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used beyond ``size``."""
        self.put_many([(key, value)])

    def put_many(self, items: Iterable[tuple[K, V]]) -> None:
        """Keep each ``(key, value)``, in order, then trim to ``size``."""
        with self._lock:
            for key, value in items:
                self._kept[key] = value
                self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._kept.clear()
