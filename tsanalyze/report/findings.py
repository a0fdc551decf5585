"""The findings that matter, in plain words, worst first.

The analysis carries its components' warnings as short codes with messages; this module
turns the numbers of a :class:`~tsanalyze.analysis.runset.RunAnalysis` into the sentences a
reader acts on ("warm-up of 312 samples (1.9 s) removed", "two modes at 1.21 µs and
1.43 µs") in readable units, and ranks them: serious first, then warnings, then notes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tsanalyze._result import Finding
from tsanalyze.analysis.runset import ComparisonRow, RunAnalysis
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.report.units import (
    format_duration,
    format_percent,
    format_pvalue,
    format_time,
    time_unit,
)

__all__ = ["ReportFinding", "report_findings", "run_labels", "series_findings"]

#: component warning codes that a curated sentence below replaces
_CURATED = {"autocorrelated", "sd-blowup", "multimodal", "no-stable-segment"}

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


@dataclasses.dataclass(frozen=True, slots=True)
class ReportFinding:
    """A finding with the series (or comparison) it is about."""

    benchmark: str
    run: str
    finding: Finding

    def to_dict(self) -> dict[str, str]:
        return {"benchmark": self.benchmark, "run": self.run, **self.finding.to_dict()}


def run_labels(analysis: RunAnalysis) -> dict[str, str]:
    """Short readable label per run id: the file name when unique, else a short id."""
    files = {rid: Path(f).name for rid, f in analysis.runs if f}
    unique = len(set(files.values())) == len(files)
    labels: dict[str, str] = {}
    for rid, _ in analysis.runs:
        if unique and rid in files:
            labels[rid] = files[rid]
        else:
            labels[rid] = rid[:8]
    for s in analysis.series:
        labels.setdefault(s.run, s.run[:8])
    for _, file in analysis.runs:  # comparison sides named by their file
        if file:
            labels.setdefault(file, Path(file).name if unique else file)
    return labels


def _count(k: int) -> str:
    return _NUMBER_WORDS.get(k, str(k))


def _changepoint_list(locations: tuple[int, ...], shown: int = 6) -> str:
    if not locations:
        return "no change point"
    head = ", ".join(map(str, locations[:shown]))
    more = f" and {len(locations) - shown} more" if len(locations) > shown else ""
    return f"{len(locations)} change point{'s' if len(locations) > 1 else ''}: {head}{more}"


def series_findings(s: SeriesAnalysis) -> list[Finding]:
    """Plain-words findings of one series (curated sentences plus other warnings)."""
    out: list[Finding] = []
    codes = {w.code for w in s.warnings}
    if "no-stable-segment" in codes:
        out.append(
            Finding(
                "no-stable-segment",
                f"no stable segment: no phase holds more than half of the {s.n} samples "
                f"({_changepoint_list(s.changepoints)}); "
                "the whole series was analysed",
                "serious",
            )
        )
    elif s.stable:
        if s.classification == "no steady state":
            out.append(
                Finding(
                    "no-steady-state",
                    "no steady state: the level changes in the last quarter of the series",
                    "serious",
                )
            )
        elif s.classification == "slowdown":
            out.append(
                Finding(
                    "slowdown",
                    "the series slows down: its last phase is slower than an earlier one",
                    "warning",
                )
            )
        if s.warmup_samples > 0:
            secs = f" ({format_duration(s.warmup_seconds)})" if s.warmup_seconds is not None else ""
            out.append(
                Finding(
                    "warmup-removed", f"warm-up of {s.warmup_samples} samples{secs} removed", "info"
                )
            )
        if s.cooldown_samples > 0:
            out.append(
                Finding(
                    "cooldown-removed",
                    f"last {s.cooldown_samples} samples after the stable phase removed",
                    "info",
                )
            )
    if s.subsession_size is not None and s.subsession_size > 1:
        if any(word in s.ci_method for word in ("subsession", "block", "stationary", "circular")):
            how = (
                f"CI from {s.n_subsessions} subsessions of {s.subsession_size} samples "
                f"({s.ci_method})"
            )
        else:
            how = (
                f"the means of {s.n_subsessions} subsessions of {s.subsession_size} samples "
                f"are roughly independent; CI by {s.ci_method}"
            )
        out.append(
            Finding(
                "autocorrelated",
                f"samples are autocorrelated (lag-1 {s.lag1:.2f}): {how}",
                "warning",
            )
        )
    if s.outlier_variance is not None and s.outlier_effect in ("moderate", "severe"):
        out.append(
            Finding(
                "sd-blowup",
                f"outliers explain {format_percent(s.outlier_variance, 2)} of the variance ({s.outlier_effect})",
                "serious" if s.outlier_effect == "severe" else "warning",
            )
        )
    if len(s.modes) > 1:
        locs = sorted(s.modes, key=lambda m: m[0])
        unit = time_unit(locs[-1][0])
        shown = [format_time(loc, unit=unit).rsplit(" ", 1)[0] for loc, _ in locs]
        where = f"{', '.join(shown[:-1])} and {shown[-1]} {unit[0]}"
        masses = "/".join(format_percent(mass, 2) for _, mass in locs)
        out.append(
            Finding(
                "multimodal",
                f"{_count(len(locs))} modes at {where} (masses {masses}): one location "
                "estimate describes a mixture",
                "warning",
            )
        )
    if s.outliers_severe > 0:
        share = s.outliers_severe / max(s.n_stable, 1)
        out.append(
            Finding(
                "severe-outliers",
                f"{s.outliers_severe} severe outlier{'s' if s.outliers_severe != 1 else ''} "
                f"beyond 3 IQR ({format_percent(share, 2)} of the samples)",
                "info",
            )
        )
    for w in s.warnings:
        if w.code not in _CURATED and w.code not in {f.code for f in out}:
            out.append(w)
    return out


def _comparison_finding(c: ComparisonRow, labels: dict[str, str]) -> Finding | None:
    if c.verdict not in ("slower", "faster"):
        return None
    change = c.ratio - 1.0
    what = (
        f"than {c.baseline_benchmark}"
        if c.kind == "benchmark"
        else f"than in {labels.get(c.baseline_run, c.baseline_run[:8])}"
    )
    return Finding(
        c.verdict,
        f"{format_percent(abs(change), 2)} {c.verdict} {what} "
        f"(ratio CI {c.ci_low:.3f}–{c.ci_high:.3f}, adjusted p {format_pvalue(c.pvalue_adjusted)})",
        "serious" if c.verdict == "slower" else "info",
    )


def report_findings(analysis: RunAnalysis) -> list[ReportFinding]:
    """Every finding of the run set, worst first (stable within a severity)."""
    labels = run_labels(analysis)
    found: list[ReportFinding] = []
    for c in analysis.comparisons:
        f = _comparison_finding(c, labels)
        if f is not None:
            found.append(ReportFinding(c.benchmark, labels.get(c.run, c.run), f))
    for s in analysis.series:
        for f in series_findings(s):
            found.append(ReportFinding(s.benchmark, labels.get(s.run, s.run), f))
    for t in analysis.trials:
        for w in t.warnings:
            found.append(ReportFinding(t.benchmark, f"{t.n_trials} runs", w))
    for w in analysis.warnings:
        found.append(ReportFinding("", "", w))
    return sorted(found, key=lambda rf: -rf.finding.rank)
