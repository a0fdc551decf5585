"""``tsanalyze report FILES…``: the main job — load, analyse, render, exit code for CI.

What is compared: sides are what the user gave. Each argument is a side when several are
given (a file with every run it holds, or a directory or glob with every run under it:
those runs are trials); with one argument, each file is a side. A benchmark on several
sides is compared with the baseline side (``--baseline``, default the first). Benchmarks
of one run are compared with each other only when they were declared alternatives (a
collector run of several targets; hyperfine's commands) or when asked
(``--baseline-benchmark``).

Exit codes: 0 done; 1 with ``--fail-on regression`` when a candidate run is slower than
its baseline run on some benchmark (``--fail-on slower``: any slower verdict), after the
multiplicity adjustment; 2 on bad input; 3 on a bug (see ``tsanalyze.cli._errors``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from tsanalyze.cli import _options as opt
from tsanalyze.cli._output import progress_bar, write_report

__all__ = ["argument_sides", "report"]


def argument_sides(args: Sequence[Path | str], runs_meta: Mapping[str, Any]) -> dict[str, str]:
    """Run id -> side when several arguments were given: the runs found under a directory
    or glob argument are one side (named as typed), so that they are trials of it."""
    from tsanalyze.io.runs import expand_paths

    if len(args) < 2:
        return {}
    side_of_file: dict[str, str] = {}
    for arg in args:
        for f in expand_paths([arg]):
            side_of_file.setdefault(str(f), str(arg))
    return {
        rid: side_of_file[str(m.get("file"))]
        for rid, m in runs_meta.items()
        if str(m.get("file")) in side_of_file
    }


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
        typer.Option(
            "--baseline",
            help="Baseline side (file, directory or run id); default: the first given.",
        ),
    ] = None,
    baseline_benchmark: Annotated[
        str | None,
        typer.Option(
            "--baseline-benchmark",
            help="Also compare the other benchmarks of each run with this one.",
        ),
    ] = None,
    estimator: opt.EstimatorOpt = opt.Estimator.median,
    confidence_level: opt.ConfidenceOpt = 0.95,
    raw: opt.RawOpt = False,
    jobs: opt.JobsOpt = None,
    fail_on: opt.FailOnOpt = opt.FailOn.never,
    reference: Annotated[
        str | None,
        typer.Option(
            "--reference",
            help="Reference benchmark (no variation of its own): report the noise floor it shows.",
        ),
    ] = None,
    seed: opt.SeedOpt = None,
    quiet: opt.QuietOpt = False,
    engine: opt.EngineOpt = opt.Engine.local,
    scheduler: opt.SchedulerOpt = None,
) -> None:
    """Analyse runs: stable phase, dependence, estimates with CIs, comparisons, findings."""
    from tsanalyze._workers import start_early_for

    if engine is opt.Engine.local:
        start_early_for(files, jobs)  # the workers' imports overlap the reading (issue 24)
    else:  # no Dask: say how to install it before reading anything
        from tsanalyze.analysis.runset.dask_engine import require_distributed

        require_distributed()
    if html is not None or plots is not None:
        _import_figures_early()
    from tsanalyze.analysis.runset import analyze
    from tsanalyze.io.runs import read_runs

    rng = opt.seed_value(seed)
    with progress_bar("reading files", quiet=quiet) as reading:
        df = read_runs(files, progress=reading)
    sides = argument_sides(files, df.attrs.get("runs", {}))
    with progress_bar("analysing series", quiet=quiet) as update:
        analysis = analyze(
            df, estimator=estimator.value, confidence_level=confidence_level, raw=raw,
            baseline=baseline, baseline_benchmark=baseline_benchmark, jobs=jobs, rng=rng,
            progress=update, reference=reference, sides=sides, engine=engine.value,
            scheduler=scheduler,
        )  # fmt: skip
    write_report(
        analysis, output=output, html=html, plots=plots, jobs=jobs, fail_on=fail_on, quiet=quiet
    )


def _import_figures_early() -> None:
    """Import matplotlib and the figure code in a background thread, so that it overlaps
    the reading and the analysis (which wait on worker processes) instead of following
    them: about a third of what ``--html`` adds to the terminal report on small inputs.
    Importing the same modules from the main thread later waits for this import."""
    import threading

    def load() -> None:
        try:
            import tsanalyze.report.figures
            import tsanalyze.report.html  # noqa: F401
        except BaseException:  # the main thread's import says what failed
            pass

    threading.Thread(target=load, name="import-figures", daemon=True).start()
