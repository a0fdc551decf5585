"""``tsanalyze history PATH...``: at which commit did each benchmark change?

PATH: Parquet run files or directories, or asv results directories directly. Exit 1 with
``--fail-on regression`` when a regression is still present at the newest commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tsanalyze.cli import _options as opt
from tsanalyze.cli._errors import fail

__all__ = ["history"]


def history(
    paths: Annotated[
        list[Path], typer.Argument(help="Run files/directories or asv results directories.")
    ],
    output: opt.FormatOpt = opt.OutputFormat.table,
    fail_on: Annotated[
        str,
        typer.Option(
            "--fail-on", help="'regression': exit 1 when a regression is still present; 'never'."
        ),
    ] = "never",
    since: Annotated[
        str | None, typer.Option("--since", help="Only commits from this one (a hash prefix) on.")
    ] = None,
    last: Annotated[
        int | None, typer.Option("--last", help="Only the newest N benchmarked commits.")
    ] = None,
    fdr: Annotated[
        float, typer.Option("--fdr", help="False discovery rate over all series.")
    ] = 0.05,
    commits: Annotated[
        Path | None,
        typer.Option(
            "--commits",
            help="File with the full history, one hash per line, oldest first "
            "(git rev-list --reverse HEAD), to widen sets by unbenchmarked commits.",
        ),
    ] = None,
    seed: opt.SeedOpt = None,
) -> None:
    """Find the commits where each benchmark got slower or faster, with commit sets and CIs."""
    from tsanalyze.analysis.history import history as run_history
    from tsanalyze.io.runs import read_runs
    from tsanalyze.report.history import history_json, history_text

    if fail_on not in ("never", "regression"):
        fail(f"--fail-on: expected 'never' or 'regression', got {fail_on!r}")
    full = None
    if commits is not None:
        try:
            full = [ln.strip() for ln in commits.read_text().splitlines() if ln.strip()]
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{commits}: cannot be read ({exc})")
    df = read_runs(paths)
    rng = opt.seed_value(seed)
    h = run_history(
        df, fdr=fdr, commits=full, since=since, last=last, seed=0 if rng is None else rng
    )
    if output == opt.OutputFormat.json:
        typer.echo(history_json(h))
    else:
        typer.echo(history_text(h), nl=False)
    if fail_on == "regression" and len(h.changes):
        present = h.changes[
            (h.changes["direction"] == "regression") & h.changes["recovered_at"].isna()
        ]
        if len(present):
            raise typer.Exit(1)
