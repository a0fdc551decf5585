"""`tsanalyze audit`: table and JSON output, exit codes 0 / 1 / 2."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from _helpers import assert_same_json
from typer.testing import CliRunner

from tsanalyze.cli.app import app

runner = CliRunner()
AUDIT = Path(__file__).resolve().parents[1] / "data" / "audit"


def _relative_sources(doc: Any) -> Any:
    """``source`` fields relative to the repository (the golden file was written there)."""
    if isinstance(doc, dict):
        return {
            k: (re.sub(r"^.*?(tests/data/audit/)", r"\1", v) if k == "source" and isinstance(v, str)
                else _relative_sources(v))
            for k, v in doc.items()
        }  # fmt: skip
    if isinstance(doc, list):
        return [_relative_sources(v) for v in doc]
    return doc


def _approx_equal(a: Any, b: Any) -> None:
    """Structural equality with a relative tolerance on floats (scipy versions differ in
    the last bits); keys in any order."""
    assert_same_json(a, b, rel_tol=1e-7, abs_tol=1e-300, ordered_keys=False)


def test_seed004_table_exits_1_and_names_the_timer_row() -> None:
    res = runner.invoke(app, ["audit", str(AUDIT / "seed004_atomic.yaml")])
    # seed 004's with-timer rows are timer-overhead dominated: serious -> exit 1
    assert res.exit_code == 1, res.output
    assert "timer-overhead" in res.output
    assert "Atomic/n-1/with-timer-8" in res.output
    assert "serious" in res.output


def test_seed004_json_matches_golden_file() -> None:
    res = runner.invoke(app, ["audit", "--format", "json", str(AUDIT / "seed004_atomic.yaml")])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    # golden file: `tsanalyze audit tests/data/audit/seed004_atomic.yaml --format json`,
    # regenerated for issue 16 and reviewed by hand against seed 004 and the previous
    # golden: new high-variation warnings (sd >= 10% of the mean), the n-1000 pair is
    # "cannot be confirmed" (sd only bounded from "± x%") instead of "not significant",
    # the 43.5 ms samples of n-10000/w/o-timer are drift rather than σ-blowup, and the
    # "± 0%" row says its spread is a bound
    golden = json.loads((AUDIT / "seed004_atomic.golden.json").read_text(encoding="utf-8"))
    _approx_equal(_relative_sources(doc), golden)
    assert doc["serious"] is True
    assert len(doc["comparisons"]) == 7


def test_text_input_with_n_option() -> None:
    res = runner.invoke(
        app, ["audit", "--n", "20", "-f", "json", str(AUDIT / "seed004_atomic.txt")]
    )
    # evals unknown: the clock findings stay warnings; ± ranges with n = 20: nothing serious
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert {r["n"] for r in doc["rows"]} == {20}
    assert doc["worst"] == "warning"


def test_clean_file_exits_0() -> None:
    res = runner.invoke(app, ["audit", str(AUDIT / "clean.csv")])
    assert res.exit_code == 0, res.output
    assert "difference-significant" in res.output
    res = runner.invoke(app, ["audit", "-f", "json", str(AUDIT / "clean.csv")])
    doc = json.loads(res.stdout)
    assert doc["serious"] is False
    assert doc["comparisons"][0]["significant"] is True


def test_several_files_and_no_serious_without_clock_check() -> None:
    res = runner.invoke(
        app,
        ["audit", "--clock-overhead-ns", "0", str(AUDIT / "clean.csv"), str(AUDIT / "boyer.json")],
    )
    # Boyer's nanobenchmark: 1.4 s samples with an sd of 0.1% are drift between samples,
    # a warning about the sd, not a reason to distrust the mean
    assert res.exit_code == 0, res.output
    assert "sample-drift" in res.output
    # pytest-benchmark's table with a row whose sd is 82% of its mean: serious
    res = runner.invoke(app, ["audit", str(AUDIT / "formats" / "pytest_benchmark.txt")])
    assert res.exit_code == 1 and "high-variation" in res.output


def test_unreadable_line_is_a_warning_not_a_failure() -> None:
    res = runner.invoke(app, ["audit", "-f", "json", str(AUDIT / "bad_pm.txt")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (note,) = [f for f in doc["findings"] if f["code"] == "line-skipped"]
    assert note["severity"] == "warning" and "bad_pm.txt:3" in note["message"]
    assert [r["name"] for r in doc["rows"]] == ["Foo-8"]


def test_raw_timing_json_points_to_the_right_command() -> None:
    # pyperf's own result file (MIT, psf/pyperf): raw timings, not published summaries
    telco = AUDIT.parent / "importers" / "pyperf" / "telco.json"
    res = runner.invoke(app, ["audit", str(telco)])
    assert res.exit_code == 2
    assert "tsanalyze report" in res.stderr and "telco.json" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_gzipped_input_is_read_as_the_importers_read_it(tmp_path: Path) -> None:
    # before: pyperf's documented outliers.json.gz gave "not UTF-8 text (byte 1)", and
    # gzipped text could not be audited at all
    gz = AUDIT.parent / "importers" / "pyperf" / "py2.json.gz"
    res = runner.invoke(app, ["audit", str(gz)])
    assert res.exit_code == 2
    assert "pyperf" in res.stderr and "tsanalyze report" in res.stderr, res.stderr
    text = AUDIT / "formats" / "pytest_benchmark.txt"
    packed = tmp_path / "pytest_benchmark.txt.gz"
    packed.write_bytes(gzip.compress(text.read_bytes()))
    plain = runner.invoke(app, ["audit", "-f", "json", str(text)])
    got = runner.invoke(app, ["audit", "-f", "json", str(packed)])
    assert got.exit_code == plain.exit_code == 1, got.output
    assert got.stdout.replace(str(packed), str(text)) == plain.stdout
    packed.write_bytes(gzip.compress(text.read_bytes())[:-9])  # truncated
    cut = runner.invoke(app, ["audit", str(packed)])
    assert cut.exit_code == 2 and "truncated or corrupt gzip" in cut.stderr, cut.output


@pytest.mark.parametrize(
    ("fixture", "needles"),
    [
        ("missing_location.csv", ["missing_location.csv:2", "(Foo)", "field 'location'"]),
        ("negative_sd.yaml", ["row 2", "(Bar)", "field 'spread'", "must be >= 0"]),
        ("formats/README.md", ["README.md", "no benchmark result"]),
        ("does-not-exist.yaml", ["does-not-exist.yaml", "no such file"]),
    ],
)
def test_bad_input_exits_2_naming_row_and_field(fixture: str, needles: list[str]) -> None:
    res = runner.invoke(app, ["audit", str(AUDIT / fixture)])
    assert res.exit_code == 2
    assert res.stdout == ""
    msg = res.stderr
    assert msg.startswith("tsanalyze: error: ") and len(msg.strip().splitlines()) == 1
    for needle in needles:
        assert needle in msg, msg
    assert "Traceback" not in msg


def test_bad_option_exits_2() -> None:
    res = runner.invoke(app, ["audit", "--alpha", "2", str(AUDIT / "clean.csv")])
    assert res.exit_code == 2
    assert "alpha" in res.stderr
