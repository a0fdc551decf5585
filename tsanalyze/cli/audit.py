"""``tsanalyze audit FILE…``: audit published benchmark numbers.

Exit codes: 0 nothing serious, 1 at least one serious finding (for CI), 2 bad input, 3 a
bug in tsanalyze.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer

from tsanalyze.cli._errors import fail
from tsanalyze.cli._options import OutputFormat

__all__ = ["SpreadKindOption", "audit"]


class SpreadKindOption(str, enum.Enum):
    """What ``±`` means when the file does not say."""

    sd = "sd"
    range = "range"
    span = "span"
    ci = "ci"


def audit(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="CSV, YAML or JSON tables, or text pasted as a tool printed it (benchstat, "
            "go test, BenchmarkTools, timeit, pyperf, pytest-benchmark, hyperfine, JMH, "
            "criterion, libtest, Google Benchmark).",
            show_default=False,
        ),
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
            "span (max − min), ci (benchstat v2). Text default: the tool's convention.",
        ),
    ] = None,
    clock_overhead_ns: Annotated[
        float,
        typer.Option("--clock-overhead-ns", help="Typical clock-read pair cost (Ou 2020).", min=0),
    ] = 16.0,
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level.")] = 0.05,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="Take printed numbers as exact (default: as intervals of their last digit).",
        ),
    ] = False,
) -> None:
    """Audit published numbers: dispersion and n, variation and σ-blowup, claimed
    differences and ratios, timer overhead, CI consistency, each by the source tool's
    conventions. Exit 0 nothing serious, 1 serious findings, 2 bad input."""
    from tsanalyze.analysis.audit import audit as run_audit
    from tsanalyze.io.audit_input import merge_sources, read_audit_file
    from tsanalyze.report.audit import render_audit

    if not 0 < alpha < 1:  # (analysis.audit checks it too, with a plain ValueError)
        fail(f"--alpha: must be strictly between 0 and 1, got {alpha:g}")
    sources = [
        read_audit_file(path, n=n, evals=evals,
                        spread_kind=None if spread_kind is None else spread_kind.value)
        for path in files
    ]  # fmt: skip
    rows, notes = merge_sources(sources, [str(f) for f in files])
    result = run_audit(rows, clock_overhead_ns=clock_overhead_ns, alpha=alpha,
                       as_printed=not exact, notes=notes)  # fmt: skip
    doc = result.to_dict()
    if format is OutputFormat.json:
        typer.echo(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False))
    else:
        render_audit(doc, [str(f) for f in files])
    raise typer.Exit(1 if result.serious else 0)
