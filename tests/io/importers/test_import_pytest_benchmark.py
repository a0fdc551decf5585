"""pytest-benchmark: summary statistics round-trip; raw data imported when saved."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tsanalyze.errors import ImportFormatError
from tsanalyze.io.importers import load, load_summaries, sniff

DATA = Path(__file__).resolve().parents[2] / "data" / "importers"
FILES = sorted((DATA / "pytest-benchmark").glob("*.json"))


def test_summaries_round_trip() -> None:
    assert len(FILES) == 3
    table = load_summaries(FILES)
    assert len(table) == 3
    for path, (_, row) in zip(FILES, table.iterrows(), strict=True):
        stats = json.loads(path.read_text())["benchmarks"][0]["stats"]
        assert row["benchmark"] == "tests/test_normal.py::test_xfast_parametrized[0]"
        # the same benchmark in several files: names made unique for the audit
        assert row["name"] == f"{row['benchmark']} [{path.name}]"
        assert row["source"] == str(path)
        assert row["location"] == stats["mean"] and row["location_kind"] == "mean"
        assert row["sd"] == row["spread"] == stats["stddev"] and row["spread_kind"] == "sd"
        assert row["n"] == stats["rounds"] and row["evals"] == stats["iterations"]
        # every other statistic of the file is a column of its name (rounds and iterations
        # are n and evals; "outliers" is pytest-benchmark's "mild;severe" text)
        others = {k: v for k, v in stats.items() if k not in ("rounds", "iterations", "outliers")}
        assert len(others) == 12  # min ... hd15iqr and the two outlier counts
        for k, v in others.items():
            assert row[k] == v, k
        assert row["unit"] == "s"
        assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert table["name"].is_unique
    # pytest-benchmark tests/test_cli.py::test_compare: (min, max) of runs 0001-0003
    expected = [
        (2.15628567e-07, 1.03186158e-05),
        (2.16902756e-07, 7.73929968e-06),
        (2.17314542e-07, 1.14473891e-05),
    ]
    got = sorted(zip(table["min"], table["max"], strict=True))
    for (gmin, gmax), (emin, emax) in zip(got, expected, strict=True):
        assert gmin == pytest.approx(emin, rel=1e-8) and gmax == pytest.approx(emax, rel=1e-8)


@pytest.mark.parametrize("location", ["median", "min"])
def test_summary_location_kind(location: str) -> None:
    row = load_summaries(FILES[0], location=location).iloc[0]  # type: ignore[arg-type]
    assert row["location"] == row[location] and row["location_kind"] == location


def test_summary_location_checked() -> None:
    with pytest.raises(ValueError, match="location"):
        load_summaries(FILES[0], location="mode")  # type: ignore[arg-type]


def test_summary_only_file_points_to_audit() -> None:
    assert sniff(FILES[0]) == "pytest-benchmark"
    with pytest.raises(
        ImportFormatError, match=r"0001_.*summary statistics only; use `tsanalyze audit`"
    ):
        load(FILES[0])


def test_raw_data_imported() -> None:
    path = DATA / "handmade" / "pytest-benchmark-data.json"
    doc = json.loads(path.read_text())
    stats = doc["benchmarks"][0]["stats"]
    runs = load(path)
    assert len(runs) == 1
    f = runs[0].frame
    per_iter = (f["ns"] / f["evals"]).to_numpy() / 1e9
    np.testing.assert_allclose(per_iter, stats["data"], rtol=1e-14)
    assert (f["evals"] == stats["iterations"]).all()
    # the file's own summary (pytest-benchmark stats.py formulas) agrees with the imported samples
    assert statistics.mean(per_iter.tolist()) == pytest.approx(stats["mean"], rel=1e-12)
    assert statistics.stdev(per_iter.tolist()) == pytest.approx(stats["stddev"], rel=1e-9)
    meta = runs[0].metadata
    assert meta["created_utc"] == "2026-11-20T13:55:02.114233Z"
    assert meta["source"]["version"] == "4.0.0"
    assert meta["host"]["logical_cores"] == 16
    # load_summaries reads files with data too
    s = load_summaries(path)
    assert isinstance(s, pd.DataFrame) and s["n"].iloc[0] == 25


def test_summaries_feed_the_audit() -> None:
    # the audit reads the spread from these rows (no "no dispersion" finding)
    import tsanalyze

    result = tsanalyze.audit(load_summaries(FILES))
    codes = set(result.to_frame()["code"])
    assert "no-dispersion" not in codes
    one = load_summaries(FILES[0])
    assert one["name"].iloc[0] == one["benchmark"].iloc[0]  # unique already: unchanged
