"""The figures of a report as SVG files (``--plots DIR``): their names and their text.

Rendering only: the CLI writes what :func:`svg_files` returns.
"""

from __future__ import annotations

import re

from tsanalyze.analysis.runset import RunAnalysis
from tsanalyze.report.findings import run_labels
from tsanalyze.report.html import comparison_labels, unit_titles

__all__ = ["FOREST_FILE", "figure_titles", "svg_files"]

#: file name of the forest plot of the comparisons
FOREST_FILE = "comparisons-forest.svg"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:60] or "series"


def figure_titles(analysis: RunAnalysis) -> list[str]:
    """One title per summary row: ``benchmark``, ``benchmark @ run`` for several runs, or
    ``benchmark @ side`` for a benchmark's trials."""
    return unit_titles(analysis)


def svg_files(
    analysis: RunAnalysis, titles: list[str], figures: list[dict[str, str]]
) -> dict[str, str]:
    """SVG text by file name: ``NNN-<title>-<kind>.svg`` for each summary row's figures (as
    :func:`tsanalyze.report.html.all_figures` returns them), and ``comparisons-forest.svg``
    when the analysis has comparisons. Names are file-system safe and unique."""
    files: dict[str, str] = {}
    for i, (title, figs) in enumerate(zip(titles, figures, strict=True)):
        for kind, svg in figs.items():
            files[f"{i:03d}-{_slug(title)}-{kind}.svg"] = svg
    if analysis.comparisons:
        from tsanalyze.report.figures import forest_figure, to_svg

        labels = comparison_labels(analysis, run_labels(analysis))
        files[FOREST_FILE] = to_svg(forest_figure(analysis.comparisons, labels))
    return files
