"""Figures of a report: what each one shows (plain data, tested) and its drawing (SVG).

Per series: the run-sequence plot (the stable segment shaded, change points dashed), the
distribution (histogram and KDE of the analysed segment with the minimum, median and
trimmed mean marked) and the ACF (with its confidence band). Per benchmark measured in
several runs of one side (trials): the runs side by side, and the distribution of their
analysed segments pooled. Per run set: a forest plot of the comparison ratios.

The run-sequence axis is scaled to the bulk of the samples, so that a change of level
can be checked by eye: the fences of Tukey (3 IQR beyond the quartiles) of every segment
between change points, so a warm-up or a drift stays in view while rare delays do not
squash the rest into a line; a range wider than 30× is drawn on a log axis. Samples
outside the axis are drawn at its edge as triangles and counted in the title. Long series
are drawn as the min–max band and the median of 400 bins.

Each figure is made in two steps: ``*_data`` computes what is drawn (a frozen
dataclass of arrays and labels) and ``draw_*`` draws it with matplotlib's object API
(no pyplot state, no figure manager), which renders in a fraction of the time a grammar
of graphics takes. User text (titles, labels) is escaped
(:func:`tsanalyze.report.text.printable`) and drawn with mathtext off, so a name with
dollar signs, backslashes or control characters is shown as typed and the SVG stays
valid XML.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import re
from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from tsanalyze._units import time_unit
from tsanalyze.analysis.runset import ComparisonRow, TrialsRow
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.report.text import printable

__all__ = [
    "FIGURE_KINDS",
    "FIGURE_STYLE",
    "MAX_BINS",
    "MAX_POINTS",
    "Distribution",
    "Forest",
    "RunSequence",
    "acf_figure",
    "bulk_limits",
    "distribution_data",
    "distribution_figure",
    "forest_data",
    "forest_figure",
    "new_figure",
    "run_sequence_data",
    "run_sequence_figure",
    "to_svg",
    "trials_figures",
]

#: the run-sequence plot draws up to this many points, and bins longer series
MAX_POINTS = 1500
#: bins of a long series in the run-sequence plot
MAX_BINS = 400
#: fences this many IQR beyond the quartiles of each segment bound the run-sequence axis
FENCE_IQR = 3.0
#: a range (top / bottom) wider than this is drawn on a log axis
LOG_RANGE = 30.0

_BLUE, _RED, _GREEN, _ORANGE, _GREY = "#1f4e79", "#d62728", "#2ca02c", "#ff7f0e", "#7f7f7f"
FIGURE_STYLE: Any = {  # rcParams (typed by matplotlib as a dict of literal keys)
    "font.size": 8.0,
    "axes.titlesize": 9.0,
    "axes.edgecolor": "#333333",
    "axes.grid": True,
    "grid.color": "#e5e5e5",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "axes.titley": 1.0,  # a fixed title position: no search for overlapping tick labels
    "axes.titlepad": 4.0,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "svg.fonttype": "none",
    "svg.hashsalt": "tsanalyze",
    "text.parse_math": False,
}


# --- what is drawn --------------------------------------------------------------------


def bulk_limits(
    y: np.ndarray, changepoints: Sequence[int] = (), k: float = FENCE_IQR
) -> tuple[float, float, bool]:
    """Axis limits around the bulk of ``y``: (bottom, top, log).

    The union of Tukey's fences (``k`` IQR beyond the quartiles) of every segment between
    change points (segments of fewer than 5 samples are left out unless all are), within
    the range of the data; log when top / bottom exceeds :data:`LOG_RANGE`.
    """
    y = np.asarray(y, dtype=np.float64)
    if y.size == 0:
        return 0.0, 1.0, False
    bounds = [0, *sorted(int(c) for c in changepoints if 0 < c < y.size), y.size]
    pieces = [y[a:b] for a, b in itertools.pairwise(bounds) if b - a >= 5]
    lows, highs = [], []
    for piece in pieces or [y]:
        q25, q50, q75 = np.quantile(piece, [0.25, 0.5, 0.75])
        iqr = q75 - q25 if q75 > q25 else 0.01 * abs(q50) or 1.0
        lows.append(q25 - k * iqr)
        highs.append(q75 + k * iqr)
    bottom = max(float(y.min()), min(lows))
    top = min(float(y.max()), max(highs))
    if top <= bottom:
        top = bottom + (abs(bottom) * 0.01 or 1.0)
    log = bottom > 0 and top / bottom > LOG_RANGE
    return bottom, top, log


def _padded(bottom: float, top: float, log: bool) -> tuple[float, float]:
    if log:
        f = (top / bottom) ** 0.04
        return bottom / f, top * f
    pad = 0.05 * (top - bottom)
    return bottom - pad, top + pad


@dataclasses.dataclass(frozen=True, slots=True)
class RunSequence:
    """What a run-sequence plot draws (times in ``unit``).

    ``x``/``y`` are the points (clipped into the axis); for a binned series ``y`` is each
    bin's median and ``low``/``high`` its min and max. ``above``/``below`` are the x of
    samples (or bins) beyond the axis, drawn at its edge. ``runs`` are the (start, stop,
    label) of each run when several are drawn side by side.
    """

    title: str
    unit: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray | None
    high: np.ndarray | None
    ylim: tuple[float, float]
    log: bool
    stable: tuple[tuple[int, int], ...]
    stationary: bool
    changepoints: tuple[int, ...]
    above: np.ndarray
    below: np.ndarray
    runs: tuple[tuple[int, int, str], ...] = ()
    drift: tuple[float, float, float, float] | None = None  # (x0, y0, x1, y1)
    visits: tuple[tuple[int, int, float], ...] = ()

    @property
    def binned(self) -> bool:
        return self.low is not None


def _unit(samples: np.ndarray) -> tuple[str, float]:
    return time_unit(float(np.median(samples)) if samples.size else 1.0)


def _bins(starts_stops: Sequence[tuple[int, int]], n: int) -> np.ndarray:
    """Bin edges: ``MAX_BINS`` bins shared by the runs in proportion to their lengths,
    never across a run boundary."""
    edges = [0]
    for a, b in starts_stops:
        k = max(1, round(MAX_BINS * (b - a) / max(n, 1)))
        edges.extend(np.linspace(a, b, k + 1).astype(int)[1:].tolist())
    return np.unique(np.asarray(edges))


def _sequence(
    y: np.ndarray, title: str, unit: str, runs: Sequence[tuple[int, int, str]],
    stable: Sequence[tuple[int, int]], changepoints: Sequence[int], stationary: bool,
    **extra: Any,
) -> RunSequence:  # fmt: skip
    n = y.size
    bottom, top, log = bulk_limits(y, changepoints)
    lo_ax, hi_ax = _padded(bottom, top, log)
    if n > MAX_POINTS:
        edges = _bins([(a, b) for a, b, _ in runs] or [(0, n)], n)
        starts = edges[:-1]
        lo = np.minimum.reduceat(y, starts)
        hi = np.maximum.reduceat(y, starts)
        med = np.array([np.median(y[a:b]) for a, b in zip(starts, edges[1:], strict=True)])
        x = (starts + edges[1:] - 1) / 2.0
        above, below = x[hi > hi_ax], x[lo < lo_ax]
        low, high = np.clip(lo, lo_ax, hi_ax), np.clip(hi, lo_ax, hi_ax)
        pts = np.clip(med, lo_ax, hi_ax)
        title = f"{title} ({n:,} samples in {edges.size - 1} bins)"
    else:
        x = np.arange(n, dtype=np.float64)
        above, below = x[y > hi_ax], x[y < lo_ax]
        pts, low, high = np.clip(y, lo_ax, hi_ax), None, None
    beyond = above.size + below.size
    if beyond:
        what = "bins reach" if n > MAX_POINTS else f"sample{'s' if beyond > 1 else ''}"
        title = f"{title}; {beyond} {what} beyond the axis (▲▼)"
    return RunSequence(
        title=title, unit=unit, x=x, y=pts, low=low, high=high, ylim=(lo_ax, hi_ax), log=log,
        stable=tuple(stable), stationary=stationary, changepoints=tuple(changepoints),
        above=above, below=below, runs=tuple(runs), **extra,
    )  # fmt: skip


def _not_stationary(s: SeriesAnalysis) -> bool:
    return any(w.code == "no-subsession-size" for w in s.warnings)


def run_sequence_data(s: SeriesAnalysis, title: str) -> RunSequence:
    """What the run-sequence plot of one series draws."""
    unit, factor = _unit(s.samples)
    y = s.samples / factor
    extra: dict[str, Any] = {}
    # a drift line and mode visits, when the steady-state analysis names them
    drift = s.drift
    if drift is not None:
        last = max(s.n - 1, 0)
        extra["drift"] = (0.0, drift.start_level / factor, float(last), drift.end_level / factor)
    modes = s.mode_switching
    if modes is not None:
        extra["visits"] = tuple(
            (int(a), int(b) - 1, float(modes.levels[k]) / factor) for a, b, k in modes.runs
        )
    return _sequence(
        y, f"{title}: run sequence", unit, (), ((s.start, s.stop),) if s.stable else (),
        s.changepoints, not _not_stationary(s), **extra,
    )  # fmt: skip


def trials_sequence_data(
    series: Sequence[SeriesAnalysis], labels: Sequence[str], title: str
) -> RunSequence:
    """The runs of one benchmark side by side (one x axis, run boundaries marked)."""
    samples = np.concatenate([s.samples for s in series]) if series else np.empty(0)
    unit, factor = _unit(samples)
    runs: list[tuple[int, int, str]] = []
    stable: list[tuple[int, int]] = []
    cps: list[int] = []
    offset = 0
    for s, label in zip(series, labels, strict=True):
        runs.append((offset, offset + s.n, label))
        if s.stable:
            stable.append((offset + s.start, offset + s.stop))
        cps.extend(offset + c for c in s.changepoints)
        offset += s.n
    stationary = not any(_not_stationary(s) for s in series)
    return _sequence(
        samples / factor, f"{title}: {len(series)} runs", unit, runs, stable, cps, stationary
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Distribution:
    """What the distribution plot draws: the histogram (``counts`` over ``edges``, as a
    density), the KDE (``grid``, ``density``) and the marks, in ``unit``; samples beyond
    the bulk (``cut``) are not drawn."""

    title: str
    unit: str
    shown: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    grid: np.ndarray
    density: np.ndarray
    marks: tuple[tuple[str, float], ...]
    cut: int


def distribution_data(
    segment: np.ndarray, title: str, marks: Sequence[tuple[str, float]],
    modes: Sequence[tuple[float, float]] = (),
) -> Distribution:  # fmt: skip
    """The distribution of ``segment`` (ns) up to the bulk: up to 5 IQR above the upper
    quartile (at most the 99.5th percentile), always past every mode."""
    unit, factor = _unit(segment)
    seg = np.asarray(segment, dtype=np.float64) / factor
    if seg.size:
        q25, q75, q995 = (float(v) for v in np.quantile(seg, [0.25, 0.75, 0.995]))
        lo = float(seg.min())
        hi = min(q995, q75 + 5.0 * (q75 - q25)) if q75 > q25 else q995
        hi = max([hi, *(1.02 * loc / factor for loc, _ in modes)])
    else:
        lo, hi = 0.0, 1.0
    shown = seg[(seg >= lo) & (seg <= hi)]
    edges = counts = grid = density = np.empty(0)
    if shown.size > 1 and np.ptp(shown) > 0:
        bins = int(min(80, max(10, np.sqrt(shown.size))))
        counts, edges = np.histogram(shown, bins=bins, density=True)
        from statsmodels.nonparametric.kde import KDEUnivariate

        kde = KDEUnivariate(shown)
        kde.fit(kernel="gau", bw="silverman", fft=True, gridsize=512)
        inside = (kde.support >= lo) & (kde.support <= hi)
        grid, density = kde.support[inside], kde.density[inside]
    elif shown.size:
        edges = (
            np.array([shown[0] - 0.5, shown[0] + 0.5])
            if shown[0] == 0
            else shown[0] * np.array([0.995, 1.005])
        )
        counts = np.array([1.0 / (edges[1] - edges[0])])
    return Distribution(
        title=title, unit=unit, shown=shown, edges=edges, counts=counts, grid=grid,
        density=density, marks=tuple((name, v / factor) for name, v in marks),
        cut=int(seg.size - shown.size),
    )  # fmt: skip


def _series_distribution(s: SeriesAnalysis, title: str) -> Distribution:
    return distribution_data(
        s.segment, f"{title}: distribution",
        (("minimum", s.minimum), ("median", s.median), ("trimmed mean", s.trimmed_mean)),
        s.modes,
    )  # fmt: skip


# --- drawing ----------------------------------------------------------------------------


def new_figure(width: float, height: float, margins: tuple[float, float, float, float]) -> Any:
    """(figure, axes) of ``width`` x ``height`` inches with margins (left, right, bottom,
    top) in inches, for drawing under :data:`FIGURE_STYLE`."""
    fig = Figure(figsize=(width, height))
    left, right, bottom, top = margins
    fig.subplots_adjust(
        left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height
    )
    ax = fig.add_subplot()
    # a few ticks: each one is several artists to lay out and write (most of the cost)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6 if width > 6 else 4))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
    return fig, ax


def draw_run_sequence(d: RunSequence) -> Figure:
    """Draw a :class:`RunSequence`."""
    with matplotlib.rc_context(FIGURE_STYLE):
        fig, ax = new_figure(10.0, 3.0, (0.75, 0.15, 0.45, 0.3))
        for a, b in d.stable:
            ax.axvspan(
                a - 0.5, b - 0.5, color=_GREEN if d.stationary else _ORANGE, alpha=0.12, lw=0,
                label="stable segment" if d.stationary else "analysed segment (not stationary)",
            )  # fmt: skip
        for a, _, _ in d.runs[1:]:
            ax.axvline(a - 0.5, color=_GREY, lw=0.8, ls=":")
        if d.binned:
            ax.fill_between(d.x, d.low, d.high, color=_BLUE, alpha=0.3, lw=0)
            ax.plot(d.x, d.y, color=_BLUE, lw=0.6)
        else:
            ax.plot(d.x, d.y, ls="none", marker="o", ms=1.8, mew=0, color=_BLUE, alpha=0.7)
        for c in d.changepoints:
            ax.axvline(c - 0.5, color=_RED, lw=0.8, ls="--")
        if d.drift is not None:
            x0, y0, x1, y1 = d.drift
            ax.plot([x0, x1], [y0, y1], color=_ORANGE, lw=1.2)
        for a, b, level in d.visits:
            ax.plot([a, b], [level, level], color="#9467bd", lw=1.6)
        for xs, edge, marker in ((d.above, d.ylim[1], "^"), (d.below, d.ylim[0], "v")):
            if xs.size:  # beyond the axis: drawn at its edge
                ax.plot(
                    xs,
                    np.full(xs.size, edge),
                    ls="none",
                    marker=marker,
                    ms=3.5,
                    color=_RED,
                    clip_on=False,
                )
        if d.log:
            ax.set_yscale("log")
        ax.set_ylim(*d.ylim)
        if d.x.size:
            ax.set_xlim(-0.5, float(d.x.max()) + 0.5)
        ax.set_xlabel("sample" if not d.runs else "sample (runs one after another)")
        ax.set_ylabel(f"time per evaluation ({d.unit})")
        ax.set_title(printable(d.title), loc="left")
    return fig


def draw_distribution(d: Distribution) -> Figure:
    """Draw a :class:`Distribution`."""
    with matplotlib.rc_context(FIGURE_STYLE):
        fig, ax = new_figure(5.0, 3.0, (0.6, 0.15, 0.75, 0.3))
        if d.counts.size:
            ax.stairs(d.counts, d.edges, fill=True, color="#9ecae1", lw=0)
        if d.grid.size:
            ax.plot(d.grid, d.density, color="#08519c", lw=0.9)
        for (name, value), color, ls in zip(
            d.marks, (_RED, _GREEN, _ORANGE), ("-", "--", ":"), strict=False
        ):
            ax.axvline(value, color=color, ls=ls, lw=1.0, label=name)
        if d.marks:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3)
        cut = f"; {d.cut} beyond the bulk not drawn" if d.cut else ""
        ax.set_xlabel(f"time per evaluation ({d.unit}); analysed segment{cut}")
        ax.set_ylabel("density")
        ax.set_title(printable(d.title), loc="left")
    return fig


def acf_figure(s: SeriesAnalysis, title: str) -> Figure:
    """Autocorrelation by lag with its confidence band around 0."""
    acf = np.asarray(s.acf, dtype=float)
    band = np.asarray(s.acf_band, dtype=float)
    lags = np.arange(acf.size)
    with matplotlib.rc_context(FIGURE_STYLE):
        fig, ax = new_figure(5.0, 3.0, (0.6, 0.15, 0.45, 0.3))
        if band.size == acf.size and acf.size:
            ax.fill_between(lags, -band, band, color="#bdbdbd", alpha=0.5, lw=0)
        ax.axhline(0.0, color="black", lw=0.5)
        if acf.size:
            ax.vlines(lags, 0.0, acf, color=_BLUE, lw=1.0)
            ax.plot(lags, acf, ls="none", marker="o", ms=2.2, color=_BLUE)
        ax.set_xlabel("lag (samples)")
        ax.set_ylabel("autocorrelation")
        ax.set_title(printable(f"{title}: autocorrelation"), loc="left")
    return fig


def run_sequence_figure(s: SeriesAnalysis, title: str) -> Figure:
    """Sample time against sample index, scaled to the bulk; stable segment shaded."""
    return draw_run_sequence(run_sequence_data(s, title))


def distribution_figure(s: SeriesAnalysis, title: str) -> Figure:
    """Histogram and KDE of the analysed segment; min, median and trimmed mean marked."""
    return draw_distribution(_series_distribution(s, title))


_VERDICT_COLOR = {"slower": _RED, "faster": _GREEN, "same": _GREY, "inconclusive": _ORANGE}


@dataclasses.dataclass(frozen=True, slots=True)
class Forest:
    """What the forest plot draws, top row first: labels, ratios, CI ends (an unbounded
    end is drawn at the ratio) and each row's colour (its verdict)."""

    labels: tuple[str, ...]
    ratio: np.ndarray
    low: np.ndarray
    high: np.ndarray
    colors: tuple[str, ...]


def forest_data(rows: Sequence[ComparisonRow], labels: Sequence[str]) -> Forest:
    """The forest plot of ``rows`` (labelled by ``labels``), in the order given."""
    ratio = np.array([c.ratio for c in rows], dtype=float)
    low = np.array([c.ci_low if np.isfinite(c.ci_low) else c.ratio for c in rows], dtype=float)
    high = np.array([c.ci_high if np.isfinite(c.ci_high) else c.ratio for c in rows], dtype=float)
    return Forest(
        tuple(printable(lab) for lab in labels), ratio, low, high,
        tuple(_VERDICT_COLOR.get(c.verdict, _GREY) for c in rows),
    )  # fmt: skip


def draw_forest(d: Forest) -> Figure:
    """Draw a :class:`Forest`: the first row at the top; 1 marks no change."""
    k = len(d.labels)
    height = max(1.6, 0.3 * k + 1.0)
    left = min(4.5, 0.3 + 0.055 * max((len(lab) for lab in d.labels), default=10))
    with matplotlib.rc_context(FIGURE_STYLE):
        fig, ax = new_figure(8.0, height, (left, 0.2, 0.45, 0.3))
        ys = np.arange(k)[::-1]
        for y, r, lo, hi, color in zip(ys, d.ratio, d.low, d.high, d.colors, strict=True):
            err = [[max(r - lo, 0.0)], [max(hi - r, 0.0)]]
            ax.errorbar([r], [y], xerr=err, fmt="o", ms=4, capsize=3, color=color)
        ax.axvline(1.0, color="black", lw=0.6)
        ax.set_yticks(ys, list(d.labels))
        ax.set_ylim(-0.7, k - 0.3)
        ax.set_xlabel(
            "ratio candidate / baseline (CI); red slower, green faster, grey same, "
            "orange inconclusive"
        )
        ax.set_title("Comparisons", loc="left")
    return fig


def forest_figure(rows: Sequence[ComparisonRow], labels: Sequence[str]) -> Figure:
    """Forest plot: each comparison's ratio with its CI; 1 marks no change."""
    return draw_forest(forest_data(rows, labels))


def trials_figures(
    t: TrialsRow, series: Sequence[SeriesAnalysis], labels: Sequence[str], title: str
) -> dict[str, Figure]:
    """The figures of a benchmark over its runs: the runs side by side and the pooled
    distribution of their analysed segments (minimum, median of all samples, and the
    trials estimate marked)."""
    pooled = np.concatenate([s.segment for s in series]) if series else np.empty(0)
    marks = [(t.statistic or "estimate", t.estimate)]
    if pooled.size:
        marks = [
            ("minimum", float(pooled.min())),
            ("median of all samples", float(np.median(pooled))),
            *marks,
        ]
    dist = distribution_data(pooled, f"{title}: distribution of the {len(series)} runs", marks)
    return {
        "run-sequence": draw_run_sequence(trials_sequence_data(series, labels, title)),
        "distribution": draw_distribution(dist),
    }


_XML_HEAD = re.compile(r"^.*?(?=<svg)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)


def to_svg(fig: Figure) -> str:
    """Render a figure to inline SVG text (no XML prolog, no metadata, no URLs other than
    the SVG namespace identifiers)."""
    buf = io.StringIO()
    with matplotlib.rc_context(FIGURE_STYLE):
        FigureCanvasSVG(fig).print_svg(buf, metadata={"Date": None, "Creator": None})
    text = _XML_HEAD.sub("", buf.getvalue(), count=1)
    return _METADATA.sub("", text)


#: figure kinds made for each series
FIGURE_KINDS = {
    "run-sequence": run_sequence_figure,
    "distribution": distribution_figure,
    "acf": acf_figure,
}
