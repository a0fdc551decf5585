"""Is the time order of a series real? Samples saved sorted carry none.

Warm-up, drift, change points and serial dependence are all read from the order in which
samples were taken. Some tools save them sorted instead: BenchmarkTools before 0.1 ended
each trial with ``sort!(trial)`` (the trials behind Chen, Revels & Edelman 2016 are all
sorted), and exports of a histogram's values come out sorted too. Read in that order, a
sorted series looks like a ramp of steps: the steady-state search cuts it into a "warm-up"
and a "cool-down", and the dependence assessment refuses any interval. Such samples can
only be treated as exchangeable.
"""

from __future__ import annotations

import numpy as np

from tsanalyze._result import Finding
from tsanalyze._typing import ArrayLike

__all__ = ["MIN_SORTED_DISTINCT", "MIN_SORTED_N", "in_sorted_order", "sorted_finding", "unsorted"]

#: a series this long with this many distinct values, sorted, was sorted after the fact:
#: samples taken in time order come out sorted by chance with probability about 2 / n!
#: (ties raise it: 5 values over 30 samples, 26 of them equal, about 1 in 330,000)
MIN_SORTED_N = 30
MIN_SORTED_DISTINCT = 5


def in_sorted_order(x: ArrayLike) -> bool:
    """Are the samples sorted (ascending or descending) rather than in time order?

    Parameters
    ----------
    x : array_like
        1-d series.

    Returns
    -------
    bool
        True for at least :data:`MIN_SORTED_N` samples with at least
        :data:`MIN_SORTED_DISTINCT` distinct values, in sorted order.

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE HPEC 2016, arXiv:1608.04295 (BenchmarkTools, whose early
       versions saved each trial sorted).
    """
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1 or a.size < MIN_SORTED_N:
        return False
    for part in (a[:1000], a):  # most series fail within their first samples
        if not (bool(np.all(part[1:] >= part[:-1])) or bool(np.all(part[1:] <= part[:-1]))):
            return False
    return int(np.count_nonzero(a[1:] != a[:-1])) + 1 >= MIN_SORTED_DISTINCT


def unsorted(n: int) -> np.ndarray:
    """The fixed shuffled order (a permutation of ``range(n)``, the same every call) in
    which sorted samples are analysed as exchangeable."""
    return np.random.default_rng(0).permutation(n)


def sorted_finding(n: int, what: str = "the") -> Finding:
    """The ``sorted-samples`` warning for ``n`` samples (``what``: whose, e.g. "side a's")."""
    return Finding(
        "sorted-samples",
        f"{what} {n} samples are in sorted order, not the order they were taken in (as "
        "BenchmarkTools before 0.1 saved them): no warm-up, drift or serial dependence can "
        "be seen, so they are analysed whole, as independent samples (in a fixed shuffled "
        "order)",
        "warning",
    )
