"""``tsanalyze report FILES…``: the main job — load, analyse, render, exit code for CI.

Exit codes: 0 done; 1 with ``--fail-on regression`` when any verdict is ``slower`` (after
the multiplicity adjustment); 2 on bad input; 3 on a bug (see ``tsanalyze.cli._errors``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tsanalyze.cli import _options as opt
from tsanalyze.cli._output import progress_bar, write_report

__all__ = ["report"]


def report(
    files: Annotated[
        list[Path],
        typer.Argument(help="Run files (Parquet, or other tools' files), globs or directories."),
    ],
    output: opt.FormatOpt = opt.OutputFormat.table,
    html: opt.HtmlOpt = None,
    plots: opt.PlotsOpt = None,
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
    estimator: opt.EstimatorOpt = opt.Estimator.median,
    confidence_level: opt.ConfidenceOpt = 0.95,
    raw: opt.RawOpt = False,
    jobs: opt.JobsOpt = None,
    fail_on: Annotated[
        opt.FailOn, typer.Option("--fail-on", help="Exit 1 when any comparison is slower.")
    ] = opt.FailOn.never,
    reference: Annotated[
        str | None,
        typer.Option(
            "--reference",
            help="Reference benchmark (no variation of its own): report the noise floor it shows.",
        ),
    ] = None,
    seed: opt.SeedOpt = None,
    quiet: opt.QuietOpt = False,
) -> None:
    """Analyse runs: stable phase, dependence, estimates with CIs, comparisons, findings."""
    from tsanalyze.analysis.runset import analyze
    from tsanalyze.io.runs import read_runs

    df = read_runs(files)
    with progress_bar("analysing series", quiet=quiet) as update:
        analysis = analyze(
            df, estimator=estimator.value, confidence_level=confidence_level, raw=raw,
            baseline=baseline, baseline_benchmark=baseline_benchmark, jobs=jobs, rng=seed,
            progress=update, reference=reference,
        )  # fmt: skip
    write_report(
        analysis, output=output, html=html, plots=plots, jobs=jobs, fail_on=fail_on, quiet=quiet
    )
