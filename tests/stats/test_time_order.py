"""Samples saved in sorted order are told from samples in time order."""

from __future__ import annotations

import math

import numpy as np

from tsanalyze.stats.time_order import (
    MIN_SORTED_DISTINCT,
    MIN_SORTED_N,
    in_sorted_order,
    sorted_finding,
    unsorted,
)


def test_sorted_series_are_found_either_way() -> None:
    x = 1000 + np.random.default_rng(1).exponential(5.0, 200)
    assert in_sorted_order(np.sort(x)) and in_sorted_order(np.sort(x)[::-1])
    assert not in_sorted_order(x)
    # too short, or too few distinct values, to tell from chance
    assert not in_sorted_order(np.sort(x)[: MIN_SORTED_N - 1])
    few = np.sort(np.r_[np.full(40, 5.0), np.arange(MIN_SORTED_DISTINCT - 2) + 6.0])
    assert not in_sorted_order(few) and in_sorted_order(np.r_[few, 99.0])


def test_time_order_is_never_taken_for_sorted_by_chance() -> None:
    # the rarest case allowed: 30 samples, 5 values, 26 equal; sorted by chance with
    # probability 2 / (30 29 28 27) ~ 3e-6. Shuffles of it, and of quantised i.i.d.
    # samples, are never called sorted
    rng = np.random.default_rng(2)
    base = np.r_[np.full(26, 1.0), 2.0, 3.0, 4.0, 5.0]
    assert 2 / math.perm(30, 4) < 1e-5
    assert not any(in_sorted_order(rng.permutation(base)) for _ in range(20_000))
    grid = np.floor(rng.exponential(1.5, (5_000, 30)))
    assert not any(in_sorted_order(row) for row in grid)


def test_the_shuffled_order_is_fixed_and_a_permutation() -> None:
    p = unsorted(500)
    assert np.array_equal(np.sort(p), np.arange(500)) and np.array_equal(p, unsorted(500))
    f = sorted_finding(1000)
    assert f.code == "sorted-samples" and f.severity == "warning" and "1000 samples" in f.message
