"""Figures of a report, made with plotnine and rendered to SVG text.

Per series: the run-sequence plot (change points as dashed lines, the stable segment
shaded), the distribution (histogram and KDE of the analysed segment with the minimum,
median and trimmed mean marked) and the ACF (with its confidence band). Per run set: a
forest plot of the comparison ratios with their CIs.

User data (benchmark names) reaches matplotlib as plain text only: figures are drawn with
mathtext off (``text.parse_math``), so a name with dollar signs or backslashes is shown as
typed and a name holding broken TeX cannot make drawing fail; the SVG keeps text as
XML-escaped ``<text>``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import plotnine as p9
from statsmodels.nonparametric.kde import KDEUnivariate

from tsanalyze.analysis.runset import ComparisonRow
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.report.units import time_unit

__all__ = [
    "FIGURE_KINDS",
    "acf_figure",
    "distribution_figure",
    "forest_figure",
    "run_sequence_figure",
    "to_svg",
]

#: the run-sequence plot shows up to this many points, and bins longer series
MAX_POINTS = 1500
#: bins of a long series in the run-sequence plot
MAX_BINS = 400
_THEME = p9.theme_bw(base_size=9) + p9.theme(figure_size=(5.0, 3.0), legend_position="bottom")
_WIDE = p9.theme(figure_size=(10.0, 3.0))


def _scaled(s: SeriesAnalysis) -> tuple[np.ndarray, str, float]:
    name, factor = time_unit(float(np.median(s.samples)) if s.samples.size else 1.0)
    return s.samples / factor, name, factor


def run_sequence_figure(s: SeriesAnalysis, title: str) -> p9.ggplot:
    """Sample time against sample index; stable segment shaded, change points dashed."""
    y, unit, _ = _scaled(s)
    n = y.size
    top = float(np.quantile(y, 0.999)) if n else 1.0
    bottom = float(y.min()) if n else 0.0
    pad = 0.05 * (top - bottom or abs(top) or 1.0)
    if n > MAX_POINTS:
        # keep the shape of the series in a small file: per bin, the band from min to max
        # and the median as a line
        edges = np.linspace(0, n, MAX_BINS + 1).astype(int)
        starts = edges[:-1]
        frame = pd.DataFrame(
            {
                "sample": (starts + edges[1:] - 1) / 2.0,
                "low": np.minimum.reduceat(y, starts),
                "high": np.minimum(np.maximum.reduceat(y, starts), top + pad),
                "time": [float(np.median(y[a:b])) for a, b in zip(starts, edges[1:], strict=True)],
            }
        )
        subtitle = f" ({n:,} samples in {MAX_BINS} bins)"
    else:
        frame = pd.DataFrame({"sample": np.arange(n), "time": y})
        subtitle = ""
    plot = p9.ggplot(frame, p9.aes("sample", "time"))
    if s.stable:
        plot += p9.annotate(
            "rect",
            xmin=s.start,
            xmax=s.stop,
            ymin=bottom - pad,
            ymax=top + pad,
            fill="#2ca02c",
            alpha=0.12,
        )
    if n > MAX_POINTS:
        plot += p9.geom_ribbon(p9.aes(ymin="low", ymax="high"), fill="#1f4e79", alpha=0.3)
        plot += p9.geom_line(color="#1f4e79", size=0.4)
    else:
        plot += p9.geom_point(size=0.6, alpha=0.6, color="#1f4e79", stroke=0)
    if s.changepoints:
        plot += p9.geom_vline(
            xintercept=list(s.changepoints), linetype="dashed", color="#d62728", size=0.5
        )
    plot += p9.coord_cartesian(ylim=(bottom - pad, top + pad))
    plot += p9.labs(
        x="sample",
        y=f"time per evaluation ({unit})",
        title=f"{title}: run sequence{subtitle}",
    )
    return plot + _THEME + _WIDE


def distribution_figure(s: SeriesAnalysis, title: str) -> p9.ggplot:
    """Histogram and KDE of the analysed segment; min, median and trimmed mean marked."""
    _, unit, factor = _scaled(s)
    seg = s.segment / factor
    if seg.size:
        q25, q75, q995 = (float(v) for v in np.quantile(seg, [0.25, 0.75, 0.995]))
        lo = float(seg.min())
        # the bulk, not the tail: up to 5 IQR above the upper quartile (at most the 99.5th
        # percentile), and always past every mode
        hi = min(q995, q75 + 5.0 * (q75 - q25)) if q75 > q25 else q995
        hi = max([hi, *(1.02 * loc / factor for loc, _ in s.modes)])
    else:
        lo, hi = 0.0, 1.0
    shown = seg[(seg >= lo) & (seg <= hi)]
    marks = pd.DataFrame(
        {
            "value": [s.minimum / factor, s.median / factor, s.trimmed_mean / factor],
            "statistic": pd.Categorical(
                ["minimum", "median", "trimmed mean"], ["minimum", "median", "trimmed mean"]
            ),
        }
    )
    frame = pd.DataFrame({"time": shown})
    plot = p9.ggplot(frame, p9.aes("time"))
    if shown.size > 1 and np.ptp(shown) > 0:
        bins = int(min(80, max(10, np.sqrt(shown.size))))
        plot += p9.geom_histogram(
            p9.aes(y=p9.after_stat("density")), bins=bins, fill="#9ecae1", color="none"
        )
        kde = KDEUnivariate(shown)
        kde.fit(kernel="gau", bw="silverman", fft=True, gridsize=512)
        inside = (kde.support >= lo) & (kde.support <= hi)
        density = pd.DataFrame({"time": kde.support[inside], "density": kde.density[inside]})
        plot += p9.geom_line(p9.aes("time", "density"), data=density, color="#08519c", size=0.6)
    else:
        plot += p9.geom_histogram(bins=1, fill="#9ecae1")
    plot += p9.geom_vline(
        p9.aes(xintercept="value", color="statistic", linetype="statistic"), data=marks, size=0.7
    )
    plot += p9.scale_color_manual(values=["#d62728", "#2ca02c", "#ff7f0e"])
    plot += p9.labs(
        x=f"time per evaluation ({unit}); analysed segment, long tail cut",
        y="density",
        color="",
        linetype="",
        title=f"{title}: distribution",
    )
    return plot + _THEME


def acf_figure(s: SeriesAnalysis, title: str) -> p9.ggplot:
    """Autocorrelation by lag with its confidence band around 0."""
    k = len(s.acf)
    frame = pd.DataFrame({"lag": np.arange(k), "acf": np.asarray(s.acf, dtype=float)})
    band = pd.DataFrame(
        {
            "lag": np.arange(k),
            "low": -np.asarray(s.acf_band, dtype=float),
            "high": np.asarray(s.acf_band, dtype=float),
        }
    )
    plot = p9.ggplot(frame, p9.aes("lag", "acf"))
    if len(band) == k and k:
        plot += p9.geom_ribbon(
            p9.aes(x="lag", ymin="low", ymax="high"),
            data=band,
            inherit_aes=False,
            fill="#bdbdbd",
            alpha=0.5,
        )
    plot += p9.geom_hline(yintercept=0, color="black", size=0.3)
    plot += p9.geom_segment(p9.aes(x="lag", xend="lag", y=0, yend="acf"), color="#1f4e79")
    plot += p9.geom_point(size=1.0, color="#1f4e79")
    plot += p9.labs(
        x="lag (samples)", y="autocorrelation", title=f"{title}: autocorrelation"
    )
    return plot + _THEME


def forest_figure(rows: Sequence[ComparisonRow], labels: Sequence[str]) -> p9.ggplot:
    """Forest plot: each comparison's ratio with its CI; 1 marks no change."""
    frame = pd.DataFrame(
        {
            "label": pd.Categorical(
                list(labels), categories=list(dict.fromkeys(reversed(list(labels))))
            ),
            "ratio": [c.ratio for c in rows],
            "low": [c.ci_low for c in rows],
            "high": [c.ci_high for c in rows],
            "verdict": pd.Categorical(
                [c.verdict for c in rows], categories=["slower", "faster", "same", "inconclusive"]
            ),
        }
    )
    height = max(1.6, 0.35 * len(frame) + 1.0)
    plot = (
        p9.ggplot(frame, p9.aes(y="label", x="ratio", color="verdict"))
        + p9.geom_vline(xintercept=1.0, color="black", size=0.4)
        + p9.geom_errorbarh(p9.aes(xmin="low", xmax="high"), height=0.25)
        + p9.geom_point(size=2)
        + p9.scale_color_manual(
            values={
                "slower": "#d62728",
                "faster": "#2ca02c",
                "same": "#7f7f7f",
                "inconclusive": "#ff7f0e",
            },
            drop=False,
        )
        + p9.labs(x="ratio candidate / baseline (CI)", y="", color="verdict", title="Comparisons")
        + _THEME
        + p9.theme(figure_size=(8.0, height))
    )
    return plot


_XML_HEAD = re.compile(r"^.*?(?=<svg)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)


def to_svg(plot: p9.ggplot) -> str:
    """Render a plotnine figure to inline SVG text (no XML prolog, no metadata, no URLs
    other than the SVG namespace identifiers)."""
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "tsanalyze", "text.parse_math": False}
    ):
        fig = plot.draw()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    text = buf.getvalue()
    text = _XML_HEAD.sub("", text, count=1)
    return _METADATA.sub("", text)


#: figure kinds made for each series
FIGURE_KINDS = {
    "run-sequence": run_sequence_figure,
    "distribution": distribution_figure,
    "acf": acf_figure,
}
