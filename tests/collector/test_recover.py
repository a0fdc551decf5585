"""recover(): a collector's .partial becomes a valid run file; anything else, a one-line error."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import tsanalyze
from tsanalyze import schema
from tsanalyze.cli.app import app
from tsanalyze.collector import recover
from tsanalyze.collector.recover import default_output, leftover_partials
from tsanalyze.collector.writer import RunWriter
from tsanalyze.errors import CollectorError, InvalidRunError, RunExistsError

NAMES = ("a", "b", "c")


def _meta(run: str = "run-7") -> dict[str, Any]:
    return schema.new_metadata(
        run,
        "2026-11-23T10:00:00Z",
        "perf_counter",
        clock={"hz": 1e9},
        collector={"interleave": True, "seed": 7},
    )


def _partial(tmp_path: Path, rounds_per_flush: tuple[int, ...] = (4, 4, 2)) -> RunWriter:
    """A writer killed after some flushes: its partial as a dead collector leaves it."""
    wr = RunWriter(
        tmp_path / "run.parquet", names=NAMES, run="run-7", ns_per_tick=1.0, metadata=_meta()
    )
    r = 0
    for n in rounds_per_flush:
        rows = []
        for _ in range(n):
            for pos, b in enumerate((2, 0, 1)):
                t0 = 1000 * (3 * r + pos)
                rows.append((b, r, pos, r, 1, t0, t0 + 100 + b))
            r += 1
        wr.extend(rows)
        wr.flush()
    wr.extend([(0, r, 0, r, 1, 5, 6)])  # pending, never flushed: lost with the process
    wr._close_stream()  # what the OS does for a dead process: the file is closed as it is
    wr._release()
    return wr


def test_recover_a_partial(tmp_path: Path) -> None:
    wr = _partial(tmp_path)
    rec = recover(wr.partial)
    assert rec.path == tmp_path / "run.parquet" and rec.partial == wr.partial
    assert (rec.samples, rec.rounds, rec.truncated) == (30, 10, False)
    df = tsanalyze.read_runs(rec.path)  # a valid run file, checked by the project's reader
    assert len(df) == 30 and sorted(set(df["benchmark"].astype(str))) == list(NAMES)
    meta = json.loads(pq.read_schema(rec.path).metadata[schema.METADATA_KEY.encode()])
    assert meta["run"] == "run-7" and meta["collector"]["seed"] == 7
    assert meta["collector"]["stop_reason"] == "recovered"
    assert meta["collector"]["interrupted"] is True
    assert meta["collector"]["rounds_completed"] == 10
    assert meta["collector"]["recovered_from"] == wr.partial.name
    assert wr.partial.exists()  # left in place
    # never overwriting: a second recovery refuses, the first result is untouched
    before = rec.path.read_bytes()
    with pytest.raises(RunExistsError, match="refusing to overwrite"):
        recover(wr.partial)
    assert rec.path.read_bytes() == before
    other = recover(wr.partial, tmp_path / "again.parquet")
    assert other.samples == 30 and sorted(p.name for p in tmp_path.glob("*.parquet")) == [
        "again.parquet",
        "run.parquet",
    ]


def test_a_torn_last_block_is_dropped(tmp_path: Path) -> None:
    wr = _partial(tmp_path)
    size = wr.partial.stat().st_size
    with open(wr.partial, "r+b") as f:
        f.truncate(size - 40)  # the last flush was cut short by the crash
    rec = recover(wr.partial)
    assert rec.truncated and (rec.samples, rec.rounds) == (24, 8)
    assert len(tsanalyze.read_runs(rec.path)) == 24


def test_a_partial_killed_before_its_first_flush(tmp_path: Path) -> None:
    wr = _partial(tmp_path, rounds_per_flush=())
    with pytest.raises(InvalidRunError, match="holds no finished sample; nothing to recover"):
        recover(wr.partial)
    assert not (tmp_path / "run.parquet").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", r"not a partial run written by tsanalyze collect \(the file is empty\)"),
        (b"hello, world\n" * 10, "not a partial run written by tsanalyze collect"),
        (b"PAR1" + b"\0" * 100, "an unfinished Parquet file from a collector older than"),
    ],
)
def test_files_that_are_not_partials(tmp_path: Path, content: bytes, message: str) -> None:
    p = tmp_path / ".x.parquet.0123abcd.partial"
    p.write_bytes(content)
    with pytest.raises(InvalidRunError, match=message) as info:
        recover(p)
    assert "\n" not in str(info.value) and str(p) in str(info.value)
    assert sorted(q.name for q in tmp_path.iterdir()) == [p.name]  # nothing written


def test_a_complete_run_file_is_not_a_partial(tmp_path: Path) -> None:
    wr = _partial(tmp_path)
    done = recover(wr.partial).path
    with pytest.raises(InvalidRunError, match="a complete Parquet file, not a partial"):
        recover(done, tmp_path / "z.parquet")
    with pytest.raises(InvalidRunError, match="no such file"):
        recover(tmp_path / "missing.partial")
    with pytest.raises(InvalidRunError, match="is a directory"):
        recover(tmp_path)


def test_output_directory_must_exist(tmp_path: Path) -> None:
    wr = _partial(tmp_path)
    with pytest.raises(CollectorError, match="does not exist"):
        recover(wr.partial, tmp_path / "no" / "r.parquet")


def test_default_output_names() -> None:
    assert default_output(Path("/d/.run.parquet.1a2b3c4d.partial")) == Path("/d/run.parquet")
    assert default_output(Path("/d/.a.b.parquet.00000000.partial")) == Path("/d/a.b.parquet")
    assert default_output(Path("/d/mine.partial")) == Path("/d/mine.parquet")
    assert default_output(Path("/d/odd")) == Path("/d/odd.parquet")


SCRIPT = """
import sys
from tsanalyze.collector import collect

def f():
    pass

def report(n):
    if n % 500 == 0:
        print("ROUND", n, flush=True)

collect({"f": f, "g": f}, sys.argv[1], rounds=10**9, evals=1, clock="perf_counter",
        on_round=report, flush_rows=200, progress=False)
"""


def _running_collector(tmp_path: Path, procs: Any) -> tuple[subprocess.Popen[str], int]:
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    proc = procs.start([sys.executable, str(script), str(tmp_path / "run.parquet")])
    return proc, procs.wait_rounds(proc, 3000)


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals and locks")
def test_recover_after_sigkill_and_refuse_a_live_run(tmp_path: Path, procs: Any) -> None:
    proc, seen = _running_collector(tmp_path, procs)
    (partial,) = tmp_path.glob(".run.parquet.*.partial")
    with pytest.raises(CollectorError, match="still being written by a running collector"):
        recover(partial)
    assert leftover_partials(tmp_path / "run.parquet") == []  # a live run is not left over
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert not (tmp_path / "run.parquet").exists()
    assert leftover_partials(tmp_path / "run.parquet") == [partial]
    # a new collection into the same file warns about the leftover and says what to do
    from tsanalyze.collector import PartialRunWarning, collect

    with pytest.warns(PartialRunWarning, match=rf"tsanalyze recover {partial}"):
        collect({"f": lambda: None}, tmp_path / "run.parquet", rounds=1, evals=1,
                clock="perf_counter")  # fmt: skip
    assert leftover_partials(tmp_path / "other.parquet") == []
    # flush_rows=200 (100 rounds): every round up to the last flush before the kill is back
    rec = recover(partial, tmp_path / "recovered.parquet")
    assert rec.rounds >= seen - 100 and rec.samples == 2 * rec.rounds
    df = tsanalyze.read_runs(rec.path)
    assert sorted(df["round"].unique()) == list(range(rec.rounds))


def test_cli_recover(tmp_path: Path) -> None:
    wr = _partial(tmp_path)
    res = CliRunner().invoke(app, ["recover", str(wr.partial), "-o", str(tmp_path / "r.parquet")])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(
        f"wrote {tmp_path / 'r.parquet'}: run run-7, 10 rounds, 30 samples"
    )
    res = CliRunner().invoke(app, ["recover", str(wr.partial), "-o", str(tmp_path / "r.parquet")])
    assert res.exit_code == 2 and "refusing to overwrite" in res.output
    bad = tmp_path / "bad.partial"
    bad.write_bytes(b"\xff\xff\xff\xff" + os.urandom(200))
    res = CliRunner().invoke(app, ["recover", str(bad)])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1 and res.output.startswith(f"tsanalyze: error: {bad}: ")


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_damaged_partials_recover_or_fail_in_one_line(tmp_path: Path, data: st.DataObject) -> None:
    # fuzz: byte flips and truncations of a real partial. Either a valid run file comes out
    # (holding a prefix of the samples) or a one-line error naming the file; never a
    # traceback, never wrong values in the run file.
    d = Path(tempfile.mkdtemp(dir=tmp_path))
    wr = _partial(d)
    blob = bytearray(wr.partial.read_bytes())
    for _ in range(data.draw(st.integers(0, 4))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(blob)))
    wr.partial.write_bytes(bytes(blob[:cut]))
    try:
        rec = recover(wr.partial)
    except (InvalidRunError, CollectorError) as exc:
        assert "\n" not in str(exc) and str(wr.partial) in str(exc)
        assert not (d / "run.parquet").exists()
        return
    df = tsanalyze.read_runs(rec.path)
    assert len(df) == rec.samples <= 30
    assert (df["evals"] >= 1).all() and (df["ns"] >= 0).all()
