"""Results of pure functions of a series, kept by the digest of its bytes (issue 24).

A report compares the baseline run's series with every other run's: the baseline side's
tick, block sizes and bootstrap block length were computed again for each comparison
(99 times per benchmark over 100 runs). :class:`ContentMemo` keeps such a result under
a digest of the array's bytes and the settings, so an equal series (in the same process)
gets the same object back: the same numbers, computed once. Only deterministic
functions of the array and the settings may be kept (never anything drawn at random).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

import numpy as np

from tsanalyze._lru import LRU

__all__ = ["ContentMemo"]

T = TypeVar("T")


class ContentMemo(Generic[T]):
    """A bounded memo of ``compute()`` keyed by an array's content and hashable settings.

    Parameters
    ----------
    size : int
        Entries kept (the least recently used is dropped first).
    """

    def __init__(self, size: int = 256) -> None:
        self._kept: LRU[tuple[Hashable, ...], T] = LRU(size)

    def get(self, x: np.ndarray, settings: Hashable, compute: Callable[[], T]) -> T:
        """The kept result for ``x`` (its dtype, shape and bytes) and ``settings``, else
        ``compute()``, kept."""
        a = np.ascontiguousarray(x)
        key = (hashlib.blake2b(a.data, digest_size=20).digest(), a.dtype.str, a.shape, settings)
        value = self._kept.get(key)
        if value is None:
            value = compute()
            self._kept.put(key, value)
        return value

    def clear(self) -> None:
        """Forget every kept result."""
        self._kept.clear()
