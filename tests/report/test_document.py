"""JSON report document: versioned, strict JSON, and stable (golden file)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from tsanalyze.analysis.runset import RunAnalysis, analyze
from tsanalyze.datasets import simulate_run
from tsanalyze.report.document import REPORT_VERSION, report_document, report_json

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
REGEN = os.environ.get("TSANALYZE_REGEN_GOLDEN") == "1"


def assert_matches(actual: Any, expected: Any, path: str = "$") -> None:
    """Same structure and strings; numbers equal to 1e-6 relative (float noise across
    platforms), so a changed number, key or type fails."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), path
        assert list(actual) == list(expected), f"{path}: keys differ"
        for k in expected:
            assert_matches(actual[k], expected[k], f"{path}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: length differs"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_matches(a, e, f"{path}[{i}]")
    elif isinstance(expected, float) and not isinstance(expected, bool):
        assert isinstance(actual, (int, float)), path
        assert math.isclose(actual, expected, rel_tol=1e-6, abs_tol=1e-9), (
            f"{path}: {actual} != {expected}"
        )
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def check_golden(name: str, document: dict[str, Any]) -> None:
    path = GOLDEN / name
    if REGEN or not path.exists():
        if not REGEN:
            pytest.fail(
                f"golden file {path} missing; run with TSANALYZE_REGEN_GOLDEN=1 to create it"
            )
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert_matches(document, json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def ra() -> RunAnalysis:
    sim = simulate_run(
        {"base": 1000.0, "candidate": 1030.0}, n_rounds=500, noise="delay", scale=0.02,
        warmup=(80, 0.5), evals=8, rng=20261122,
    )  # fmt: skip
    out = analyze(sim.frame, rng=42, jobs=1)
    return out


def test_versioned_strict_json(ra: RunAnalysis) -> None:
    text = report_json(ra)
    doc = json.loads(text)
    assert doc["format"] == "tsanalyze-report" and doc["version"] == REPORT_VERSION
    assert "NaN" not in text and "Infinity" not in text
    assert len(doc["series"]) == 2 and len(doc["comparisons"]) == 1
    # every number the terminal shows is in the document
    s = doc["series"][0]
    for key in (
        "n",
        "stable_share",
        "estimate",
        "ci_low",
        "ci_high",
        "subsession_size",
        "findings",
    ):
        assert key in s
    c = doc["comparisons"][0]
    for key in ("ratio", "ci_low", "ci_high", "pvalue", "pvalue_adjusted", "verdict", "test"):
        assert key in c


def test_golden(ra: RunAnalysis) -> None:
    doc = report_document(ra)
    doc["tsanalyze_version"] = "<version>"
    check_golden("report-interleaved.json", doc)


def test_golden_comparison_detects_changes(ra: RunAnalysis) -> None:
    doc = report_document(ra)
    changed = json.loads(json.dumps(doc))
    changed["series"][0]["estimate"] *= 1.001
    with pytest.raises(AssertionError):
        assert_matches(changed, doc)
