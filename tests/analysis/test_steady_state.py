"""Steady state: the backward rule (default), Pilot's rule, Barrett's classes, trials."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tsanalyze
from tsanalyze.analysis.steady_state import merge_segments, steady_state, steady_state_trials
from tsanalyze.datasets import simulate_series


def test_flat_series() -> None:
    x = simulate_series(2000, noise="t3-spikes", rng=3).x
    res = steady_state(x)
    assert res.classification == "flat"
    assert (res.start, res.stop) == (0, 2000)
    assert res.warmup_samples == 0 and res.cooldown_samples == 0
    assert res.stable_median == pytest.approx(np.median(x))


def test_warmup_series() -> None:
    sim = simulate_series(2000, noise="t3-spikes", warmup=(300, 2.0), rng=4)
    res = tsanalyze.steady_state(sim.x)
    assert res.classification == "warm-up"
    assert abs(res.start - sim.truth.warmup_end) <= 100  # type: ignore[operator]
    assert res.stop == 2000 and res.cooldown_samples == 0
    # the stable median estimates the truth's median of the final segment
    assert res.stable_median == pytest.approx(sim.truth.median, rel=0.01)
    # warm-up time: the sum of the per-evaluation times before the stable segment
    assert res.warmup_seconds == pytest.approx(sim.x[: res.start].sum() * 1e-9)


def test_slowdown_series() -> None:
    x = simulate_series(2000, noise="gaussian", shifts=((700, 0.10),), rng=5).x
    res = steady_state(x)
    assert res.classification == "slowdown"
    assert (res.start, res.stop) == (res.locations[-1], 2000)
    assert abs(res.start - 700) <= 10  # type: ignore[operator]


@pytest.mark.parametrize("rule", ["backward", "pilot"])
def test_no_steady_state_when_change_in_last_quarter(rule: str) -> None:
    x = simulate_series(2000, noise="gaussian", shifts=((1700, -0.10),), rng=6).x
    res = steady_state(x, rule=rule)  # type: ignore[arg-type]
    assert res.classification == "no steady state"
    assert "no-steady-state" in res.warning_codes
    # both rules name the long first segment as the stable one
    assert res.start == 0 and abs(res.stop - 1700) <= 10  # type: ignore[operator]
    assert abs(res.cooldown_samples - 300) <= 10  # type: ignore[operator]


def test_no_stable_segment_by_pilots_rule() -> None:
    x = simulate_series(1500, noise="gaussian", shifts=((500, 0.1), (1000, 0.1)), rng=7).x
    res = steady_state(x, rule="pilot")
    assert res.start is None and res.stop is None and res.warmup_samples is None
    assert "no-stable-segment" in res.warning_codes
    assert res.classification == "slowdown" and res.rule == "pilot"
    # the backward rule follows the final level back to the last step
    back = steady_state(x)
    assert back.rule == "backward" and back.classification == "slowdown"
    assert back.stop == 1500 and abs(back.start - 1000) <= 5  # type: ignore[operator]


def test_tolerance_merges_small_differences() -> None:
    x = simulate_series(2000, noise="gaussian", scale=0.002, shifts=((1000, 0.005),), rng=8).x
    strict = steady_state(x, rule="pilot", tolerance=0.001)
    loose = steady_state(x, rule="pilot", tolerance=0.01)
    assert len(strict.locations) == 1 and strict.classification == "slowdown"
    assert loose.locations == () and loose.classification == "flat"
    assert loose.changepoints.locations == strict.changepoints.locations  # raw ones kept
    # the backward rule: a 0.5% step is 2.5 noise sd, a different level unless the
    # relative tolerance floor is raised above it
    assert steady_state(x).classification == "slowdown"
    assert steady_state(x, tolerance=0.01).classification == "flat"


def test_merge_segments_closest_first() -> None:
    x = np.r_[np.full(10, 100.0), np.full(10, 100.5), np.full(10, 103.0), np.full(10, 103.2)]
    # gaps 0.5%, 2.5%, 0.2% of the median 101.75: at 1% the two small ones merge
    assert merge_segments(x, [10, 20, 30], 0.01) == [20]
    assert merge_segments(x, [10, 20, 30], 0.0) == [10, 20, 30]
    assert merge_segments(x, [10, 20, 30], 0.1) == []


def test_warmup_seconds_from_timestamps_units_and_evals() -> None:
    sim = simulate_series(1000, noise="gaussian", warmup=(200, 3.0), rng=9)
    res_ns = steady_state(sim.x, evals=4)
    assert res_ns.warmup_seconds == pytest.approx(sim.x[: res_ns.start].sum() * 4e-9)
    res_s = steady_state(sim.x * 1e-9, unit="s")
    assert res_s.start == res_ns.start
    assert res_s.warmup_seconds == pytest.approx(sim.x[: res_s.start].sum() * 1e-9)
    ts = np.cumsum(np.r_[0.0, sim.x[:-1]]) * 1e-9 + 5.0
    res_ts = steady_state(sim.x, timestamps=ts)
    assert res_ts.warmup_seconds == pytest.approx(ts[res_ts.start] - ts[0])
    assert steady_state(sim.x, unit=None).warmup_seconds is None


def test_trials_consistent_and_inconsistent() -> None:
    warm = [simulate_series(1200, noise="gaussian", warmup=(200, 2.0), rng=s).x for s in range(3)]
    res = steady_state_trials(warm)
    assert res.consistency == "consistent" and res.classification == "warm-up"
    assert len(res.trials) == 3
    flat = simulate_series(1200, noise="gaussian", rng=10).x
    mixed = steady_state_trials(np.vstack([warm[0], flat]))
    assert mixed.consistency == "inconsistent" and mixed.classification is None
    assert "inconsistent-trials" in mixed.warning_codes
    frame = mixed.to_frame()
    assert list(frame["trial"]) == [0, 1]
    assert set(frame["classification"]) == {"warm-up", "flat"}


def test_result_frames_and_json() -> None:
    res = steady_state(simulate_series(800, noise="gaussian", warmup=(100, 2.0), rng=11).x)
    row = res.to_frame()
    assert row.shape[0] == 1 and row["classification"].iloc[0] == "warm-up"
    assert {"start", "stop", "warmup_samples", "warmup_seconds", "cooldown_samples"} <= set(row)
    json.dumps(res.to_dict())


def test_other_change_point_methods() -> None:
    x = simulate_series(600, noise="gaussian", warmup=(100, 2.0), rng=12).x
    res = steady_state(x, method="edm-multi", min_size=24, beta=0.001)
    assert res.changepoints.method == "edm-multi"
    assert res.classification in {"warm-up", "flat"}


@pytest.mark.parametrize("x", [[5.0], [5.0, 6.0], [3.0] * 50])
def test_tiny_and_constant(x: list[float]) -> None:
    res = steady_state(np.asarray(x))
    assert res.classification == "flat" and (res.start, res.stop) == (0, len(x))


def test_validation() -> None:
    x = np.arange(1.0, 101.0)
    with pytest.raises(ValueError, match="x"):
        steady_state(np.array([]))
    with pytest.raises(ValueError, match="x"):
        steady_state(np.r_[x, np.nan])
    for kw in ({"tolerance": -1.0}, {"tail": 1.0}, {"evals": 0}, {"unit": "min"}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            steady_state(x, **kw)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timestamps"):
        steady_state(x, timestamps=np.arange(5.0))
    with pytest.raises(ValueError, match="trials"):
        steady_state_trials([])
    with pytest.raises(ValueError, match="rule"):
        steady_state(x, rule="longest")  # type: ignore[arg-type]


def test_small_linear_warmup_end_found() -> None:
    # 3% above the final level, decaying linearly to it at sample 400 (truth), AR(1)
    # noise of 0.25% with spikes: binary segmentation alone cuts the decay early
    sim = simulate_series(
        3000,
        noise="t3-spikes",
        phi=0.5,
        scale=0.0025,
        warmup=(400, 0.03),
        warmup_shape="linear",
        rng=21,
    )
    res = steady_state(sim.x)
    assert res.classification == "warm-up"
    assert abs(res.start - 400) <= 40  # type: ignore[operator]
    assert res.changepoints.locations[-1] < 400 - 40  # the cut the decay fit moved


def test_drift_is_no_steady_state() -> None:
    x = simulate_series(1000, noise="gaussian", scale=0.01, drift=0.02, rng=3).x
    res = steady_state(x)
    assert res.classification == "no steady state"
    assert res.start is None and res.stop is None
    assert res.drift is not None and res.drift.total_change == pytest.approx(0.02, abs=0.006)
    assert {"drift", "no-steady-state"} <= set(res.warning_codes)
    assert "drifts" in next(w.message for w in res.warnings if w.code == "no-steady-state")
    assert res.to_frame()["drift_total_change"].iloc[0] == res.drift.total_change


def test_modes_are_not_a_warmup() -> None:
    rng = np.random.default_rng(4)
    state = (np.arange(1500) // 150) % 2
    x = 1000.0 * (1 + 0.05 * state + 0.01 * rng.standard_normal(1500))
    res = steady_state(x)
    assert res.modes is not None and (res.start, res.stop) == (0, 1500)
    assert res.classification == "flat" and "mode-switching" in res.warning_codes
    assert res.to_frame()["n_modes"].iloc[0] == 2


def test_excursion_that_returns_is_not_a_warmup() -> None:
    # the level leaves by 5% for 200 samples in the middle and comes back: the steady
    # state starts after the real warm-up, not after the excursion
    rng = np.random.default_rng(5)
    x = 1000.0 * (1 + 0.002 * rng.standard_normal(3000))
    x[:300] *= 1.1
    x[1400:1600] *= 1.05
    res = steady_state(x)
    assert res.classification == "warm-up" and abs(res.start - 300) <= 10  # type: ignore[operator]


def test_change_in_the_tail_is_cooldown() -> None:
    # the anchor is the level where the last quarter begins; a later change is cool-down
    rng = np.random.default_rng(6)
    x = 1000.0 * (1 + 0.002 * rng.standard_normal(3000))
    x[:400] *= 1.08
    x[2800:] *= 1.04
    res = steady_state(x)
    assert res.classification == "no steady state"
    assert abs(res.start - 400) <= 10 and abs(res.stop - 2800) <= 10  # type: ignore[operator]
    assert abs(res.cooldown_samples - 200) <= 10  # type: ignore[operator]


# --- Monte Carlo (issue 4 "Done when") -----------------------------------------------

N_REP = 200


@pytest.mark.slow
@pytest.mark.parametrize("length", [200, 400, 600])  # 10%, 20%, 30% of n = 2000
@pytest.mark.parametrize(
    "noise",
    [{"noise": "t3-spikes"}, {"noise": "gaussian", "phi": 0.5}],
    ids=["t3-spikes", "ar1-0.5"],
)
def test_warmup_classified_and_end_found(length: int, noise: dict[str, object]) -> None:
    # warm-up amplitude 2: the first sample is 3x slower than steady state, decaying as
    # exp(-5 i / length); the truth's warm-up end is `length`
    good = 0
    for i in range(N_REP):
        sim = simulate_series(2000, warmup=(length, 2.0), rng=30_000 + i, **noise)  # type: ignore[arg-type]
        res = steady_state(sim.x)
        good += res.classification == "warm-up" and (
            res.start is not None and abs(res.start - sim.truth.warmup_end) <= 100
        )
    assert good / N_REP >= 0.90


@pytest.mark.slow
@pytest.mark.parametrize(
    "noise",
    [{"noise": "t3-spikes"}, {"noise": "gaussian", "phi": 0.5}],
    ids=["t3-spikes", "ar1-0.5"],
)
def test_stationary_series_classified_flat(noise: dict[str, object]) -> None:
    flat = sum(
        steady_state(simulate_series(2000, rng=40_000 + i, **noise).x).classification == "flat"  # type: ignore[arg-type]
        for i in range(N_REP)
    )
    assert flat / N_REP >= 0.95


def test_mode_levels_are_quoted_in_the_unit_of_the_series() -> None:
    # the modes of the test above, around 1000 and 1050 ns
    rng = np.random.default_rng(4)
    state = (np.arange(1500) // 150) % 2
    x = 1000.0 * (1 + 0.05 * state + 0.01 * rng.standard_normal(1500))
    res = steady_state(x)  # the run format's ns
    assert res.modes is not None
    msg = next(w.message for w in res.warnings if w.code == "mode-switching")
    # reference: the modes' own levels, by hand in µs with 4 significant digits
    lo, hi = (f"{v / 1000:#.4g}" for v in res.modes.levels)  # "#": trailing zeros kept
    assert float(lo) == pytest.approx(1.0, abs=0.01) and float(hi) == pytest.approx(1.05, abs=0.01)
    assert msg.startswith(f"the series alternates between {lo} and {hi} µs (")
    # the same times in µs say the same; with no unit the levels are bare numbers
    in_us = steady_state(x / 1000.0, unit="us")
    assert next(w.message for w in in_us.warnings if w.code == "mode-switching") == msg
    bare = next(w.message for w in steady_state(x, unit=None).warnings if w.code == "mode-switching")
    shown = [float(f"{v:.4g}") for v in res.modes.levels]
    assert bare.startswith(f"the series alternates between {shown[0]:g} and {shown[1]:g} (")


def test_a_staircase_that_fits_exactly_is_not_a_math_error() -> None:
    # values on a 1 ns grid in sorted order (how BenchmarkTools before 0.1 saved trials):
    # the steps found fit a stretch exactly, and the decay test took the log of a zero
    # residual sum (ValueError: math domain error on 59 of 60 such series)
    rng = np.random.default_rng(0)
    grid = np.floor(rng.exponential(2.0, 1000))
    jumps = (rng.random(1000) < 0.02) * rng.integers(50, 200, 1000)
    x = np.sort(911 + grid + jumps)
    r = steady_state(x)
    assert r.start is None or 0 <= r.start < r.stop <= x.size
