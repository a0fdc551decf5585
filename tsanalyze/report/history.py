"""Rendering of :class:`~tsanalyze.analysis.history.History`: a terminal table (most
important changes first), the ``tsanalyze-history`` JSON document, and the HTML page (one
self-contained file in the report's style: the changes table, then one history figure
per series, inline SVG drawn by :mod:`tsanalyze.report.history_figures`). Every piece of
user text in the page goes through :func:`tsanalyze.report.text.html_text`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._version import __version__
from tsanalyze.analysis.history import History
from tsanalyze.report.text import html_text

__all__ = ["history_figure_jobs", "history_html", "history_json", "history_text", "series_title"]

#: benchmarks listed with their outlier runs in the terminal (all are in the JSON)
MAX_OUTLIER_LINES = 20


def _short(commit: str) -> str:
    return commit[:10]


def _commits(cs: list[str]) -> str:
    if len(cs) == 1:
        return _short(cs[0])
    return f"{_short(cs[0])}..{_short(cs[-1])} ({len(cs)})"


def history_text(h: History, width: int = 120) -> str:
    """Plain-text table of the changes, then outlier runs and findings."""
    lines = []
    n_series = len(h.series)
    tested = int(h.series["p_value"].notna().sum()) if n_series else 0
    lines.append(
        f"history: {n_series} series ({tested} tested), {len(h.changes)} changes at false "
        f"discovery rate {h.fdr:g}, {len(h.outliers)} outlier runs"
    )
    if len(h.changes):
        head = f"{'benchmark':<44} {'kind':<5} {'first commit':<12} {'may be at':<28} " \
               f"{'ratio [95% CI]':<24} {'direction':<11} status"  # fmt: skip
        lines += ["", head, "-" * min(width, len(head) + 12)]
        for _, c in h.changes.iterrows():
            name = series_title(c["benchmark"], c["machine"], c["env"])
            ci = f"{c['ratio']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}]"
            status = _status(c)
            lines.append(
                f"{name[:44]:<44} {c['kind']:<5} {_short(c['commit']):<12} "
                f"{_commits(list(c['commits'])):<28} {ci:<24} {c['direction']:<11} {status}"
            )
    if len(h.outliers):
        env = h.outliers[h.outliers["environment"].astype(bool)]
        own = h.outliers[~h.outliers["environment"].astype(bool)]
        if len(env):
            commits = list(dict.fromkeys(env["commit"]))
            lines += ["", f"environment outliers: {len(commits)} commits where most benchmarks "
                      f"were off at once: {', '.join(_short(c) for c in commits[:8])}"
                      + (" ..." if len(commits) > 8 else "")]  # fmt: skip
        if len(own):
            per = own.groupby("benchmark", sort=False).size().sort_values(ascending=False)
            lines += ["", "outlier runs (one-commit excursions, not changes):"]
            for name, count in per.head(MAX_OUTLIER_LINES).items():
                g = own[own["benchmark"] == name]
                worst = g.iloc[int(g["z"].abs().to_numpy().argmax())]
                lines.append(f"  {str(name)[:60]:<60} {count:>4} run(s), largest "
                             f"x{worst['ratio']:.3f} at {_short(worst['commit'])}")  # fmt: skip
            if len(per) > MAX_OUTLIER_LINES:
                lines.append(f"  ... and {len(per) - MAX_OUTLIER_LINES} more benchmarks")
    gone = _gone(h)
    if len(gone):
        lines += ["", "changes of the previous analysis no longer found:"]
        for _, r in gone.iterrows():
            lines.append(f"  {str(r['benchmark'])[:60]:<60} {r['message']}")
    for f in h.warnings:
        lines.append(f"{f.severity}: {f.message}")
    return "\n".join(lines) + "\n"


def _status(c: Any) -> str:
    """A change's status: present or recovered, environment shift, revision."""
    status = (
        f"recovered at {_short(c['recovered_at'])}"
        if isinstance(c["recovered_at"], str)
        else "present"
    )
    if c["environment_shift"]:
        status += ", probable environment shift"
    if isinstance(c.get("revision"), str):
        status += ", " + _revision_text(c["revision"])
    return status


def _revision_text(revision: str) -> str:
    if revision.startswith("moved (was "):
        return f"moved since the previous analysis (was {_short(revision[11:-1])})"
    return f"{revision} since the previous analysis"


def _gone(h: History) -> pd.DataFrame:
    if h.revisions is None or h.revisions.empty:
        return pd.DataFrame(columns=["benchmark", "message"])
    return h.revisions[h.revisions["status"] == "disappeared"]


def series_title(benchmark: str, machine: str, env: str) -> str:
    """``benchmark [machine/env]`` (plain text, unescaped)."""
    return f"{benchmark} [{machine}/{env}]" if machine or env else benchmark


def _series_order(h: History) -> list[tuple[str, str, str]]:
    """Series with changes first (largest change first), then the others in name order."""
    keys = [tuple(k) for k in h.series[["benchmark", "machine", "env"]].itertuples(index=False)]
    size: dict[tuple[str, str, str], float] = {}
    for _, c in h.changes.iterrows():
        k = (c["benchmark"], c["machine"], c["env"])
        size[k] = max(size.get(k, 0.0), abs(float(np.log(c["ratio"]))))
    return sorted(keys, key=lambda k: (k not in size, -size.get(k, 0.0), k))


def history_figure_jobs(h: History) -> list[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]]:
    """One picklable job per series, in page order, for
    :func:`tsanalyze.report.history_figures.history_svg`."""
    if h.levels is None:
        return []
    parts = {k: g for k, g in h.levels.groupby(["benchmark", "machine", "env"], sort=False)}
    ch = {k: g for k, g in h.changes.groupby(["benchmark", "machine", "env"], sort=False)}
    out = {k: g for k, g in h.outliers.groupby(["benchmark", "machine", "env"], sort=False)}
    jobs = []
    for k in _series_order(h):
        if k not in parts:
            continue
        jobs.append((parts[k], ch.get(k, h.changes.iloc[:0]), out.get(k, h.outliers.iloc[:0]),
                     series_title(*k)))  # fmt: skip
    return jobs


_HISTORY_STYLE = """
figure.history { margin: 1em 0; } figure.history svg { width: 100%; }
.regression { color: #b00020; font-weight: 600; } .improvement { color: #1a7f37; font-weight: 600; }
"""


def history_html(
    h: History,
    *,
    jobs: int = 1,
    figures: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """The history as one self-contained HTML page: the changes, the revisions against a
    previous analysis, the warnings, then one figure per series (with changes first).

    Parameters
    ----------
    h : History
    jobs : int
        Worker processes for the figures.
    figures : list of str, optional
        Pre-rendered SVGs, one per job of :func:`history_figure_jobs`.
    progress : callable, optional
        ``progress(done, total)`` after each figure.
    """
    from tsanalyze.report.history_figures import history_svg
    from tsanalyze.report.html import draw_all, page_head, prefix_ids

    e = html_text
    fjobs = history_figure_jobs(h)
    if figures is None:
        figures = draw_all(history_svg, fjobs, jobs, progress)
    anchor = {(j[3]): f"h{i}" for i, j in enumerate(fjobs)}
    newest = h.commits[-1] if h.commits else "–"
    tested = int(h.series["p_value"].notna().sum()) if len(h.series) else 0
    out = [
        *page_head("tsanalyze history", _HISTORY_STYLE),
        "<h1>tsanalyze history</h1>",
        f'<p class="meta">{len(h.series)} series ({tested} tested) over {len(h.commits)} '
        f"benchmarked commits (newest {e(newest)}); {len(h.changes)} changes at false "
        f"discovery rate {h.fdr:g}; {len(h.outliers)} outlier runs; seed {e(h.seed)}; "
        f"tsanalyze {e(__version__)}</p>",
        "<h2>Changes</h2>",
    ]
    if len(h.changes):
        out.append(
            '<table><tr><th class="name">benchmark</th><th class="name">kind</th>'
            '<th class="name">first commit</th><th class="name">may be at (95%)</th>'
            '<th>ratio</th><th>95% CI</th><th class="name">direction</th>'
            '<th class="name">status</th></tr>'
        )
        for _, c in h.changes.iterrows():
            title = series_title(c["benchmark"], c["machine"], c["env"])
            status = _status(c)
            out.append(
                f'<tr><td class="name"><a href="#{anchor.get(title, "")}">{e(title)}</a></td>'
                f'<td class="name">{e(c["kind"])}</td>'
                f'<td class="name"><code>{e(_short(c["commit"]))}</code></td>'
                f'<td class="name"><code>{e(_commits(list(c["commits"])))}</code></td>'
                f"<td>{c['ratio']:.3f}</td><td>{c['ci_low']:.3f}–{c['ci_high']:.3f}</td>"
                f'<td class="name {e(c["direction"])}">{e(c["direction"])}</td>'
                f'<td class="name">{e(status)}</td></tr>'
            )
        out.append("</table>")
    else:
        out.append("<p>No change found.</p>")
    gone = _gone(h)
    if len(gone):
        out.append("<h2>No longer found</h2><ul>")
        out += [f"<li><b>{e(r['benchmark'])}</b>: {e(r['message'])}</li>"
                for _, r in gone.iterrows()]  # fmt: skip
        out.append("</ul>")
    if h.warnings:
        out.append("<h2>Findings</h2><ul>")
        out += [f'<li><span class="{e(f.severity)}">{e(f.severity)}</span> {e(f.message)}</li>'
                for f in h.warnings]  # fmt: skip
        out.append("</ul>")
    for i, (job, svg) in enumerate(zip(fjobs, figures, strict=True)):
        levels, changes, outliers, title = job
        out.append(f'<section id="h{i}"><h2>{e(title)}</h2>')
        out.append(
            f'<p class="meta">{len(levels)} commits, {int(levels["runs"].sum())} runs; '
            f"{len(changes)} changes, {len(outliers)} outlier runs</p>"
        )
        out.append(
            f'<figure class="history" data-series="{i}">{prefix_ids(svg, f"h{i}")}'
            "<figcaption>Each benchmarked commit's level (mean of its runs' medians) with "
            "its 95% interval (band); the fitted level between changes (black steps); each "
            "change's 95% set of commits shaded (red regression, green improvement, purple "
            "probable environment shift), its first commit dashed, its ratio new/old with "
            "the 95% CI at the top; outlier runs ringed.</figcaption></figure></section>"
        )
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def history_json(h: History) -> str:
    """The ``{"format": "tsanalyze-history", ...}`` document (strict JSON)."""
    doc: dict[str, Any] = h.to_dict()
    return json.dumps(doc, indent=1, allow_nan=False)
