"""compare() at the edges: timer ticks and the floor (issue 23)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsanalyze.analysis.compare import compare, compare_runs
from tsanalyze.analysis.compare.edges import side_tick
from tsanalyze.analysis.compare.sides import as_side
from tsanalyze.datasets import simulate_run, simulate_series
from tsanalyze.stats.floor import floor_ratio_ci


def record(t: np.ndarray, tick: float, model: str, rng: np.random.Generator) -> np.ndarray:
    """Rounded to the nearest tick, or read off a counter ticking every ``tick``."""
    if model == "round":
        return tick * np.round(t / tick)
    start = rng.uniform(0.0, tick, t.size)
    return tick * (np.floor((start + t) / tick) - np.floor(start / tick))


def ticked_pair(n: int, tick: float, shift: float, rng: np.random.Generator, model: str = "round"):
    t0a = 1000.0 + rng.uniform(0.0, tick)
    t0b = t0a + shift * tick
    a = record(simulate_series(n, t0=t0a, rng=rng).x, tick, model, rng)
    b = record(simulate_series(n, t0=t0b, rng=rng).x, tick, model, rng)
    return a, b, t0b / t0a


def test_change_on_a_coarse_grid_is_never_zero_width() -> None:
    # the case: 25 ns tick, medians near 1015 ns, no shift
    a, b, _ = ticked_pair(2000, 25.0, 0.0, np.random.default_rng(1))
    old = compare(a, b, rng=1, tick=None)
    assert old.ci_low == old.ci_high == 1.0 and old.verdict == "same"
    c = compare(a, b, rng=1)
    assert c.ci_low < 1.0 < c.ci_high
    # half a tick on each side of each location: at least 25 / 1015 around the ratio
    assert c.ci_high - c.ci_low >= 2 * 25.0 / 1040.0
    assert c.verdict == "inconclusive"
    w = next(f for f in c.warnings if f.code == "tick-widened")
    assert w.severity == "warning" and "'same' cannot be concluded" in w.message
    assert w.message.startswith("times are recorded on a grid of 25 ns: ")  # ns, as compared
    assert c.se_log > old.se_log


def test_fine_grid_keeps_same_possible() -> None:
    # 1 ns grid on ~1000 ns medians: a 0.1% widening, and equivalence within 1% holds
    rng = np.random.default_rng(2)
    a = np.round(simulate_series(2000, noise="gaussian", scale=0.01, rng=rng).x)
    b = np.round(simulate_series(2000, noise="gaussian", scale=0.01, rng=rng).x)
    c = compare(a, b, rng=2)
    exact = compare(a, b, rng=2, tick=None)
    assert c.verdict == "same"
    assert c.ci_low == pytest.approx(
        exact.ci_low * (1 - 0.5 / c.estimate_b) / (1 + 0.5 / c.estimate_a)
    )
    assert c.ci_high == pytest.approx(
        exact.ci_high * (1 + 0.5 / c.estimate_b) / (1 - 0.5 / c.estimate_a)
    )


def test_tick_from_run_metadata() -> None:
    # a 25 ns clock and 8 evaluations per sample: 3.125 ns per evaluation
    run = simulate_run({"old": 1000.0, "new": 1000.0}, n_rounds=300, evals=8,
                       timer_resolution_ns=25.0, rng=3).frame  # fmt: skip
    old = run[run["benchmark"] == "old"]
    side = as_side(old, "a", "time_ns")
    assert side_tick(old, side, "auto") == pytest.approx(3.125)
    assert side_tick(old, side, None) == 0.0
    assert side_tick(old.drop(columns="evals"), side, "auto") == pytest.approx(3.125)  # the grid
    c = compare(old, run[run["benchmark"] == "new"], rng=3)
    assert c.paired and "tick-widened" in c.warning_codes
    # a pair of ticks: (a, b)
    c2 = compare(old, run[run["benchmark"] == "new"], rng=3, tick=(None, None))
    assert c2.ci_high - c2.ci_low < c.ci_high - c.ci_low


def test_minimum_compares_floors() -> None:
    rng = np.random.default_rng(4)
    x = 1000.0 + rng.gamma(2.0, 20.0, 2000)
    y = 1100.0 + rng.gamma(2.0, 22.0, 2000)
    c = compare(x, y, estimator="min", rng=4)
    assert c.ci_method == "floor"
    lo, hi, _ = floor_ratio_ci(x, y, block_x=c.block_size_a, block_y=c.block_size_b)
    assert (c.ci_low, c.ci_high) == (lo, hi)
    assert c.ci_low <= 1.1 <= c.ci_high  # the ratio of floors
    assert c.ratio == pytest.approx(y.min() / x.min())
    assert math.isfinite(c.se_log) and c.se_log > 0
    # the bootstrap of the minima's ratio sits on the sample minima, above the floors
    paired = compare(x, y, estimator="min", paired=True, rng=4)
    assert paired.ci_method == "floor" and paired.ci_low <= 1.1 <= paired.ci_high


def test_floors_on_a_grid_are_quoted_in_ns() -> None:
    # the coarse-grid pair: both minima sit on their cell, 25 ns wide
    a, b, _ = ticked_pair(2000, 25.0, 0.0, np.random.default_rng(1))
    c = compare(a, b, estimator="min", rng=1)
    hits = [w.message for w in c.warnings if w.code == "floor-hit"]
    assert c.ci_method == "floor" and len(hits) == 2
    assert all(" on a grid of 25 ns: " in m and " ns below for a floor" in m for m in hits)


def test_suite_keeps_the_widened_interval() -> None:
    a = simulate_run({"x": 1000.0, "y": 2000.0}, n_rounds=300, timer_resolution_ns=25.0, rng=5)
    b = simulate_run({"x": 1000.0, "y": 2000.0}, n_rounds=300, timer_resolution_ns=25.0, rng=6)
    cs = compare_runs(a.frame, b.frame, rng=5)
    for c in cs.comparisons:
        assert c.ci_low < c.ci_high
        assert "tick-widened" in c.warning_codes
        assert c.verdict != "same" or (c.ci_low >= 0.99 and c.ci_high <= 1.01)


@pytest.mark.slow
@pytest.mark.parametrize("tick", [10.0, 50.0])
@pytest.mark.parametrize("shift", [0.0, 0.5, 1.0, 2.0])
def test_change_interval_covers_the_true_change(tick: float, shift: float) -> None:
    # ticks of 1% and 5% of the median, shifts of 0, 1/2, 1 and 2 ticks of the true time,
    # 500 samples a side, clocks that round and clocks that count (alternately): the
    # interval of the change covers the change of the true time >= 90% (measured 100%;
    # unwidened 5-20% and zero-width in most pairs) and is never zero-width
    rng = np.random.default_rng(int(tick) * 10 + int(2 * shift))
    reps = 80
    covered = 0
    for r in range(reps):
        a, b, true = ticked_pair(500, tick, shift, rng, "round" if r % 2 else "count")
        c = compare(a, b, rng=r, n_resamples=500)
        assert c.ci_low < c.ci_high
        covered += c.ci_low <= true <= c.ci_high
    assert covered / reps >= 0.90


def test_a_prepared_side_gives_the_comparison_of_its_frame() -> None:
    """The executor makes each job frame's side (and known tick) once and gives that to
    compare: the same comparison as from the frames, timer tick included, paired
    (interleaved rounds) or not; a frame is prepared once per name, an equal copy anew."""
    from tsanalyze.analysis.compare.edges import prepare_side
    from tsanalyze.analysis.runset import executor
    from tsanalyze.datasets import simulate_run

    df = simulate_run({"a": 1000.0, "b": 1030.0}, n_rounds=40, noise="gaussian", rng=5).frame
    (rid,) = df.attrs["runs"]
    meta = {rid: {**df.attrs["runs"][rid], "timer": {"precision_ns": 100.0}}}
    df = df.assign(time_ns=(df["time_ns"] / 100.0).round() * 100.0)  # on the timer's grid
    df.attrs = {"runs": meta}
    a, b = df[df["benchmark"] == "a"], df[df["benchmark"] == "b"]
    pa, pb = prepare_side(a, "a"), prepare_side(b, "b")
    assert pa.known_tick == 100.0
    for paired in (None, False):
        direct = compare(a, b, rng=3, paired=paired)
        prepared = compare(pa, pb, rng=3, paired=paired, benchmark="b")
        assert prepared.to_dict() == {**direct.to_dict(), "benchmark": "b"}
    assert executor._prepared(a, "a") is executor._prepared(a, "a")
    assert executor._prepared(a.copy(), "a") is not executor._prepared(a, "a")
    assert executor._prepared(a, "b") is not executor._prepared(a, "a")
