"""Long memory: variance-time curve, the Whittle test, and the fGn block-mean algebra."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsanalyze.datasets_dependent import fgn
from tsanalyze.stats.autocorrelation import block_means
from tsanalyze.stats.longmemory import (
    _pooled_periodogram,
    batch_means_dof,
    fgn_block_correlation,
    long_memory,
    lrd_variance_factor,
    variance_time,
)


def test_variance_time_is_overlapping_batch_means() -> None:
    x = np.random.default_rng(1).normal(size=97)
    vt = variance_time(x, min_blocks=8)
    d = x - x.mean()
    # independent reference: the mean square of every window mean, computed window by window
    for b, v in zip(vt.block_sizes.astype(int), vt.variances, strict=True):
        ref = np.mean([d[t : t + b].mean() ** 2 for t in range(x.size - b + 1)])
        assert v == pytest.approx(ref, rel=1e-12)
    assert vt.block_sizes[0] == 1 and vt.block_sizes[-1] <= 97 // 8
    assert vt.ratios[0] == 1.0


@pytest.mark.parametrize(("hurst", "tol"), [(0.5, 0.06), (0.7, 0.06), (0.9, 0.06)])
def test_variance_time_hurst_on_fgn(hurst: float, tol: float) -> None:
    # the centring-corrected aggregated-variance fit is unbiased on fGn (median of 40)
    h = [variance_time(x).hurst for x in fgn(4000, hurst, size=40, rng=2)]
    assert float(np.median(h)) == pytest.approx(hurst, abs=tol)


def test_variance_time_short_memory_fits_a_levelling_curve() -> None:
    # AR(1) phi = 0.5: the curve levels off, so the short-memory curve fits far better
    e = np.random.default_rng(3).normal(size=4000)
    x = np.empty_like(e)
    x[0] = e[0]
    for t in range(1, e.size):
        x[t] = 0.5 * x[t - 1] + math.sqrt(0.75) * e[t]
    vt = variance_time(x)
    assert vt.short_memory_rss < vt.long_memory_rss - 5
    # fGn: the power law fits at least as well
    y = fgn(4000, 0.8, rng=4)
    vt2 = variance_time(y)
    assert vt2.long_memory_rss <= vt2.short_memory_rss + 1


def test_long_memory_test_separates_fgn_from_ar1() -> None:
    lm = long_memory(fgn(4000, 0.8, rng=5))
    assert lm.pvalue < 1e-4 and lm.hurst == pytest.approx(0.8, abs=0.08)
    e = np.random.default_rng(6).normal(size=4000)
    x = np.empty_like(e)
    x[0] = e[0]
    for t in range(1, e.size):  # AR(1) phi = 0.97: long correlation time, short memory
        x[t] = 0.97 * x[t - 1] + math.sqrt(1 - 0.97**2) * e[t]
    ar = long_memory(x)
    assert ar.pvalue > 0.01
    assert ar.rho == pytest.approx(0.97, abs=0.02)
    # constant series: nothing to test
    assert long_memory(np.full(100, 3.0)).pvalue == 1.0
    with pytest.raises(Exception, match="x"):
        long_memory(np.zeros(10))


def test_pooled_periodogram_keeps_the_total_and_the_low_frequencies() -> None:
    x = np.random.default_rng(7).normal(size=5000)
    lam, per, count, agg = _pooled_periodogram(x)
    assert agg == 1
    d = x - x.mean()
    f = np.fft.rfft(d)[1 : (x.size - 1) // 2 + 1]
    raw = np.abs(f) ** 2 / np.dot(d, d)
    assert np.sum(per * count) == pytest.approx(raw.sum(), rel=1e-10)
    assert per[:64] == pytest.approx(raw[:64], rel=1e-12)
    assert lam[0] == pytest.approx(2 * math.pi / x.size)
    # long series are block-averaged first
    assert _pooled_periodogram(np.random.default_rng(8).normal(size=40_000))[3] == 5


def test_fgn_block_means_algebra_against_simulation() -> None:
    k, h, b = 12, 0.8, 16
    r = fgn_block_correlation(k, h)
    assert np.allclose(np.diag(r), 1.0) and r[0, 1] == pytest.approx(2 ** (2 * h - 1) - 1)
    x = fgn(k * b, h, size=20_000, rng=9)
    means = np.stack([block_means(row, b) for row in x])
    emp = np.corrcoef(means.T)
    assert np.max(np.abs(emp - r)) < 0.04
    # g(k, H): E[s^2] / k * g = var(grand mean) under fGn
    s2 = means.var(axis=1, ddof=1)
    target = float(np.var(x.mean(axis=1)))
    assert float(s2.mean()) / k * lrd_variance_factor(k, h) == pytest.approx(target, rel=0.05)
    assert lrd_variance_factor(k, 0.5) == pytest.approx(1.0)
    # Satterthwaite: 2 E[s^2]^2 / var(s^2) from the same simulation
    nu_emp = 2 * s2.mean() ** 2 / s2.var()
    assert batch_means_dof(k, h) == pytest.approx(nu_emp, rel=0.1)
    assert batch_means_dof(k, 0.5) == pytest.approx(k - 1)
