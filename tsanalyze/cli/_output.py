"""What the ``report`` and ``compare`` commands print and write: the report on stdout (a
terminal table or JSON), the HTML and SVG files the options ask for, a progress bar on
stderr, and the CI exit code. The text itself is rendered in ``tsanalyze.report``; this
module only puts it where it goes."""

from __future__ import annotations

import contextlib
import glob
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tsanalyze.cli._errors import EXIT_FAIL_ON, fail
from tsanalyze.cli._options import FailOn, OutputFormat

if TYPE_CHECKING:  # pragma: no cover
    from tsanalyze.analysis.runset import RunAnalysis

__all__ = ["check_html_target", "progress_bar", "write_files", "write_report"]

#: what an existing ``--html`` target inside an input directory may be (an earlier page)
_PAGE_SUFFIXES = (".html", ".htm")


@contextmanager
def progress_bar(label: str, *, quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr, or ``None`` when quiet or stderr is not a terminal."""
    err = Console(stderr=True)
    if quiet or not err.is_terminal:
        yield None
        return
    # redrawn from the updates, at most 10 times a second, instead of by rich's refresh
    # thread: with no other thread running, the analysis can fork its workers from this
    # process (tsanalyze._workers.fork_ready; issue 24)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True, auto_refresh=False,
    ) as bar:  # fmt: skip
        task = bar.add_task(label, total=None)
        bar.refresh()
        last = [time.monotonic()]

        def update(done: int, total: int) -> None:
            now = time.monotonic()
            redraw = now - last[0] >= 0.1 or done == total
            if redraw:
                last[0] = now
            bar.update(task, completed=done, total=total, refresh=redraw)

        yield update


def check_html_target(html: Path | None, inputs: Sequence[str | Path]) -> None:
    """Exit 2 before any work when the ``--html`` page would replace data: a directory,
    a Parquet file (a run), one of the input files, or a file inside an input directory
    that is not an earlier page (``.html``). Replacing an earlier page is what ``--html``
    is for."""
    if html is None or not (html.exists() or html.is_symlink()):
        return
    if html.is_dir():
        fail(f"--html {html}: is a directory; give the name of the page to write")
    from tsanalyze.errors import InvalidRunError
    from tsanalyze.io.footer import is_parquet

    try:
        why = "is a Parquet file (a run)" if is_parquet(html) else None
    except InvalidRunError:
        return  # not readable: the write says why it cannot replace it
    target = html.resolve()
    for arg in inputs:
        if why is not None:
            break
        text = str(arg)
        if "://" in text:
            continue
        given = Path(text)
        for p in [given] if given.exists() else [Path(m) for m in glob.glob(text)]:
            if p.is_dir():
                if target.is_relative_to(p.resolve()) and html.suffix.lower() not in _PAGE_SUFFIXES:
                    why = f"is a file inside the input directory {p}"
            elif p.exists() and p.resolve() == target:
                why = "is one of the input files"
    if why is not None:
        fail(f"--html {html}: {why}; a report never replaces it; nothing written")


def write_files(files: dict[Path, str], *, what: str = "the report") -> None:
    """Write each text to its path (creating parent directories); exit 2 naming the
    problem when a file cannot be written. Each file is written whole or not at all: to
    a temporary file beside it, then renamed over it."""
    from tsanalyze.io.runs import temp_prefix

    for path, text in files.items():
        tmp = path.with_name(f"{temp_prefix(path)}{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            fail(f"cannot write {what}: {exc}")


def write_report(
    analysis: RunAnalysis,
    *,
    output: OutputFormat,
    html: Path | None,
    plots: Path | None,
    jobs: int | None,
    fail_on: FailOn,
    quiet: bool,
) -> None:
    """Print the report (table or JSON), write the HTML and SVG files the options ask
    for, then exit 1 when ``--fail-on regression`` finds a candidate run slower than its
    baseline run (or ``--fail-on slower`` any slower verdict), and 2 when a ``--fail-on``
    gate compared nothing (the sides share no benchmark name)."""
    from tsanalyze.report.document import report_json
    from tsanalyze.report.terminal import render_terminal

    if output is OutputFormat.json:
        typer.echo(report_json(analysis))
    else:
        console = Console() if sys.stdout.isatty() else Console(width=160, color_system=None)
        render_terminal(analysis, console)
    if html is not None or plots is not None:
        from tsanalyze.report.figure_files import figure_titles, svg_files
        from tsanalyze.report.html import all_figures, render_html

        workers = jobs if jobs is not None else (os.cpu_count() or 1)
        titles = figure_titles(analysis)
        with progress_bar("figures", quiet=quiet) as update:
            figures = all_figures(analysis, titles, workers, update)
        files: dict[Path, str] = {}
        if plots is not None:
            try:  # the directory even when there is no figure to put in it
                plots.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                fail(f"cannot write the report: {exc}")
            svgs = svg_files(analysis, titles, figures)
            files.update({plots / name: svg for name, svg in svgs.items()})
        if html is not None:
            files[html] = render_html(analysis, figures=figures)
        write_files(files)
    if fail_on is not FailOn.never and any(
        w.code == "nothing-compared" for w in analysis.warnings
    ):
        # a gate that compared nothing cannot pass: the sides share no benchmark name
        fail(
            f"--fail-on {fail_on.value}: nothing was compared (the sides share no benchmark), "
            "so no regression can be ruled out"
        )
    if (fail_on is FailOn.regression and analysis.regression) or (
        fail_on is FailOn.slower and analysis.any_slower
    ):
        raise typer.Exit(EXIT_FAIL_ON)
