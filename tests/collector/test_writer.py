"""collector.writer on its own: the partial stream, the Parquet run file, safe publishing."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

import tsanalyze
from tsanalyze import schema
from tsanalyze.collector import writer as w
from tsanalyze.collector.writer import ARROW_SCHEMA, PARTIAL_MARKER, RunWriter, check_output
from tsanalyze.errors import CollectorError, RunExistsError

NAMES = ("fast", "slow")
NS_PER_TICK = 0.25  # a 4 GHz clock


def _meta(run: str = "r-1") -> dict[str, Any]:
    return schema.new_metadata(
        run, "2026-11-23T10:00:00Z", "rdtscp", clock={"hz": 4e9}, collector={"interleave": True}
    )


def _writer(path: Path, **kw: Any) -> RunWriter:
    return RunWriter(path, names=NAMES, run="r-1", ns_per_tick=NS_PER_TICK, metadata=_meta(), **kw)


def _rows(rounds: int, first_round: int = 0) -> list[tuple[int, int, int, int, int, int, int]]:
    # (benchmark number, round, position, sample, evals, start_ticks, end_ticks)
    out = []
    for r in range(first_round, first_round + rounds):
        t = 1_000_000 + 10_000 * r
        out.append((1, r, 0, r, 3, t, t + 4000 + r))
        out.append((0, r, 1, r, 7, t + 5000, t + 5400))
    return out


def _partial_rows(path: Path) -> tuple[int, dict[bytes, bytes]]:
    with ipc.open_stream(path) as reader:
        return sum(b.num_rows for b in reader), dict(reader.schema.metadata)


def test_rows_become_a_valid_run_with_derived_ticks_and_ns(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    wr = _writer(out)
    assert wr.partial.parent == tmp_path and wr.partial.name.startswith(".run.parquet.")
    assert wr.extend(_rows(3)) == 6 and wr.pending == 6 and wr.rows == 6
    path = wr.close(_meta())
    assert path == out and sorted(p.name for p in tmp_path.iterdir()) == ["run.parquet"]
    table = pq.read_table(out)
    assert table.schema.names == ARROW_SCHEMA.names
    rows = table.to_pylist()
    expected = []
    for b, r, pos, s, ev, t0, t1 in _rows(3):
        # ticks = end - start; ns = ticks * 1e9 / hz, computed the way the loop used to
        expected.append(
            {"benchmark": NAMES[b], "run": "r-1", "round": r, "position": pos, "sample": s,
             "evals": ev, "ticks": t1 - t0, "start_ticks": t0, "ns": (t1 - t0) * NS_PER_TICK}
        )  # fmt: skip
    assert rows == expected
    meta = json.loads(table.schema.metadata[schema.METADATA_KEY.encode()])
    assert meta == _meta()
    assert len(tsanalyze.read_runs(out)) == 6  # the project's reader accepts it


def test_flush_appends_readable_batches_to_the_partial(tmp_path: Path) -> None:
    wr = _writer(tmp_path / "run.parquet")
    n, meta = _partial_rows(wr.partial)
    # the partial exists from the start and carries the metadata and the marker
    assert n == 0 and meta[PARTIAL_MARKER.encode()] == b"1"
    assert json.loads(meta[schema.METADATA_KEY.encode()]) == _meta()
    wr.extend(_rows(2))
    wr.flush()
    wr.extend(_rows(3, first_round=2))
    wr.flush()
    assert wr.rows_written == 10 and wr.pending == 0
    assert _partial_rows(wr.partial)[0] == 10
    wr.flush()  # nothing pending: no empty batch
    assert _partial_rows(wr.partial)[0] == 10
    wr.extend(_rows(1, first_round=5))
    path = wr.close(_meta())
    assert pq.read_metadata(path).num_rows == 12
    assert not wr.partial.exists()


def test_abort_and_keep(tmp_path: Path) -> None:
    wr = _writer(tmp_path / "a.parquet")
    wr.extend(_rows(2))
    wr.flush()
    wr.abort()
    assert list(tmp_path.iterdir()) == []  # abort discards everything
    wr = _writer(tmp_path / "k.parquet")
    wr.extend(_rows(2))  # pending only: keep() flushes it first
    kept = wr.keep()
    assert kept == wr.partial and _partial_rows(kept)[0] == 4
    assert not (tmp_path / "k.parquet").exists()
    empty = _writer(tmp_path / "e.parquet")
    assert empty.keep() is None and not empty.partial.exists()


def test_the_partial_is_locked_while_its_writer_lives(tmp_path: Path) -> None:
    wr = _writer(tmp_path / "l.parquet")
    assert w.is_locked(wr.partial)
    wr.extend(_rows(1))
    kept = wr.keep()
    assert kept is not None and not w.is_locked(kept)


def test_check_output(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"keep")
    with pytest.raises(RunExistsError, match="refusing to overwrite"):
        check_output(tmp_path / "x.parquet", overwrite=False)
    check_output(tmp_path / "x.parquet", overwrite=True)
    with pytest.raises(CollectorError, match="is a directory"):
        check_output(tmp_path, overwrite=True)
    with pytest.raises(CollectorError, match="does not exist"):
        check_output(tmp_path / "nope" / "r.parquet", overwrite=False)
    with pytest.raises(RunExistsError):
        _writer(tmp_path / "x.parquet")
    assert (tmp_path / "x.parquet").read_bytes() == b"keep"


def test_overwrite_replaces(tmp_path: Path) -> None:
    out = tmp_path / "o.parquet"
    out.write_bytes(b"old")
    wr = _writer(out, overwrite=True)
    wr.extend(_rows(1))
    assert wr.close(_meta()) == out and pq.read_metadata(out).num_rows == 2


def test_a_file_that_appears_meanwhile_is_never_clobbered(tmp_path: Path) -> None:
    out = tmp_path / "race.parquet"
    wr = _writer(out)
    wr.extend(_rows(2))
    out.write_bytes(b"someone else's")
    with pytest.raises(RunExistsError, match="appeared") as info:
        wr.close(_meta())
    assert out.read_bytes() == b"someone else's"
    alt = Path(str(info.value).rsplit("written to ", 1)[1])
    assert alt.parent == tmp_path and alt.name.startswith("race.") and alt.suffix == ".parquet"
    assert pq.read_metadata(alt).num_rows == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, alt.name])


def test_invalid_metadata_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CollectorError, match="collector bug"):
        RunWriter(tmp_path / "m.parquet", names=NAMES, run="r", ns_per_tick=1.0, metadata={})
    assert list(tmp_path.iterdir()) == []
    wr = _writer(tmp_path / "m.parquet")
    wr.extend(_rows(1))
    with pytest.raises(CollectorError, match="collector bug"):
        wr.close({"run": "r"})


def test_a_failed_write_keeps_rows_for_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wr = _writer(tmp_path / "f.parquet")
    wr.extend(_rows(2))
    wr.flush()
    calls = {"n": 0}

    def full(self: RunWriter, batch: pa.RecordBatch) -> None:
        calls["n"] += 1
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(RunWriter, "_write_batch", full)
    wr.extend(_rows(3, first_round=2))
    with pytest.raises(OSError):
        wr.flush()
    assert wr.write_error is not None and "No space left on device" in wr.write_error
    assert wr.rows_written == 4 and wr.pending == 6
    wr.flush()  # the partial is not written to again after a failure
    assert calls["n"] == 1
    path = wr.close(_meta())  # the run file gets the flushed rows and the pending ones
    assert [r["round"] for r in pq.read_table(path, columns=["round"]).to_pylist()] == [
        0, 0, 1, 1, 2, 2, 3, 3, 4, 4,
    ]  # fmt: skip


def test_write_run_leaves_nothing_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def batches() -> Any:
        yield RunWriter.__new__(RunWriter)  # not a batch: the writer fails mid-way
        raise AssertionError("unreachable")

    with pytest.raises((TypeError, AttributeError, pa.ArrowException)):
        w.write_run(batches(), _meta(), tmp_path / "w.parquet")
    assert list(tmp_path.iterdir()) == []


def test_describe_os_error() -> None:
    assert w.describe_os_error(OSError(errno.ENOSPC, "No space left on device")) == (
        "No space left on device"
    )
    # pyarrow's errors carry the errno only in their text
    text = OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
    assert w.describe_os_error(text) == "No space left on device"


def test_stop_abandons_the_conversion_and_keeps_the_partial(tmp_path: Path) -> None:
    out = tmp_path / "s.parquet"
    wr = _writer(out)
    wr.extend(_rows(3))
    wr.flush()
    wr.extend(_rows(2, first_round=3))  # pending: goes to the partial before converting
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= 2  # the user insisted while the file was being written

    with pytest.raises(w.WriteAborted) as info:
        wr.close(_meta(), stop=stop)
    assert str(info.value) == (
        f"the 10 samples recorded are kept in {wr.partial}: `tsanalyze recover "
        f"{wr.partial}` turns them into s.parquet"
    )
    assert not out.exists() and not w.is_locked(wr.partial)
    assert sorted(p.name for p in tmp_path.iterdir()) == [wr.partial.name]  # no temporary
    assert _partial_rows(wr.partial)[0] == 10
