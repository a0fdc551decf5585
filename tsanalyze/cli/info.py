"""``tsanalyze info FILES…``: what is in these runs, from the files' footers (no statistics of the
samples: the report gives them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tsanalyze.cli._options import OutputFormat

__all__ = ["info"]


def info(
    files: Annotated[list[Path], typer.Argument(help="Run files, globs or directories.", show_default=False)],
    format: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")] = OutputFormat.table,
) -> None:
    """Show what the run files hold: runs, clocks, timer, host and benchmarks."""
    from tsanalyze.io.footer import json_safe
    from tsanalyze.io.inventory import inventory
    from tsanalyze.report.info import info_document, render_info

    doc = info_document(inventory(files))
    if format is OutputFormat.json:
        # strict JSON: a NaN or inf anywhere (a tool's metadata) is written as null
        safe = json_safe(json.loads(json.dumps(doc, default=str)))
        typer.echo(json.dumps(safe, indent=2, sort_keys=True, allow_nan=False))
    else:
        render_info(doc)
