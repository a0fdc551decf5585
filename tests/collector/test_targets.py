"""collector.targets on its own: target specs, samplers, command failures, spawn overhead."""

from __future__ import annotations

import gc
import itertools
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tsanalyze.collector.targets import (
    CommandTarget,
    PythonTarget,
    TargetFailed,
    as_target,
    close_sampler,
    make_sampler,
    resolve_callable,
    spawn_overhead,
)
from tsanalyze.errors import CollectorError


def _counter() -> Callable[[], int]:
    """A fake clock: every read returns the next integer (so t1 - t0 counts the reads)."""
    return itertools.count(100).__next__


def test_as_target() -> None:
    def f() -> None:
        return None

    t = as_target("f", f, "disabled")
    assert isinstance(t, PythonTarget) and t.fn is f and t.gc == "disabled"
    c = as_target("c", "echo hi")
    assert isinstance(c, CommandTarget) and c.argv() == ["echo", "hi"]
    given = CommandTarget(["true"], shell=False)
    assert as_target("g", given) is given
    with pytest.raises(ValueError, match="'e': empty command"):
        as_target("e", "   ")
    with pytest.raises(ValueError, match="'e': empty command"):
        as_target("e", CommandTarget([]))
    with pytest.raises(ValueError, match="expected a callable, a command string"):
        as_target("n", 42)
    with pytest.raises(ValueError, match="gc must be one of enabled, disabled, collect"):
        as_target("f", f, "sometimes")  # type: ignore[arg-type]


def test_command_argv_and_describe() -> None:
    assert CommandTarget("ls -l 'a b'").argv() == ["ls", "-l", "a b"]
    assert CommandTarget(["ls", "a b"]).argv() == ["ls", "a b"]
    assert CommandTarget("ls | wc", shell=True).argv() == "ls | wc"
    assert CommandTarget(["ls", "a b"], shell=True).argv() == "ls 'a b'"
    d = CommandTarget(["ls", "a b"], cwd="/tmp").describe()
    assert d == {"kind": "command", "command": "ls 'a b'", "shell": False, "cwd": "/tmp"}


def test_python_describe() -> None:
    def setup() -> int:
        return 1

    d = PythonTarget(len, setup=setup, gc="collect", spec="builtins:len").describe()
    assert d["callable"] == "builtins:len" and d["gc"] == "collect"
    assert d["setup"].endswith("test_python_describe.<locals>.setup")
    assert PythonTarget(len).describe()["callable"] == "builtins:len"


def test_plain_sampler_runs_evals_between_two_reads() -> None:
    calls: list[int] = []
    sample = make_sampler(PythonTarget(lambda: calls.append(1)), _counter())
    t0, t1 = sample(5)
    assert len(calls) == 5 and t1 - t0 == 1  # exactly two reads around the evaluations
    sample(1)
    assert len(calls) == 6


def test_setup_once_per_sample_outside_the_reads() -> None:
    reads: list[str] = []
    counter = _counter()

    def read() -> int:
        reads.append("read")
        return counter()

    def setup() -> list[int]:
        reads.append("setup")
        return [3, 1, 2]

    def fn(state: list[int]) -> None:
        reads.append(f"fn{len(state)}")

    sample = make_sampler(PythonTarget(fn, setup=setup), read)
    sample(2)
    assert reads == ["setup", "read", "fn3", "fn3", "read"]


@pytest.mark.parametrize("mode", ["enabled", "disabled", "collect"])
def test_gc_modes(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    collected: list[int] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: collected.append(1) or real_collect(*a))
    sample = make_sampler(
        PythonTarget(lambda: seen.append(gc.isenabled()), gc=mode),  # type: ignore[arg-type]
        _counter(),
    )
    sample(2)
    assert seen == [mode != "disabled"] * 2
    assert gc.isenabled()  # restored
    assert collected == ([1] if mode == "collect" else [])


def test_a_raising_target_fails_and_restores_gc() -> None:
    def boom() -> None:
        raise KeyError("k")

    for t in (PythonTarget(boom), PythonTarget(boom, gc="disabled")):
        with pytest.raises(TargetFailed, match="raised KeyError: 'k'"):
            make_sampler(t, _counter())(1)
        assert gc.isenabled()
    with pytest.raises(TargetFailed, match="raised SystemExit: 3"):
        make_sampler(PythonTarget(lambda: sys.exit(3)), _counter())(1)


def test_a_keyboard_interrupt_is_not_a_failure() -> None:
    # a second Ctrl-C raised inside the target must reach the sampling loop as it is
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        make_sampler(PythonTarget(interrupted), _counter())(1)
    with pytest.raises(KeyboardInterrupt):
        make_sampler(PythonTarget(interrupted, gc="disabled"), _counter())(1)
    assert gc.isenabled()


def test_command_sampler(tmp_path: Path) -> None:
    marker = tmp_path / "count"
    cmd = CommandTarget([sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')"])
    sample = make_sampler(cmd, _counter())
    t0, t1 = sample(3)
    assert marker.read_text() == "xxx" and t1 - t0 == 1
    close_sampler(sample)
    env = CommandTarget(
        [sys.executable, "-c", "import os, sys; sys.exit(0 if os.environ['X'] == '1' else 1)"],
        env={"X": "1"},
        cwd=str(tmp_path),
    )
    sample = make_sampler(env, _counter())
    sample(1)
    close_sampler(sample)


def test_failing_command_reports_status_and_stderr_tail() -> None:
    cmd = CommandTarget(
        [sys.executable, "-c", "import sys; sys.stderr.write('x' * 1000 + 'the end'); sys.exit(5)"]
    )
    sample = make_sampler(cmd, _counter())
    with pytest.raises(TargetFailed) as info:
        sample(3)
    close_sampler(sample)
    msg = str(info.value)
    assert msg.startswith("exited with status 5; stderr: ") and msg.endswith("the end")
    assert len(msg) < 460  # the tail only (400 bytes)
    missing = make_sampler(CommandTarget(["/nonexistent/binary-xyz"]), _counter())
    with pytest.raises(TargetFailed, match="could not start"):
        missing(1)
    close_sampler(missing)


def test_spawn_overhead() -> None:
    if shutil.which("true") is None:
        pytest.skip("no `true` on this system")
    import time

    got = spawn_overhead(time.perf_counter_ns, 1e9, shell=False, n=5)
    assert got["command"] == shutil.which("true") and got["n"] == 5
    assert 0 < got["min_ns"] <= got["median_ns"] < 5e9
    sh = spawn_overhead(time.perf_counter_ns, 1e9, shell=True, n=3)
    assert sh["command"] == "sh -c ''" and sh["min_ns"] > 0


def test_resolve_callable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = tmp_path / "rc_mod_xyz.py"
    mod.write_text("class K:\n    @staticmethod\n    def m():\n        return 7\n\nVALUE = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert resolve_callable("rc_mod_xyz:K.m")() == 7
    assert resolve_callable(f"{mod}:K.m")() == 7
    assert resolve_callable("os.path:join") is __import__("os").path.join
    for spec, message in [
        ("nocolon", "expected module:function"),
        (":f", "expected module:function"),
        ("m:", "expected module:function"),
        ("rc_mod_xyz:missing", "has no attribute missing"),
        ("rc_mod_xyz:VALUE", "VALUE is not callable"),
        ("no_such_module_qq:f", "cannot import no_such_module_qq"),
        (f"{tmp_path}/absent.py:f", "not found"),
    ]:
        with pytest.raises(CollectorError, match=message):
            resolve_callable(spec)
