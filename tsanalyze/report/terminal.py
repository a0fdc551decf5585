"""Terminal rendering with rich: summary table, comparison table, findings worst first.

Benchmark names, run labels, messages and metadata are user data: they are always passed
to rich as :class:`rich.text.Text` (never as markup strings) with control characters
escaped (:func:`tsanalyze.report.text.safe_text`), so ``[bold]`` in a name is shown as
typed and an escape sequence in one cannot drive the terminal.

A benchmark measured in several runs of one side (JMH forks, pyperf worker processes)
is one row of the summary, with its two-level estimate; its findings are said once.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from tsanalyze._result import Finding
from tsanalyze._units import (
    format_percent,
    format_pvalue,
    format_ratio,
    format_time,
    time_unit,
)
from tsanalyze.analysis.runset import ComparisonRow, RunAnalysis, TrialsRow
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.report.findings import report_findings, run_labels, unit_findings
from tsanalyze.report.text import SEVERITY_STYLE, safe_text

__all__ = [
    "estimate_pm",
    "estimate_text",
    "render_terminal",
    "terminal_renderable",
    "trials_note",
    "trials_pm",
]

_VERDICT_STYLE = {
    "slower": "bold red",
    "faster": "bold green",
    "same": "green",
    "inconclusive": "yellow",
}
_ESTIMATOR_LABEL = {
    "median": "median",
    "min": "minimum",
    "mean": "mean",
    "trimmed_mean": "trimmed mean",
}


def estimate_text(s: SeriesAnalysis) -> str:
    """``1.214 µs [1.209, 1.220]``: the estimate and its CI in one unit."""
    unit = time_unit(s.estimate)
    lo = format_time(s.ci_low, unit=unit).rsplit(" ", 1)[0]
    hi = format_time(s.ci_high, unit=unit).rsplit(" ", 1)[0]
    return f"{format_time(s.estimate, unit=unit)} [{lo}, {hi}]"


def estimate_pm(s: SeriesAnalysis) -> str:
    """``1.214 µs ± 0.45%``: the estimate and the larger half-width of its CI, relative."""
    half = max(s.estimate - s.ci_low, s.ci_high - s.estimate)
    rel = half / s.estimate if s.estimate else float("nan")
    return f"{format_time(s.estimate)} ± {format_percent(rel, 2)}"


def _stable_cell(u: SeriesAnalysis | TrialsRow) -> Text | str:
    if isinstance(u, TrialsRow):
        if all(c == "raw" for c in u.classifications):
            return Text("raw")
        return Text(u.classifications[0]) if u.consistent else Text("mixed", style="yellow")
    if u.stable:
        # the segment the search kept, in red when the analysis found it not stationary
        wanders = any(w.code == "no-subsession-size" for w in u.warnings)
        return Text(format_percent(u.stable_share, 3), style="red" if wanders else "")
    return Text("raw") if u.classification == "raw" else Text("none", style="red")


def _summary_table(analysis: RunAnalysis, labels: dict[str, str]) -> Table:
    pct = f"{analysis.confidence_level * 100:g}%"
    table = Table(
        title=Text(
            f"Summary: {_ESTIMATOR_LABEL.get(analysis.estimator, analysis.estimator)} with {pct} CI"
        ),
        title_justify="left",
    )
    units = analysis.units()
    multi_run = len(analysis.runs) > 1
    table.add_column("benchmark", overflow="fold", ratio=1)
    if multi_run:
        table.add_column("run", overflow="fold")
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("stable", justify="right", no_wrap=True)
    table.add_column(f"estimate ± {pct} CI", justify="right", no_wrap=True)
    table.add_column("subsession", justify="right", no_wrap=True)
    table.add_column("findings", no_wrap=True)
    for u in units:
        row: list[Text | str] = [safe_text(u.benchmark)]
        if isinstance(u, TrialsRow):
            if multi_run:
                row.append(safe_text(f"{labels.get(u.side, u.side)} ({u.n_trials} runs)"))
            row += [f"{u.n_samples:,}", _stable_cell(u), f"{trials_pm(u)} †", "–"]
        else:
            if multi_run:
                row.append(safe_text(labels.get(u.run, u.run)))
            sub = "–" if u.subsession_size is None else str(u.subsession_size)
            row += [f"{u.n:,}", _stable_cell(u), estimate_pm(u), sub]
        row.append(_finding_counts(unit_findings(u)))
        table.add_row(*row)
    return table


def _finding_counts(findings: list[Finding]) -> Text:
    serious = sum(f.severity == "serious" for f in findings)
    warning = sum(f.severity == "warning" for f in findings)
    text = Text()
    if serious:
        text.append(f"{serious} serious", style="bold red")
    if warning:
        text.append(", " if serious else "")
        text.append(f"{warning} warning{'s' if warning > 1 else ''}", style="yellow")
    return text if (serious or warning) else Text("–")


def _comparison_label(
    c: ComparisonRow, labels: dict[str, str], multi_run: bool
) -> tuple[Text, Text]:
    if c.kind == "benchmark":
        if multi_run:
            return (
                safe_text(f"{c.benchmark} @ {labels.get(c.run, c.run)}"),
                safe_text(c.baseline_benchmark),
            )
        return safe_text(c.benchmark), safe_text(c.baseline_benchmark)
    return (
        safe_text(f"{c.benchmark} @ {labels.get(c.run, c.run)}"),
        safe_text(labels.get(c.baseline_run, c.baseline_run)),
    )


def _comparison_table(analysis: RunAnalysis, labels: dict[str, str]) -> Table:
    pct = f"{analysis.confidence_level * 100:g}%"
    table = Table(
        title=Text("Comparisons (ratio = candidate / baseline; p adjusted with Holm)"),
        title_justify="left",
    )
    table.add_column("candidate", overflow="fold")
    table.add_column("baseline", overflow="fold")
    table.add_column("ratio", justify="right", no_wrap=True)
    table.add_column(f"{pct} CI", justify="right", no_wrap=True)
    table.add_column("p (adj.)", justify="right", no_wrap=True)
    table.add_column("test", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for c in analysis.comparisons:
        cand, base = _comparison_label(c, labels, len(analysis.runs) > 1)
        table.add_row(
            cand,
            base,
            format_ratio(c.ratio),
            f"{c.ci_low:.3f}–{c.ci_high:.3f}",
            format_pvalue(c.pvalue_adjusted),
            safe_text(c.test),
            Text(c.verdict, style=_VERDICT_STYLE.get(c.verdict, "")),
        )
    return table


def trials_pm(t: TrialsRow) -> str:
    """``1.214 µs ± 0.45%`` for a trials summary (two-level bootstrap CI)."""
    half = max(t.estimate - t.ci_low, t.ci_high - t.estimate)
    rel = half / t.estimate if t.estimate else float("nan")
    return f"{format_time(t.estimate)} ± {format_percent(rel, 2)}"


def trials_note(t: TrialsRow) -> str:
    """The footnote of a summary with trials rows: what their estimate is."""
    what = t.statistic.replace(f"the {t.n_trials} runs'", "the runs'") or "the per-run estimates"
    return (
        "† a benchmark measured in several runs of one side (trials): "
        f"{what}, CI from a two-level bootstrap (run, then sample; Kalibera & Jones 2013)"
    )


def _trials_table(analysis: RunAnalysis, labels: dict[str, str]) -> Table:
    pct = f"{analysis.confidence_level * 100:g}%"
    table = Table(
        title=Text(
            "Trials (a benchmark measured in several runs: CI from a two-level bootstrap, "
            "run then sample)"
        ),
        title_justify="left",
    )
    table.add_column("benchmark", overflow="fold", ratio=1)
    table.add_column("run / file", overflow="fold")
    table.add_column("runs", justify="right", no_wrap=True)
    table.add_column(f"estimate ± {pct} CI", justify="right", no_wrap=True)
    table.add_column("between-run sd", justify="right", no_wrap=True)
    table.add_column("p (Cochran Q)", justify="right", no_wrap=True)
    table.add_column("steady state", no_wrap=True)
    for t in analysis.trials:
        side = labels.get(t.side, t.side) if t.side else "(each run its own)"
        table.add_row(
            safe_text(t.benchmark),
            safe_text(side),
            str(t.n_trials),
            trials_pm(t),
            format_percent(t.between_sd / t.estimate if t.estimate else float("nan"), 2),
            Text(format_pvalue(t.heterogeneity_pvalue), style="red" if t.disagree else ""),
            Text(
                "consistent" if t.consistent else "inconsistent",
                style="" if t.consistent else "yellow",
            ),
        )
    return table


def terminal_renderable(analysis: RunAnalysis, *, max_findings: int = 30) -> Group:
    """Everything the terminal report shows, as one rich renderable."""
    labels = run_labels(analysis)
    parts: list[Table | Text] = []
    n_runs = len(analysis.runs)
    head = Text("tsanalyze report: ", style="bold")
    head.append(f"{n_runs} run{'s' if n_runs != 1 else ''}, {len(analysis.series)} series")
    if analysis.seed is not None:
        head.append(f"; bootstrap seed {analysis.seed}")
    if analysis.raw:
        head.append(" (raw: whole series, no steady-state cut)")
    parts.append(head)
    parts.append(_summary_table(analysis, labels))
    rows = [u for u in analysis.units() if isinstance(u, TrialsRow)]
    if rows:
        parts.append(Text(trials_note(rows[0]), style="dim"))
    if analysis.trials:
        parts.append(_trials_table(analysis, labels))
    if analysis.comparisons:
        parts.append(_comparison_table(analysis, labels))
    findings = report_findings(analysis)
    if findings:
        parts.append(Text("Findings (worst first)", style="bold"))
        for rf in findings[:max_findings]:
            line = Text("  • ")
            line.append(
                f"{rf.finding.severity:<8}", style=SEVERITY_STYLE.get(rf.finding.severity, "")
            )
            who = rf.benchmark if not rf.run or n_runs == 1 else f"{rf.benchmark} @ {rf.run}"
            if who:
                line.append(safe_text(who, style="bold"))
                line.append(": ")
            line.append(safe_text(rf.finding.message))
            parts.append(line)
        if len(findings) > max_findings:
            parts.append(Text(f"  … and {len(findings) - max_findings} more (see --format json)"))
    else:
        parts.append(
            Text("No findings: every series is stable, independent and clean.", style="green")
        )
    return Group(*parts)


def render_terminal(analysis: RunAnalysis, console: Console | None = None) -> None:
    """Print the terminal report to ``console`` (default: stdout)."""
    (console or Console()).print(terminal_renderable(analysis))
