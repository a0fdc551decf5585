"""The simulator: its truth must be true."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tsanalyze.datasets import DEFAULT_DELAYS, simulate_run, simulate_series, simulate_trials


def test_minimum_of_long_series_approaches_t0_evals_plus_overhead() -> None:
    # delay-factor model (seed 000): delays only add time, so the sample minimum -> t0
    sim = simulate_run({"a": 1000.0}, n_rounds=20_000, evals=1, timer_overhead_ns=25.0,
                       timer_resolution_ns=1.0, rng=1)
    ns = sim.frame["ns"].to_numpy()
    assert ns.min() == pytest.approx(1000.0 * 1 + 25.0, abs=1.0)
    assert sim.frame["time_ns"].min() == pytest.approx(1000.0, abs=1.0)


def test_evals_scale_the_sample_time() -> None:
    sim = simulate_run({"a": 200.0}, n_rounds=5000, evals=64, timer_overhead_ns=30.0, rng=2)
    assert sim.frame["ns"].min() >= 200.0 * 64 + 30.0 - 1
    assert sim.frame["ns"].min() < 200.0 * 64 * 1.01 + 30.0


@pytest.mark.parametrize("noise", ["gaussian", "t3", "t3-spikes", "delay"])
def test_truth_median_and_mean_match_an_independent_long_simulation(noise: str) -> None:
    sim = simulate_series(400_000, noise=noise, t0=500.0, scale=0.02, rng=7)
    # independent seeded draw vs the truth computed from a separate cached simulation
    assert np.median(sim.x) == pytest.approx(sim.truth.median, rel=2e-4)
    assert stats.trim_mean(sim.x, 0.05) == pytest.approx(sim.truth.trimmed_mean, rel=5e-4)
    se = sim.x.std() / np.sqrt(sim.x.size)
    assert abs(sim.x.mean() - sim.truth.mean) < 5 * se


def test_delay_model_mean_is_closed_form() -> None:
    sim = simulate_series(10, noise="delay", t0=1000.0, scale=0.02, rng=1)
    expected = 1000.0 * (1 + sum(f.rate * f.relative_scale * 0.02 for f in DEFAULT_DELAYS))
    assert sim.truth.mean == pytest.approx(expected)


def test_ar1_dependence_has_the_requested_lag1() -> None:
    sim = simulate_series(200_000, noise="gaussian", phi=0.7, rng=3)
    x = sim.x - sim.x.mean()
    r1 = float(np.dot(x[1:], x[:-1]) / np.dot(x, x))
    assert r1 == pytest.approx(0.7, abs=0.01)
    # marginal sd stays scale * t0 whatever phi is
    assert sim.x.std() == pytest.approx(0.02 * 1000.0, rel=0.02)


def test_ar1_noise_starts_in_stationarity() -> None:
    # the first samples have the marginal variance of the last (no warm-up of the
    # simulator's own making: y_0 had variance 1 + 2 phi sqrt(1 - phi^2), 2.0 at 0.7);
    # 4000 series, the F test of equal variances at 1%
    x = np.array([simulate_series(60, noise="gaussian", phi=0.7, spike_rate=0.0, rng=s).x
                  for s in range(4000)])  # fmt: skip
    head, tail = x[:, :3], x[:, -1]
    for j in range(3):
        f = float(np.var(head[:, j], ddof=1) / np.var(tail, ddof=1))
        assert 2 * min(stats.f.cdf(f, 3999, 3999), stats.f.sf(f, 3999, 3999)) > 0.01, (j, f)


def test_shift_warmup_and_truth_changepoints() -> None:
    sim = simulate_series(2000, noise="gaussian", scale=0.005, warmup=(200, 0.5),
                          shifts=((1200, 0.05),), rng=4)
    assert sim.truth.changepoints == (200, 1200)
    assert sim.truth.warmup_end == 200
    assert sim.x[:20].mean() > 1.3 * 1000
    assert np.median(sim.x[1300:]) == pytest.approx(1050.0, rel=0.002)
    assert sim.truth.median == pytest.approx(1050.0)


def test_interleaved_positions_are_permutations_and_reproducible() -> None:
    a = simulate_run(["x", "y", "z"], n_rounds=100, rng=5).frame
    b = simulate_run(["x", "y", "z"], n_rounds=100, rng=5).frame
    assert a.equals(b)
    pos = a.pivot(index="round", columns="benchmark", values="position")
    assert (np.sort(pos.to_numpy(), axis=1) == np.arange(3)).all()
    assert len({tuple(r) for r in pos.to_numpy()}) > 1  # the order really is shuffled


def test_trials_have_bimodal_regimes() -> None:
    sim = simulate_trials(40, benchmarks={"a": 1000.0}, n_rounds=200, regime_prob=0.5,
                          regime_shift=0.2, rng=6)
    med = sim.frame.groupby("run", observed=True)["time_ns"].median().to_numpy()
    slow = med > 1100
    assert 5 < slow.sum() < 35  # both regimes occur
    assert len(sim.frame.attrs["runs"]) == 40


@pytest.mark.parametrize("kw, needle", [
    (dict(noise="pink"), "noise"), (dict(phi=1.0), "phi"), (dict(scale=-1.0), "scale"),
    (dict(shifts=((5000, 0.1),)), "shifts"), (dict(warmup=(0, 0.1)), "warmup"),
])
def test_bad_parameters_are_named(kw, needle) -> None:
    with pytest.raises(ValueError, match=needle):
        simulate_series(1000, rng=1, **kw)
