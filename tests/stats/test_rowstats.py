"""Medians of bootstrap resamples by ranks (issue 24): exactly ``np.median(x[idx])``."""

from __future__ import annotations

import numpy as np
import pytest

from tsanalyze.stats import _rowstats as rs
from tsanalyze.stats._numba import HAVE_NUMBA


def _cases() -> list[tuple[np.ndarray, np.ndarray]]:
    g = np.random.default_rng(3)
    out = []
    for n, m, rows in [(1000, 1000, 300), (999, 999, 200), (7, 7, 50), (1, 1, 5), (2, 2, 9),
                       (300, 40, 100), (40, 300, 100), (5000, 5000, 20)]:  # fmt: skip
        x = np.round(g.exponential(10, n)) + 1000  # ties: a 1 ns grid
        out.append((x, g.integers(0, n, (rows, m))))
        out.append((g.normal(0, 1, n), g.integers(0, n, (rows, m))))
    out.append((np.full(50, 3.0), g.integers(0, 50, (20, 50))))
    return out


@pytest.mark.parametrize("engine", ["numpy", "auto", "numba"])
def test_resampled_median_is_numpys_median_exactly(engine: str) -> None:
    if engine == "numba" and not HAVE_NUMBA:
        pytest.skip("numba is not installed (extra 'fast')")
    for x, idx in _cases():
        np.testing.assert_array_equal(
            rs.resampled_median(x, idx, engine=engine), np.median(x[idx], axis=-1)
        )


def test_compiled_kernel_and_its_python_twin_agree() -> None:
    g = np.random.default_rng(4)
    for n, m in [(30, 30), (31, 10), (10, 31), (1, 1)]:
        rank = g.permutation(n).astype(np.int32)
        idx = g.integers(0, n, (25, m))
        k2 = m // 2
        k1 = k2 - 1 if m % 2 == 0 else k2
        py = rs._kth_counting_py(rank, idx, k1, k2, n)
        nb = rs._kth_counting_nb(rank, idx, k1, k2, n)
        srt = rs._kth_sorting(rank, idx, k1, k2)
        ref = np.sort(rank[idx], axis=1)[:, [k1, k2]]
        for got in (py, nb, srt):
            np.testing.assert_array_equal(np.column_stack(got), ref)


def test_the_bootstrap_uses_it_for_the_median_only() -> None:
    from tsanalyze.stats.bootstrap import apply_statistic, apply_with_mean
    from tsanalyze.stats.estimators import ESTIMATORS

    g = np.random.default_rng(5)
    x = np.round(g.exponential(10, 400)) + 1000
    idx = g.integers(0, 400, (64, 400))
    for name, fn in ESTIMATORS.items():
        ref = fn(x[idx], axis=-1)
        np.testing.assert_array_equal(apply_statistic(x, idx, fn), ref, err_msg=name)
        out, means = apply_with_mean(x, idx, fn)
        np.testing.assert_array_equal(out, ref, err_msg=name)
        np.testing.assert_array_equal(means, x[idx].mean(axis=-1))
    assert ESTIMATORS["median"] is rs.median


@pytest.mark.parametrize(
    ("n", "size", "bl"), [(1000, 1000, 3.0), (97, 97, 7.5), (40, 13, 2.0), (1, 1, 1.5)]
)
def test_stationary_kernel_gives_the_numpy_indices(
    n: int, size: int, bl: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tsanalyze.stats import bootstrap as bs

    if not HAVE_NUMBA:
        pytest.skip("numba is not installed (extra 'fast')")
    compiled = bs._stationary_by_position(n, 300, bl, np.random.default_rng(7), size)
    monkeypatch.setattr(bs, "HAVE_NUMBA", False)
    plain = bs._stationary_by_position(n, 300, bl, np.random.default_rng(7), size)
    np.testing.assert_array_equal(compiled, plain)
    # and the kernel's Python source gives the same from the same draws
    gen = np.random.default_rng(7)
    draws = gen.random((300, size), dtype=np.float32)
    u = gen.integers(0, n, (300, size), dtype=np.int32)
    twin = rs._stationary_positions_py(draws, u, np.float32(1.0 / bl), n)
    np.testing.assert_array_equal(twin, plain)
