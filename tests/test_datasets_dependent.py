"""The dependent-series simulator against known theory: fGn autocovariance and variance of
sums, the spectrum and variance of AR(1) sums, the stationary law of the Markov chain."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from tsanalyze.datasets_dependent import (
    ar1_sum,
    ar1_sum_autocovariance,
    arfima,
    arfima_autocovariance,
    fgn,
    fgn_autocovariance,
    markov_modes,
    markov_stationary,
    simulate_dependent,
)


def test_fgn_autocovariance_formula() -> None:
    # H = 1/2: white noise; the closed form H (2H - 1) k^(2H - 2) is the large-k limit
    assert fgn_autocovariance([0, 1, 5], 0.5) == pytest.approx([1.0, 0.0, 0.0], abs=1e-12)
    k = 1000.0
    assert fgn_autocovariance(k, 0.8) == pytest.approx(0.8 * 0.6 * k**-0.4, rel=1e-3)
    # partial sums: var(sum of n) = n^(2H) is the double sum of gamma
    n, h = 50, 0.7
    lag = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    assert fgn_autocovariance(lag, h).sum() == pytest.approx(n ** (2 * h), rel=1e-10)


@pytest.mark.parametrize(
    ("make", "acov", "param"),
    [(fgn, fgn_autocovariance, h) for h in (0.3, 0.5, 0.8, 0.95)]
    + [(arfima, arfima_autocovariance, d) for d in (0.1, 0.3, 0.45)],
)
def test_circulant_draws_are_exact_in_covariance(make: Any, acov: Any, param: float) -> None:
    # Davies-Harte is exact: the sample covariance matrix of many short series matches
    # Toeplitz(gamma) within its Monte-Carlo error (sd ~ sqrt(2 / reps) ~ 0.01)
    n, reps = 12, 20_000
    x = make(n, param, size=reps, rng=1)
    emp = x.T @ x / reps
    lag = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    assert np.max(np.abs(emp - acov(lag, param))) < 0.045


def test_fgn_variance_of_the_sum_and_marginal() -> None:
    n, reps, h = 2000, 4000, 0.8
    x = fgn(n, h, size=reps, rng=2)
    # sum / n^H is N(0, 1): its sample variance over 4000 series is chi2(4000)/4000
    z = x.sum(axis=1) / n**h
    assert abs(z.var() - 1.0) < 4 * math.sqrt(2 / reps)
    assert stats.kstest(x[:, 0], "norm").pvalue > 0.01
    # H = 1/2 is i.i.d. N(0, 1)
    w = fgn(5000, 0.5, rng=3)
    assert abs(np.corrcoef(w[:-1], w[1:])[0, 1]) < 4 / math.sqrt(5000)
    assert stats.kstest(w, "norm").pvalue > 0.01


def test_arfima_autocovariance_against_the_gamma_form() -> None:
    # the recursion against Hosking's closed form with scipy's log-gamma
    from scipy.special import gammaln

    for d in (0.1, 0.3, 0.45):
        k = np.arange(1, 400)
        ref = np.exp(gammaln(k + d) + gammaln(1 - d) - gammaln(k - d + 1) - gammaln(d))
        assert arfima_autocovariance(k, d) == pytest.approx(ref, rel=1e-9)
        assert arfima_autocovariance([0, -1, 1], d) == pytest.approx([1, d / (1 - d), d / (1 - d)])
    assert arfima_autocovariance([0, 3], 0.0) == pytest.approx([1.0, 0.0])


def test_arfima_variance_of_the_sum() -> None:
    # var(sum of n) is the double sum of the autocovariance (~ n^(2d + 1))
    n, reps, d = 1000, 3000, 0.2
    x = arfima(n, d, size=reps, rng=8)
    rho = arfima_autocovariance(np.arange(n), d)
    var_sum = n + 2.0 * float(np.sum((n - np.arange(1, n)) * rho[1:]))
    z = x.sum(axis=1) / math.sqrt(var_sum)
    assert abs(z.var() - 1.0) < 4 * math.sqrt(2 / reps)
    assert arfima(1, 0.2, rng=1).shape == (1,)
    with pytest.raises(ValueError, match="d: must be in"):
        arfima(10, 0.5)


def test_ar1_sum_autocovariance_and_spectrum() -> None:
    phis, var = (0.6, 0.96), (0.3, 0.7)
    x = ar1_sum(4096, phis, var, size=400, rng=4)
    assert x.var() == pytest.approx(1.0, abs=0.05)
    # lag-k covariances, averaged over series (the mean is known: 0)
    for k in (1, 5, 20):
        emp = float(np.mean(x[:, :-k] * x[:, k:]))
        assert emp == pytest.approx(float(ar1_sum_autocovariance(k, phis, var)), abs=0.04)
    # averaged periodogram vs the spectral density sum v (1 - phi^2) / |1 - phi e^-il|^2
    n = x.shape[1]
    per = np.abs(np.fft.rfft(x, axis=1)) ** 2 / n
    lam = 2 * np.pi * np.arange(per.shape[1]) / n
    f = sum(
        v * (1 - p * p) / (1 - 2 * p * np.cos(lam) + p * p) for p, v in zip(phis, var, strict=True)
    )
    band = slice(10, 200)  # low frequencies, where the slow component dominates
    ratio = per[:, band].mean(axis=0) / f[band]
    assert np.all(np.abs(ratio - 1) < 0.25)  # each ordinate: mean of 400 Exp(1) ratios
    assert ratio.mean() == pytest.approx(1.0, abs=0.03)


def test_markov_chain_stationary_law_sojourns_and_correlation() -> None:
    soj = (100.0, 43.0)
    pi = markov_stationary(soj)
    assert pi == pytest.approx([100 / 143, 43 / 143])
    s = markov_modes(3000, soj, size=400, rng=5).astype(np.float64)
    assert s.shape == (400, 3000)
    # stationary from the first sample: P(mode 1) = pi_1 at t = 0 and on average
    assert abs(s[:, 0].mean() - pi[1]) < 4 * math.sqrt(pi[0] * pi[1] / 400)
    assert s.mean() == pytest.approx(pi[1], abs=0.02)
    # lag-k autocorrelation of the indicator is (1 - 1/L0 - 1/L1)^k
    d = s - pi[1]
    for k in (1, 10, 40):
        r = float(np.mean(d[:, :-k] * d[:, k:]) / (pi[0] * pi[1]))
        assert r == pytest.approx((1 - 1 / soj[0] - 1 / soj[1]) ** k, abs=0.03)
    # completed sojourns are geometric with the given means (interior runs only)
    runs, modes = [], []
    for r in range(100):
        row = s[r]
        edges = np.flatnonzero(np.diff(row)) + 1
        lengths = np.diff(edges)
        runs.extend(lengths.tolist())
        modes.extend(row[edges[:-1]].tolist())
    runs_a, modes_a = np.asarray(runs), np.asarray(modes)
    for mode, mean in enumerate(soj):
        m = runs_a[modes_a == mode]
        # geometric mean L, sd ~ L: standard error L / sqrt(count)
        assert abs(m.mean() - mean) < 4 * mean / math.sqrt(m.size)


def test_markov_truth_matches_a_long_mixture_sample() -> None:
    sim = simulate_dependent(200, "markov-modes", t0=1000.0, scale=0.01, rng=6)
    t = sim.truth
    rng = np.random.default_rng(7)
    pi = markov_stationary((100.0, 43.0))
    mode = rng.random(2_000_000) < pi[1]
    big = 1000.0 * (1.0 + 0.05 * mode + 0.01 * rng.standard_normal(mode.size))
    assert t.mean == pytest.approx(1000.0 * (1 + 0.05 * pi[1]), rel=1e-12)
    assert np.median(big) == pytest.approx(t.median, abs=0.03)
    assert stats.trim_mean(big, 0.05) == pytest.approx(t.trimmed_mean, abs=0.03)


@pytest.mark.parametrize("process", ["fgn", "ar-sum", "markov-modes"])
def test_simulate_dependent_shapes_and_truth(process: str) -> None:
    one = simulate_dependent(300, process, rng=8)  # type: ignore[arg-type]
    many = simulate_dependent(300, process, size=5, rng=8)  # type: ignore[arg-type]
    assert one.x.shape == (300,) and many.x.shape == (5, 300)
    assert np.all(np.isfinite(many.x))
    if process != "markov-modes":
        assert one.truth.median == one.truth.mean == one.truth.trimmed_mean == 1000.0
    # same seed, same draw
    again = simulate_dependent(300, process, rng=8)  # type: ignore[arg-type]
    assert np.array_equal(one.x, again.x)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="hurst"):
        fgn(10, 1.0)
    with pytest.raises(ValueError, match="phis"):
        ar1_sum(10, (0.5, 1.0))
    with pytest.raises(ValueError, match="variances"):
        ar1_sum(10, (0.5,), (1.0, 2.0))
    with pytest.raises(ValueError, match="sojourns"):
        markov_modes(10, (0.5, 10.0))
    with pytest.raises(ValueError, match="process"):
        simulate_dependent(10, "arima")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="levels"):
        simulate_dependent(10, "markov-modes", levels=(0.0,))
    with pytest.raises(ValueError, match="n"):
        fgn(0, 0.7)
    assert fgn(1, 0.7, rng=1).shape == (1,)
