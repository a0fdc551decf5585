"""Long memory: variance-time curve, the Whittle test, and the fGn block-mean algebra."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import signal

from tsanalyze.datasets_dependent import fgn
from tsanalyze.stats import longmemory as lm
from tsanalyze.stats._numba import HAVE_NUMBA
from tsanalyze.stats.autocorrelation import block_means
from tsanalyze.stats.longmemory import (
    _pooled_periodogram,
    batch_means_dof,
    fgn_block_correlation,
    long_memory,
    lrd_variance_factor,
)
from tsanalyze.stats.variance_time import variance_time


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
    # beyond 131,072 samples every agg-th sample is taken
    y = np.random.default_rng(8).normal(size=300_000)
    lam2, per2, _, agg2 = _pooled_periodogram(y)
    assert agg2 == 3
    thin = y[::3] - y[::3].mean()
    raw2 = np.abs(np.fft.rfft(thin)[1 : (thin.size - 1) // 2 + 1]) ** 2 / np.dot(thin, thin)
    assert per2[:64] == pytest.approx(raw2[:64], rel=1e-12)
    assert lam2[0] == pytest.approx(2 * math.pi / thin.size)


def test_long_series_keep_the_test_honest_and_powerful() -> None:
    # thinning keeps an AR(1) an AR(1) (phi^3 here): block means made it an ARMA(1, 1)
    # and every AR(1) with phi = 0.9 beyond the limit (then 8,192) was declared long
    # memory; long memory keeps its exponent and is still found
    rng = np.random.default_rng(9)
    n = 300_000
    z = rng.standard_normal((6, n + 2000))
    ar = signal.lfilter([1.0], [1.0, -0.9], z, axis=1)[:, 2000:]
    assert all(long_memory(x).pvalue > 0.01 for x in ar)
    for h in (0.6, 0.8):
        res = [long_memory(x) for x in fgn(n, h, size=3, rng=10)]
        assert all(r.aggregation == 3 and r.pvalue < 0.01 for r in res)
        assert float(np.median([r.hurst for r in res])) == pytest.approx(h, abs=0.05)


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


# ------------------------------------------------ the Whittle fits (issue 24, third round)


def _models(x: np.ndarray) -> tuple[lm._Whittle, lm._Whittle]:
    lam, per, count, _ = lm._pooled_periodogram(x)
    return lm._Whittle(lam, per, count, False), lm._Whittle(lam, per, count, True)


def _profile(m: lm._Whittle, p: np.ndarray, order: int = 0) -> tuple[float, np.ndarray, np.ndarray]:
    grad, hess = np.zeros(3), np.zeros((3, 3))
    k = p.size
    v = lm._profile_py(m.cl, m.l2s, m.per, m.count, p, k, grad, hess, order)
    return v, grad[:k], hess[:k, :k]


def test_profile_likelihood_is_the_full_likelihood_at_its_best_scale() -> None:
    # independent reference: Whittle's likelihood sum n (log f + I / f) of the spectral
    # density written out, minimised over the scale c numerically
    from scipy.optimize import minimize_scalar

    x = fgn(3000, 0.7, rng=11)
    _, m = _models(x)
    lam, per, count, _ = lm._pooled_periodogram(x)
    w, phi, d = 0.6, 0.4, 0.25
    shape = (1 - w) + w * (1 - phi**2) * np.abs(2 * np.sin(lam / 2)) ** (-2 * d) / np.abs(
        1 - phi * np.exp(-1j * lam)
    ) ** 2

    def full(logc: float) -> float:
        f = math.exp(logc) * shape
        return float(np.sum(count * (np.log(f) + per / f)))

    ref = minimize_scalar(full, bounds=(-10, 10), method="bounded", options={"xatol": 1e-10})
    got, _, _ = _profile(m, np.array([w, math.atanh(phi), d]))
    assert got == pytest.approx(ref.fun, rel=1e-9)


@pytest.mark.parametrize("with_d", [False, True])
def test_profile_gradient_and_hessian_match_finite_differences(with_d: bool) -> None:
    short, long_ = _models(np.random.default_rng(12).standard_normal(2000).cumsum() * 0.05
                           + np.random.default_rng(13).standard_normal(2000))  # fmt: skip
    m = long_ if with_d else short
    for p in ([0.3, 0.5, 0.2], [0.9, -1.2, -0.3], [0.05, 2.5, 0.6]):
        q = np.array(p[: 3 if with_d else 2])
        _, g, h = _profile(m, q, order=2)
        eps = 1e-5
        eye = np.eye(q.size)
        gn = [(_profile(m, q + eps * e)[0] - _profile(m, q - eps * e)[0]) / (2 * eps) for e in eye]
        hn = [
            (_profile(m, q + eps * e, 1)[1] - _profile(m, q - eps * e, 1)[1]) / (2 * eps)
            for e in eye
        ]
        np.testing.assert_allclose(g, gn, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(h, np.array(hn), rtol=1e-5, atol=1e-4)


def test_compiled_kernels_and_their_python_twins_agree() -> None:
    if not HAVE_NUMBA:
        pytest.skip("numba is not installed")
    for x in (fgn(2000, 0.8, rng=14), np.random.default_rng(15).exponential(size=1500)):
        for m in _models(x):
            k = m.lower.size
            for p0 in m.grid_starts(2):
                for order in (0, 1, 2):
                    out = []
                    for f in (lm._profile_py, lm._profile):
                        grad, hess = np.zeros(3), np.zeros((3, 3))
                        out.append((f(m.cl, m.l2s, m.per, m.count, p0, k, grad, hess, order),
                                    grad, hess))  # fmt: skip
                    assert out[1][0] == pytest.approx(out[0][0], rel=1e-13)
                    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-9, atol=1e-9)
                    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-9, atol=1e-9)
                py = lm._newton_py(m.cl, m.l2s, m.per, m.count, p0, m.lower, m.upper)
                nb = lm._newton_nb(m.cl, m.l2s, m.per, m.count, p0, m.lower, m.upper)
                np.testing.assert_allclose(nb[0], py[0], rtol=1e-9, atol=1e-12)
                assert nb[1] == pytest.approx(py[1], rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_fits_reach_the_best_optimum_an_independent_search_finds(seed: int) -> None:
    # the reference: scipy's L-BFGS-B on the profile likelihood from 25 random starts
    # in the bounds; the fit (grid of starts, projected Newton) must do as well
    from scipy.optimize import minimize

    rng = np.random.default_rng(100 + seed)
    x = [fgn(1500, 0.75, rng=seed), rng.exponential(size=1000) + rng.standard_normal(1000),
         np.repeat(rng.standard_normal(100), 10) + rng.standard_normal(1000),
         rng.gamma(2.0, size=1200)][seed]  # fmt: skip
    short, long_ = _models(x)
    got_short = short.fit(short.grid_starts())
    got_long = long_.fit([np.array([*got_short[0], 0.0]), *lm._LONG_STARTS,
                          *long_.grid_starts(2)])  # fmt: skip
    for m, got in ((short, got_short), (long_, got_long)):
        best = math.inf
        for _ in range(25):
            p0 = m.lower + (m.upper - m.lower) * rng.random(m.lower.size)
            r = minimize(lambda p, m=m: _profile(m, p)[0], p0, method="L-BFGS-B",
                         bounds=list(zip(m.lower, m.upper, strict=True)))  # fmt: skip
            best = min(best, float(r.fun))
        assert got[1] <= best + 1e-4, (m.with_d, got[1], best)


def test_overlapping_batch_means_ratios_follow_their_chi_square() -> None:
    """The law scale_excess_pvalue assumes: at block length b the ratio of i.i.d. samples
    is about (1 - b / n) chi2(nu) / nu with nu = 1.5 (n / b - 1) (Meketon & Schmeiser
    1984; the factor is the centring's bias), checked
    against 1200 simulated series (the p-values of one block length are then uniform)."""
    from scipy import stats

    from tsanalyze.stats.variance_time import scale_excess_pvalue, variance_curve

    rng = np.random.default_rng(11)
    n, reps = 2000, 1200
    rows = rng.standard_normal((reps, n))
    bs = variance_curve(rows[0])[0]
    j = int(np.searchsorted(bs, 64))  # one block length in the middle of the curve
    b = bs[j : j + 1]
    p = np.array([scale_excess_pvalue(b, variance_curve(r)[2][j : j + 1], n, 1.0) for r in rows])
    # uniform: the 5% and 1% tails hold about 5% and 1% of the series
    assert np.mean(p < 0.05) == pytest.approx(0.05, abs=0.018)
    assert np.mean(p < 0.01) == pytest.approx(0.01, abs=0.007)
    # and the adjusted p is the smallest per-length p times the number of lengths tested
    ratios = np.array([1.0, 1.3, 2.9, 1.1])
    blocks = np.array([1.0, 4.0, 16.0, 64.0])
    nu = 1.5 * (n / blocks[1:] - 1.0)
    want = 3 * float(np.min(stats.chi2.sf(nu * ratios[1:] / (1.2 * (1 - blocks[1:] / n)), nu)))
    assert scale_excess_pvalue(blocks, ratios, n, 1.2) == pytest.approx(min(1.0, want))
    assert scale_excess_pvalue(blocks, ratios, n, 1.2, above=64.0) == 1.0
