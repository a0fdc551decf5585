"""Robust default EDM: self-normalised statistics, spikes and bursts, drift, modes."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st

from tsanalyze.datasets import simulate_rare_delays, simulate_series
from tsanalyze.stats.changepoints._selfnorm import (
    change_critical_value,
    change_pvalue,
    sn_change_scan,
    sn_trend_statistic,
    trend_critical_value,
)
from tsanalyze.stats.changepoints._structure import find_modes, spike_mask
from tsanalyze.stats.changepoints.edm import edm
from tsanalyze.stats.variance_time import robust_hurst


def _sn_by_definition(y: np.ndarray, k: int) -> float:
    """Shao & Zhang (2010) eq. 2.1, one-dimensional, written out with loops, divided by
    lambda(1 - lambda)."""
    n = y.size
    left, right = y[:k], y[k:]
    s1 = np.cumsum(left - left.mean())
    s2 = np.cumsum((right - right.mean())[::-1])
    v = (np.sum(s1**2) + np.sum(s2**2)) / n**2
    t = np.sum(y[:k] - y.mean()) / np.sqrt(n)
    lam = k / n
    return float(t * t / v / (lam * (1 - lam)))


def test_sn_scan_matches_its_definition() -> None:
    rng = np.random.default_rng(0)
    y = rng.standard_t(3, 57) + 1e6  # an offset like nanosecond timings
    g = sn_change_scan(y)
    assert g.shape == (56,)
    for k in (1, 2, 20, 55, 56):
        # cumulative sums instead of loops: about 8 of 16 digits survive the cancellation
        assert g[k - 1] == pytest.approx(_sn_by_definition(y, k), rel=1e-7)
    # rows of a 2-d input are independent series
    both = sn_change_scan(np.vstack([y, y[::-1]]))
    assert np.allclose(both[0], g) and np.allclose(both[1], sn_change_scan(y[::-1]))


def test_sn_trend_statistic_against_ols() -> None:
    rng = np.random.default_rng(1)
    t = np.sort(rng.choice(500, 300, replace=False)).astype(float)
    y = 0.01 * t + rng.normal(size=300)
    fit = sm.OLS(y, sm.add_constant(t)).fit()  # statsmodels: slope and residuals
    s = np.cumsum(fit.resid)
    expected = fit.params[1] ** 2 * np.sum((t - t.mean()) ** 2) / (np.sum(s**2) / 300**2)
    assert sn_trend_statistic(y, t) == pytest.approx(expected, rel=1e-9)
    assert sn_trend_statistic(np.full(10, 3.0)) == 0.0


def test_critical_values_grow_with_dependence_and_shrink_with_alpha() -> None:
    c = [change_critical_value(h, 0.03, 0.05) for h in (0.5, 0.7, 0.9, 0.99, 1.5)]
    assert c == sorted(c) and c[-1] == c[-2]  # clipped at H = 0.99
    assert change_critical_value(0.5, 0.03, 0.01) > change_critical_value(0.5, 0.03, 0.05)
    assert change_critical_value(0.5, 0.4, 0.05) < change_critical_value(0.5, 0.05, 0.05)
    assert trend_critical_value(0.8, 0.01) > trend_critical_value(0.5, 0.01)
    p = change_pvalue(change_critical_value(0.6, 0.1, 0.05), 0.6, 0.1)
    assert p == pytest.approx(0.05, rel=1e-6)
    with pytest.raises(ValueError, match="alpha"):
        change_critical_value(0.5, 0.1, 0.5)


@pytest.mark.slow
def test_critical_value_by_simulation() -> None:
    # Monte Carlo reference: i.i.d. series (H = 1/2), L = 400, trimming 30 samples,
    # 4000 replications; the tabulated 5% critical value must give a size near 5%
    rng = np.random.default_rng(12)
    g = sn_change_scan(rng.standard_normal((4000, 400)))[:, 29:370].max(axis=1)
    size = float(np.mean(g > change_critical_value(0.5, 30 / 400, 0.05)))
    assert 0.035 <= size <= 0.065


def test_clear_step_is_found_where_it_is() -> None:
    x = simulate_series(600, noise="t3-spikes", shifts=((250, 0.2),), rng=1).x
    res = edm(x)
    assert res.locations == (250,)
    seg = res.segments
    assert list(seg.columns) == ["segment", "start", "stop", "n", "median", "mean"]
    assert seg["n"].sum() == 600
    assert seg["median"].iloc[0] == pytest.approx(np.median(x[:250]))
    assert all(0 < p < 0.05 for p in res.pvalue)
    assert res.drift is None and res.modes is None


@pytest.mark.parametrize("seed", range(20))
def test_lone_spike_never_makes_a_change(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(100.0, 1.0, 300)
    y = x.copy()
    y[rng.integers(0, 300)] = 1e6
    assert edm(y, min_size=30).locations == edm(x, min_size=30).locations


def test_bursts_shorter_than_min_size_do_not_make_changes() -> None:
    # a burst far above the noise, shorter than min_size, anywhere in the series: the
    # result must be that of the same series without the burst (left out, its samples
    # shift the remaining ones in time, so a borderline result may rarely flip)
    differ = 0
    cases = 0
    for seed in range(25):
        for length in (5, 15, 29):
            rng = np.random.default_rng(100 + seed)
            x = rng.normal(100.0, 1.0, 600)
            at = int(rng.integers(40, 560 - length))
            y = x.copy()
            y[at : at + length] += 50.0
            cases += 1
            differ += edm(y, min_size=30).locations != edm(x, min_size=30).locations
    assert differ <= 0.04 * cases


def test_spike_mask_leaves_out_bursts_but_keeps_level_shifts() -> None:
    rng = np.random.default_rng(9)
    x = rng.normal(100.0, 1.0, 400)
    x[200:] += 20.0  # a genuine shift
    y = x.copy()
    y[50:79] += 50.0  # a burst of 29 < min_size = 30
    keep = spike_mask(y, 30)
    assert not keep[50:79].any()
    assert keep[150:250].all()  # both sides of the shift are kept
    assert keep.sum() >= 400 - 29 - 4
    assert spike_mask(np.full(50, 2.0), 10).all()
    # the last sample does not pull the running median (mirrored ends): a delayed last
    # sample is left out, its undelayed neighbours are kept
    z = np.r_[np.full(99, 100.0) + rng.normal(0, 1, 99), 140.0]
    keep_z = spike_mask(z, 30)
    assert not keep_z[-1] and keep_z[:-1].all()


def test_burst_longer_than_min_size_is_found() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(100.0, 1.0, 300)
    x[100:180] += 10.0
    locs = edm(x, min_size=30).locations
    assert len(locs) == 2 and abs(locs[0] - 100) <= 2 and abs(locs[1] - 180) <= 2


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    scale=st.floats(1e-6, 1e6),
    shift=st.floats(-1e9, 1e9),
)
def test_invariant_to_affine_transforms(seed: int, scale: float, shift: float) -> None:
    x = simulate_series(400, noise="gaussian", shifts=((200, 0.03),), rng=seed).x
    base = edm(x).locations
    # relative tolerance of float rounding: shift/scale ratios beyond ~1e6 lose digits
    if abs(shift) / scale < 1e6:
        assert edm(scale * x + shift).locations == base
    assert all(30 <= v <= 370 for v in base) and list(base) == sorted(base)


def test_robust_hurst_ignores_a_step_and_a_drift() -> None:
    rng = np.random.default_rng(8)
    x = rng.normal(size=4000)
    h = robust_hurst(x)
    assert 0.4 < h < 0.6
    stepped = x + 5.0 * (np.arange(4000) >= 2000)
    drifting = x + np.linspace(0.0, 20.0, 4000)
    assert abs(robust_hurst(stepped) - h) < 0.05
    assert robust_hurst(drifting) == pytest.approx(h, abs=1e-6)  # cancels exactly


@pytest.mark.parametrize("x", [np.array([]), np.array([1.0]), np.array([1.0, 2.0])])
def test_too_short(x: np.ndarray) -> None:
    res = edm(x)
    assert res.locations == () and "too-short" in res.warning_codes


def test_constant_and_quantised_series() -> None:
    assert edm(np.full(500, 3.0)).locations == ()
    rng = np.random.default_rng(3)
    q = rng.integers(10, 13, 500).astype(float)  # three distinct values (timer quantisation)
    assert edm(q).locations == ()
    q[250:] += 1
    locs = edm(q).locations
    assert len(locs) == 1 and abs(locs[0] - 250) <= 10


def test_rare_delays_with_ticks_keep_their_step() -> None:
    # a quarter of the samples carry a 40 ns delay, values on 1 ns ticks: the step of 3%
    # (3 ns, 1.5 jitter sd) at 500 is found and nothing else
    x = simulate_rare_delays(1000, shifts=((500, 0.03),), rng=4)
    res = edm(x)
    assert len(res.locations) == 1 and abs(res.locations[0] - 500) <= 20
    assert "spikes-left-out" in res.warning_codes


def test_negative_and_huge_values() -> None:
    rng = np.random.default_rng(5)
    x = np.r_[rng.normal(-1e12, 1, 200), rng.normal(-1e12 + 3, 1, 200)]
    res = edm(x)
    assert len(res.locations) == 1 and abs(res.locations[0] - 200) <= 3
    assert res.segments["median"].iloc[1] - res.segments["median"].iloc[0] == pytest.approx(
        3.0, abs=0.5
    )


def test_max_changes_and_invalid_arguments() -> None:
    x = simulate_series(900, noise="gaussian", shifts=((300, 0.2), (600, 0.2)), rng=3).x
    res = edm(x)
    assert len(res.locations) == 2 and abs(res.locations[0] - 300) <= 5
    assert abs(res.locations[1] - 600) <= 5
    assert len(edm(x, max_changes=1).locations) == 1
    for kw in ({"min_size": 1}, {"alpha": 0.0}, {"alpha": 1.5}, {"max_changes": -1}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            edm(x, **kw)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alpha"):
        edm(x, alpha=0.5)  # outside the tabulated levels
    with pytest.raises(ValueError, match="x"):
        edm(np.array([1.0, np.nan] * 40))


def test_staircase_is_found_although_each_step_hides_the_other() -> None:
    # two equal steps: on the whole series each step inflates the self-normaliser of the
    # other's split; the halves of the seeded intervals see one step each
    x = simulate_series(1500, noise="gaussian", shifts=((500, 0.1), (1000, 0.1)), rng=7).x
    res = edm(x)
    assert len(res.locations) == 2
    assert abs(res.locations[0] - 500) <= 5 and abs(res.locations[1] - 1000) <= 5
    assert res.drift is None
    assert edm(x, depth=1).locations == ()  # one interval only: the steps hide each other


def test_seeded_intervals_stay_within_the_tabulated_trimming() -> None:
    # m / width <= 0.4 (the largest tabulated epsilon); the dyadic halves as before where
    # they are wide enough, else intervals of ceil(2.5 m) that reach both ends
    from tsanalyze.stats.changepoints.edm import _intervals

    assert _intervals(1000, 30, 2) == [(0, 1000), (0, 500), (250, 750), (500, 1000)]
    assert _intervals(142, 30, 2) == [(0, 142), (0, 75), (37, 112), (67, 142)]
    assert _intervals(75, 30, 2) == [(0, 75)]  # the segment itself is the narrowest
    for length in range(60, 400):
        spans = _intervals(length, 30, 3)
        assert all(30 <= 0.4 * (b - a) for a, b in spans[1:]), length
        assert len(set(spans)) == len(spans) and spans[0] == (0, length)


def test_large_series_runs() -> None:
    x = simulate_series(200_000, noise="t3-spikes", shifts=((120_000, 0.05),), rng=2).x
    res = edm(x)
    assert len(res.locations) == 1 and abs(res.locations[0] - 120_000) <= 200


def test_drift_is_named_not_cut_into_steps() -> None:
    x = simulate_series(1000, noise="gaussian", scale=0.01, drift=0.02, rng=3).x
    res = edm(x)
    assert res.locations == ()
    assert res.drift is not None and "drift" in res.warning_codes
    # truth: 2% over the run, 2% / 999 * 1000 per 1000 samples
    assert res.drift.total_change == pytest.approx(0.02, abs=0.006)
    assert res.drift.slope_per_1000 == pytest.approx(0.02 * 1000 / 999, abs=0.006)
    assert res.drift.end_level - res.drift.start_level == pytest.approx(20.0, abs=6.0)
    frame = res.to_dict()
    assert frame["drift"]["total_change"] == res.drift.total_change


def test_alternating_modes_are_named_not_listed() -> None:
    # a level that alternates between 1000 and 1050 every 150 samples, noise 1%
    rng = np.random.default_rng(4)
    state = (np.arange(1500) // 150) % 2
    x = 1000.0 * (1 + 0.05 * state + 0.01 * rng.standard_normal(1500))
    res = edm(x)
    assert res.modes is not None and res.locations == ()
    assert res.modes.levels == pytest.approx((1000.0, 1050.0), abs=3.0)
    assert res.modes.mean_sojourn == pytest.approx((150.0, 150.0), abs=20.0)
    assert res.modes.visits == (5, 5)
    assert "mode-switching" in res.warning_codes
    # a warm-up at a level that is not a mode stays a shift
    y = np.r_[1200.0 + 10 * rng.standard_normal(200), x]
    res_y = edm(y)
    assert res_y.modes is not None and len(res_y.locations) == 1
    assert abs(res_y.locations[0] - 200) <= 5


def test_modes_need_two_visits_each() -> None:
    rng = np.random.default_rng(6)
    idx = np.arange(600)
    t = np.arange(600)
    one_step = 1000.0 * (1 + 0.05 * (idx >= 300) + 0.01 * rng.standard_normal(600))
    excursion = 1000.0 * (1 + 0.05 * ((idx >= 200) & (idx < 400)) + 0.01 * rng.standard_normal(600))
    assert find_modes(one_step, t, 30) is None
    assert find_modes(excursion, t, 30) is None


def test_the_critical_lines_are_numpys_interpolation_to_the_bit() -> None:
    # reference: np.interp of each tabulated column (what the critical value used before
    # issue 24 made it one vector operation); every eps, the table's own points included
    from tsanalyze.stats.changepoints._selfnorm import _CHANGE_LINE, _EPS, _lines_at

    gen = np.random.default_rng(2)
    at_points = np.concatenate([_EPS, np.nextafter(_EPS, 1.0)[:-1], np.nextafter(_EPS, 0.0)[1:]])
    for e in np.concatenate([gen.uniform(_EPS[0], _EPS[-1], 2000), at_points]):
        ref = np.array([[np.interp(e, _EPS, v) for v in line.T] for line in _CHANGE_LINE])
        a, b = _lines_at(float(e))
        assert a.tobytes() == ref[:, 0].tobytes() and b.tobytes() == ref[:, 1].tobytes()
