"""``tsanalyze compare A B``: a two-sided report of two files, or of two benchmarks.

``tsanalyze compare old.parquet new.parquet`` compares every benchmark the two sides share
(baseline: the first); a side may be a directory or glob, whose runs are its trials. Two
sides of one benchmark each are compared whatever the names (a JSON list of times is named
after its file); two sides sharing no benchmark otherwise exit 2.
``tsanalyze compare BENCH_A BENCH_B --in run.parquet`` compares two benchmarks of the same
run(s) (paired by round when interleaved; baseline: the first). Same output options and
exit codes as ``report``: ``--fail-on regression`` fires for a candidate run slower than
its baseline run, ``--fail-on slower`` for any slower verdict (so also for B slower than
A with ``--in``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tsanalyze._units import name_some
from tsanalyze.cli import _options as opt
from tsanalyze.cli import report as report_cli
from tsanalyze.cli._errors import fail
from tsanalyze.cli._output import check_html_target, progress_bar, write_report
from tsanalyze.cli.report import argument_sides

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from tsanalyze.io.series_source import ParquetSeries

__all__ = ["compare"]


def compare(
    a: Annotated[str, typer.Argument(help="Baseline: a run file, or a benchmark name with --in.")],
    b: Annotated[str, typer.Argument(help="Candidate: a run file, or a benchmark name with --in.")],
    inputs: Annotated[
        list[Path] | None,
        typer.Option("--in", "-i", help="Run file(s) holding benchmarks A and B."),
    ] = None,
    output: opt.FormatOpt = opt.OutputFormat.table,
    html: opt.HtmlOpt = None,
    plots: opt.PlotsOpt = None,
    estimator: opt.EstimatorOpt = opt.Estimator.median,
    confidence_level: opt.ConfidenceOpt = 0.95,
    raw: opt.RawOpt = False,
    jobs: opt.JobsOpt = None,
    fail_on: opt.FailOnOpt = opt.FailOn.never,
    seed: opt.SeedOpt = None,
    quiet: opt.QuietOpt = False,
) -> None:
    """Compare two run files, or two benchmarks of one run (with --in)."""
    from tsanalyze.analysis.runset import analyze
    from tsanalyze.io.runs import read_runs

    rng = opt.seed_value(seed)
    check_html_target(html, inputs if inputs else [a, b])
    sides: dict[str, str] = {}
    if inputs:
        df = read_runs(inputs)
        names = set(df["benchmark"].astype(str))
        for label, name in (("A", a), ("B", b)):
            if name not in names:
                fail(f"{label}: no benchmark named {name!r} in {', '.join(map(str, inputs))}")
        if a == b:
            fail("A and B name the same benchmark")
        df = df[df["benchmark"].astype(str).isin([a, b])]
        runs_of = {
            n: set(df.loc[df["benchmark"].astype(str) == n, "run"].astype(str)) for n in (a, b)
        }
        if not runs_of[a] & runs_of[b]:
            fail(
                "A and B are never in the same run: --in compares two benchmarks of one run "
                "(to compare two files, give them as A and B with the same benchmark names)"
            )
        options = {"baseline_benchmark": a}
        data: pd.DataFrame | ParquetSeries = df
    else:
        for label, name in (("A", a), ("B", b)):
            if not Path(name).exists():
                fail(f"{label}: {name!r} is not a file (to compare two benchmarks, add --in FILE)")
        planned = _planned(a, b, quiet)
        if planned is not None:
            data = planned
            sides = argument_sides([a, b], planned.runs)
        else:
            df = read_runs([Path(a), Path(b)])
            if df["run"].nunique() < 2:
                fail("A and B hold the same run; nothing to compare")
            df = _share_a_benchmark(df, a, b)
            sides = argument_sides([a, b], df.attrs.get("runs", {}))
            data = df
        options = {"baseline": a}
    with progress_bar("analysing series", quiet=quiet) as update:
        analysis = analyze(
            data, estimator=estimator.value, confidence_level=confidence_level, raw=raw, jobs=jobs,
            rng=rng, progress=update, sides=sides, **options,
        )  # fmt: skip
    write_report(
        analysis, output=output, html=html, plots=plots, jobs=jobs, fail_on=fail_on, quiet=quiet
    )


def _planned(a: str, b: str, quiet: bool) -> ParquetSeries | None:
    """The two sides planned from their footers, as ``report`` plans large Parquet inputs
    (``tsanalyze.cli.report.LOCAL_PLAN_ROWS``): each worker then reads its own series and
    this process never holds the samples. None (read both whole) when they are small,
    not Parquet run files, hold one run only, or share no benchmark name (the renaming
    of :func:`_share_a_benchmark` needs the frame)."""
    from tsanalyze.cli._options import Engine
    from tsanalyze.io.runs import expand_paths
    from tsanalyze.io.series_source import ParquetSeries

    if not report_cli.large_inputs([a, b]):
        return None
    data = report_cli.planned_or_read([a, b], Engine.local, None, quiet)
    if not isinstance(data, ParquetSeries) or len(data.runs) < 2:
        return None
    files = {str(f): "A" for f in expand_paths([a])} | {str(f): "B" for f in expand_paths([b])}
    side = {rid: files.get(str(m.get("file")), "") for rid, m in data.runs.items()}
    names = {k: {bench for rid, bench in data.keys if side[rid] == k} for k in ("A", "B")}
    return data if names["A"] & names["B"] else None


def _share_a_benchmark(df: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """``df`` when the two files have a benchmark in common; when each holds one
    benchmark, ``df`` with B's named as A's (what is asked: JSON lists of times are named
    after their files); else exit 2: nothing can be compared (names must match exactly:
    a renamed benchmark, Go's -GOMAXPROCS suffix)."""
    from tsanalyze.io.runs import expand_paths

    files = {str(f): "A" for f in expand_paths([a])} | {str(f): "B" for f in expand_paths([b])}
    side = (
        df["run"]
        .astype(str)
        .map(
            {rid: files.get(str(m.get("file")), "") for rid, m in df.attrs.get("runs", {}).items()}
        )
    )
    names = {k: sorted(set(df.loc[side == k, "benchmark"].astype(str))) for k in ("A", "B")}
    if not (names["A"] and names["B"]) or set(names["A"]) & set(names["B"]):
        return df
    if len(names["A"]) == len(names["B"]) == 1:
        typer.echo(
            f"tsanalyze: comparing {names['B'][0]!r} of B with {names['A'][0]!r} of A (the one "
            "benchmark of each), under the name of A's",
            err=True,
        )
        renamed = df["benchmark"].astype(str).where(side != "B", names["A"][0])
        out = df.assign(benchmark=renamed.astype("category"))
        out.attrs = df.attrs
        return out
    shown = "; ".join(
        f"{k}: {name_some(v)}"
        for k, v in names.items()
    )
    fail(
        f"A and B share no benchmark, so nothing can be compared (names must match exactly; {shown})"
    )
