"""The findings of a run set, in the order a reader acts on them: worst first.

Severities and codes are decided in the analysis (``tsanalyze.analysis``): each series
carries its findings (:func:`tsanalyze.analysis.series.analyze_series`), a benchmark
measured in several runs of one side carries them once for all its runs
(:class:`~tsanalyze.analysis.runset.TrialsRow`), and each comparison carries its verdict
(:func:`tsanalyze.analysis.runset.analysis.verdict_finding`). This module only collects
them, says which benchmark and run each is about, and orders them: serious first, then
warnings, then notes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tsanalyze._result import Finding
from tsanalyze.analysis.runset import RunAnalysis, TrialsRow
from tsanalyze.analysis.series import SeriesAnalysis

__all__ = ["ReportFinding", "report_findings", "run_labels", "series_findings", "unit_findings"]


@dataclasses.dataclass(frozen=True, slots=True)
class ReportFinding:
    """A finding with the series, trials or comparison it is about."""

    benchmark: str
    run: str
    finding: Finding

    def to_dict(self) -> dict[str, str]:
        return {"benchmark": self.benchmark, "run": self.run, **self.finding.to_dict()}


def run_labels(analysis: RunAnalysis) -> dict[str, str]:
    """Short readable label per run id and per side: a file by its name when the names are
    unique (else its path), a run by its file's label (with a short id when the file holds
    several runs), a run without a file by a short id; a directory or glob side as typed."""
    files = {rid: f for rid, f in analysis.runs if f}
    distinct = set(files.values())
    names = {f: Path(f).name for f in distinct}
    unique = len(set(names.values())) == len(distinct)
    per_file: dict[str, int] = {}
    for f in files.values():
        per_file[f] = per_file.get(f, 0) + 1
    labels: dict[str, str] = {f: (names[f] if unique else f) for f in distinct}
    for rid, _ in analysis.runs:
        file = files.get(rid)
        if file is None:
            labels[rid] = rid[:8]
        elif per_file[file] == 1:
            labels[rid] = labels[file]
        else:
            labels[rid] = f"{labels[file]} ({rid[:8]})"
    for s in analysis.series:
        labels.setdefault(s.run, s.run[:8])
    for t in analysis.trials:
        if t.side:
            labels.setdefault(t.side, t.side)
    return labels


def series_findings(s: SeriesAnalysis) -> list[Finding]:
    """The findings of one series, as the analysis decided them."""
    return list(s.warnings)


def unit_findings(unit: SeriesAnalysis | TrialsRow) -> list[Finding]:
    """The findings of one summary row: a series', or a benchmark's over its trials."""
    return list(unit.warnings)


def report_findings(analysis: RunAnalysis) -> list[ReportFinding]:
    """Every finding of the run set, worst first (stable within a severity).

    A comparison contributes its verdict and its own warnings; a benchmark measured in
    several runs of one side contributes its findings once (not once per run).
    """
    labels = run_labels(analysis)
    found: list[ReportFinding] = []
    for c in analysis.comparisons:
        where = labels.get(c.run, c.run)
        for f in c.warnings:
            if f.code in ("regression", "slower", "faster") or f.severity != "info":
                found.append(ReportFinding(c.benchmark, where, f))
    for unit in analysis.units():
        if isinstance(unit, TrialsRow):
            where = labels.get(unit.side, unit.side)
            found.extend(ReportFinding(unit.benchmark, where, f) for f in unit.warnings)
        else:
            where = labels.get(unit.run, unit.run)
            found.extend(ReportFinding(unit.benchmark, where, f) for f in unit.warnings)
    for t in analysis.trials:
        if not t.side:  # trials across sides: their own findings beside the runs'
            found.extend(ReportFinding(t.benchmark, f"{t.n_trials} runs", w) for w in t.warnings)
    for w in analysis.warnings:
        found.append(ReportFinding("", "", w))
    return sorted(found, key=lambda rf: -rf.finding.rank)
