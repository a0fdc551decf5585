"""Crash safety: SIGINT/SIGTERM finish the round and write; SIGKILL leaves nothing under the
final name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import tsanalyze
from tsanalyze import schema

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

SCRIPT = """
import sys, time
from tsanalyze.collector import collect

def a():
    time.sleep(0.002)

def b():
    time.sleep(0.001)

def c():
    sum(range(100))

def report(n):
    print("ROUND", n, flush=True)

rec = collect({"a": a, "b": b, "c": c}, sys.argv[1], rounds=100000, evals=1, seed=7,
              clock="perf_counter", on_round=report, flush_seconds=0.02, progress=False)
print("DONE", rec.rounds, rec.interrupted, flush=True)
"""


def _start(tmp_path: Path, procs: Any) -> tuple[subprocess.Popen[str], Path]:
    """The script above, collecting into ``tmp_path/run.parquet`` (``procs``: the fixture)."""
    script = tmp_path / "collect_script.py"
    script.write_text(SCRIPT)
    out = tmp_path / "run.parquet"
    return procs.start([sys.executable, str(script), str(out)]), out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_writes_every_finished_round(
    tmp_path: Path, sig: signal.Signals, procs: Any
) -> None:
    proc, out = _start(tmp_path, procs)
    seen = procs.wait_rounds(proc, 20)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "DONE" in stdout and "True" in stdout.split("DONE")[1]
    table = pq.read_table(out)
    meta = json.loads(table.schema.metadata[schema.METADATA_KEY.encode()])
    rows = table.to_pylist()
    rounds = sorted({r["round"] for r in rows})
    # every round the collector reported finished is in the file, each one complete
    assert rounds == list(range(len(rounds))) and len(rounds) >= seen
    assert len(rows) == 3 * len(rounds)
    for rnd in rounds:
        assert sorted(r["benchmark"] for r in rows if r["round"] == rnd) == ["a", "b", "c"]
    assert meta["collector"]["interrupted"] is True
    assert meta["collector"]["rounds_completed"] == len(rounds)
    assert meta["collector"]["stop_reason"] == f"signal {sig.name}"
    assert len(tsanalyze.read_runs(out)) == len(rows)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_sigkill_leaves_nothing_under_the_final_name(tmp_path: Path, procs: Any) -> None:
    proc, out = _start(tmp_path, procs)
    procs.wait_rounds(proc, 20)
    partial = [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert len(partial) == 1 and partial[0].stat().st_size > 0  # rounds are being written
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists()


CMD_SCRIPT = """
import sys
from tsanalyze.collector import collect

rec = collect({"s1": "sleep 0.02", "s2": "sleep 0.01"}, sys.argv[1], rounds=100000, seed=1,
              clock="perf_counter", on_round=lambda n: print("ROUND", n, flush=True), progress=False)
print("DONE", rec.rounds, rec.interrupted, flush=True)
"""


def test_ctrl_c_on_a_terminal_also_hitting_the_command(tmp_path: Path, procs: Any) -> None:
    # Ctrl-C signals the whole foreground process group: the running command dies too.
    # That cut-short sample is not a failure: the unfinished round is dropped.
    script = tmp_path / "cmd_script.py"
    script.write_text(CMD_SCRIPT)
    out = tmp_path / "cmd.parquet"
    proc = procs.start([sys.executable, str(script), str(out)], start_new_session=True)
    seen = procs.wait_rounds(proc, 5)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert stdout.split("DONE")[1].split()[1] == "True"  # interrupted, not failed
    rows = pq.read_table(out).to_pylist()
    rounds = sorted({r["round"] for r in rows})
    assert rounds == list(range(len(rounds))) and len(rounds) >= seen
    assert len(rows) == 2 * len(rounds)


# --- a second Ctrl-C (issue 18): the finished rounds must survive it -----------------------
FAST_SCRIPT = """
import sys
from tsanalyze.collector import collect

def a():
    pass

def b():
    pass

def c():
    sum(range(100))

def report(n):
    if n % 1000 == 0:
        print("ROUND", n, flush=True)

# default flush settings: every finished round stays in memory until the end (10 s /
# 100k rows), so writing the file at the end takes long enough for a second signal to land
rec = collect({"a": a, "b": b, "c": c}, sys.argv[1], rounds=10**9, evals=1, seed=7,
              clock="perf_counter", on_round=report, progress=False)
print("DONE", rec.rounds, rec.interrupted, rec.metadata["collector"]["stop_reason"], flush=True)
"""


def _double_signal(
    tmp_path: Path, procs: Any, gap: float, wait_rounds: int
) -> tuple[int, int, str, str]:
    script = tmp_path / "fast_script.py"
    script.write_text(FAST_SCRIPT)
    out = tmp_path / "run.parquet"
    proc = procs.start([sys.executable, str(script), str(out)])
    seen = procs.wait_rounds(proc, wait_rounds)
    proc.send_signal(signal.SIGINT)
    time.sleep(gap)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr[-2000:]
    table = pq.read_table(out)
    return seen, len(set(table.column("round").to_pylist())), stdout, stderr


@pytest.mark.parametrize("gap", [0.05, 0.02, 0.005, 0.001])
def test_two_sigints_keep_every_finished_round(tmp_path: Path, gap: float, procs: Any) -> None:
    # issue 18: two SIGINTs 50 ms apart lost the whole run (only the .partial was left)
    # when the second one landed while the file was being written. Several gaps, so that
    # the second signal lands in the loop, in the write, and between the two.
    seen, kept, stdout, _ = _double_signal(tmp_path, procs, gap, 20000)
    assert kept >= seen
    done = stdout.split("DONE")[1].split()
    assert int(done[0]) == kept and done[1] == "True"  # rounds_completed = rounds in the file
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


STARTUP_MODULE = """
import sys, time
print("IMPORTED", file=sys.stderr, flush=True)

def s1():
    time.sleep(0.01)

def s2():
    time.sleep(0.01)
"""


def test_ctrl_c_during_start_up_is_one_line_and_exit_130(tmp_path: Path, procs: Any) -> None:
    # evals="auto" on two 10 ms targets: about a second of start-up (clock calibration,
    # timer measurement, Algorithm 1) in which the signal lands
    (tmp_path / "startup_mod.py").write_text(STARTUP_MODULE)
    out = tmp_path / "run.parquet"
    proc = procs.start(
        [sys.executable, "-m", "tsanalyze", "collect", str(out), "-p", "a=startup_mod:s1",
         "-p", "b=startup_mod:s2", "--rounds", "3"],
        path=tmp_path,
    )  # fmt: skip
    assert proc.stderr is not None
    assert proc.stderr.readline().startswith("IMPORTED")  # the targets are imported:
    time.sleep(0.3)  # collect() is calibrating
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == [
        "tsanalyze: interrupted by SIGINT during start-up (clock calibration, timer "
        "measurement, choice of evals); nothing was recorded"
    ]
    assert list(p.name for p in tmp_path.iterdir() if "run" in p.name) == []


CLI_MODULE = """
def noop():
    pass
"""


def test_cli_interrupted_run_says_what_was_kept_and_exits_130(tmp_path: Path, procs: Any) -> None:
    (tmp_path / "cli_sig_mod.py").write_text(CLI_MODULE)
    out = tmp_path / "run.parquet"
    proc = procs.start(
        [sys.executable, "-m", "tsanalyze", "collect", str(out), "-p", "a=cli_sig_mod:noop",
         "-p", "b=cli_sig_mod:noop", "--rounds", "1000000000", "--evals", "1",
         "--clock", "perf_counter"],
        path=tmp_path,
    )  # fmt: skip
    procs.wait_for_partial(proc, tmp_path)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    rounds = len(set(pq.read_table(out).column("round").to_pylist()))
    assert stdout.startswith(f"wrote {out}")
    assert stderr.strip().splitlines() == [
        f"tsanalyze: interrupted by SIGINT; kept the {rounds} finished rounds "
        f"({2 * rounds} samples) in {out}"
    ]
