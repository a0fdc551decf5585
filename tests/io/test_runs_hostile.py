"""Hostile run files (issue 18) and files of several runs (run format version 2): the
reader, the writer and the importers apply one set of checks (``tsanalyze.io.checks``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tsanalyze import schema
from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.runs import read_runs, write_run, write_runs

DATA = Path(__file__).resolve().parents[1] / "data"


def _sim(seed: int = 1, n_rounds: int = 20):
    sim = simulate_run({"a": 1000.0, "b": 2000.0}, evals=4, n_rounds=n_rounds, rng=seed)
    return sim.frame, next(iter(sim.frame.attrs["runs"].values()))


def _table(tmp_path: Path) -> tuple[pa.Table, dict]:
    frame, meta = _sim()
    p = write_run(frame, tmp_path / "good.parquet", meta)
    t = pq.read_table(p)
    return t, json.loads(t.schema.metadata[b"tsanalyze"])


def _raw(path: Path, table: pa.Table, meta: object) -> Path:
    pq.write_table(table.replace_schema_metadata({b"tsanalyze": json.dumps(meta).encode()}), path)
    return path


def _refused(path: Path, *needles: str) -> str:
    with pytest.raises(InvalidRunError) as err:
        read_runs(path)
    msg = str(err.value)
    assert "\n" not in msg and str(path) in msg, msg
    for n in needles:
        assert n in msg, msg
    return msg


def _with(t: pa.Table, name: str, values: list, typ: pa.DataType) -> pa.Table:
    arr = pa.array(values, typ)
    if name in t.column_names:
        return t.set_column(t.schema.get_field_index(name), name, arr)
    return t.append_column(name, arr)


def test_an_extra_kind_column_is_refused_not_every_row_dropped(tmp_path: Path) -> None:
    # before: a user's own `kind` column (here "cpu") silently dropped every row
    t, meta = _table(tmp_path)
    p = _raw(tmp_path / "kind.parquet", _with(t, "kind", ["cpu"] * t.num_rows, pa.string()), meta)
    _refused(p, "column kind: 'cpu' at row 0", "reserves this column")


def test_a_file_of_warmups_only_is_an_error_not_an_empty_frame(tmp_path: Path) -> None:
    t, meta = _table(tmp_path)
    p = _raw(tmp_path / "warm.parquet", _with(t, "kind", ["warmup"] * t.num_rows, pa.string()), meta)
    _refused(p, "holds only warm-up or calibration rows")
    assert len(read_runs(p, include_warmups=True)) == t.num_rows


def test_negative_sample_indices_are_named_not_a_false_duplicate(tmp_path: Path) -> None:
    # before: "duplicate (run, benchmark, sample)" for distinct negative indices
    t, meta = _table(tmp_path)
    s = t.column("sample").to_pylist()
    s[3] = -1
    p = _raw(tmp_path / "neg.parquet", _with(t, "sample", s, pa.int64()), meta)
    _refused(p, "column sample: -1 at row 3", "not between 0 and")


def test_uint64_evals_beyond_int64_name_the_file(tmp_path: Path) -> None:
    t, meta = _table(tmp_path)
    ev = t.column("evals").to_pylist()
    ev[2] = 2**64 - 1
    p = _raw(tmp_path / "u64.parquet", _with(t, "evals", ev, pa.uint64()), meta)
    _refused(p, "column evals: 18446744073709551615 at row 2")


def test_a_time_beyond_2_63_ns_is_refused(tmp_path: Path) -> None:
    # `report` on 1e308-scale data gave an error naming no file (or inf estimates)
    t, meta = _table(tmp_path)
    ns = t.column("ns").to_pylist()
    ns[5] = 1e308
    p = _raw(tmp_path / "big.parquet", _with(t, "ns", ns, pa.float64()), meta)
    _refused(p, "column ns: time 1e+308 at row 5", "292 years")


def test_write_run_refuses_what_read_runs_refuses(tmp_path: Path) -> None:
    frame, meta = _sim()
    bad = frame.copy()
    bad.loc[3, "ns"] = np.inf
    with pytest.raises(InvalidRunError, match=r"cannot write .*w\.parquet: column ns: .*row 3"):
        write_run(bad, tmp_path / "w.parquet", meta)
    bad = frame.copy()
    bad.loc[1, "sample"] = bad.loc[0, "sample"]
    bad.loc[1, "benchmark"] = bad.loc[0, "benchmark"]
    with pytest.raises(InvalidRunError, match="duplicate"):
        write_run(bad, tmp_path / "w.parquet", meta)
    assert not (tmp_path / "w.parquet").exists()


def test_byte_flipped_files_are_one_line_errors_or_read(tmp_path: Path) -> None:
    # before: ArrowIndexError / UnicodeDecodeError from damaged dictionary pages
    t = pq.read_table(DATA / "golden-v1.parquet")
    plain = tmp_path / "plain.parquet"
    pq.write_table(t, plain, compression="none")  # uncompressed: flips reach the pages
    src = plain.read_bytes()
    rng = random.Random(18)
    outcomes = {"read": 0, "refused": 0}
    for k in range(150):
        b = bytearray(src)
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        p = tmp_path / f"flip{k}.parquet"
        p.write_bytes(bytes(b))
        try:
            df = read_runs(p)
        except InvalidRunError as exc:
            assert "\n" not in str(exc) and str(p) in str(exc)
            outcomes["refused"] += 1
        else:  # what is read is valid: every check passed
            assert (df["ns"] > 0).all() and df["benchmark"].astype(str).str.len().ge(0).all()
            outcomes["read"] += 1
    assert outcomes["refused"] > 0


# ------------------------------------------------------------------ several runs per file
def test_several_runs_in_one_file_round_trip(tmp_path: Path) -> None:
    (f1, m1), (f2, m2) = _sim(1), _sim(2)
    import pandas as pd

    frame = pd.concat([f1, f2], ignore_index=True)
    p = write_runs(frame, tmp_path / "two.parquet", [m1, m2])
    stored = json.loads(pq.read_schema(p).metadata[b"tsanalyze"])
    assert stored["schema_version"] == 2 and [r["run"] for r in stored["runs"]] == [m1["run"], m2["run"]]
    df = read_runs(p)
    assert list(df.attrs["runs"]) == [m1["run"], m2["run"]]
    assert {m["file"] for m in df.attrs["runs"].values()} == {str(p)}
    np.testing.assert_array_equal(df["ns"], frame["ns"])
    # a row of a run the metadata does not declare is refused
    with pytest.raises(InvalidRunError, match="column run: holds"):
        write_runs(frame, tmp_path / "one.parquet", [m1])


def test_a_file_of_one_run_is_written_as_before(tmp_path: Path) -> None:
    frame, meta = _sim()
    p = write_runs(frame, tmp_path / "one.parquet", [meta])
    stored = json.loads(pq.read_schema(p).metadata[b"tsanalyze"])
    assert stored == meta  # the run's own metadata, as a version-1 reader expects
    assert schema.SCHEMA_VERSION == 2 and 1 in schema.SUPPORTED_VERSIONS


@pytest.mark.parametrize(
    ("meta", "needle"),
    [
        ({"schema_version": 2, "runs": []}, "metadata key runs: expected a non-empty list"),
        ({"schema_version": 1, "runs": [{}]}, "must be 2 or more"),
        ({"schema_version": 3, "runs": [{}]}, "newer than this tsanalyze supports"),
        ({"schema_version": 2, "runs": [{}], "extra": 1}, "unexpected beside 'runs'"),
    ],
)
def test_bad_containers_are_refused(tmp_path: Path, meta: dict, needle: str) -> None:
    t, _ = _table(tmp_path)
    _refused(_raw(tmp_path / "c.parquet", t, meta), needle)


def test_a_container_with_a_run_twice_is_refused(tmp_path: Path) -> None:
    t, meta = _table(tmp_path)
    _refused(_raw(tmp_path / "c.parquet", t, {"schema_version": 2, "runs": [meta, meta]}), "declared twice")


def test_the_1_ns_floor_applies_only_where_an_overhead_is_subtracted(tmp_path: Path) -> None:
    # a collector run with 25 ns overhead: a 20 ns sample is corrected to the 1 ns floor;
    # the same sample with no overhead recorded (an import) keeps 20 ns / evals
    frame, meta = _sim()
    frame = frame.copy()
    frame.loc[0, "ns"] = 20.0
    with_overhead = {**meta, "timer": {**meta.get("timer", {}), "overhead_ns": 25.0}}
    no_overhead = {**meta, "timer": {**meta.get("timer", {}), "overhead_ns": 0.0}}
    a = read_runs(write_run(frame, tmp_path / "a.parquet", with_overhead))
    b = read_runs(write_run(frame, tmp_path / "b.parquet", no_overhead))
    assert a["time_ns"].iloc[0] == 1.0 / frame["evals"].iloc[0]
    assert b["time_ns"].iloc[0] == 20.0 / frame["evals"].iloc[0]
