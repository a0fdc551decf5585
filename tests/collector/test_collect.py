"""collect(): runs, interleaving, evals, targets, failures, overwrite refusal."""

from __future__ import annotations

import functools
import json
import random
import sys
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

import tsanalyze
from tsanalyze import schema
from tsanalyze.collector import (
    Clock,
    ClockWarning,
    CommandTarget,
    PythonTarget,
    Recording,
    collect,
    get_clock,
)
from tsanalyze.collector.calibration import SAMPLE_FLOOR_MARGIN
from tsanalyze.errors import CollectorError, RunExistsError


@functools.cache
def _clock() -> Clock:
    with warnings.catch_warnings():
        # a CI machine without a usable TSC falls back with a ClockWarning: fine here
        warnings.simplefilter("ignore", ClockWarning)
        return get_clock()


@pytest.fixture(scope="module")
def clk() -> Clock:
    return _clock()


def _collect(benchmarks: Mapping[str, Any], path: Path, **kwargs: Any) -> Recording:
    """collect() with the tests' clock and no progress line."""
    return collect(benchmarks, path, clock=_clock(), progress=False, **kwargs)


def _read(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[schema.METADATA_KEY.encode()])
    cols = {f.name: str(f.type) for f in table.schema}
    assert schema.validate(cols, meta) == []
    return table.to_pylist(), meta


def _noop() -> None:
    return None


def _work() -> int:
    return sum(range(300))


@pytest.mark.parametrize("source", ["clock_gettime", "perf_counter", None])
def test_forced_clocks_produce_valid_runs(
    tmp_path: Path, source: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if source is not None:
        monkeypatch.setenv("TSANALYZE_CLOCK", source)
    out = tmp_path / "run.parquet"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClockWarning)  # automatic choice on a TSC-less machine
        rec = collect({"a": _noop, "b": _work}, out, rounds=20, seed=1, progress=False)
        expected = source or get_clock().source
    rows, meta = _read(out)
    assert rec.path == out and rec.samples == len(rows) == 40 and rec.rounds == 20
    assert meta["clock"]["source"] == expected
    assert meta["run"] == rec.run and {r["run"] for r in rows} == {rec.run}
    assert all(r["ns"] > 0 and r["ticks"] > 0 and r["evals"] >= 1 for r in rows)
    assert meta["timer"]["overhead_ns"] > 0 and meta["timer"]["precision_ns"] > 0
    assert meta["collector"]["evals_method"] == "auto"
    # the project's reader accepts it
    df = tsanalyze.read_runs(out)
    assert len(df) == 40 and set(df["benchmark"].astype(str)) == {"a", "b"}


def test_interleaved_order_is_a_permutation_per_round_and_reproducible(tmp_path: Path) -> None:
    names = ["a", "b", "c", "d"]
    bench: dict[str, object] = dict.fromkeys(names, _noop)
    r1 = _collect(bench, tmp_path / "1.parquet", rounds=30, seed=42, evals=1)
    r2 = _collect(bench, tmp_path / "2.parquet", rounds=30, seed=42, evals=1)
    r3 = _collect(bench, tmp_path / "3.parquet", rounds=30, seed=43, evals=1)

    def orders(path: Path) -> list[list[str]]:
        rows, _ = _read(path)
        by_round: dict[int, list[tuple[int, str]]] = {}
        for r in rows:
            by_round.setdefault(r["round"], []).append((r["position"], r["benchmark"]))
        out = []
        for rnd in sorted(by_round):
            pos = sorted(by_round[rnd])
            assert [p for p, _ in pos] == list(range(len(names)))  # positions 0..k-1
            out.append([n for _, n in pos])
        return out

    o1, o2, o3 = orders(r1.path), orders(r2.path), orders(r3.path)
    assert len(o1) == 30 and all(sorted(o) == names for o in o1)
    assert o1 == o2 != o3
    # the stored order is exactly random.Random(seed).shuffle per round (seed 002)
    rng = random.Random(42)
    expected = []
    for _ in range(30):
        order = names[:]
        rng.shuffle(order)
        expected.append(order)
    assert o1 == expected
    assert len({tuple(o) for o in o1}) > 1  # actually shuffled
    # sample index = round index when every round is complete
    rows, meta = _read(r1.path)
    assert all(r["sample"] == r["round"] for r in rows)
    assert meta["collector"]["seed"] == 42 and meta["collector"]["interleave"] is True


def _orders(path: Path) -> list[list[str]]:
    """The benchmarks of every round in the order of their recorded ``position``."""
    by_round: dict[int, list[tuple[int, str]]] = {}
    for r in _read(path)[0]:
        by_round.setdefault(r["round"], []).append((r["position"], r["benchmark"]))
    return [[n for _, n in sorted(by_round[k])] for k in sorted(by_round)]


def test_seed_is_drawn_and_recorded_when_not_given(tmp_path: Path, clk: Clock) -> None:
    bench: dict[str, object] = {"a": _noop, "b": _noop, "c": _noop, "d": _noop}
    args: dict[str, Any] = {"rounds": 25, "evals": 1, "clock": clk, "progress": False}
    rec = collect(bench, tmp_path / "r.parquet", **args)
    seed = rec.metadata["collector"]["seed"]
    assert isinstance(seed, int) and 0 <= seed < 2**63
    drawn = _orders(rec.path)
    # the recorded seed replays the recorded order: collect() again with it ...
    again = collect(bench, tmp_path / "again.parquet", seed=seed, **args)
    assert _orders(again.path) == drawn
    # ... and it is random.Random(seed).shuffle, round after round
    rng = random.Random(seed)
    expected = []
    for _ in range(25):
        order = list(bench)
        rng.shuffle(order)
        expected.append(order)
    assert drawn == expected
    # a second drawn seed gives another order (two equal 63-bit draws: p = 2**-63)
    other = collect(bench, tmp_path / "other.parquet", **args)
    assert other.metadata["collector"]["seed"] != seed and _orders(other.path) != drawn


def test_sequential_mode(tmp_path: Path) -> None:
    rec = _collect(
        {"a": _noop, "b": _work}, tmp_path / "s.parquet", rounds=10, interleave=False, evals=2
    )
    rows, meta = _read(rec.path)
    assert [r["benchmark"] for r in rows] == ["a"] * 10 + ["b"] * 10
    assert all(r["position"] == 0 and r["round"] == r["sample"] and r["evals"] == 2 for r in rows)
    assert meta["collector"]["interleave"] is False and meta["collector"]["evals_method"] == "fixed"
    # time order: every sample starts after the previous one started
    starts = [r["start_ticks"] for r in rows]
    assert starts == sorted(starts)


def test_time_budget_stops_the_run(tmp_path: Path, clk: Clock) -> None:
    import time

    rec = _collect(
        {"a": lambda: time.sleep(0.002)}, tmp_path / "t.parquet", time_budget=0.1, evals=1
    )
    assert rec.metadata["collector"]["stop_reason"] == "time_budget"
    assert 5 <= rec.rounds <= 60
    assert rec.metadata["collector"]["sampling_seconds"] >= 0.1
    if clk.calibration.method == "measured":
        # the TSC rate over the whole run agrees with the 0.2 s calibration within 0.5%
        check = rec.metadata["clock"]["calibration"]["run_check"]
        assert check["window_s"] >= 0.1
        assert abs(check["relative_difference"]) < 0.005


def test_algorithm1_picks_more_evals_for_a_faster_real_target(tmp_path: Path) -> None:
    # a no-op (~50 ns) vs a ~20 us loop: with the measured timer, the no-op needs more evals
    def slow() -> int:
        return sum(range(2000))

    rec = _collect({"fast": _noop, "slow": slow}, tmp_path / "e.parquet", rounds=3)
    assert rec.evals["fast"] > rec.evals["slow"] >= 1
    per = rec.metadata["collector"]["oracle"]["per_benchmark"]
    assert per["fast"]["t_hat_ns"] < per["slow"]["t_hat_ns"]
    assert per["fast"]["evals"] == rec.evals["fast"]
    rows, _ = _read(rec.path)
    assert {r["evals"] for r in rows if r["benchmark"] == "fast"} == {rec.evals["fast"]}


def test_fixed_evals_per_benchmark(tmp_path: Path) -> None:
    rec = _collect(
        {"a": _noop, "b": _noop}, tmp_path / "f.parquet", rounds=3, evals={"a": 7, "b": 2}
    )
    assert rec.evals == {"a": 7, "b": 2}


def test_setup_runs_per_sample_outside_the_timing(tmp_path: Path) -> None:
    import time

    calls: list[str] = []

    def setup() -> list[int]:
        calls.append("setup")
        time.sleep(0.01)  # 10 ms of setup must not show up in the sample time
        return [3, 1, 2]

    def fn(state: list[int]) -> None:
        calls.append("fn")
        sorted(state)

    rec = _collect({"s": PythonTarget(fn, setup=setup)}, tmp_path / "u.parquet", rounds=4, evals=3)
    rows, meta = _read(rec.path)
    assert calls == ["setup", "fn", "fn", "fn"] * 4
    assert max(r["ns"] for r in rows) < 5e6
    assert meta["target"]["spec"]["s"]["setup"].endswith("setup")


@pytest.mark.parametrize("mode", ["enabled", "disabled", "collect"])
def test_gc_mode_is_recorded_and_restored(tmp_path: Path, mode: str) -> None:
    import gc

    seen: list[bool] = []
    rec = _collect(
        {"g": lambda: seen.append(gc.isenabled())},
        tmp_path / "g.parquet",
        rounds=2,
        evals=1,
        gc=mode,  # type: ignore[arg-type]
    )
    assert rec.metadata["target"]["spec"]["g"]["gc"] == mode
    assert rec.metadata["collector"]["gc"] == mode
    assert all(s is (mode != "disabled") for s in seen)
    assert gc.isenabled()


def test_overwrite_refusal(tmp_path: Path) -> None:
    out = tmp_path / "x.parquet"
    out.write_bytes(b"precious")
    ran: list[int] = []
    with pytest.raises(RunExistsError, match="refusing to overwrite"):
        _collect({"a": lambda: ran.append(1)}, out, rounds=2, evals=1)
    assert out.read_bytes() == b"precious" and ran == []  # refused before any timing
    rec = _collect({"a": _noop}, out, rounds=2, evals=1, overwrite=True)
    assert _read(rec.path)[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.parquet"]  # no temporary left


def test_failing_target_stops_and_keeps_samples(tmp_path: Path) -> None:
    count = {"n": 0}

    def flaky() -> None:
        count["n"] += 1
        if count["n"] == 6:
            raise RuntimeError("boom")

    out = tmp_path / "f.parquet"
    with pytest.raises(
        CollectorError, match=r"benchmark 'bad' raised RuntimeError: boom .*5 samples .*written"
    ):
        _collect({"bad": flaky}, out, rounds=20, evals=1)
    rows, meta = _read(out)
    assert len(rows) == 5
    assert meta["collector"]["stop_reason"] == "failure"


def test_failure_in_the_first_sample_writes_nothing(tmp_path: Path) -> None:
    def bad() -> None:
        raise ValueError("nope")

    out = tmp_path / "n.parquet"
    with pytest.raises(CollectorError, match="nothing was written"):
        _collect({"bad": bad}, out, rounds=3, evals=1)
    assert list(tmp_path.iterdir()) == []


def test_ignore_failures_skips_samples(tmp_path: Path) -> None:
    count = {"n": 0}

    def flaky() -> None:
        count["n"] += 1
        if count["n"] % 3 == 0:
            raise RuntimeError("every third")

    rec = _collect(
        {"f": flaky, "ok": _noop}, tmp_path / "i.parquet", rounds=9, evals=1, ignore_failures=True
    )
    rows, meta = _read(rec.path)
    assert rec.failures == 3 == meta["collector"]["failures"]
    assert sum(r["benchmark"] == "f" for r in rows) == 6
    assert sum(r["benchmark"] == "ok" for r in rows) == 9
    assert [r["sample"] for r in rows if r["benchmark"] == "f"] == list(range(6))


def test_failing_target_during_auto_evals(tmp_path: Path) -> None:
    def bad() -> None:
        raise KeyError("x")

    with pytest.raises(CollectorError, match="while choosing evals"):
        _collect({"bad": bad}, tmp_path / "a.parquet", rounds=3)
    assert list(tmp_path.iterdir()) == []


def test_commands(tmp_path: Path) -> None:
    py = sys.executable
    rec = _collect(
        {"true": "true", "py": CommandTarget([py, "-c", "pass"])},
        tmp_path / "c.parquet",
        rounds=3,
        seed=0,
    )
    rows, meta = _read(rec.path)
    assert len(rows) == 6 and rec.evals == {"true": 1, "py": 1}
    spawn = meta["target"]["spawn_overhead_ns"]
    assert meta["target"]["kind"] == "command"
    assert 0 < spawn["min_ns"] <= spawn["median_ns"]
    assert meta["timer"]["overhead_ns"] == pytest.approx(
        meta["timer"]["clock_overhead_ns"] + spawn["min_ns"]
    )
    # starting a Python interpreter costs more than running `true`
    py_min = min(r["ns"] for r in rows if r["benchmark"] == "py")
    true_min = min(r["ns"] for r in rows if r["benchmark"] == "true")
    assert py_min > true_min
    assert meta["target"]["spec"]["py"]["command"].endswith("-c pass")


def test_failing_command(tmp_path: Path) -> None:
    py = sys.executable
    cmd = CommandTarget([py, "-c", "import sys; sys.stderr.write('bad thing'); sys.exit(3)"])
    with pytest.raises(CollectorError, match="exited with status 3; stderr: bad thing"):
        _collect({"c": cmd}, tmp_path / "c.parquet", rounds=3)
    rec = _collect({"c": cmd, "t": "true"}, tmp_path / "d.parquet", rounds=3, ignore_failures=True)
    assert rec.failures == 3 and rec.samples == 3


def test_shell_command(tmp_path: Path) -> None:
    rec = _collect(
        {"s": CommandTarget("true && true", shell=True)}, tmp_path / "s.parquet", rounds=2
    )
    assert rec.metadata["target"]["spawn_overhead_ns"]["command"] == "sh -c ''"


def test_on_round_callback_and_user_tags(tmp_path: Path) -> None:
    seen: list[int] = []
    rec = _collect(
        {"a": _noop},
        tmp_path / "o.parquet",
        rounds=4,
        evals=1,
        on_round=seen.append,
        user={"branch": "main"},
        run_id="my-run",
    )
    assert seen == [1, 2, 3, 4]
    assert rec.run == "my-run" and rec.metadata["user"] == {"branch": "main"}


def test_progress_line(tmp_path: Path, clk: Clock, capsys: pytest.CaptureFixture[str]) -> None:
    collect({"a": _noop}, tmp_path / "p.parquet", rounds=3, evals=1, clock=clk, progress=True)
    err = capsys.readouterr().err
    assert "\rcollecting [" in err and "round 3/3" in err and err.endswith("\n")
    collect({"a": _noop}, tmp_path / "q.parquet", rounds=3, evals=1, clock=clk)  # not a TTY: quiet
    assert capsys.readouterr().err == ""


BAD: list[tuple[dict[str, Any], str]] = [
    ({"benchmarks": {}}, "non-empty mapping"),
    ({"benchmarks": {"": _noop}}, "names"),
    ({"benchmarks": {"a": 3}}, "expected a callable"),
    ({"benchmarks": {"a": "  "}}, "empty command"),
    ({"benchmarks": {"a": _noop, "b": "true"}}, "not both"),
    ({"rounds": 0}, "rounds"),
    ({"rounds": True}, "rounds"),
    ({"time_budget": -1.0}, "time_budget"),
    ({"time_budget": float("inf")}, "time_budget"),
    ({"evals": 0}, "evals"),
    ({"evals": "many"}, "evals"),
    ({"evals": {"zz": 3}}, "unknown benchmarks"),
    ({"seed": -1}, "seed"),
    ({"gc": "sometimes"}, "gc must"),
    ({"user": {"x": object()}}, "JSON"),
    ({"tau_acc": -5.0}, "tau_acc"),
    ({"tau_prec": 0.0}, "tau_prec"),
    ({"tau_prec": 10.0, "tau_acc": 5.0}, "tau_acc"),
    ({"oracle_b": 2.0}, "b must"),
    # out-of-range numbers (issue 18): a one-line ValueError naming the parameter
    ({"rounds": 2**63}, r"rounds must be an integer in \[1, 9223372036854775807\]"),
    ({"seed": 2**63}, r"seed must be an integer in \[0, 9223372036854775807\]"),
    ({"evals": 99999999999999999999999}, r"evals must be 'auto' or an integer in \[1, "),
    ({"evals": True}, "evals must"),
    ({"evals": 2.0}, "evals must"),
    ({"evals": {"a": 0}}, "evals must"),
    ({"time_budget": float("nan")}, "time_budget"),
    ({"time_budget": 10**400}, "time_budget"),
    ({"tau_prec": 1e-320}, "tau_prec is too small"),
    ({"tau_prec": 1e-300, "tau_acc": 1e300}, "tau_acc / tau_prec overflows"),
    ({"tau_acc": float("inf")}, "tau_acc"),
    ({"oracle_a": float("nan")}, "a must"),
    ({"j_max": 0}, "j_max"),
    ({"min_sample_ns": float("inf")}, "min_sample_ns"),
    ({"flush_seconds": float("inf")}, "flush_seconds"),
]


@pytest.mark.parametrize(("kwargs", "match"), BAD)
def test_invalid_arguments(tmp_path: Path, clk: Clock, kwargs: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {"benchmarks": {"a": _noop}, "rounds": 2}
    args.update(kwargs)
    bench: Callable[..., Any] = collect
    with pytest.raises(ValueError, match=match):
        bench(args.pop("benchmarks"), tmp_path / "v.parquet", clock=clk, progress=False, **args)
    assert list(tmp_path.iterdir()) == []


def test_output_directory_errors(tmp_path: Path) -> None:
    with pytest.raises(CollectorError, match="does not exist"):
        _collect({"a": _noop}, tmp_path / "missing" / "r.parquet", rounds=1)
    with pytest.raises(CollectorError, match="is a directory"):
        _collect({"a": _noop}, tmp_path, rounds=1)


def test_rounds_reach_the_partial_as_they_accumulate(tmp_path: Path, clk: Clock) -> None:
    import pyarrow.ipc as ipc

    sizes: list[int] = []
    flushed: dict[int, int] = {}

    def watch(n: int) -> None:
        partial = [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
        assert len(partial) == 1 and not (tmp_path / "g.parquet").exists()
        sizes.append(partial[0].stat().st_size)
        if n in (10, 30):
            # the partial is a readable stream of every flushed (finished) round
            with ipc.open_stream(partial[0]) as reader:
                flushed[n] = sum(b.num_rows for b in reader)

    rec = _collect(
        {"a": _noop, "b": _noop},
        tmp_path / "g.parquet",
        rounds=50,
        evals=1,
        flush_rows=20,
        on_round=watch,
    )
    # flush_rows=20 with 2 rows a round: a flush after rounds 10, 20, 30, ...
    assert flushed == {10: 20, 30: 60}
    assert pq.read_metadata(rec.path).num_rows == 100
    assert sizes[-1] > sizes[0]  # the temporary file grows while collecting
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.parquet"]
    with pytest.raises(ValueError, match="flush_rows"):
        collect({"a": _noop}, tmp_path / "h.parquet", rounds=1, clock=clk, flush_rows=0)


def test_target_calling_sys_exit_is_a_failure(tmp_path: Path) -> None:
    def quits() -> None:
        sys.exit(4)

    with pytest.raises(CollectorError, match="raised SystemExit: 4"):
        _collect({"q": quits}, tmp_path / "q.parquet", rounds=2, evals=1)


def test_auto_evals_make_samples_pass_the_reports_timer_checks(tmp_path: Path) -> None:
    # a sub-microsecond function: Algorithm 1 alone gives 1 evaluation and samples whose
    # clock-read share is 10-30% (our own report then flags the run); the default floor
    # makes every sample long enough for the checks in tsanalyze.stats.timer
    from tsanalyze import read_runs
    from tsanalyze.stats.timer import timer_check

    def short() -> int:
        return sum(range(20))

    # the evaluations are sized from the target's speed during calibration; on a loaded
    # machine (a busy sibling hyperthread) it can run 2x slower then than while sampling,
    # and the samples come out shorter than the floor: the report flags that run, rightly.
    # Such a run (median sample under floor / margin) is recorded again, up to 3 times.
    for attempt in range(3):
        rec = _collect({"short": short}, tmp_path / f"s{attempt}.parquet", rounds=50)
        oracle_meta = rec.metadata["collector"]["oracle"]
        timer = rec.metadata["timer"]
        limits = (100 * timer["overhead_ns"], 100 * timer["accuracy_ns"], 1000 * timer["precision_ns"])  # fmt: skip
        assert oracle_meta["min_sample_ns"] == pytest.approx(SAMPLE_FLOOR_MARGIN * max(limits))
        assert rec.evals["short"] > oracle_meta["per_benchmark"]["short"]["oracle_evals"]
        df = read_runs(rec.path)
        if np.median(df["ns"]) >= oracle_meta["min_sample_ns"] / SAMPLE_FLOOR_MARGIN:
            break
    else:
        pytest.skip("the target ran much faster while sampling than during calibration, 3 times (load)")
    check = timer_check(
        df["ns"].to_numpy(dtype=float),
        overhead_ns=timer["overhead_ns"],
        precision_ns=timer["precision_ns"],
        accuracy_ns=timer["accuracy_ns"],
    )
    assert check.n_dominated == 0 and check.n_overhead <= 1, check.warnings
    # 0 switches the floor off: Algorithm 1 alone
    off = _collect(
        {"short": short}, tmp_path / "o.parquet", rounds=3,
        min_sample_ns=0
    )  # fmt: skip
    per = off.metadata["collector"]["oracle"]["per_benchmark"]["short"]
    assert off.evals["short"] == per["oracle_evals"]
    with pytest.raises(ValueError, match="min_sample_ns"):
        collect({"short": short}, tmp_path / "x.parquet", rounds=3, min_sample_ns=-1.0)


def test_timer_limits_are_declared_once_for_both_sides() -> None:
    # the collector may not import the analysis side: both import the limits from the
    # stdlib leaf tsanalyze.timer_limits, and neither keeps a copy of its own
    import ast
    import inspect

    from tsanalyze import timer_limits
    from tsanalyze.collector import calibration
    from tsanalyze.stats import timer

    names = ("OVERHEAD_SHARE_LIMIT", "ACCURACY_SHARE_LIMIT", "PRECISION_FACTOR")
    for module in (calibration, timer):
        assigned = {
            t.id
            for node in ast.walk(ast.parse(inspect.getsource(module)))
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        assert not assigned & set(names), module.__name__
        for name in names:
            assert getattr(module, name) is getattr(timer_limits, name)


def test_out_of_range_numbers_fuzz(tmp_path: Path) -> None:
    # fuzz every numeric argument (bounded: 150 examples, no deadline) through the plan:
    # either a Plan within the documented ranges or a one-line ValueError naming the
    # parameter; never OverflowError, TypeError or a traceback from deeper down
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tsanalyze.collector.plan import MAX_EVALS, MAX_INT64, OracleSettings, make_plan

    nums = st.one_of(
        st.none(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([0, 1, 2**63 - 1, 2**63, -1, 1e-320, 5e-324, 1e308, 10**400, True]),
    )

    @settings(max_examples=150, deadline=None)
    @given(rounds=nums, budget=nums, evals=nums, seed=nums, prec=nums, acc=nums, floor=nums)
    def check(
        rounds: Any, budget: Any, evals: Any, seed: Any, prec: Any, acc: Any, floor: Any
    ) -> None:
        try:
            plan = make_plan(
                {"a": _noop},
                tmp_path / "p.parquet",
                rounds=rounds,
                time_budget=budget,
                evals="auto" if evals is None else evals,
                seed=seed,
                oracle_settings=OracleSettings(tau_prec=prec, tau_acc=acc, min_sample_ns=floor),
            )
        except ValueError as exc:
            assert "\n" not in str(exc)
            return
        assert plan.rounds is None or 1 <= plan.rounds <= MAX_INT64
        assert 0 <= plan.seed <= MAX_INT64
        assert all(v is None or 1 <= v <= MAX_EVALS for v in plan.evals.values())

    check()
    assert list(tmp_path.iterdir()) == []
