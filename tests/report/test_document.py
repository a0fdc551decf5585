"""JSON report document: versioned, strict JSON, and stable (golden file)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _helpers import assert_same_json

from tsanalyze.analysis.runset import RunAnalysis, analyze
from tsanalyze.datasets import simulate_run
from tsanalyze.report.document import REPORT_VERSION, report_document, report_json

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
REGEN = os.environ.get("TSANALYZE_REGEN_GOLDEN") == "1"


def assert_matches(actual: Any, expected: Any, path: str = "$") -> None:
    """Same structure and strings; numbers equal to 1e-6 relative (float noise across
    platforms), so a changed number, key or type fails."""
    assert_same_json(actual, expected, rel_tol=1e-6, abs_tol=1e-9, path=path)


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


def test_document_is_plain_without_a_second_pass() -> None:
    """report_document passes through to_builtin only what it assembles itself (the
    results' to_dict are plain already): the document is a fixed point of to_builtin
    (no numpy scalar, tuple, NaN or inf left) on a report with trials (two runs of a
    file), comparisons between files, a noise floor, findings and unbounded CIs."""
    from tsanalyze._result import to_builtin

    frames = []
    for k in range(3):
        sim = simulate_run(
            {"ref": 500.0, "a": 1000.0 * (1 + 0.05 * k), "b": 800.0}, n_rounds=60,
            noise="delay", scale=0.03, rng=70 + k, run=f"r{k}",
        )  # fmt: skip
        frames.append(sim.frame)
    df = pd.concat(frames, ignore_index=True)
    df.attrs = {"runs": {k: v for f in frames for k, v in f.attrs["runs"].items()}}
    for rid, file in zip(("r0", "r1", "r2"), ("old.parquet", "new.parquet", "new.parquet"),
                         strict=True):  # fmt: skip
        df.attrs["runs"][rid] = {**df.attrs["runs"][rid], "file": file}
    out = analyze(df, rng=1, jobs=1, reference="ref")
    assert out.trials and out.comparisons and out.noise_floor is not None
    # an unbounded CI and numpy scalars in the rows the summary is assembled from
    i = next(k for k, s in enumerate(out.series) if s.run == "r0")
    odd = dataclasses.replace(
        out.series[i], ci_low=-math.inf, estimate=np.float64(out.series[i].estimate),
        n=np.int64(out.series[i].n),
    )  # fmt: skip
    out = dataclasses.replace(out, series=(*out.series[:i], odd, *out.series[i + 1 :]))
    doc = report_document(out)
    assert to_builtin(doc) == doc
    text = json.dumps(doc, allow_nan=False)  # strict JSON: no NaN or inf left
    assert json.loads(text) == doc
    row = next(r for r in doc["summary"] if r["kind"] == "series" and r["run"] == "r0")
    assert row["ci_low"] is None and type(row["estimate"]) is float and type(row["n"]) is int
