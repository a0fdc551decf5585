"""Parsing published numbers: CSV, YAML, JSON and benchstat-style text lines.

Values keep their printed digits (the audit reads them as intervals of the last digit),
so numbers come back as the text printed; :func:`_f` reads them as floats.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from tsanalyze.errors import AuditInputError, AuditInputWarning
from tsanalyze.io.audit_input import (
    merge_sources,
    parse_audit_text,
    read_audit_file,
    read_audit_input,
    rows_from_records,
)

AUDIT = Path(__file__).resolve().parents[1] / "data" / "audit"


def _f(row: dict[str, Any], key: str) -> float:
    return float(row[key])


def test_benchstat_text_line_from_seed004() -> None:
    # seed 004, first table: "Atomic/with-timer-8  32.6ns ± 7%"
    (row,) = parse_audit_text("name  time/op\nAtomic/with-timer-8  32.6ns ± 7%\n", "b.txt")
    assert row["name"] == "Atomic/with-timer-8" and row["source"] == "b.txt:2"
    assert (row["location"], row["unit"], row["spread"], row["spread_unit"]) == (
        "32.6",
        "ns",
        "7",
        "%",
    )
    # benchstat v1: "±" is the largest deviation from the mean; go test batches b.N
    # iterations per clock read and runs every sample in one process
    assert row["spread_kind"] == "range" and row["location_kind"] == "mean"
    assert row["batched"] is True and row["scope"] == "one-process"


@pytest.mark.parametrize(
    ("line", "location", "unit", "spread", "spread_unit"),
    [
        ("Atomic/n-1000/with-timer-8      4.65µs ± 3%", 4.65, "µs", 3.0, "%"),
        ("Atomic/n-1/with-timer-8         34.8ns ±12%", 34.8, "ns", 12.0, "%"),
        ("Atomic/n-100000/w/o-timer-8      432µs ± 0%", 432.0, "µs", 0.0, "%"),
        ("X-8  1.5ms +- 20us", 1.5, "ms", 20.0, "us"),
        ("Y  2e3 ns ± 1.5 ns", 2000.0, "ns", 1.5, "ns"),
    ],
)
def test_text_line_variants(
    line: str, location: float, unit: str, spread: float, spread_unit: str
) -> None:
    (row,) = parse_audit_text(line)
    assert _f(row, "location") == location and row["unit"] == unit
    assert _f(row, "spread") == spread and row["spread_unit"] == spread_unit


def test_text_n_from_count_column_or_annotation() -> None:
    rows = parse_audit_text("A-8  20  32.6ns ± 7%\nB-8  6.60ns ± 6%  n=18\n")
    assert rows[0]["n"] == 20 and rows[1]["n"] == 18


def test_text_skips_headers_and_config_lines() -> None:
    text = "goos: linux\ngoarch: amd64\n\nname  time/op\nA-8  1ns ± 1%\n"
    assert [r["name"] for r in parse_audit_text(text)] == ["A-8"]


def test_unreadable_line_is_skipped_with_a_warning_naming_it() -> None:
    # one unreadable line no longer rejects the file: it is skipped, and said so
    got = read_audit_file(AUDIT / "bad_pm.txt")
    assert [r["name"] for r in got.rows] == ["Foo-8"]
    (note,) = got.notes
    assert note.code == "line-skipped" and note.severity == "warning"
    assert "bad_pm.txt:3" in note.message and "seven%" in note.message
    with pytest.warns(AuditInputWarning, match=r"bad_pm\.txt:3"):
        read_audit_input(AUDIT / "bad_pm.txt")
    # nothing readable at all is still an error naming the file
    with pytest.raises(AuditInputError, match=r"x\.txt: no benchmark result"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AuditInputWarning)
            parse_audit_text("± 7%", "x.txt")
    with pytest.raises(AuditInputError, match=r"empty\.txt: no benchmark result"):
        parse_audit_text("name time/op\n", "empty.txt")


def test_yaml_defaults_and_fixture() -> None:
    rows = read_audit_input(AUDIT / "seed004_atomic.yaml")
    assert len(rows) == 14
    assert all(r["n"] == 20 and r["spread_unit"] == "%" for r in rows)
    assert rows[0]["compare_to"] == "Atomic/w/o-timer-8"
    assert rows[8]["unit"] == "us"


def test_csv_with_comments_keeps_line_numbers(tmp_path: Path) -> None:
    rows = read_audit_input(AUDIT / "clean.csv")
    assert [r["name"] for r in rows] == ["parse/json", "parse/gob"]
    assert rows[0]["source"].endswith("clean.csv:3")
    assert rows[1]["compare_to"] == ""
    p = tmp_path / "extra.csv"
    p.write_text("name,location\nA,1,2\n", encoding="utf-8")
    with pytest.raises(AuditInputError, match=r"extra\.csv:2"):
        read_audit_input(p)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(AuditInputError, match="empty CSV"):
        read_audit_input(empty)


def test_json_list_and_units_in_values(tmp_path: Path) -> None:
    p = tmp_path / "r.json"
    p.write_text(
        '[{"name": "a", "mean": "4.65µs", "sd": "± 0.2 µs", "samples": 20},'
        ' {"name": "b", "median": "3 ms", "spread": "7%", "count": 9, "ci_level": "90%"}]',
        encoding="utf-8",
    )
    a, b = read_audit_input(p)
    assert (a["mean"], a["unit"]) == ("4.65", "µs")
    assert (a["spread"], a["spread_unit"], a["spread_kind"], a["n"]) == ("0.2", "µs", "sd", 20)
    assert (b["median"], b["unit"], b["n"]) == ("3", "ms", 9)
    assert (b["spread"], b["spread_unit"], b["ci_level"]) == ("7", "%", "90%")


def test_cli_style_defaults_fill_gaps_only(tmp_path: Path) -> None:
    rows = read_audit_input(AUDIT / "seed004_atomic.txt", n=20, evals=1, spread_kind="sd")
    assert all(r["n"] == 20 and r["evals"] == 1 for r in rows)
    # the option says what ± means where the file does not: benchstat's ±
    assert all(r["spread_kind"] == "sd" for r in rows)
    p = tmp_path / "r.yaml"
    p.write_text("- {name: a, location: 1, n: 5}\n", encoding="utf-8")
    assert read_audit_input(p, n=20)[0]["n"] == 5


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("bad.json", "[{", r"bad\.json: not valid JSON"),
        ("bad.yaml", "rows: [", r"bad\.yaml: not valid YAML"),
        ("scalar.yaml", "42", r"expected a list of rows"),
        ("norows.yaml", "{defaults: {n: 2}}", r"mapping with 'rows'"),
        ("badrow.yaml", "- 3\n", r"badrow\.yaml row 1: expected a mapping"),
        (
            "pct.yaml",
            "- {name: a, location: '3%'}\n",
            r"row 1 \(a\), field 'location': a percentage",
        ),
        ("unit.yaml", "- {name: a, location: '3 parsecs'}\n", r"field 'location': unknown unit"),
        ("conflict.yaml", "- {name: a, location: '3 ms', unit: ns}\n", r"field 'unit'"),
        ("baddefaults.yaml", "{defaults: 3, rows: []}", r"field 'defaults'"),
    ],
)
def test_structured_errors(tmp_path: Path, name: str, content: str, match: str) -> None:
    p = tmp_path / name
    p.write_text(content, encoding="utf-8")
    with pytest.raises(AuditInputError, match=match):
        read_audit_input(p)


def test_missing_file() -> None:
    with pytest.raises(AuditInputError, match="no such file"):
        read_audit_input(AUDIT / "does-not-exist.csv")


def test_rows_from_records_aliases() -> None:
    (row,) = rows_from_records([{"Benchmark": "x", "min": 3.0, "iterations": 10}], "t")
    assert row == {"name": "x", "min": 3.0, "evals": 10, "source": "t row 1"}


def test_benchstat_v2_comparison_lines() -> None:
    # benchstat testdata crcIgnore golden output: the first line of the sec/op table
    rows = read_audit_input(AUDIT / "benchstat_crcIgnore.stdout")
    base, new = rows[0], rows[1]
    assert base["name"] == "CRC32/poly=IEEE/size=15/align=0-8 [crc-old.txt]"
    assert (base["location"], base["unit"], base["spread"], base["n"]) == ("46.55", "n", "9", 10)
    # benchstat v2 is recognised by its table rules: "±" is a CI of the median
    assert base["spread_kind"] == "ci" and base["location_kind"] == "median"
    assert new["compare_to"] == base["name"]
    assert (new["location"], new["claim"], new["claimed_change"], new["claimed_pvalue"]) == (
        "44.40",
        "different",
        "-4.62%",
        "0.008",
    )
    # "~ (p=0.539 n=10)": a claim of no difference
    assert rows[3]["claim"] == "same" and "claimed_change" not in rows[3]
    # the B/s table that follows is skipped (derived from the times), said in a note
    assert len(rows) == 72 and all(r["unit"] in ("n", "µ") for r in rows)
    got = read_audit_file(AUDIT / "benchstat_crcIgnore.stdout")
    assert [n.code for n in got.notes] == ["table-skipped"] and "B/s" in got.notes[0].message


def test_benchstat_v1_comparison_line_with_two_counts() -> None:
    text = (
        "name                   old time/op  new time/op  delta\n"
        "Encode/format=json-48  1.72µs ± 1%  1.42µs ± 2%  -17.20%  (p=0.000 n=10+9)\n"
    )
    base, new = parse_audit_text(text, "v1.txt")
    assert base["name"] == "Encode/format=json-48 [base]" and base["spread_kind"] == "range"
    assert (base["n"], new["n"]) == (10, 9)
    assert new["claimed_change"] == "-17.20%"
    assert new["claimed_pvalue"] == "0.000"


def test_benchmarktools_trial_display() -> None:
    # hand-made in BenchmarkTools.jl's layout: name from "@benchmark", n and evals from
    # the Trial header, mean and sd from "Time  (mean ± σ)", min/max/median and GC shares
    rows = read_audit_input(AUDIT / "benchmarktools.txt")
    assert [r["name"] for r in rows] == ["sum($x)", "sort($v)"]
    first = rows[0]
    assert (first["location"], first["unit"], first["spread"], first["spread_unit"]) == (
        "15.409",
        "ns",
        "1.435",
        "ns",
    )
    assert (first["n"], first["evals"], first["spread_kind"]) == (10000, 998, "sd")
    assert (first["min"], first["max"], first["median"]) == ("14.848", "44.198", "15.099")
    assert (first["gc_share"], first["gc_max"]) == ("0.00%", "0.00%")
    assert (rows[1]["n"], rows[1]["evals"], rows[1]["unit"]) == (9, 1, "ms")
    assert (rows[1]["gc_share"], rows[1]["gc_max"]) == ("1.89%", "1.69%")
    # without an "@benchmark" line the trials are numbered
    text = (
        "BenchmarkTools.Trial: 100 samples with 1 evaluation per sample.\n"
        " Time  (mean ± σ):   53.550 μs ± 489.922 μs  ┊ GC (mean ± σ):  21.75% ±  2.81%\n"
    )
    (row,) = parse_audit_text(text)
    assert row["name"] == "trial 1" and row["unit"] == "μs" and row["n"] == 100
    assert row["gc_share"] == "21.75%"


def test_pytest_benchmark_summaries_feed_the_audit() -> None:
    import json

    # pytest-benchmark (BSD-2) storage test file: summary statistics only, no raw data
    folder = Path(__file__).resolve().parents[1] / "data" / "importers" / "pytest-benchmark"
    path = next(folder.glob("0001_*.json"))
    (row,) = read_audit_input(path)
    stats = json.loads(path.read_text())["benchmarks"][0]["stats"]
    assert int(row["n"]) == stats["rounds"]
    assert float(row["location"]) * _SCALE[row.get("unit", "s")] == pytest.approx(stats["mean"])
    assert row["tool"] == "pytest-benchmark"


def test_a_saved_pytest_benchmark_sd_is_exact_and_an_impossible_one_is_found() -> None:
    # the pytest-benchmark storage file 0002 saves stddev 0 for 11009 rounds from 216.9 ns
    # to 7.74 us: impossible (at least (max - min) / sqrt(2n) = 52 ns). Read as printed
    # digits, the integer 0 meant "below 0.5 s" and passed; the saved floats are exact
    from tsanalyze.analysis.audit import audit

    folder = Path(__file__).resolve().parents[1] / "data" / "importers" / "pytest-benchmark"
    rows = read_audit_input(next(folder.glob("0002_*.json")))
    assert all(r["rounding"] == "none" for r in rows)
    res = audit(rows)
    codes = {f.code for f in res.findings}
    assert "sd-impossible" in codes
    # the same row typed by hand as printed text keeps the digits' interval (no finding)
    typed = [{**rows[0], "rounding": "nearest"}]
    assert "sd-impossible" not in {f.code for f in audit(typed).findings}


def test_files_reusing_names_become_prefixed_groups(tmp_path: Path) -> None:
    a, b = tmp_path / "old.txt", tmp_path / "new.txt"
    a.write_text("name  time/op\nX-8  10.0ns ± 1%\n", encoding="utf-8")
    b.write_text("name  time/op\nX-8  12.0ns ± 1%\n", encoding="utf-8")
    rows, notes = merge_sources([read_audit_file(a), read_audit_file(b)], ["old", "new"])
    assert [r["name"] for r in rows] == ["X-8", "new: X-8"] and notes == ()


_SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
