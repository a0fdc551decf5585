"""The write path of issue 19: faster, and the same rows and files' meaning as before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.checks import check_rows
from tsanalyze.io.runs import _first_appearance, read_runs, write_run


@pytest.mark.parametrize("seed", range(40))
def test_first_appearance_is_factorize(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 90))
    n = int(rng.choice([1, 10, 5000, 20000]))
    codes = rng.integers(0, k, n).astype(rng.choice([np.int8, np.int16, np.int32]))
    if seed % 3 == 0:  # long blocks: codes first seen after the first rows
        codes = np.sort(codes)[:: 1 if seed % 2 else -1].copy()
    got_codes, got_used = _first_appearance(codes)
    want_codes, want_used = pd.factorize(codes, sort=False)
    assert np.array_equal(got_codes, want_codes) and np.array_equal(got_used, want_used)


def test_written_run_reads_back_with_categories_unused_and_shuffled(tmp_path) -> None:
    sim = simulate_run({"x": 100.0, "y": 200.0}, n_rounds=3000, rng=1, run="r")
    frame = sim.frame.sort_values(["benchmark", "sample"]).reset_index(drop=True)
    frame["benchmark"] = frame["benchmark"].astype(
        pd.CategoricalDtype(["unused", "y", "x", "also-unused"])
    )
    (meta,) = sim.frame.attrs["runs"].values()
    path = write_run(frame, tmp_path / "r.parquet", meta)
    back = read_runs(path)
    assert back["benchmark"].astype(str).tolist() == frame["benchmark"].astype(str).tolist()
    assert back["run"].astype(str).unique().tolist() == ["r"]
    np.testing.assert_array_equal(back["ns"].to_numpy(), frame["ns"].to_numpy())
    # the run column is stored as a dictionary, like the benchmark column
    assert pa.types.is_dictionary(pq.read_schema(path).field("run").type)
    # few-valued columns dictionary-encoded, times and indices plain
    col = {c.path_in_schema: c for c in (pq.ParquetFile(path).metadata.row_group(0).column(j) for j in range(10))}
    assert "RLE_DICTIONARY" in col["benchmark"].encodings and "RLE_DICTIONARY" in col["evals"].encodings
    assert "RLE_DICTIONARY" not in col["ns"].encodings and "RLE_DICTIONARY" not in col["sample"].encodings


def test_the_float_range_check_still_finds_every_bad_time(tmp_path) -> None:
    sim = simulate_run({"x": 100.0}, n_rounds=50, rng=2, run="r")
    table = pa.Table.from_pandas(sim.frame.drop(columns=["time_ns", "time_ns_raw"]), preserve_index=False)
    for bad in (np.nan, np.inf, 0.0, -1.0, 2.0**64, 1e-12):
        ns = table.column("ns").to_numpy().copy()
        ns[17] = bad
        t = table.set_column(table.schema.get_field_index("ns"), "ns", pa.array(ns))
        with pytest.raises(InvalidRunError, match="column ns"):
            check_rows("f.parquet", t, ["r"])
    # chunked, no bad value: accepted
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=7))
    check_rows("f.parquet", chunked, ["r"])


def test_a_name_the_file_system_holds_is_written(tmp_path) -> None:
    # before: the temporary file beside it (".<name>.<random>.tmp", 14 bytes longer) was
    # too long for names of 242 to 255 bytes: "File name too long", nothing written
    sim = simulate_run({"x": 100.0}, n_rounds=5, rng=1, run="r")
    (meta,) = sim.frame.attrs["runs"].values()
    path = tmp_path / ("é" * 119 + "run.parquet")  # 238 + 11 = 249 bytes
    assert write_run(sim.frame, path, meta) == path
    assert len(read_runs(path)) == 5
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
