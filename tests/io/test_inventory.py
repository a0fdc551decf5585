"""The inventory behind ``tsanalyze info`` (issue 19): what read_runs would give, from the
footers, without reading a float sample or importing pandas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tsanalyze import schema
from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.inventory import inventory, parquet_inventory, time_span_s
from tsanalyze.io.runs import _to_arrow, read_runs, write_run, write_runs

DATA = Path(__file__).resolve().parents[1] / "data"


def _write_layout(frame: pd.DataFrame, path: Path, metas: list[dict], order: list[str], rows: int) -> Path:
    """The run file of ``frame`` with its rows sorted by ``order`` and row groups of ``rows``
    rows (pyarrow directly: write_run keeps the frame's order and one row group)."""
    table = _to_arrow(frame.sort_values(order, kind="stable"), path)
    stored = metas[0] if len(metas) == 1 else {"schema_version": schema.SCHEMA_VERSION, "runs": metas}
    table = table.replace_schema_metadata({schema.METADATA_KEY: schema.encode_metadata(stored)})
    pq.write_table(table, path, row_group_size=rows, compression="zstd")
    return path


@pytest.fixture
def runs() -> tuple[pd.DataFrame, list[dict]]:
    a = simulate_run({"x": 100.0, "y": 200.0, "w": 50.0}, n_rounds=700, rng=1, run="r1")
    b = simulate_run({"x": 110.0, "z": 50.0}, n_rounds=300, rng=2, run="r2")
    frame = pd.concat([a.frame, b.frame], ignore_index=True)
    frame["run"] = frame["run"].astype(str)
    frame["benchmark"] = frame["benchmark"].astype(str)
    metas = [*a.frame.attrs["runs"].values(), *b.frame.attrs["runs"].values()]
    return frame, metas


def _counts(df: pd.DataFrame) -> dict[tuple[str, str], int]:
    sizes = df.groupby(["run", "benchmark"], observed=True).size()
    return {(str(r), str(b)): int(n) for (r, b), n in sizes.items()}


@pytest.mark.parametrize(
    ("order", "rows", "footer_only"),
    [
        (["run", "benchmark", "sample"], 100, False),  # by series: most row groups are one series
        (["run", "benchmark", "sample"], 2100, False),  # row groups straddle series
        (["run", "round", "position"], 256, False),  # interleaved rounds, as the collector writes
        (["run", "round", "position"], 10**6, False),  # one row group
    ],
)
def test_counts_and_ranges_are_read_runs(tmp_path, runs, order, rows, footer_only) -> None:
    frame, metas = runs
    path = _write_layout(frame, tmp_path / "f.parquet", metas, order, rows)
    full = read_runs(path)
    inv = inventory(path)
    assert inv.samples == _counts(full)
    (fi,) = inv.files
    assert fi.rows == len(full) and fi.row_groups == pq.ParquetFile(path).metadata.num_row_groups
    for name in ("round", "position", "sample", "evals", "ticks", "start_ticks", "ns"):
        col = full[name]
        assert (fi.columns[name].min, fi.columns[name].max) == (col.min(), col.max()), name
        assert fi.columns[name].nulls == int(col.isna().sum())
    assert fi.columns["work"].nulls == len(full)  # simulated runs record no work
    assert [m["run"] for m in fi.runs] == ["r1", "r2"]


def test_row_groups_of_one_series_are_counted_from_their_statistics(tmp_path, runs) -> None:
    frame, metas = runs
    by_series = _write_layout(frame, tmp_path / "s.parquet", metas, ["run", "benchmark", "sample"], 130)
    inter = _write_layout(frame, tmp_path / "i.parquet", metas, ["run", "round", "position"], 100)
    md = pq.ParquetFile(by_series).metadata
    mixed = 0
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        keys = [rg.column(j).statistics for j in (0, 1)]  # benchmark, run
        mixed += rg.num_rows if any(s.min != s.max for s in keys) else 0
    assert 0 < mixed < md.num_rows
    assert parquet_inventory(by_series).rows_read == mixed
    assert parquet_inventory(inter).rows_read == md.num_rows  # every row group has 2+ series


def test_no_float_sample_is_read(tmp_path, runs, monkeypatch) -> None:
    frame, metas = runs
    path = _write_layout(frame, tmp_path / "f.parquet", metas, ["run", "round", "position"], 256)
    asked: list[list[str]] = []
    real = pq.ParquetFile.iter_batches

    def spy(self, *args, columns=None, **kwargs):
        asked.append(list(columns or []))
        return real(self, *args, columns=columns, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("read the samples")

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    for name in ("read", "read_row_group", "read_row_groups"):
        monkeypatch.setattr(pq.ParquetFile, name, refuse)
    monkeypatch.setattr(pq, "read_table", refuse)
    inv = inventory(path)
    assert asked == [["run", "benchmark"]]
    assert sum(inv.samples.values()) == len(frame)


def test_pandas_is_not_imported_for_parquet_files(tmp_path, runs) -> None:
    frame, metas = runs
    path = _write_layout(frame, tmp_path / "f.parquet", metas, ["run", "round", "position"], 256)
    code = (
        "import sys\nfrom tsanalyze.io.inventory import inventory\n"
        f"inv = inventory({str(path)!r})\n"
        "print(sum(inv.samples.values()), 'pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(len(frame)), "False"]


def test_time_span_is_the_start_ticks_range(tmp_path) -> None:
    sim = simulate_run({"x": 100.0, "y": 300.0}, n_rounds=500, rng=4, run="t")
    (meta,) = sim.frame.attrs["runs"].values()
    path = write_run(sim.frame, tmp_path / "t.parquet", meta)
    full = read_runs(path)
    inv = inventory(path)
    st = full["start_ticks"].astype("int64")
    assert time_span_s(inv, "t") == pytest.approx((st.max() - st.min()) / meta["clock"]["hz"])
    assert time_span_s(inv, "no such run") is None


def test_a_file_of_several_runs_has_no_time_span(tmp_path, runs) -> None:
    frame, metas = runs
    path = write_runs(frame, tmp_path / "two.parquet", metas)
    inv = inventory(path)
    assert time_span_s(inv, "r1") is None and time_span_s(inv, "r2") is None


def test_imported_files_are_read_whole_and_summarised_alike() -> None:
    files = sorted((DATA / "pyperf").glob("*.json*"))[:2]
    assert files
    full = read_runs(files)
    inv = inventory(files)
    assert inv.samples == _counts(full)
    assert all(f.format == "pyperf" and f.row_groups is None for f in inv.files)
    assert set(inv.runs) == set(full.attrs["runs"])


def test_warmup_rows_of_an_imported_run_file_are_not_counted_as_samples(tmp_path) -> None:
    # before: `info` of an imported pyperf file counted its warm-up rows as samples (4 per
    # run, and 16 for pyperf's calibration run, which measured nothing) where `info` of
    # the pyperf file itself, and read_runs, count 3 and none
    from tsanalyze.io.importers import load_table

    src = DATA / "importers" / "pyperf" / "py2.json.gz"
    t = load_table(src)
    assert set(t.frame["kind"].astype(str)) >= {"value", "warmup"}
    path = write_runs(t.frame, tmp_path / "py2.parquet", t.metadata.values())
    want = _counts(read_runs(path))
    assert parquet_inventory(path).samples == want == inventory(src).samples
    assert set(want.values()) == {3}


def test_runs_merged_across_files_as_read_runs_merges_them(tmp_path, runs) -> None:
    frame, metas = runs
    one = frame[frame["run"] == "r1"]
    write_run(one[one["sample"] < 300], tmp_path / "a.parquet", metas[0])
    write_run(one[one["sample"] >= 300], tmp_path / "b.parquet", metas[0])
    inv = inventory(tmp_path)
    assert inv.samples == _counts(read_runs(tmp_path))
    assert list(inv.runs) == ["r1"] and inv.runs["r1"]["file"].endswith("a.parquet")
    write_run(one, tmp_path / "c.parquet", {**metas[0], "created_utc": "2026-11-23T00:00:00Z"})
    with pytest.raises(InvalidRunError, match=r"c\.parquet: run id 'r1' is also claimed by"):
        inventory(tmp_path)


def test_rows_of_an_undeclared_run_are_refused(tmp_path, runs) -> None:
    frame, metas = runs
    path = _write_layout(frame, tmp_path / "f.parquet", metas[:1], ["run", "round"], 256)
    with pytest.raises(InvalidRunError, match=r"f\.parquet: column run: holds 'r2'"):
        parquet_inventory(path)
    with pytest.raises(InvalidRunError, match=r"f\.parquet: column run: holds 'r2'"):
        read_runs(path)  # the same refusal as read_runs


def test_bad_files_are_one_line_errors(tmp_path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 100)
    with pytest.raises(InvalidRunError, match=r"bad\.parquet: truncated or corrupt"):
        inventory(bad)
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), plain)
    with pytest.raises(InvalidRunError, match=r"plain\.parquet: not a tsanalyze run"):
        inventory(plain)


def test_info_json_from_the_inventory(tmp_path, runs) -> None:
    from typer.testing import CliRunner

    from tsanalyze.cli.app import app

    frame, metas = runs
    path = _write_layout(frame, tmp_path / "f.parquet", metas, ["run", "round", "position"], 256)
    res = CliRunner().invoke(app, ["info", str(path), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["tsanalyze_info_version"] == 2
    got = {(r["run"], b["benchmark"]): b["samples"] for r in doc["runs"] for b in r["benchmarks"]}
    assert got == _counts(read_runs(path))
    (f,) = doc["files"]
    assert f["rows"] == len(frame) and f["columns"]["evals"]["min"] >= 1
