"""The history figure of one series (benchmark, machine, env): what it shows (plain data,
tested) and its drawing (SVG), in the style of the report's figures
(:mod:`tsanalyze.report.figures`).

Each benchmarked commit's level (the mean of its runs' medians) with its 95% interval
(run-to-run and sampling noise over its runs) as a band; the fitted level of each segment
between changes as a step line; each change's set of commits shaded (red a regression,
green an improvement, purple a probable environment shift) with its ratio and 95% CI
written at the top; outlier runs ringed in red (purple when most benchmarks of the machine
were off at that commit). User text is escaped (:func:`tsanalyze.report.text.printable`)
and drawn with mathtext off.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from tsanalyze._units import time_unit
from tsanalyze.report.figures import FIGURE_STYLE, new_figure, to_svg
from tsanalyze.report.text import printable

__all__ = [
    "HistoryFigure", "Span", "draw_history", "history_figure_data", "history_svg", "label_rows",
    "log_scale",
]  # fmt: skip

#: up to this many commits are drawn as points; longer histories as a line
MAX_MARKERS = 400
#: a figure whose times span more than this ratio is drawn on a log scale (a x150
#: regression would flatten every earlier change to the axis)
LOG_RANGE = 10.0
#: rows of change labels at the top of a figure (0.09 of its height each)
LABEL_ROWS = 4
#: a label character's width over the axes' width, at the labels' 7 pt on 8.75 in of axes
_CHAR_SHARE = 0.55 * 7.0 / (8.75 * 72.0)

_BLUE, _RED, _GREEN, _PURPLE, _GREY = "#1f4e79", "#d62728", "#2ca02c", "#9467bd", "#7f7f7f"


@dataclasses.dataclass(frozen=True, slots=True)
class Span:
    """A change drawn: commit positions ``start``..``stop`` (its set, inclusive), the
    first commit at the new level ``first``, its label and colour."""

    start: int
    stop: int
    first: int
    label: str
    color: str


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryFigure:
    """What one history figure draws (times in ``unit``; x is the commit's position)."""

    title: str
    unit: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: np.ndarray
    spans: tuple[Span, ...]
    outlier_x: np.ndarray
    outlier_y: np.ndarray
    outlier_env: np.ndarray
    first_commit: str
    last_commit: str


def _ratio_label(c: Any) -> str:
    text = f"×{c['ratio']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}]"
    if c["kind"] == "drift":
        text = "drift " + text
    if c["environment_shift"]:
        text += " env?"
    return text


def history_figure_data(
    levels: pd.DataFrame, changes: pd.DataFrame, outliers: pd.DataFrame, title: str
) -> HistoryFigure:
    """The figure of one series from its rows of ``History.levels``, ``changes`` and
    ``outliers``."""
    levels = levels.sort_values("position")
    x = levels["position"].to_numpy(dtype=float)
    lx = levels["x"].to_numpy(dtype=float)
    hw = levels["half_width"].to_numpy(dtype=float)
    unit, scale = time_unit(float(np.exp(np.median(lx))) if lx.size else 1.0)
    commits = levels["commit"].astype(str).tolist()
    where = dict(zip(commits, levels["position"].astype(int).tolist(), strict=True))
    spans = []
    for _, c in changes.iterrows():
        at = [where[k] for k in c["commits"] if k in where]
        first = where.get(str(c["commit"]))
        if first is None:
            continue
        at = at or [first]
        color = _PURPLE if c["environment_shift"] else (
            _RED if c["direction"] == "regression" else _GREEN)  # fmt: skip
        spans.append(Span(min(at), max(at), first, _ratio_label(c), color))
    ox = outliers["commit"].map(where).to_numpy(dtype=float)
    known = np.isfinite(ox)
    by_pos = dict(zip(x, lx, strict=True))
    oy = np.array([math.exp(by_pos[p]) / scale for p in ox[known]], dtype=float)
    return HistoryFigure(
        title=printable(title), unit=unit, x=x, y=np.exp(lx) / scale,
        low=np.exp(lx - hw) / scale, high=np.exp(lx + hw) / scale,
        level=np.exp(levels["level"].to_numpy(dtype=float)) / scale, spans=tuple(spans),
        outlier_x=ox[known], outlier_y=oy,
        outlier_env=outliers["environment"].to_numpy(dtype=bool)[known],
        first_commit=commits[0] if commits else "", last_commit=commits[-1] if commits else "",
    )  # fmt: skip


def label_rows(
    anchors: np.ndarray, widths: np.ndarray, leftward: np.ndarray, n_rows: int = LABEL_ROWS
) -> list[int]:
    """Rows (0 the top) for labels written from ``anchors``, ``widths`` long (both in one
    unit), leftwards where ``leftward``, such that no two labels of a row overlap when
    the rows suffice: by their left ends, each label takes the first row whose labels end
    before it starts, else the row that ends first. Returned in the input's order."""
    lo = np.where(leftward, anchors - widths, anchors)
    hi = lo + widths
    ends = [-math.inf] * n_rows
    rows = [0] * len(lo)
    for i in np.argsort(lo, kind="stable"):
        free = [r for r in range(n_rows) if ends[r] <= lo[i]]
        r = free[0] if free else int(np.argmin(ends))
        rows[int(i)] = r
        ends[r] = float(hi[i])
    return rows


def log_scale(d: HistoryFigure) -> bool:
    """Is the figure drawn on a log scale (its times span more than :data:`LOG_RANGE`)?"""
    v = np.concatenate([d.low, d.high, d.outlier_y])
    v = v[np.isfinite(v) & (v > 0)]
    return bool(v.size) and float(v.max() / v.min()) > LOG_RANGE


def draw_history(d: HistoryFigure) -> Figure:
    """Draw a :class:`HistoryFigure`."""
    with matplotlib.rc_context(FIGURE_STYLE):
        fig, ax = new_figure(10.0, 3.2, (0.75, 0.15, 0.5, 0.45))
        for s in d.spans:
            ax.axvspan(s.start - 0.5, s.stop + 0.5, color=s.color, alpha=0.15, lw=0)
            ax.axvline(s.first - 0.5, color=s.color, lw=0.9, ls="--")
        if d.x.size:
            ax.fill_between(d.x, d.low, d.high, color=_BLUE, alpha=0.18, lw=0, step="mid")
            if d.x.size <= MAX_MARKERS:
                ax.plot(d.x, d.y, ls="none", marker="o", ms=2.2, mew=0, color=_BLUE)
            else:
                ax.plot(d.x, d.y, color=_BLUE, lw=0.5)
            ax.plot(d.x, d.level, color="black", lw=1.1, drawstyle="steps-mid")
            ax.set_xlim(-0.5, float(d.x.max()) + 0.5)
        if d.outlier_x.size:
            for env, color in ((False, _RED), (True, _PURPLE)):
                m = d.outlier_env == env
                if m.any():
                    ax.plot(d.outlier_x[m], d.outlier_y[m], ls="none", marker="o", ms=6,
                            mfc="none", mec=color, mew=1.0)  # fmt: skip
        trans = ax.get_xaxis_transform()
        right = float(d.x.max()) if d.x.size else 0.0
        anchor = np.array([s.first - 0.5 for s in d.spans], dtype=float)
        late = anchor > 0.7 * right  # written leftwards near the right edge
        width = np.array([len(s.label) + 2 for s in d.spans]) * _CHAR_SHARE * (right + 1.0)
        for s, a, lt, row in zip(d.spans, anchor, late, label_rows(anchor, width, late),
                                 strict=True):  # fmt: skip
            ax.text(a, 0.97 - 0.09 * row, f" {s.label} ", transform=trans, color=s.color,
                    fontsize=7.0, va="top", ha="right" if lt else "left", clip_on=True)
        ax.set_xlabel(
            f"benchmarked commit ({printable(d.first_commit[:10])} … "
            f"{printable(d.last_commit[:10])}, oldest first)"
        )
        ax.set_ylabel(f"time per evaluation ({d.unit})")
        if log_scale(d):
            ax.set_yscale("log")
        ax.set_title(d.title, loc="left")
    return fig


def history_svg(job: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]) -> str:
    """The SVG of one series' figure from ``(levels, changes, outliers, title)`` (a
    picklable job for the report's figure pool)."""
    return to_svg(draw_history(history_figure_data(*job)))
