"""collector.schedule and collector.plan on their own: the order of samples, the frozen plan."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from tsanalyze.collector.plan import Plan, make_plan
from tsanalyze.collector.schedule import InterleavedSchedule, SequentialSchedule, make_schedule


def _drain(
    schedule: InterleavedSchedule | SequentialSchedule, clock: list[float]
) -> list[tuple[int, list[int], int]]:
    """All rounds, ``now`` taken from ``clock`` (one value per call, the last repeated)."""
    out = []
    t = iter(clock)
    last = 0.0
    while True:
        last = next(t, last)
        unit = schedule.next(last)
        if unit is None:
            return out
        out.append(unit)


def test_interleaved_is_random_shuffle_of_the_seed() -> None:
    got = _drain(InterleavedSchedule(4, 6, None, seed=11, start=0.0), [0.0])
    rng = random.Random(11)
    expected = []
    for r in range(6):
        order = [0, 1, 2, 3]
        rng.shuffle(order)
        expected.append((r, order, r + 1))
    assert got == expected


def test_interleaved_time_budget_stops_after_the_round_that_spends_it() -> None:
    s = InterleavedSchedule(2, None, 1.0, seed=0, start=10.0)
    got = _drain(s, [10.0, 10.4, 10.9, 11.0, 11.5])
    assert [u[0] for u in got] == [0, 1, 2] and s.stop_reason == "time_budget"
    s = InterleavedSchedule(2, 2, 100.0, seed=0, start=0.0)
    assert len(_drain(s, [0.0])) == 2 and s.stop_reason == "rounds"
    # the first round is always taken, however late
    assert InterleavedSchedule(1, None, 1.0, seed=0, start=0.0).next(99.0) is not None


def test_sequential_series_in_turn() -> None:
    s = SequentialSchedule(3, 2, None)
    got = _drain(s, [0.0])
    assert got == [(0, [0], 1), (1, [0], 2), (0, [1], 1), (1, [1], 2), (0, [2], 1), (1, [2], 2)]
    assert s.stop_reason == "rounds"


def test_sequential_time_budget_is_shared_equally() -> None:
    # 3 s for 2 benchmarks: 1.5 s each, measured from each series' first sample
    s = SequentialSchedule(2, None, 3.0)
    got = _drain(s, [0.0, 0.5, 1.0, 1.6, 1.7, 2.0, 3.2])
    assert [(u[0], u[1][0]) for u in got] == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    assert s.stop_reason == "time_budget"


def test_make_schedule() -> None:
    kw = {"rounds": 1, "time_budget": None, "seed": 0, "start": 0.0}
    assert isinstance(make_schedule(2, interleave=True, **kw), InterleavedSchedule)
    assert isinstance(make_schedule(2, interleave=False, **kw), SequentialSchedule)


def test_plan_is_frozen_and_complete(tmp_path: Path) -> None:
    plan = make_plan({"a": print}, tmp_path / "p.parquet")
    assert isinstance(plan, Plan) and plan.rounds == 100 and plan.names == ("a",)
    assert plan.evals == {"a": None} and not plan.is_command
    assert 0 <= plan.seed < 2**63 and plan.run
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.rounds = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.targets["b"] = print  # type: ignore[index]
    assert make_plan({"a": print}, tmp_path / "p.parquet", seed=3).seed == 3
    assert make_plan({"c": "true"}, tmp_path / "p.parquet", time_budget=2).rounds is None
