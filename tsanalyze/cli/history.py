"""``tsanalyze history PATH...``: at which commit did each benchmark change?

PATH: Parquet run files or directories, or asv results directories directly. Exit 1 with
``--fail-on regression`` when a regression is still present at the newest commit.
``--html`` writes one self-contained page with a history figure per series;
``--previous`` compares with an earlier ``--format json`` output and says which earlier
changes moved; ``--engine dask`` runs the per-series work on a Dask cluster.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tsanalyze.cli import _options as opt
from tsanalyze.cli._errors import fail
from tsanalyze.cli._output import check_html_target, progress_bar, write_files
from tsanalyze.errors import InvalidArgumentError

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
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write a self-contained HTML page (a figure per series)."),
    ] = None,
    previous: Annotated[
        Path | None,
        typer.Option(
            "--previous",
            help="An earlier tsanalyze-history JSON of this history: say which changes before "
            "its newest commit moved, disappeared or appeared.",
        ),
    ] = None,
    jobs: opt.JobsOpt = None,
    engine: opt.EngineOpt = opt.Engine.local,
    scheduler: opt.SchedulerOpt = None,
    quiet: opt.QuietOpt = False,
) -> None:
    """Find the commits where each benchmark got slower or faster, with commit sets and CIs."""
    from tsanalyze.analysis.history import history as run_history
    from tsanalyze.io.runs import read_runs
    from tsanalyze.report.history import history_json, history_text

    if fail_on not in ("never", "regression"):
        fail(f"--fail-on: expected 'never' or 'regression', got {fail_on!r}")
    check_html_target(html, paths)
    full = None
    if commits is not None:
        try:
            full = [ln.strip() for ln in commits.read_text().splitlines() if ln.strip()]
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{commits}: cannot be read ({exc})")
    if engine is opt.Engine.dask:  # no Dask: say how to install it before reading anything
        from tsanalyze.analysis.runset.dask_engine import require_distributed

        require_distributed()
    before = _read_previous(previous) if previous is not None else None
    df = read_runs(paths)
    rng = opt.seed_value(seed)
    try:
        h = run_history(
            df, fdr=fdr, commits=full, since=since, last=last, seed=0 if rng is None else rng,
            engine=engine.value, scheduler=scheduler, workers=jobs, previous=before,
        )  # fmt: skip
    except InvalidArgumentError as exc:
        if str(exc).startswith("--commits:"):  # name the file the list came from
            fail(f"--commits {commits}:{str(exc).removeprefix('--commits:')}")
        raise
    if output == opt.OutputFormat.json:
        typer.echo(history_json(h))
    else:
        typer.echo(history_text(h), nl=False)
    if html is not None:
        import os

        from tsanalyze.report.history import history_figure_jobs, history_html
        from tsanalyze.report.history_figures import history_svg
        from tsanalyze.report.html import draw_all

        workers = jobs if jobs is not None else (os.cpu_count() or 1)
        with progress_bar("figures", quiet=quiet) as update:
            figures = draw_all(history_svg, history_figure_jobs(h), workers, update)
        write_files({html: history_html(h, figures=figures)}, what="the HTML page")
    if fail_on == "regression" and len(h.changes):
        present = h.changes[
            (h.changes["direction"] == "regression") & h.changes["recovered_at"].isna()
        ]
        if len(present):
            raise typer.Exit(1)


def _read_previous(path: Path) -> dict[str, Any]:
    """The previous ``tsanalyze-history`` document at ``path`` (exit 2 naming it if not)."""
    import json

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:  # hostile nesting: a clear error, not an internal one
        fail(f"--previous {path}: cannot be read as JSON (nested too deeply)")
    except (OSError, ValueError) as exc:  # UnicodeDecodeError, JSONDecodeError, huge ints
        fail(f"--previous {path}: cannot be read as JSON ({exc})")
    if not isinstance(doc, dict) or doc.get("format") != "tsanalyze-history":
        fail(f"--previous {path}: not a tsanalyze-history document (write one with --format json)")
    if not isinstance(doc.get("newest_commit"), str):
        fail(f"--previous {path}: has no newest_commit (written by an older tsanalyze)")
    return doc
