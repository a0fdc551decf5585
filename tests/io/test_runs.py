"""read_runs / write_run: round trip, many files, golden v1 file, every error case."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tsanalyze
from tsanalyze import schema
from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError, RunExistsError
from tsanalyze.io import runs as runs_mod
from tsanalyze.io.runs import read_runs, write_run

DATA = Path(__file__).resolve().parents[1] / "data"


def _sim(seed: int = 1, **kw):
    kw.setdefault("n_rounds", 50)
    sim = simulate_run({"a": 1000.0, "b": 2000.0}, evals=4, rng=seed, **kw)
    return sim.frame, next(iter(sim.frame.attrs["runs"].values()))


def _write(tmp_path: Path, name: str = "r.parquet", seed: int = 1, **kw) -> Path:
    frame, meta = _sim(seed, **kw)
    return write_run(frame, tmp_path / name, meta)


def _raw_write(path: Path, table: pa.Table, meta: object) -> Path:
    """Write a Parquet file bypassing write_run's checks (to make bad files)."""
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    pq.write_table(table.replace_schema_metadata({b"tsanalyze": raw}), path)
    return path


def _good_table(tmp_path: Path) -> tuple[pa.Table, dict]:
    p = _write(tmp_path, "good.parquet")
    t = pq.read_table(p)
    meta = json.loads(t.schema.metadata[b"tsanalyze"])
    return t, meta


def _with_cell(table: pa.Table, column: str, row: int, value: object) -> pa.Table:
    """``table`` with one cell of ``column`` replaced (keeping the column's type)."""
    values = table.column(column).to_pylist()
    values[row] = value
    i = table.schema.get_field_index(column)
    return table.set_column(i, column, pa.array(values, table.schema.field(i).type))


def test_round_trip_every_column_and_metadata_key(tmp_path: Path) -> None:
    frame, meta = _sim(3)
    frame = frame.copy()
    frame["work"] = np.arange(len(frame), dtype=float)
    meta = dict(meta)
    meta["host"] = {"cpu_model": "x", "logical_cores": 2, "kernel": "6.1", "governor": "powersave", "python": "3.11"}
    meta["source"] = {"tool": "t", "version": "1", "file": "f"}
    meta["clock"] = {**meta["clock"], "kernel_clocksource": "tsc", "calibration": {"relative_error": 1e-5}}
    meta["collector"] = {"version": "0.1.0", "evals_method": "auto", "oracle": {"a": 0.009, "b": 0.5}}
    meta["user"] = {"tag": "π ünïcode"}
    path = write_run(frame, tmp_path / "rt.parquet", meta)
    back = read_runs(path)
    for col in (c for c in schema.COLUMN_NAMES if c in frame.columns):
        left = back[col].astype(str) if col in ("benchmark", "run") else back[col]
        right = frame[col].astype(str) if col in ("benchmark", "run") else frame[col]
        np.testing.assert_array_equal(left.to_numpy(), right.to_numpy(), err_msg=col)
    got = {k: v for k, v in back.attrs["runs"][meta["run"]].items() if k != "file"}
    assert got == meta
    assert back.attrs["runs"][meta["run"]]["file"] == str(path)
    # every declared metadata key that the test set is present after the round trip
    for key in schema.METADATA:
        present, _ = schema._get_path(meta, key.path)
        assert present == schema._get_path(got, key.path)[0], key.path


def test_time_columns_subtract_overhead(tmp_path: Path) -> None:
    frame, meta = _sim(4)
    df = read_runs(write_run(frame, tmp_path / "t.parquet", meta))
    overhead = meta["timer"]["overhead_ns"]
    np.testing.assert_allclose(df["time_ns_raw"], df["ns"] / df["evals"])
    np.testing.assert_allclose(df["time_ns"], (df["ns"] - overhead) / df["evals"])


def test_many_files_globs_and_directories(tmp_path: Path) -> None:
    paths = [_write(tmp_path, f"r{i}.parquet", seed=i) for i in range(5)]
    by_glob = read_runs(str(tmp_path / "r*.parquet"))
    by_dir = read_runs(tmp_path)
    by_list = read_runs(paths)
    assert len(by_glob.attrs["runs"]) == 5
    assert len(by_glob) == 5 * 100
    pd.testing.assert_frame_equal(by_glob, by_dir)
    pd.testing.assert_frame_equal(by_glob, by_list)
    assert set(by_glob["run"].cat.categories) == set(by_glob.attrs["runs"])


def test_golden_v1_file_still_reads() -> None:
    df = read_runs(DATA / "golden-v1.parquet")
    rid = "00000000-0000-4000-8000-000000000001"
    assert list(df.attrs["runs"]) == [rid]
    meta = df.attrs["runs"][rid]
    assert meta["schema_version"] == 1
    assert meta["host"]["cpu_model"] == "golden"
    assert sorted(df["benchmark"].unique()) == ["alpha", "beta"]
    assert len(df) == 80 and (df["evals"] == 8).all()
    # per-evaluation time of the golden file, checked against its raw columns
    np.testing.assert_allclose(df["time_ns"], (df["ns"] - 25.0) / 8)
    assert df["work"].notna().all()


def test_reading_never_modifies_input(tmp_path: Path) -> None:
    p = _write(tmp_path)
    before = hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns
    read_runs(p)
    assert (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) == before


# ---------------------------------------------------------------- error cases
def _err(paths, *needles: str) -> str:
    with pytest.raises(InvalidRunError) as info:
        read_runs(paths)
    msg = str(info.value)
    assert "\n" not in msg
    for n in needles:
        assert n in msg, (n, msg)
    return msg


def test_error_path_or_glob_matching_nothing(tmp_path: Path) -> None:
    _err(tmp_path / "missing.parquet", "missing.parquet", "no such file")
    _err(str(tmp_path / "none*.parquet"), "none*.parquet", "matches no file")
    (tmp_path / "empty").mkdir()
    _err(tmp_path / "empty", "empty", "no .parquet")
    # an empty list, or a glob that matches directories only: a pandas ValueError
    # ("No objects to concatenate") before
    _err([], "paths", "no run file given")
    (tmp_path / "d1").mkdir()
    _err(str(tmp_path / "d*"), "paths", "no run file given")


def test_error_not_parquet(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hello, not a run\n")
    _err(p, "notes.txt", "not a Parquet file")


def test_error_truncated_or_corrupt(tmp_path: Path) -> None:
    p = _write(tmp_path)
    data = p.read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(data[: len(data) // 2])
    _err(cut, "cut.parquet", "truncated or corrupt")


def test_error_missing_column(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    p = _raw_write(tmp_path / "nocol.parquet", t.drop_columns(["evals"]), meta)
    _err(p, "nocol.parquet", "column evals: missing")


def test_error_wrong_dtype(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    i = t.schema.get_field_index("ns")
    t = t.set_column(i, "ns", pa.array([str(v) for v in t.column("ns").to_pylist()]))
    p = _raw_write(tmp_path / "dtype.parquet", t, meta)
    _err(p, "dtype.parquet", "column ns: expected float64, got string")


@pytest.mark.parametrize("bad, needle", [(None, "null at row 3"), (float("nan"), "not finite"), (float("inf"), "not finite")])
def test_error_null_or_non_finite_time(tmp_path: Path, bad, needle) -> None:
    t, meta = _good_table(tmp_path)
    t = _with_cell(t, "ns", 3, bad)
    p = _raw_write(tmp_path / "bad.parquet", t, meta)
    _err(p, "bad.parquet", "column ns", needle)


@pytest.mark.parametrize("bad", [0.0, -5.0])
def test_error_zero_or_negative_time(tmp_path: Path, bad: float) -> None:
    t, meta = _good_table(tmp_path)
    t = _with_cell(t, "ns", 7, bad)
    p = _raw_write(tmp_path / "neg.parquet", t, meta)
    _err(p, "neg.parquet", "column ns", "row 7", "not > 0")


def test_error_evals_below_one(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    t = _with_cell(t, "evals", 5, 0)
    p = _raw_write(tmp_path / "ev.parquet", t, meta)
    _err(p, "ev.parquet", "column evals", "row 5", "not a whole number from 1 to")


def test_error_duplicate_sample(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    t = _with_cell(t, "sample", 1, t.column("sample")[0].as_py())
    p = _raw_write(tmp_path / "dup.parquet", t, meta)
    _err(p, "dup.parquet", "duplicate (run, benchmark, sample)", "rows 0 and 1")


def test_error_duplicate_across_files(tmp_path: Path) -> None:
    p = _write(tmp_path, "one.parquet")
    copy = tmp_path / "two.parquet"
    copy.write_bytes(p.read_bytes())
    _err([p, copy], "duplicate (run, benchmark, sample)", "across files")


def test_error_newer_schema_version(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    meta["schema_version"] = schema.SCHEMA_VERSION + 1
    p = _raw_write(tmp_path / "future.parquet", t, meta)
    _err(p, "future.parquet", "schema_version", "newer than this tsanalyze supports")


def test_error_metadata_not_json(tmp_path: Path) -> None:
    t, _ = _good_table(tmp_path)
    p = _raw_write(tmp_path / "badjson.parquet", t, b"{not json")
    _err(p, "badjson.parquet", "not valid JSON")


def test_error_no_metadata(tmp_path: Path) -> None:
    t, _ = _good_table(tmp_path)
    p = tmp_path / "plain.parquet"
    pq.write_table(t.replace_schema_metadata({}), p)
    _err(p, "plain.parquet", "not a tsanalyze run")


def test_error_same_run_id_different_metadata(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    half = t.num_rows // 2
    a = _raw_write(tmp_path / "a.parquet", t.slice(0, half), meta)
    meta2 = {**meta, "created_utc": "2020-01-01T00:00:00Z"}
    b = _raw_write(tmp_path / "b.parquet", t.slice(half), meta2)
    _err([a, b], "b.parquet", meta["run"], "a.parquet", "different metadata")


def test_error_run_column_disagrees_with_metadata(tmp_path: Path) -> None:
    t, meta = _good_table(tmp_path)
    meta = {**meta, "run": "someone-else"}
    p = _raw_write(tmp_path / "mismatch.parquet", t, meta)
    _err(p, "mismatch.parquet", "column run", "someone-else")


def test_validate_reports_every_problem() -> None:
    problems = schema.validate(
        {"benchmark": "string", "ns": "string"},
        {"schema_version": 99, "created_utc": "yesterday", "clock": {"source": "sundial"}},
    )
    text = "\n".join(problems)
    for needle in ("column run: missing", "column evals: missing", "column ns: expected float64",
                   "metadata key run: missing", "schema_version", "created_utc", "clock.source"):
        assert needle in text
    assert len(problems) >= 7


# ---------------------------------------------------------------- writing
def test_write_refuses_to_overwrite(tmp_path: Path) -> None:
    p = _write(tmp_path)
    before = p.read_bytes()
    frame, meta = _sim(9)
    with pytest.raises(RunExistsError, match="already exists"):
        write_run(frame, p, meta)
    assert p.read_bytes() == before
    write_run(frame, p, meta, overwrite=True)
    assert read_runs(p).attrs["runs"].keys() == {meta["run"]}


def test_simulated_crash_leaves_nothing_under_final_name(tmp_path: Path, monkeypatch) -> None:
    frame, meta = _sim(5)

    def crash(table, where, **kw):
        where.write(b"PAR1 half a file")
        raise KeyboardInterrupt("simulated crash while writing")

    monkeypatch.setattr(runs_mod.pq, "write_table", crash)
    with pytest.raises(KeyboardInterrupt):
        write_run(frame, tmp_path / "final.parquet", meta)
    assert not (tmp_path / "final.parquet").exists()
    assert list(tmp_path.iterdir()) == []  # the temporary file is gone too


def test_write_rejects_invalid_metadata(tmp_path: Path) -> None:
    frame, meta = _sim(6)
    bad = {**meta, "clock": {"source": "sundial"}}
    with pytest.raises(InvalidRunError, match=r"clock\.source"):
        write_run(frame, tmp_path / "x.parquet", bad)
    assert not (tmp_path / "x.parquet").exists()


def test_public_api_exposes_reader() -> None:
    assert tsanalyze.read_runs is read_runs
    assert tsanalyze.write_run is write_run


def test_written_file_is_readable_by_others(tmp_path: Path) -> None:
    p = _write(tmp_path)
    umask = os.umask(0)
    os.umask(umask)
    assert p.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_runs_and_imported_files_read_together_keep_every_row() -> None:
    # a run without a `kind` column next to an import that has one (pyperf warm-ups)
    df = read_runs([DATA / "golden-v1.parquet", DATA / "pyperf" / "outliers.json.gz"])
    sizes = df.groupby("benchmark", observed=True).size()
    assert sizes["alpha"] == 40 and sizes["beta"] == 40
    # pyperf's documented answer: 60 values (warm-ups dropped by default)
    assert sizes.drop(["alpha", "beta"]).sum() == 60
    with_warmups = read_runs([DATA / "pyperf" / "outliers.json.gz"], include_warmups=True)
    assert len(with_warmups) > 60


def test_run_metadata_is_shared_by_the_frames_pandas_derives(tmp_path: Path) -> None:
    # pandas deep-copies attrs on every operation; with thousands of runs that made a
    # loop over df.groupby("run") quadratic (500 of 5,000 runs' groups took 47 s). The
    # metadata is one object that every derived frame shares, and it still travels by
    # pickle (to workers) as the plain mapping it holds
    import copy
    import pickle

    paths = [_write(tmp_path, f"r{i}.parquet", seed=i) for i in range(3)]
    df = read_runs(paths)
    meta = df.attrs["runs"]
    assert isinstance(meta, schema.RunsAttr) and len(meta) == 3
    assert copy.deepcopy(meta) is meta
    for _, g in df.groupby("run", observed=True):
        assert g.attrs["runs"] is meta
    assert df.copy().attrs["runs"] is meta and df[df["sample"] > 3].attrs["runs"] is meta
    back = pickle.loads(pickle.dumps(df))
    assert isinstance(back.attrs["runs"], schema.RunsAttr) and back.attrs["runs"] == dict(meta)
    assert back.attrs["runs"] is not meta
