"""A full disk while collecting: a one-line error, every recorded sample kept or recoverable,
nothing half-written under the final name (issue 18)."""

from __future__ import annotations

import errno
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tsanalyze
from tsanalyze.cli.app import app
from tsanalyze.collector import Clock, ClockWarning, collect, get_clock, recover
from tsanalyze.collector import writer as w
from tsanalyze.errors import CollectorError

ENOSPC = "No space left on device"


@pytest.fixture(scope="module")
def clk() -> Clock:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClockWarning)
        return get_clock("perf_counter")


def _noop() -> None:
    return None


def _disk_fills_after(monkeypatch: pytest.MonkeyPatch, good_writes: int) -> None:
    """The partial accepts ``good_writes`` batches (the empty first one included), then
    every write fails with ENOSPC."""
    calls = {"n": 0}
    real = w.RunWriter._write_batch

    def write(self: w.RunWriter, batch: pa.RecordBatch) -> None:
        calls["n"] += 1
        if calls["n"] > good_writes:
            raise OSError(errno.ENOSPC, ENOSPC)
        real(self, batch)

    monkeypatch.setattr(w.RunWriter, "_write_batch", write)


def test_disk_full_while_sampling_keeps_every_round(
    tmp_path: Path, clk: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the partial fills up after two flushes; the run stops at once, and the run file
    # (written once space is back, here at once) holds every round recorded
    _disk_fills_after(monkeypatch, 3)
    out = tmp_path / "full.parquet"
    with pytest.raises(CollectorError) as info:
        collect({"a": _noop, "b": _noop}, out, rounds=1000, evals=1, clock=clk, flush_rows=20,
                progress=False)  # fmt: skip
    msg = str(info.value)
    assert "\n" not in msg and ENOSPC in msg and f"were written to {out}" in msg
    table = pq.read_table(out)
    rounds = sorted(set(table.column("round").to_pylist()))
    # two flushes of 10 rounds went to the partial; the third (the rounds pending when the
    # disk filled) went straight to the run file: 30 rounds, none lost, none twice
    assert rounds == list(range(30)) and table.num_rows == 60
    meta = tsanalyze.read_runs(out).attrs["runs"]
    assert meta[next(iter(meta))]["collector"]["stop_reason"] == "write error"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full.parquet"]


def test_disk_full_for_the_run_file_too_keeps_the_partial(
    tmp_path: Path, clk: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _disk_fills_after(monkeypatch, 3)

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, ENOSPC)

    monkeypatch.setattr(w, "write_run", no_space)
    out = tmp_path / "full.parquet"
    with pytest.raises(CollectorError) as info:
        collect({"a": _noop, "b": _noop}, out, rounds=1000, evals=1, clock=clk, flush_rows=20,
                progress=False)  # fmt: skip
    msg = str(info.value)
    (partial,) = tmp_path.glob(".full.parquet.*.partial")
    assert "\n" not in msg and ENOSPC in msg
    assert f"the 40 samples recorded before are kept in {partial}" in msg
    assert f"`tsanalyze recover {partial}`" in msg
    assert not out.exists()  # nothing half-written under the final name
    monkeypatch.undo()  # space is back
    rec = recover(partial)
    assert rec.path == out and rec.samples == 40 and rec.rounds == 20 and not rec.truncated
    assert len(tsanalyze.read_runs(out)) == 40


def test_no_space_for_the_partial_at_all(
    tmp_path: Path, clk: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _disk_fills_after(monkeypatch, 0)
    with pytest.raises(CollectorError, match=rf"cannot create .*\.partial: {ENOSPC}$"):
        collect({"a": _noop}, tmp_path / "r.parquet", rounds=5, evals=1, clock=clk)
    assert list(tmp_path.iterdir()) == []


def test_cli_disk_full_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "faults_mod.py").write_text("def f():\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _disk_fills_after(monkeypatch, 2)
    out = tmp_path / "cli.parquet"
    res = CliRunner().invoke(
        app,
        ["collect", str(out), "-p", "f=faults_mod:f", "--rounds", "200000", "--evals", "1",
         "--clock", "perf_counter", "-q"],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tsanalyze: error: ") and ENOSPC in lines[0]


FSIZE_SCRIPT = """
import resource, sys
from tsanalyze.collector import collect
from tsanalyze.errors import CollectorError

def f():
    pass

def g():
    sum(range(9))

resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
try:
    collect({"f": f, "g": g}, sys.argv[1], rounds=10**8, evals=1, clock="perf_counter",
            flush_rows=2000, progress=False)
except CollectorError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE semantics of Linux")
def test_a_real_write_failure_with_a_file_size_limit(tmp_path: Path) -> None:
    # a real OS error, not an injected one: every file the process writes may be at most
    # 64 kB (EFBIG "File too large", where a full disk gives ENOSPC). The partial hits the
    # limit after a few flushes and the run stops with one line. The run file (compressed
    # harder than the partial) then fits and holds every sample; had it not fitted, the
    # partial would be kept for `tsanalyze recover` (both outcomes are checked).
    (tmp_path / "s.py").write_text(FSIZE_SCRIPT)
    out = tmp_path / "run.parquet"
    proc = subprocess.run(
        [sys.executable, str(tmp_path / "s.py"), str(out), "65536"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("writing the finished rounds failed (File too large") or (
        lines[0].startswith(f"cannot write {out}: File too large; the ")
    )
    partials = list(tmp_path.glob(".run.parquet.*.partial"))
    if out.exists():
        n = int(
            re.search(r"; the (\d+) samples recorded so far were written to ", lines[0]).group(1)
        )
        assert lines[0].endswith(f"were written to {out}") and partials == []
        df = tsanalyze.read_runs(out)
        assert len(df) == n > 0 and n == 2 * df["round"].nunique()
    else:
        (partial,) = partials
        assert lines[0].endswith(f"`tsanalyze recover {partial}`")
        n = int(re.search(r"; the (\d+) samples recorded before are kept", lines[0]).group(1))
        rec = recover(partial)  # (the torn block of the failed write is dropped)
        assert rec.samples == n > 0 and rec.samples == 2 * rec.rounds
        assert len(tsanalyze.read_runs(rec.path)) == rec.samples
