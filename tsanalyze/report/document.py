"""The JSON report: a stable, versioned document with every number the terminal shows.

Layout (version 1)::

    {
      "format": "tsanalyze-report",
      "version": 1,
      "tsanalyze_version": "...",
      "settings": {estimator, confidence_level, raw, seed, baseline_run, baseline_benchmark},
      "runs": [{"run", "file", "label"}],
      "series": [{"label", <every SeriesAnalysis field but the samples>, "findings": [...]}],
      "summary": [{"kind": "series"|"trials", "benchmark", "run", "label", "n", "estimate",
                   "ci_low", "ci_high", "statistic"}],   # the rows the terminal shows
      "comparisons": [<every ComparisonRow field>],
      "trials": [<every TrialsRow field>],          # a benchmark measured in several runs
      "noise_floor": null or {reference, table: [...], threshold, scaling, warnings},
      "findings": [{"benchmark", "run", "code", "message", "severity"}],   # worst first
      "regression": bool
    }

An interval the data cannot bound is ``null`` here (in the Python results and their
DataFrames it is ``-inf``/``inf``, or NaN when there is no estimate at all); ``json_text``
writes strict JSON, and characters that could drive a terminal (C1 controls,
bidirectional overrides) only as ``\\uXXXX`` escapes.

Change log: version 1 (2026-11) first version; added within version 1: ``summary`` (one
row per series, or per benchmark over its trials), ``side`` and ``statistic`` of each
trials row. Fields are only ever added within a version; renaming or removing one bumps
``version``.
"""

from __future__ import annotations

from typing import Any

from tsanalyze._result import to_builtin
from tsanalyze._version import __version__
from tsanalyze.analysis.runset import RunAnalysis, TrialsRow
from tsanalyze.report.findings import report_findings, run_labels, series_findings
from tsanalyze.report.text import json_text

__all__ = ["REPORT_FORMAT", "REPORT_VERSION", "report_document", "report_json"]

REPORT_FORMAT = "tsanalyze-report"
REPORT_VERSION = 1


def report_document(analysis: RunAnalysis) -> dict[str, Any]:
    """The report as plain Python objects (JSON-serialisable; NaN/inf become null).

    The results' ``to_dict`` already give plain objects (:func:`to_builtin`), so only
    what is assembled here goes through :func:`to_builtin` (a second pass over the
    whole document, idempotent, took half of its 1 s on a report of 5,800 series)."""
    labels = run_labels(analysis)
    series = []
    for s in analysis.series:
        d = s.to_dict()
        d["run_label"] = to_builtin(labels.get(s.run, s.run))
        d["findings"] = [f.to_dict() for f in series_findings(s)]
        series.append(d)
    settings = {
        "estimator": analysis.estimator,
        "confidence_level": analysis.confidence_level,
        "raw": analysis.raw,
        "seed": analysis.seed,
        "baseline_run": analysis.baseline_run,
        "baseline_benchmark": analysis.baseline_benchmark,
    }
    runs = [
        {"run": rid, "file": file, "label": labels.get(rid, rid)} for rid, file in analysis.runs
    ]
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "tsanalyze_version": __version__,
        "settings": to_builtin(settings),
        "runs": to_builtin(runs),
        "series": series,
        "summary": to_builtin(_summary(analysis, labels)),
        "comparisons": [c.to_dict() for c in analysis.comparisons],
        "trials": [t.to_dict() for t in analysis.trials],
        "noise_floor": None if analysis.noise_floor is None else analysis.noise_floor.to_dict(),
        "findings": [rf.to_dict() for rf in report_findings(analysis)],
        "warnings": [w.to_dict() for w in analysis.warnings],
        "regression": to_builtin(analysis.regression),
    }


def _summary(analysis: RunAnalysis, labels: dict[str, str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for u in analysis.units():
        if isinstance(u, TrialsRow):
            rows.append({
                "kind": "trials", "benchmark": u.benchmark, "run": u.side,
                "label": labels.get(u.side, u.side), "n": u.n_samples, "runs": list(u.runs),
                "estimate": u.estimate, "ci_low": u.ci_low, "ci_high": u.ci_high,
                "statistic": u.statistic,
            })  # fmt: skip
        else:
            rows.append({
                "kind": "series", "benchmark": u.benchmark, "run": u.run,
                "label": labels.get(u.run, u.run), "n": u.n, "runs": [u.run],
                "estimate": u.estimate, "ci_low": u.ci_low, "ci_high": u.ci_high,
                "statistic": u.estimator.replace("_", " "),
            })  # fmt: skip
    return rows


def report_json(analysis: RunAnalysis, *, indent: int | None = 2) -> str:
    """The report document as JSON text: keys in a fixed order, strict JSON (no NaN; an
    unbounded interval end is null), unsafe characters escaped (:func:`json_text`)."""
    return json_text(report_document(analysis), indent=indent)
