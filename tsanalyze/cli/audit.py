"""``tsanalyze audit FILE…``: audit published benchmark numbers.

Exit codes: 0 nothing serious, 1 at least one serious finding (for CI), 2 bad input, 3 a
bug in tsanalyze.
"""

from __future__ import annotations

import enum
import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from tsanalyze._units import format_time
from tsanalyze.cli._errors import fail
from tsanalyze.cli._options import OutputFormat

__all__ = ["SpreadKindOption", "audit"]

_SEVERITY_STYLE = {"serious": "bold red", "warning": "yellow", "info": "cyan"}


class SpreadKindOption(str, enum.Enum):
    """What ``±`` means when the file does not say."""

    sd = "sd"
    range = "range"
    ci = "ci"


def _fmt_p(p: float | None) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _render_table(doc: dict[str, Any], files: list[Path]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    rows = Table(
        title=Text(f"Rows of {', '.join(str(f) for f in files)} as understood"),
        title_justify="left",
    )
    for col in ("benchmark", "location", "sd", "n", "evals"):
        rows.add_column(col, justify="left" if col == "benchmark" else "right",
                        overflow="fold")  # fmt: skip
    for r in doc["rows"]:
        sd = format_time(r["sd_ns"], trim=True)
        if r["sd_source"] == "range-bound":
            sd = "≤ " + sd
        elif r["sd_source"] == "ci":
            sd = "≈ " + sd
        rows.add_row(
            Text(r["name"]),
            f"{format_time(r['location_ns'], trim=True)} ({r['location_kind']})",
            sd,
            "-" if r["n"] is None else str(r["n"]),
            "-" if r["evals"] is None else str(r["evals"]),
        )
    console.print(rows)
    if doc["comparisons"]:
        comp = Table(title=Text("Claimed comparisons (Welch from summary statistics)"),
                     title_justify="left")  # fmt: skip
        for col in ("benchmark", "vs", "claim", "change", "p", "claimed p"):
            comp.add_column(col, justify="left" if col in ("benchmark", "vs", "claim") else "right",
                            overflow="fold")  # fmt: skip
        for c in doc["comparisons"]:
            comp.add_row(
                Text(c["name"]),
                Text(c["other"]),
                c["claim"],
                f"{100 * c['relative']:+.3g}%",
                _fmt_p(c["pvalue"]),
                _fmt_p(c["claimed_pvalue"]),
            )
        console.print(comp)
    findings = doc["findings"]
    table = Table(title=Text("Findings, worst first"), title_justify="left")
    table.add_column("severity", no_wrap=True)
    table.add_column("benchmark", overflow="fold", max_width=32)
    table.add_column("finding", overflow="fold", ratio=1)
    for f in findings:
        name = f["name"] if f["other"] is None else f"{f['name']} vs {f['other']}"
        text = Text(f["code"], style="bold")
        text.append(": " + f["message"], style="")
        table.add_row(Text(f["severity"], style=_SEVERITY_STYLE[f["severity"]]), Text(name), text)
    console.print(table)
    counts = {s: sum(1 for f in findings if f["severity"] == s) for s in _SEVERITY_STYLE}
    summary = Text(f"{len(doc['rows'])} rows, {len(doc['comparisons'])} comparisons: ")
    summary.append(f"{counts['serious']} serious", style=_SEVERITY_STYLE["serious"])
    summary.append(f", {counts['warning']} warnings, {counts['info']} notes")
    console.print(summary)


def audit(
    files: Annotated[
        list[Path],
        typer.Argument(help="CSV, YAML, JSON or benchstat-style text files.", show_default=False),
    ],
    format: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.table,
    n: Annotated[
        int | None, typer.Option("--n", help="Samples per row, where a file gives none.", min=1)
    ] = None,
    evals: Annotated[
        int | None,
        typer.Option("--evals", help="Evaluations per sample, where a file gives none.", min=1),
    ] = None,
    spread_kind: Annotated[
        SpreadKindOption | None,
        typer.Option(
            "--spread-kind",
            help="What ± means where a file does not say: sd, range (Go benchstat v1), "
            "ci (benchstat v2). Text default: ci for benchstat v2 tables, else range.",
        ),
    ] = None,
    clock_overhead_ns: Annotated[
        float,
        typer.Option("--clock-overhead-ns", help="Typical clock-read pair cost (seed 004).", min=0),
    ] = 16.0,
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level.")] = 0.05,
) -> None:
    """Audit published numbers: σ-blowup, n and dispersion, claimed differences, timer
    overhead, CI consistency. Exit 0 nothing serious, 1 serious findings, 2 bad input."""
    from tsanalyze.analysis.audit import audit as run_audit
    from tsanalyze.io.audit_input import read_audit_input

    if not 0 < alpha < 1:  # (analysis.audit checks it too, with a plain ValueError)
        fail(f"--alpha: must be strictly between 0 and 1, got {alpha:g}")
    rows: list[dict[str, Any]] = []
    for path in files:
        rows.extend(
            read_audit_input(
                path,
                n=n,
                evals=evals,
                spread_kind=None if spread_kind is None else spread_kind.value,
            )
        )
    result = run_audit(rows, clock_overhead_ns=clock_overhead_ns, alpha=alpha)
    doc = result.to_dict()
    if format is OutputFormat.json:
        typer.echo(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False))
    else:
        _render_table(doc, files)
    raise typer.Exit(1 if result.serious else 0)
