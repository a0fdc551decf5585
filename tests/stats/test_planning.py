"""Sample-size planning: the planned n reaches the target; power formula checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import tsanalyze
from tsanalyze.datasets import simulate_series
from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.estimators import estimate
from tsanalyze.stats.planning import SamplePlan, plan_samples


@pytest.mark.parametrize("est", ["median", "mean"])
@pytest.mark.parametrize("phi", [0.0, 0.5])
def test_planned_samples_reach_target(est: str, phi: float) -> None:
    # Monte-Carlo check: a series of the planned length has about the target width
    rng = np.random.default_rng(5)
    kw = {"noise": "gaussian", "scale": 0.2, "phi": phi}
    pilot = simulate_series(2000, rng=rng, **kw).x  # type: ignore[arg-type]
    p = plan_samples(pilot, target=0.01, estimator=est)  # type: ignore[arg-type]
    assert p.time_more_ns == pytest.approx((p.samples_more or 0) * pilot.mean())
    assert isinstance(p, SamplePlan) and p.samples_needed is not None
    assert p.samples_needed % (p.subsession_size or 1) == 0
    widths = [
        estimate(simulate_series(p.samples_needed, rng=rng, **kw).x, est).relative_halfwidth  # type: ignore[arg-type]
        for _ in range(8)
    ]
    assert float(np.mean(widths)) == pytest.approx(0.01, rel=0.2)
    assert p.reached == (p.current_relative_halfwidth <= 0.01)
    assert p.samples_more == max(0, p.samples_needed - 2000)


def test_power_formula_for_independent_mean() -> None:
    x = np.random.default_rng(1).normal(1000.0, 50.0, 5000)
    p = plan_samples(x, estimator="mean", detect_difference=0.01, power=0.8)
    # two-sample z formula: n = 2 (z_.975 + z_.8)^2 s^2 / d^2 (tau ~ 1 for i.i.d.)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    expect = 2 * z**2 * np.var(x, ddof=1) / (0.01 * x.mean()) ** 2
    assert p.samples_per_side == pytest.approx(expect, rel=0.15)


def test_reached_and_time() -> None:
    x = np.random.default_rng(2).normal(1000.0, 1.0, 2000)
    p = plan_samples(x, target=0.05, sample_time_ns=2.0e6)
    assert p.reached and p.samples_more == 0 and p.time_more_ns == 0.0
    assert p.samples_needed is not None and p.samples_needed < 2000
    assert tsanalyze.plan_samples is plan_samples


def test_edge_cases() -> None:
    with pytest.raises(NotEnoughData):
        plan_samples([])
    with pytest.raises(ValueError, match="target"):
        plan_samples([1.0, 2.0], target=0.0)
    with pytest.raises(ValueError, match="power"):
        plan_samples([1.0, 2.0], power=1.0)
    with pytest.raises(ValueError, match="sample_time_ns"):
        plan_samples([1.0, 2.0], sample_time_ns=-1.0)
    one = plan_samples([5.0])
    assert one.samples_needed is None and "no-plan" in one.warning_codes
    few = plan_samples(np.arange(1.0, 4.0), estimator="median")  # interval unbounded
    assert few.samples_needed is None
    const = plan_samples(np.full(50, 3.0), estimator="mean")
    assert const.reached and const.samples_needed == 0
    small = plan_samples(np.random.default_rng(3).normal(100.0, 5.0, 12), estimator="mean")
    assert "plan-from-few-samples" in small.warning_codes
    assert small.samples_needed is not None and math.isfinite(small.time_more_ns)


def test_plan_on_a_timer_grid() -> None:
    # issue 23: half a tick of every interval does not shrink with more samples
    rng = np.random.default_rng(7)
    coarse = 25.0 * np.round(simulate_series(500, rng=rng).x / 25.0)
    p = plan_samples(coarse, target=0.01)
    assert p.samples_needed is None and not p.reached
    assert "plan-tick-limit" in p.warning_codes
    # a 2 ns grid under a +-1% target: the plan scales only the rest of the half-width,
    # and a series of the planned length reaches about the target
    kw = {"noise": "gaussian", "scale": 0.2}
    pilot = 2.0 * np.round(simulate_series(2000, rng=rng, **kw).x / 2.0)  # type: ignore[arg-type]
    p = plan_samples(pilot, target=0.01)
    e = estimate(pilot, "median")
    h_tick = 1.0 / e.estimate
    assert e.tick == 2.0
    assert p.samples_needed is not None
    assert p.samples_needed == pytest.approx(
        2000 * ((e.relative_halfwidth - h_tick) / (0.01 - h_tick)) ** 2, rel=1e-3
    )
    widths = [
        estimate(2.0 * np.round(simulate_series(p.samples_needed, rng=rng, **kw).x / 2.0))
        .relative_halfwidth  # type: ignore[arg-type]
        for _ in range(8)
    ]
    # (this pilot's own half-width came out 10% under its expectation, hence 1.18%)
    assert float(np.mean(widths)) == pytest.approx(0.01, rel=0.25)
