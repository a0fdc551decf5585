"""Timer checks: quantisation, tick grids, precision/accuracy and overhead shares."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.timer import detect_tick, quantisation, timer_check


def test_detect_tick_known_grids() -> None:
    rng = np.random.default_rng(7)
    k = rng.integers(900, 1100, 200)
    # a 1 ns clock
    assert detect_tick(k.astype(float)) == 1.0
    # a 41.67 ns clock (24 MHz counter, as on many ARM boards)
    assert detect_tick(k * 41.67) == pytest.approx(41.67, rel=1e-9)
    # values in seconds on a 1 ns grid
    assert detect_tick(k * 1e-9) == pytest.approx(1e-9, rel=1e-9)
    # continuous values: no grid
    assert detect_tick(rng.normal(1000.0, 10.0, 200)) is None
    # one distinct value: no grid to speak of
    assert detect_tick([5.0, 5.0, 5.0]) is None


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(1, 10**6), min_size=3, max_size=50, unique=True),
    st.sampled_from([1.0, 0.5, 25.0, 41.67, 1e-9, 1e-6]),
)
def test_detect_tick_divides_every_value(ks: list[int], step: float) -> None:
    x = np.array(ks, dtype=np.float64) * step
    tick = detect_tick(x)
    if tick is not None:
        ratios = x / tick
        assert np.allclose(ratios, np.rint(ratios), rtol=0, atol=1e-5)
        # the grid found is at least as fine as the true one divided by max_divisor
        assert tick >= step / 16 * (1 - 1e-9)


def test_quantisation_binary_distribution() -> None:
    # seed 003 (Boyer): a clock quantum comparable to the spread gives ~50% kΔ, ~50% (k+1)Δ
    x = np.array([1000.0, 1015.6] * 30)
    q = quantisation(x)
    assert q.n_distinct == 2
    assert q.quantised
    assert "binary-distribution" in q.warning_codes


def test_quantisation_few_values_and_coarse_tick() -> None:
    rng = np.random.default_rng(1)
    # 100 ns median on a 1 ns grid with few values: quantised and coarse (1% of the value)
    x = np.round(rng.normal(100.0, 1.0, 200))
    q = quantisation(x)
    assert q.tick == 1.0
    assert q.tick_share == pytest.approx(0.01, rel=0.05)
    assert "few-distinct-values" in q.warning_codes
    # 1 ms values on a 1 ns grid: fine grid, many values, not quantised
    y = np.round(rng.normal(1e6, 1e3, 200))
    q2 = quantisation(y)
    assert q2.tick is not None and q2.tick_share is not None and q2.tick_share < 1e-5
    assert not q2.quantised and q2.warnings == ()
    # continuous data
    q3 = quantisation(rng.normal(5.0, 1.0, 100))
    assert q3.tick is None and not q3.quantised


def test_quantisation_edges() -> None:
    with pytest.raises(NotEnoughData):
        quantisation([])
    one = quantisation([3.0])
    assert one.n == 1 and not one.quantised
    const = quantisation([3.0] * 50)
    assert const.n_distinct == 1 and const.quantised
    with pytest.raises(ValueError, match="x"):
        quantisation([1.0, float("nan")])
    with pytest.raises(ValueError, match="max_distinct"):
        quantisation([1.0, 2.0], max_distinct=0)


def test_timer_check_shares_and_counts() -> None:
    # seed 004: a 16 ns clock-read pair around a 34.8 ns evaluation is 46% of it
    x = np.array([34.8, 40.0, 3_200.0, 16_000.0, 2_000_000.0])
    r = timer_check(x, overhead_ns=16.0, precision_ns=1.0, accuracy_ns=30.0)
    assert r.overhead_share == pytest.approx(16.0 / 3_200.0)
    assert r.max_overhead_share == pytest.approx(16.0 / 34.8)
    # overhead share > 1%: 34.8 and 40 ns (16/3200 = 0.5% is below)
    assert r.n_overhead == 2
    # under 1000 precisions (1000 ns): 34.8, 40
    assert r.n_precision == 2
    # accuracy error > 1%: T < 3000 ns
    assert r.n_accuracy == 2
    # (16 + 30) / T >= 0.5 for T <= 92
    assert r.n_dominated == 2
    codes = r.warning_codes
    assert {"overhead-share", "near-precision", "near-accuracy", "timer-dominated"} <= set(codes)
    dom = next(w for w in r.warnings if w.code == "timer-dominated")
    assert dom.severity == "serious"  # 2 of 5 > 10%
    # the clock's numbers with their unit
    words = {w.code: w.message for w in r.warnings}
    assert "1000 x the timer precision (1 ns)" in words["near-precision"]
    assert "100 x the timer accuracy (30 ns)" in words["near-accuracy"]
    assert "accuracy (46 ns) is at least half" in dom.message


def test_timer_check_names_the_process_start_in_command_overhead() -> None:
    # command targets: 1 ms of the 1.0001 ms overhead is starting the process
    x = np.full(20, 50e6)
    x[:3] = 20e6
    clock = timer_check(x, overhead_ns=0.3e6)
    spawn = timer_check(x, overhead_ns=0.3e6, clock_overhead_ns=100.0)
    assert clock.n_overhead == spawn.n_overhead == 3
    msg_clock = next(w.message for w in clock.warnings if w.code == "overhead-share")
    msg_spawn = next(w.message for w in spawn.warnings if w.code == "overhead-share")
    assert "reading the clock (overhead 300 µs, 0.6% of the median sample)" in msg_clock
    assert "starting the process" in msg_spawn and "starting" not in msg_clock


def test_timer_check_clean_and_unknown_timer() -> None:
    x = np.linspace(1e6, 1.1e6, 100)
    r = timer_check(x, overhead_ns=20.0, precision_ns=1.0, accuracy_ns=30.0)
    assert r.n_overhead == r.n_precision == r.n_accuracy == r.n_dominated == 0
    assert r.warnings == ()
    # nothing known about the timer: only quantisation is checked
    u = timer_check(x)
    assert u.overhead_share is None and u.n_dominated == 0


def test_timer_check_edges() -> None:
    with pytest.raises(NotEnoughData):
        timer_check([])
    with pytest.raises(ValueError, match="sample_ns"):
        timer_check([-1.0, 5.0])
    with pytest.raises(ValueError, match="precision_ns"):
        timer_check([1.0], precision_ns=0.0)
    with pytest.raises(ValueError, match="overhead_ns"):
        timer_check([1.0], overhead_ns=-3.0)
    # a clock that did not advance: zero time counts everywhere
    z = timer_check([0.0, 0.0, 100.0], overhead_ns=10.0, precision_ns=1.0, accuracy_ns=1.0)
    assert z.n_dominated == 2 and z.n_precision == 3
    # NaN metadata counts as unknown
    n = timer_check([100.0, 110.0], overhead_ns=float("nan"))
    assert n.overhead_ns is None
    # huge n is fine and vectorised
    big = timer_check(np.full(1_000_000, 5e4) + np.arange(1_000_000) % 7, overhead_ns=25.0)
    assert big.n == 1_000_000 and big.n_overhead == 0


def test_a_coarse_grid_is_quoted_in_the_unit_of_the_values() -> None:
    # ~100 ns on a 5 ns grid: each value uncertain by 5% of the median
    rng = np.random.default_rng(2)
    x = 5.0 * np.round(rng.normal(100.0, 8.0, 200) / 5.0)
    words = {
        unit: next(w.message for w in quantisation(x, unit=unit).warnings if w.code == "coarse-tick")
        for unit in ("ns", None)
    }
    assert words["ns"].startswith("values sit on a grid of step 5 ns, 5% of the median")
    assert words[None].startswith("values sit on a grid of step 5, 5% of the median")
    # timer_check's samples are ns: it says so
    chk = timer_check(x)
    assert words["ns"] in [w.message for w in chk.warnings]
