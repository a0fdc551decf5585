"""The HTML report: one self-contained file, figures inline as SVG, no scripts, no network.

Every piece of user data (benchmark names, run labels, file names, finding messages that
quote them) goes through :func:`tsanalyze.report.text.html_text`: control characters are
shown escaped, then the text is HTML-escaped, so a benchmark named
``<script>alert(1)</script>`` or holding an escape sequence is shown as text.

One section per row of the summary: a series (run sequence, distribution, ACF), or a
benchmark measured in several runs of one side (its runs side by side, and their pooled
distribution). Figures are drawn with matplotlib's object API
(:mod:`tsanalyze.report.figures`), in worker processes when there are many.
"""

from __future__ import annotations

import multiprocessing
import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from tsanalyze._units import format_percent, format_pvalue, format_ratio
from tsanalyze._version import __version__
from tsanalyze.analysis.runset import RunAnalysis, TrialsRow
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.report.findings import report_findings, run_labels
from tsanalyze.report.terminal import estimate_text, trials_note, trials_pm
from tsanalyze.report.text import html_text

__all__ = [
    "all_figures",
    "comparison_labels",
    "draw_all",
    "page_head",
    "prefix_ids",
    "render_html",
    "series_figures",
    "series_title",
    "unit_titles",
]

T = TypeVar("T")
R = TypeVar("R")

#: below this many summary rows, figures are drawn in this process (a pool costs more)
PARALLEL_MIN_UNITS = 12

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 72em; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } td.name, th.name { text-align: left; overflow-wrap: anywhere; white-space: normal; }
.serious { color: #b00020; font-weight: 600; } .warning { color: #9a6700; } .info { color: #1f5f8b; }
.slower { color: #b00020; font-weight: 600; } .faster { color: #1a7f37; font-weight: 600; }
.same { color: #1a7f37; } .inconclusive { color: #9a6700; }
figure.series, figure.forest { margin: 1em 0; display: flex; flex-wrap: wrap; gap: 0.5em; }
figure svg { box-sizing: border-box; max-width: 100%; height: auto; border: 1px solid #eee; }
figure.series svg { width: calc(50% - 0.25em); }
figure.series svg:first-of-type { width: 100%; }
figcaption { width: 100%; font-size: 0.85em; color: #555; }
.meta { color: #555; font-size: 0.9em; }
"""

_ID = re.compile(r'\bid="([^"]+)"')
_e = html_text


def prefix_ids(svg: str, prefix: str) -> str:
    """Make the ids of one inline SVG unique in the page (matplotlib reuses them)."""
    ids = set(_ID.findall(svg))
    if not ids:
        return svg
    pattern = re.compile(
        r'(\bid="|url\(#|href="#)('
        + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
        + r')(?=["\)])'
    )
    return pattern.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)


def page_head(title: str, style: str = "") -> list[str]:
    """The lines that open a page: doctype, head with ``title`` (escaped) and the report's
    style sheet (plus ``style``), and the opening body tag."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_STYLE}{style}</style></head><body>",
    ]


def series_title(s: SeriesAnalysis, labels: dict[str, str], multi_run: bool) -> str:
    """``benchmark`` or ``benchmark @ run`` (plain text, unescaped)."""
    return f"{s.benchmark} @ {labels.get(s.run, s.run)}" if multi_run else s.benchmark


def unit_titles(analysis: RunAnalysis, labels: dict[str, str] | None = None) -> list[str]:
    """One title per summary row (:meth:`RunAnalysis.units`), plain text, unescaped."""
    labels = labels if labels is not None else run_labels(analysis)
    multi_run = len(analysis.runs) > 1
    return [
        f"{u.benchmark} @ {labels.get(u.side, u.side)}"
        if isinstance(u, TrialsRow)
        else series_title(u, labels, multi_run)
        for u in analysis.units()
    ]


def series_figures(s: SeriesAnalysis, title: str) -> dict[str, str]:
    """The SVG text of each figure of one series, by kind."""
    from tsanalyze.report.figures import FIGURE_KINDS, to_svg

    return {kind: to_svg(make(s, title)) for kind, make in FIGURE_KINDS.items()}


def _figures_job(job: tuple[Any, ...]) -> dict[str, str]:
    from tsanalyze.report.figures import to_svg, trials_figures

    if job[0] == "series":
        return series_figures(job[1], job[2])
    _, t, series, labels, title = job
    return {kind: to_svg(fig) for kind, fig in trials_figures(t, series, labels, title).items()}


def _jobs(analysis: RunAnalysis, titles: list[str]) -> list[tuple[Any, ...]]:
    labels = run_labels(analysis)
    by_key = {(s.run, s.benchmark): s for s in analysis.series}
    out: list[tuple[Any, ...]] = []
    for u, title in zip(analysis.units(), titles, strict=True):
        if isinstance(u, TrialsRow):
            series = [by_key[(r, u.benchmark)] for r in u.runs]
            out.append(("trials", u, series, [labels.get(r, r[:8]) for r in u.runs], title))
        else:
            out.append(("series", u, title))
    return out


def all_figures(
    analysis: RunAnalysis, titles: list[str], jobs: int, progress: Callable[[int, int], None] | None
) -> list[dict[str, str]]:
    """The SVGs of every summary row, by kind (``titles`` from :func:`unit_titles`);
    drawn in ``jobs`` worker processes when there are at least ``PARALLEL_MIN_UNITS``."""
    return draw_all(_figures_job, _jobs(analysis, titles), jobs, progress)


def draw_all(
    fn: Callable[[T], R], items: list[T], jobs: int, progress: Callable[[int, int], None] | None
) -> list[R]:
    """``[fn(item) for item in items]``, in ``jobs`` worker processes when there are at
    least ``PARALLEL_MIN_UNITS`` items (``fn`` a module-level function, picklable)."""
    total = len(items)
    if jobs <= 1 or total < PARALLEL_MIN_UNITS:
        out = []
        for i, item in enumerate(items):
            out.append(fn(item))
            if progress is not None:
                progress(i + 1, total)
        return out
    # forkserver (spawn where unavailable), never fork: the caller may hold threads; the
    # server imports matplotlib once, so workers start fast
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        ctx.set_forkserver_preload(["tsanalyze.report.figures", "tsanalyze.report.html"])
    with ProcessPoolExecutor(max_workers=min(jobs, total), mp_context=ctx) as pool:
        results = []
        for i, r in enumerate(pool.map(fn, items, chunksize=max(1, total // (4 * jobs)))):
            results.append(r)
            if progress is not None:
                progress(i + 1, total)
    return results


def comparison_labels(analysis: RunAnalysis, labels: dict[str, str]) -> list[str]:
    """One readable label per comparison (plain text, unescaped)."""
    out = []
    for c in analysis.comparisons:
        if c.kind == "benchmark":
            where = f" @ {labels.get(c.run, c.run)}" if len(analysis.runs) > 1 else ""
            out.append(f"{c.benchmark} vs {c.baseline_benchmark}{where}")
        else:
            out.append(
                f"{c.benchmark}: {labels.get(c.run, c.run)} vs {labels.get(c.baseline_run, c.baseline_run)}"
            )
    return out


def _summary(analysis: RunAnalysis, labels: dict[str, str], multi_run: bool) -> list[str]:
    pct = f"{analysis.confidence_level * 100:g}%"
    heads = (
        ["benchmark"]
        + (["run"] if multi_run else [])
        + ["n", "stable", f"estimate [{pct} CI]", "subsession", "findings"]
    )
    out = ["<h2>Summary</h2><table><tr>"]
    out.append(
        "".join(
            f'<th class="{"name" if h in ("benchmark", "run", "findings") else ""}">{_e(h)}</th>'
            for h in heads
        )
    )
    out.append("</tr>")
    trials = False
    for i, u in enumerate(analysis.units()):
        cells = [f'<td class="name"><a href="#s{i}">{_e(u.benchmark)}</a></td>']
        codes = _e(", ".join(sorted({w.code for w in u.warnings if w.severity != "info"})) or "–")
        if isinstance(u, TrialsRow):
            trials = True
            if multi_run:
                cells.append(
                    f'<td class="name">{_e(labels.get(u.side, u.side))} ({u.n_trials} runs)</td>'
                )
            stable = "consistent" if u.consistent else "mixed"
            cells += [
                f"<td>{u.n_samples:,}</td>",
                f"<td>{_e(stable)}</td>",
                f"<td>{_e(trials_pm(u))} †</td>",
                "<td>–</td>",
            ]
        else:
            if multi_run:
                cells.append(f'<td class="name">{_e(labels.get(u.run, u.run))}</td>')
            stable = (
                format_percent(u.stable_share, 3)
                if u.stable
                else ("raw" if u.classification == "raw" else "none")
            )
            cells += [
                f"<td>{u.n:,}</td>",
                f"<td>{_e(stable)}</td>",
                f"<td>{_e(estimate_text(u))}</td>",
                f"<td>{'–' if u.subsession_size is None else u.subsession_size}</td>",
            ]
        cells.append(f'<td class="name">{codes}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    if trials:
        first = next(u for u in analysis.units() if isinstance(u, TrialsRow))
        out.append(f'<p class="meta">{_e(trials_note(first))}</p>')
    return out


def _trials(analysis: RunAnalysis, labels: dict[str, str]) -> list[str]:
    pct = f"{analysis.confidence_level * 100:g}%"
    out = [
        '<h2>Trials</h2><p class="meta">Benchmarks measured in several runs; CI from a '
        "two-level (run, then sample) bootstrap.</p><table><tr>",
        '<th class="name">benchmark</th><th class="name">run / file</th><th>runs</th>'
        f"<th>estimate ± {pct} CI</th><th>between-run sd</th><th>p (Cochran Q)</th>"
        '<th class="name">steady state</th></tr>',
    ]
    for t in analysis.trials:
        rel_sd = t.between_sd / t.estimate if t.estimate else float("nan")
        side = labels.get(t.side, t.side) if t.side else "(each run its own)"
        out.append(
            f'<tr><td class="name">{_e(t.benchmark)}</td><td class="name">{_e(side)}</td>'
            f"<td>{t.n_trials}</td><td>{_e(trials_pm(t))}</td><td>{format_percent(rel_sd, 2)}</td>"
            f'<td class="{"serious" if t.disagree else ""}">{format_pvalue(t.heterogeneity_pvalue)}</td>'
            f'<td class="name">{"consistent" if t.consistent else "inconsistent"}</td></tr>'
        )
    out.append("</table>")
    return out


def _comparisons(analysis: RunAnalysis, labels: dict[str, str]) -> list[str]:
    from tsanalyze.report.figures import forest_figure, to_svg

    pct = f"{analysis.confidence_level * 100:g}%"
    clabels = comparison_labels(analysis, labels)
    out = [
        "<h2>Comparisons</h2><table><tr>",
        '<th class="name">comparison</th><th>ratio</th>'
        f'<th>{pct} CI</th><th>p</th><th>p (Holm)</th><th class="name">test</th><th class="name">verdict</th></tr>',
    ]
    for c, lab in zip(analysis.comparisons, clabels, strict=True):
        out.append(
            f'<tr><td class="name">{_e(lab)}</td><td>{format_ratio(c.ratio)}</td>'
            f"<td>{c.ci_low:.3f}–{c.ci_high:.3f}</td><td>{format_pvalue(c.pvalue)}</td>"
            f'<td>{format_pvalue(c.pvalue_adjusted)}</td><td class="name">{_e(c.test)}</td>'
            f'<td class="name {_e(c.verdict)}">{_e(c.verdict)}</td></tr>'
        )
    out.append("</table>")
    svg = prefix_ids(to_svg(forest_figure(analysis.comparisons, clabels)), "forest")
    out.append(
        f'<figure class="forest">{svg}<figcaption>Ratios with {pct} CIs; 1 = no change.</figcaption></figure>'
    )
    return out


_CAPTION = {
    "series": "Run sequence (axis scaled to the bulk, samples beyond it drawn as triangles at "
    "the edge; stable segment shaded green, or orange when it does not look stationary; change "
    "points dashed red; long series drawn as the min–max band and median of each bin); "
    "distribution of the analysed segment (minimum, median and trimmed mean marked); "
    "autocorrelation with its confidence band.",
    "trials": "The runs one after another (boundaries dotted, each run's stable segment "
    "shaded, change points dashed red); the distribution of their analysed segments pooled.",
}


def render_html(
    analysis: RunAnalysis,
    *,
    jobs: int = 1,
    figures: list[dict[str, str]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """The whole report as one self-contained HTML document.

    Parameters
    ----------
    analysis : RunAnalysis
    jobs : int
        Worker processes for the figures.
    figures : list of dict, optional
        Pre-rendered SVGs per summary row (as :func:`all_figures` returns them), e.g. when
        the caller also writes them to files.
    progress : callable, optional
        ``progress(done, total)`` after each row's figures.
    """
    labels = run_labels(analysis)
    multi_run = len(analysis.runs) > 1
    titles = unit_titles(analysis, labels)
    if figures is None:
        figures = all_figures(analysis, titles, jobs, progress)
    pct = f"{analysis.confidence_level * 100:g}%"
    out: list[str] = [
        *page_head("tsanalyze report"),
        "<h1>tsanalyze report</h1>",
        f'<p class="meta">{len(analysis.runs)} run(s), {len(analysis.series)} series; estimator '
        f"{_e(analysis.estimator)} with {pct} CI; {'whole series (raw)' if analysis.raw else 'stable segments'}; "
        f"bootstrap seed {_e(analysis.seed)}; tsanalyze {_e(__version__)}</p>",
    ]
    if multi_run:
        out.append(
            '<table><tr><th class="name">run</th><th class="name">file</th><th class="name">id</th></tr>'
        )
        for rid, file in analysis.runs:
            base = " (baseline)" if analysis.baseline_run in (rid, file) else ""
            out.append(
                f'<tr><td class="name">{_e(labels.get(rid, rid))}{base}</td>'
                f'<td class="name">{_e(file)}</td><td class="name">{_e(rid)}</td></tr>'
            )
        out.append("</table>")
    out += _summary(analysis, labels, multi_run)
    if analysis.trials:
        out += _trials(analysis, labels)
    if analysis.comparisons:
        out += _comparisons(analysis, labels)
    findings = report_findings(analysis)
    out.append("<h2>Findings</h2>")
    if findings:
        out.append("<ul>")
        for rf in findings:
            who = rf.benchmark if not multi_run or not rf.run else f"{rf.benchmark} @ {rf.run}"
            who_html = f"<b>{_e(who)}</b>: " if who else ""
            out.append(
                f'<li><span class="{_e(rf.finding.severity)}">{_e(rf.finding.severity)}</span> '
                f"{who_html}{_e(rf.finding.message)}</li>"
            )
        out.append("</ul>")
    else:
        out.append("<p>No findings: every series is stable, independent and clean.</p>")
    for i, (u, title, figs) in enumerate(zip(analysis.units(), titles, figures, strict=True)):
        out.append(f'<section id="s{i}"><h2>{_e(title)}</h2>')
        if isinstance(u, TrialsRow):
            out.append(
                f'<p class="meta">{u.n_trials} runs, {u.n_samples:,} samples; '
                f"{_e(u.statistic)} {_e(trials_pm(u))} (two-level bootstrap)</p>"
            )
        else:
            out.append(
                f'<p class="meta">{u.n:,} samples; analysed {u.start}–{u.stop} ({_e(u.classification)}); '
                f"{_e(analysis.estimator)} {_e(estimate_text(u))} by {_e(u.ci_method)}</p>"
            )
        svgs = "".join(prefix_ids(svg, f"s{i}-{kind}") for kind, svg in figs.items())
        kind = "trials" if isinstance(u, TrialsRow) else "series"
        out.append(
            f'<figure class="series" data-series="{i}">{svgs}<figcaption>{_CAPTION[kind]}'
            "</figcaption></figure>"
        )
        if u.warnings:
            out.append(
                "<ul>"
                + "".join(f'<li class="{_e(f.severity)}">{_e(f.message)}</li>' for f in u.warnings)
                + "</ul>"
            )
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
