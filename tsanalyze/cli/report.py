"""``tsanalyze report FILES…``: the main job — load, analyse, render, exit code for CI.

Exit codes: 0 done; 1 with ``--fail-on regression`` when any verdict is ``slower`` (after
the multiplicity adjustment); 2 on bad input.
"""

from __future__ import annotations

import enum
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tsanalyze.cli._common import OutputFormat, fail, user_errors

if TYPE_CHECKING:  # pragma: no cover
    from tsanalyze.analysis.runset import RunAnalysis

__all__ = ["Estimator", "FailOn", "emit", "progress_bar", "report"]


class Estimator(str, enum.Enum):
    """Location estimators offered on the command line."""

    median = "median"
    min = "min"
    mean = "mean"
    trimmed_mean = "trimmed_mean"


class FailOn(str, enum.Enum):
    """When to exit 1."""

    never = "never"
    regression = "regression"


@contextmanager
def progress_bar(label: str, *, quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr, or ``None`` when quiet or stderr is not a terminal."""
    err = Console(stderr=True)
    if quiet or not err.is_terminal:
        yield None
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


# Options shared by `report` and `compare` (one declaration each)
FormatOpt = Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Terminal table or JSON document.")
    ]
HtmlOpt = Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report here.")
    ]
PlotsOpt = Annotated[
        Path | None,
        typer.Option("--plots", help="Also write the figures as SVG files into this directory."),
    ]
EstimatorOpt = Annotated[
        Estimator, typer.Option("--estimator", help="Location estimator.")
    ]
ConfidenceOpt = Annotated[
        float, typer.Option("--confidence-level", help="Of every CI.")
    ]
RawOpt = Annotated[
        bool, typer.Option("--raw", help="Analyse whole series, not their stable segments.")
    ]
JobsOpt = Annotated[
        int | None, typer.Option("--jobs", "-j", help="Worker processes (default: all cores).")
    ]
SeedOpt = Annotated[
        int | None, typer.Option("--seed", help="Seed of the bootstrap (recorded in the report).")
    ]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:60] or "series"


def emit(
    analysis: RunAnalysis,
    *,
    output: OutputFormat,
    html: Path | None,
    plots: Path | None,
    jobs: int | None,
    fail_on: FailOn,
    quiet: bool,
) -> None:
    """Render an analysis the way the options ask, then exit with the CI exit code."""
    from tsanalyze.report.document import report_json
    from tsanalyze.report.terminal import render_terminal

    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if output is OutputFormat.json:
        typer.echo(report_json(analysis))
    else:
        console = Console() if sys.stdout.isatty() else Console(width=160, color_system=None)
        render_terminal(analysis, console)
    if html is not None or plots is not None:
        from tsanalyze.report.findings import run_labels
        from tsanalyze.report.html import all_figures, render_html, series_title

        labels = run_labels(analysis)
        titles = [series_title(s, labels, len(analysis.runs) > 1) for s in analysis.series]
        with progress_bar("figures", quiet=quiet) as update:
            figures = all_figures(analysis, titles, workers, update)
        try:
            if plots is not None:
                plots.mkdir(parents=True, exist_ok=True)
                for i, (title, figs) in enumerate(zip(titles, figures, strict=True)):
                    for kind, svg in figs.items():
                        (plots / f"{i:03d}-{_slug(title)}-{kind}.svg").write_text(
                            svg, encoding="utf-8"
                        )
                if analysis.comparisons:
                    from tsanalyze.report.figures import forest_figure, to_svg
                    from tsanalyze.report.html import comparison_labels

                    forest = forest_figure(
                        analysis.comparisons, comparison_labels(analysis, labels)
                    )
                    (plots / "comparisons-forest.svg").write_text(to_svg(forest), encoding="utf-8")
            if html is not None:
                html.parent.mkdir(parents=True, exist_ok=True)
                html.write_text(render_html(analysis, figures=figures), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write the report: {exc}")
    if fail_on is FailOn.regression and analysis.regression:
        raise typer.Exit(1)


def report(
    files: Annotated[
        list[Path],
        typer.Argument(help="Run files (Parquet, or other tools' files), globs or directories."),
    ],
    output: FormatOpt = OutputFormat.table,
    html: HtmlOpt = None,
    plots: PlotsOpt = None,
    baseline: Annotated[
        str | None,
        typer.Option("--baseline", help="Baseline run (file or run id); default: the first file."),
    ] = None,
    baseline_benchmark: Annotated[
        str | None,
        typer.Option(
            "--baseline-benchmark", help="Compare the other benchmarks of each run with this one."
        ),
    ] = None,
    estimator: EstimatorOpt = Estimator.median,
    confidence_level: ConfidenceOpt = 0.95,
    raw: RawOpt = False,
    jobs: JobsOpt = None,
    fail_on: Annotated[
        FailOn, typer.Option("--fail-on", help="Exit 1 when any comparison is slower.")
    ] = FailOn.never,
    reference: Annotated[
        str | None,
        typer.Option(
            "--reference",
            help="Reference benchmark (no variation of its own): report the noise floor it shows.",
        ),
    ] = None,
    seed: SeedOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Analyse runs: stable phase, dependence, estimates with CIs, comparisons, findings."""
    from tsanalyze.analysis.runset import analyze
    from tsanalyze.io.runs import read_runs

    with user_errors():
        df = read_runs(files)
        with progress_bar("analysing series", quiet=quiet) as update:
            analysis = analyze(
                df, estimator=estimator.value, confidence_level=confidence_level, raw=raw,
                baseline=baseline, baseline_benchmark=baseline_benchmark, jobs=jobs, rng=seed,
                progress=update, reference=reference,
            )  # fmt: skip
    emit(analysis, output=output, html=html, plots=plots, jobs=jobs, fail_on=fail_on, quiet=quiet)
