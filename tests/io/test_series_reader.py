"""One series at a time (issue 19): the same rows as read_runs, and nothing else read."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.runs import read_runs, read_series, write_run, write_runs
from tsanalyze.io.series_reader import iter_series, scan_runs


@pytest.fixture
def files(tmp_path):
    a = simulate_run({"x": 100.0, "y": 200.0}, n_rounds=300, rng=1, run="r1")
    b = simulate_run({"x": 110.0, "z": 50.0}, n_rounds=200, rng=2, run="r2")
    c = simulate_run({"x": 120.0}, n_rounds=100, rng=3, run="r3")
    write_run(a.frame, tmp_path / "a.parquet", next(iter(a.frame.attrs["runs"].values())))
    both = pd.concat([b.frame, c.frame], ignore_index=True)
    metas = [*b.frame.attrs["runs"].values(), *c.frame.attrs["runs"].values()]
    # shuffled rows, small row groups: order and pruning must not matter
    shuffled = both.sample(frac=1.0, random_state=0).reset_index(drop=True)
    write_runs(shuffled, tmp_path / "bc.parquet", metas)
    return tmp_path


def test_each_series_is_what_read_runs_gives(files):
    full = read_runs(files)
    found = scan_runs(files)
    assert sorted(found.series()) == sorted(
        {(str(r), str(b)) for r, b in zip(full["run"], full["benchmark"], strict=True)}
    )
    for run, bench in found.series():
        one = read_series(found, run, bench)
        want = full[(full["run"] == run) & (full["benchmark"] == bench)].sort_values("sample")
        assert list(one.columns) == list(want.columns)
        for c in ("sample", "round", "ns", "evals", "time_ns", "time_ns_raw"):
            np.testing.assert_array_equal(one[c].to_numpy(), want[c].to_numpy())
        assert set(one["benchmark"].cat.categories) == {bench}
        assert list(one.attrs["runs"]) == [run]
        assert one.attrs["runs"][run] == full.attrs["runs"][run]


def test_iter_series_covers_every_sample_once(files):
    assert sum(len(s) for s in iter_series(files)) == len(read_runs(files))


def test_scan_reads_footers_only(files, monkeypatch):
    def no_samples(*args, **kwargs):
        raise AssertionError("scan_runs read samples")

    monkeypatch.setattr(pq.ParquetFile, "read", no_samples)
    found = scan_runs(files)
    assert set(found.runs) == {"r1", "r2", "r3"}
    assert found.runs["r3"]["file"].endswith("bc.parquet")


def test_unknown_series_and_bad_rows_are_one_line_errors(files, tmp_path):
    with pytest.raises(InvalidRunError, match="no run 'nope'"):
        read_series(files, "nope", "x")
    with pytest.raises(InvalidRunError, match="run 'r1' has no benchmark 'z'"):
        read_series(files, "r1", "z")
    table = pq.read_table(files / "a.parquet")
    ns = table.column("ns").to_numpy().copy()
    ns[5] = -1.0
    i = table.schema.get_field_index("ns")
    pq.write_table(table.set_column(i, "ns", [ns]), tmp_path / "neg.parquet")
    with pytest.raises(InvalidRunError, match=r"neg\.parquet.*column ns"):
        read_series(tmp_path / "neg.parquet", "r1", str(table.column("benchmark")[5]))


def test_a_file_of_another_tool_is_refused(tmp_path):
    p = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), p)
    with pytest.raises(InvalidRunError, match="not a tsanalyze run"):
        scan_runs(p)


def test_series_of_a_file_whose_row_groups_have_different_dictionaries(tmp_path):
    # each row group with its own run/benchmark dictionary, as pyarrow writes a table
    # made of separately encoded chunks (the bundled python-startup sample is such a file)
    run = simulate_run({"x": 100.0, "y": 200.0}, n_rounds=50, rng=4, run="r1")
    write_run(run.frame, tmp_path / "r.parquet", next(iter(run.frame.attrs["runs"].values())))
    t = pq.read_table(tmp_path / "r.parquet")
    meta = t.schema.metadata
    parts = [t.slice(0, 50), t.slice(50)]
    for i, part in enumerate(parts):  # the second part's dictionaries list y first
        cols = {}
        for name in part.column_names:
            col = part.column(name).combine_chunks()
            if pa.types.is_dictionary(col.type):
                values = col.dictionary_decode()
                order = pa.array(sorted(set(values.to_pylist()), reverse=bool(i)))
                col = pa.DictionaryArray.from_arrays(
                    pa.compute.index_in(values, value_set=order).cast(col.type.index_type), order
                )
            cols[name] = col
        parts[i] = pa.table(cols)
    merged = pa.concat_tables(parts).replace_schema_metadata(meta)
    pq.write_table(merged, tmp_path / "r.parquet", row_group_size=50)
    assert pq.ParquetFile(tmp_path / "r.parquet").metadata.num_row_groups == 2
    found = scan_runs(tmp_path / "r.parquet")
    full = read_runs(tmp_path / "r.parquet")
    keys = zip(full["run"].astype(str), full["benchmark"].astype(str), strict=True)
    want = list(dict.fromkeys(keys))
    assert found.series() == want == [("r1", "x"), ("r1", "y")]


# ------------------------------------------------ small files read whole once (issue 24)


@pytest.mark.parametrize("rows", [0, 10**6])  # every file read filtered / every file whole
def test_small_files_give_the_same_series_as_filtered_reads(files, monkeypatch, rows):
    from tsanalyze.io import series_reader

    found = scan_runs(files)
    monkeypatch.setattr(series_reader, "_small_files", series_reader._SmallFiles())
    monkeypatch.setattr(series_reader, "WHOLE_FILE_ROWS", rows)
    got = {k: read_series(found, *k, columns=("ticks",)) for k in found.series()}
    monkeypatch.setattr(series_reader, "_small_files", series_reader._SmallFiles())
    monkeypatch.setattr(series_reader, "WHOLE_FILE_ROWS", 10**6 - rows)
    for k, one in got.items():
        pd.testing.assert_frame_equal(one, read_series(found, *k, columns=("ticks",)))
        assert one.attrs == read_series(found, *k).attrs


def test_a_small_file_is_read_once_and_again_when_rewritten(files, monkeypatch):
    from tsanalyze.io import series_reader

    reads: list[str] = []

    class Counted(series_reader._SmallFiles):
        @staticmethod
        def _read(dset, columns):
            reads.append("whole")
            return series_reader._SmallFiles._read(dset, columns)

    monkeypatch.setattr(series_reader, "_small_files", Counted())
    found = scan_runs(files)
    for run, bench in found.series():
        read_series(found, run, bench)
    assert reads == ["whole", "whole"]  # a.parquet, bc.parquet: 5 series, 2 reads
    # the file rewritten with other samples: read again, the new samples given
    x = read_series(found, "r1", "x")
    new = simulate_run({"x": 900.0, "y": 200.0}, n_rounds=300, rng=9, run="r1")
    (files / "a.parquet").unlink()
    write_run(new.frame, files / "a.parquet", next(iter(new.frame.attrs["runs"].values())))
    y = read_series(scan_runs(files), "r1", "x")
    assert reads.count("whole") == 3
    assert y["ns"].median() > 5 * x["ns"].median()
