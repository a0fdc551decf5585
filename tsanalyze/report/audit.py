"""Render an :class:`~tsanalyze.analysis.audit.Audit` for the terminal: the rows as
understood, the claimed comparisons, and the findings, worst first.

Renderers word and order; they never change a severity. User text (benchmark names,
messages quoting them) is printed with control characters escaped
(:func:`tsanalyze.report.text.safe_text`), so a name holding an escape sequence cannot
drive the terminal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tsanalyze._units import format_time
from tsanalyze.report.text import SEVERITY_STYLE, printable, safe_text

__all__ = ["render_audit"]

_SD_MARK = {"range-bound": "≤ ", "span-bound": "≤ ", "minmax-bound": "≤ ", "ci": "≈ "}


def _fmt_p(p: Any) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _value(row: dict[str, Any], v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if row.get("quantity", "time") == "time":
        return format_time(v, trim=True)
    return f"{v:.4g} {row.get('unit', '')}"


def _rows_table(doc: dict[str, Any], title: str) -> Table:
    table = Table(title=safe_text(title), title_justify="left")
    for col in ("benchmark", "location", "sd", "n", "evals"):
        table.add_column(col, justify="left" if col == "benchmark" else "right", overflow="fold")
    for r in doc["rows"]:
        sd = _value(r, r.get("sd"))
        if sd != "-":
            sd = _SD_MARK.get(r.get("sd_source", ""), "") + sd
        n = "-" if r.get("n") is None else str(r["n"])
        if r.get("n_source") == "bound" and n != "-":
            n = "≥ " + n
        evals = "-" if r.get("evals") is None else str(r["evals"])
        if evals == "-" and r.get("batched"):
            evals = "batch"
        table.add_row(
            safe_text(r["name"]),
            safe_text(f"{_value(r, r.get('location'))} ({r.get('location_kind')})"),
            sd,
            n,
            evals,
        )
    return table


def _comparisons_table(doc: dict[str, Any]) -> Table:
    adjust = doc.get("adjust", "holm")
    table = Table(title=Text("Claimed comparisons (Welch from summary statistics)"),
                  title_justify="left")  # fmt: skip
    cols = ("benchmark", "vs", "claim", "change", "p", "p (worst)", f"p ({adjust})", "claimed p")
    for col in cols:
        table.add_column(col, justify="left" if col in ("benchmark", "vs", "claim") else "right",
                         overflow="fold")  # fmt: skip
    for c in doc["comparisons"]:
        claim = printable(
            c["claim"]
            if c.get("claimed_ratio") is None
            else f"{c['claimed_ratio']:g}× {c['claim']}"
        )
        table.add_row(
            safe_text(c["name"]),
            safe_text(c["other"]),
            safe_text(claim),
            f"{100 * c['relative']:+.3g}%" if c.get("relative") is not None else "-",
            _fmt_p(c.get("pvalue")),
            _fmt_p(c.get("pvalue_bound")),
            _fmt_p(c.get("pvalue_adjusted")),
            _fmt_p(c.get("claimed_pvalue")),
        )
    return table


def render_audit(
    doc: dict[str, Any], sources: Sequence[str], console: Console | None = None
) -> None:
    """Print the audit (``Audit.to_dict()``) of ``sources`` as rich tables."""
    console = console or Console(highlight=False)
    console.print(_rows_table(doc, f"Rows of {', '.join(str(s) for s in sources)} as understood"))
    if doc["comparisons"]:
        console.print(_comparisons_table(doc))
    findings = doc["findings"]
    table = Table(title=Text("Findings, worst first"), title_justify="left")
    table.add_column("severity", no_wrap=True)
    table.add_column("benchmark", overflow="fold", max_width=32)
    table.add_column("finding", overflow="fold", ratio=1)
    for f in findings:
        name = f["name"] if f["other"] is None else f"{f['name']} vs {f['other']}"
        text = safe_text(f["code"], style="bold")
        text.append(": ")
        text.append(safe_text(f["message"]))
        table.add_row(
            Text(f["severity"], style=SEVERITY_STYLE[f["severity"]]), safe_text(name), text
        )
    console.print(table)
    counts = {s: sum(1 for f in findings if f["severity"] == s) for s in SEVERITY_STYLE}
    summary = Text(f"{len(doc['rows'])} rows, {len(doc['comparisons'])} comparisons: ")
    summary.append(f"{counts['serious']} serious", style=SEVERITY_STYLE["serious"])
    summary.append(f", {counts['warning']} warnings, {counts['info']} notes")
    console.print(summary)
