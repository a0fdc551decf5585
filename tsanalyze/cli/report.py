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
from tsanalyze.cli._output import check_html_target, progress_bar, write_report

__all__ = ["argument_sides", "large_inputs", "planned_or_read", "report"]


def argument_sides(args: Sequence[Path | str], runs_meta: Mapping[str, Any]) -> dict[str, str]:
    """Run id -> side when several arguments were given: the runs found under a directory
    or glob argument are one side (named as typed), so that they are trials of it."""
    from tsanalyze.io.runs import expand_paths
    from tsanalyze.io.series_source import files_of_url, is_url

    if len(args) < 2:
        return {}
    side_of_file: dict[str, str] = {}
    for arg in args:
        for f in files_of_url(str(arg)) if is_url(arg) else expand_paths([arg]):
            side_of_file.setdefault(str(f), str(arg))
    return {
        rid: side_of_file[str(m.get("file"))]
        for rid, m in runs_meta.items()
        if str(m.get("file")) in side_of_file
    }


def report(
    files: Annotated[
        list[str],
        typer.Argument(
            help="Run files (Parquet, or other tools' files), globs or directories; Parquet "
            "run files may be URLs (s3://…, file://…, any fsspec filesystem).",
        ),
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
    from tsanalyze._workers import fork_ready, start_early_for

    check_html_target(html, files)
    figures = html is not None or plots is not None
    if engine is opt.Engine.local:
        # workers are forked from this process once it has imported the analysis, unless
        # a thread runs then (the figures' imports): then from the fork server, started
        # now so that its imports overlap the reading (issue 24)
        if figures or not fork_ready():
            start_early_for(files, jobs)
    else:  # no Dask: say how to install it before reading anything
        from tsanalyze.analysis.runset.dask_engine import require_distributed

        require_distributed()
    if figures:
        _import_figures_early()
    from tsanalyze.analysis.runset import analyze
    from tsanalyze.io.series_source import ParquetSeries

    rng = opt.seed_value(seed)
    data = planned_or_read(files, engine, reference, quiet)
    runs_meta = data.runs if isinstance(data, ParquetSeries) else data.attrs.get("runs", {})
    sides = argument_sides(files, runs_meta)
    with progress_bar("analysing series", quiet=quiet) as update:
        analysis = analyze(
            data, estimator=estimator.value, confidence_level=confidence_level, raw=raw,
            baseline=baseline, baseline_benchmark=baseline_benchmark, jobs=jobs, rng=rng,
            progress=update, reference=reference, sides=sides, engine=engine.value,
            scheduler=scheduler,
        )  # fmt: skip
    write_report(
        analysis, output=output, html=html, plots=plots, jobs=jobs, fail_on=fail_on, quiet=quiet
    )


def planned_or_read(files: Sequence[str], engine: opt.Engine, reference: str | None,
                     quiet: bool) -> Any:  # fmt: skip
    """What ``analyze`` is given. With ``--engine dask`` (or URLs, or local Parquet run
    files of :data:`LOCAL_PLAN_ROWS` rows or more), Parquet run files are planned from
    their footers and each task reads its own series (issue 19): this process never holds
    the samples. Other tools' files, and ``--reference`` (the noise floor
    needs every series at once), are read here into one frame, as by the local engine."""
    from tsanalyze.io.runs import read_runs
    from tsanalyze.io.series_source import is_url, parquet_series

    urls = [f for f in files if is_url(f)]
    if (engine is opt.Engine.dask or urls or large_inputs(files)) and reference is None:
        with progress_bar("reading footers", quiet=quiet):
            planned = parquet_series(files)
        if planned is not None:
            return planned
    if urls:
        from tsanalyze.errors import InvalidArgumentError

        why = "--reference needs" if reference is not None else "other tools' files need"
        raise InvalidArgumentError(
            f"{urls[0]}: a URL is read one series at a time, but {why} whole files read "
            "here; give local paths"
        )
    with progress_bar("reading files", quiet=quiet) as reading:
        return read_runs(files, progress=reading)


#: from this many rows in all, the local engine too plans Parquet run files and its
#: workers read their own series (the report process never holds the samples); below
#: it, reading whole files once is cheaper than one filtered read per series
LOCAL_PLAN_ROWS = 2_000_000
#: ... if the files are large: files of fewer rows on average (many small runs, a CI
#: history: issue 24) are read whole up to SMALL_FILES_PLAN_ROWS rows, where one filtered
#: read per series and per comparison side would cost about half the analysis again
#: (10^3 runs x 5,000 rows: 120 s and 1.2 GB planned, 80 s and 3.3 GB read whole)
SMALL_FILE_ROWS = 100_000
#: ... and from this many rows every input is planned (read whole, ~700 bytes a row)
SMALL_FILES_PLAN_ROWS = 10_000_000


def large_inputs(files: Sequence[str]) -> bool:
    """True when the footers of local Parquet inputs say to plan them: LOCAL_PLAN_ROWS
    rows or more in files of SMALL_FILE_ROWS rows on average, or SMALL_FILES_PLAN_ROWS
    rows in any files (footers only; anything unreadable here is left to the reader
    that follows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tsanalyze.errors import TsanalyzeError
    from tsanalyze.io.footer import expand_paths

    rows = n_files = 0
    try:
        for path in expand_paths(files):
            if path.suffix != ".parquet":
                return False
            rows += pq.read_metadata(path).num_rows
            n_files += 1
    except (OSError, ValueError, pa.ArrowException, TsanalyzeError):  # the reader says it
        return False
    if rows < LOCAL_PLAN_ROWS:
        return False
    return rows >= SMALL_FILES_PLAN_ROWS or rows >= SMALL_FILE_ROWS * n_files


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
