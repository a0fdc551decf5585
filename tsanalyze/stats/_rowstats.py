"""Order statistics of many resamples of one series, without sorting the resamples.

A bootstrap of the median evaluates ``np.median(x[idx], axis=-1)`` on a ``(B, m)`` table
of resample indices (2000 × 1000 for one side of one comparison): numpy copies and
partitions two million floats for it. The rows only hold values of ``x``, so the k-th
smallest value of a row is the distinct value of ``x`` at the k-th smallest dense rank
in the row: with the ranks of ``x`` computed once, each row's order statistics come from
counting ranks (a compiled kernel, O(m + distinct values) per row) or, without numba,
from sorting small integer ranks (numpy's radix sort for 16-bit integers). Both give exactly the numbers ``np.median`` gives (the
same two middle values, averaged the same way); tests check all three against each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tsanalyze._typing import Float64Array, Int64Array
from tsanalyze.stats._numba import HAVE_NUMBA, jit

__all__ = ["median", "resampled", "resampled_median", "stationary_positions"]

#: rank-table elements sorted at once by the numpy path (bounds its memory)
_BATCH_ELEMENTS = 1 << 22


def median(a: Any, axis: int = -1) -> Any:
    """``np.median(a, axis)``: the median estimator. :func:`resampled_median` computes it
    on resamples faster, with the same result."""
    return np.median(a, axis=axis)


def _kth_counting_py(
    rank: np.ndarray, idx: np.ndarray, k1: int, k2: int, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of the ``k1``-th and ``k2``-th smallest values (0-based, k1 <= k2) of each row
    of ``rank[idx]`` (ranks in ``[0, n)``), by counting (the source of the compiled
    kernel): O(m + n) per row."""
    rows, m = idx.shape
    out1 = np.empty(rows, np.int64)
    out2 = np.empty(rows, np.int64)
    counts = np.zeros(n, np.int32)
    for r in range(rows):
        for j in range(m):
            counts[rank[idx[r, j]]] += 1
        below = 0
        v = 0
        while below + counts[v] <= k1:
            below += counts[v]
            v += 1
        out1[r] = v
        while below + counts[v] <= k2:
            below += counts[v]
            v += 1
        out2[r] = v
        if m < n:
            for j in range(m):
                counts[rank[idx[r, j]]] = 0
        else:
            counts[:] = 0
    return out1, out2


_kth_counting_nb = jit(_kth_counting_py)


def _kth_sorting(
    rank: np.ndarray, idx: np.ndarray, k1: int, k2: int
) -> tuple[np.ndarray, np.ndarray]:
    """The same as :func:`_kth_counting_py`, vectorised: sort each row's ranks."""
    rows, m = idx.shape
    small = rank.astype(np.int16) if rank.max(initial=0) <= np.iinfo(np.int16).max else rank
    step = max(1, _BATCH_ELEMENTS // max(m, 1))
    out1 = np.empty(rows, np.int64)
    out2 = np.empty(rows, np.int64)
    for s in range(0, rows, step):
        r = small[idx[s : s + step]]
        r.sort(axis=1, kind="stable")  # radix sort for 16-bit integers
        out1[s : s + step] = r[:, k1]
        out2[s : s + step] = r[:, k2]
    return out1, out2


def _batched(x: Float64Array, idx: Int64Array, statistic: Any) -> Float64Array:
    """``statistic(x[idx], axis=-1)`` in row batches of bounded memory."""
    rows, m = idx.shape
    step = max(1, _BATCH_ELEMENTS // max(m, 1))
    out = np.empty(rows)
    for s in range(0, rows, step):
        out[s : s + step] = np.asarray(statistic(x[idx[s : s + step]], axis=-1))
    return out


def resampled(x: Float64Array, idx: Int64Array, statistic: Any) -> Float64Array:
    """``statistic(x[idx], axis=-1)`` row by row (the bootstrap replicates), by the fastest
    exact route: :func:`resampled_median` for :func:`median`, batches otherwise."""
    if statistic is median and idx.size and x.size:
        return resampled_median(x, idx)
    return _batched(x, idx, statistic)


def resampled_median(x: Float64Array, idx: Int64Array, *, engine: str = "auto") -> Float64Array:
    """``np.median(x[idx], axis=-1)``, exactly, for a 2-d table of indices into ``x``.

    Parameters
    ----------
    x : ndarray
        1-d float64 values (finite).
    idx : ndarray
        ``(rows, m)`` integer indices into ``x`` (m >= 1).
    engine : {"auto", "numba", "numpy"}
        Counting kernel (numba: when installed and the rows are not much shorter than
        ``x``) or sorting 16-bit ranks (numpy: series up to 32767 values); "auto" picks
        one of them, or partitions the values as ``np.median`` does when neither fits.

    Returns
    -------
    ndarray
        One median per row: the middle value of the row, or the mean of the two middle
        values, computed as ``np.median`` does, ``(a + b) / 2``.
    """
    m = idx.shape[1]
    # dense ranks: equal values share a rank (timings on a clock's grid repeat a lot)
    values, rank = np.unique(x, return_inverse=True)
    n = values.size
    rank = rank.astype(np.int32 if n < 2**31 else np.int64, copy=False)
    k2 = m // 2
    k1 = k2 - 1 if m % 2 == 0 else k2
    if engine == "auto":
        if HAVE_NUMBA and 4 * m >= n:
            engine = "numba"
        elif n <= np.iinfo(np.int16).max:
            engine = "numpy"
        else:  # long series, short rows, no numba: partitioning the values is fastest
            return _batched(x, idx, median)
    if engine == "numba":
        r1, r2 = _kth_counting_nb(rank, np.ascontiguousarray(idx), k1, k2, n)
    else:
        r1, r2 = _kth_sorting(rank, idx, k1, k2)
    if m % 2:
        return values[r1]  # type: ignore[no-any-return]
    return (values[r1] + values[r2]) / 2  # type: ignore[no-any-return]


def _stationary_positions_py(new: np.ndarray, u: np.ndarray, p: Any, n: int) -> np.ndarray:
    """Indices of the stationary bootstrap from its two draws (the compiled kernel's
    source): position t starts a block when ``t == 0`` or ``new[r, t] < p`` and then
    takes ``u[r, t]``; otherwise it continues the block that started last, wrapping at n."""
    rows, size = new.shape
    out = np.empty((rows, size), np.int64)
    for r in range(rows):
        last = 0
        for t in range(size):
            if t == 0 or new[r, t] < p:
                last = t
            v = np.int64(u[r, last]) + (t - last)
            if v >= n:
                v -= n
            out[r, t] = v
    return out


_stationary_positions_nb = jit(_stationary_positions_py)


def stationary_positions(
    new: np.ndarray, u: np.ndarray, p: np.float32, n: int
) -> Int64Array | None:
    """The compiled :func:`_stationary_positions_py`, or None without numba (the caller
    then combines the draws with numpy, to the same indices)."""
    if not HAVE_NUMBA:
        return None
    return _stationary_positions_nb(new, u, p, n)  # type: ignore[no-any-return]
