"""The report's figures (``tsanalyze.report.figures``), checked on what they draw: the data
behind each layer against the analysis it comes from, and the SVG text they render to."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import plotnine as p9
import pytest

from tsanalyze import compare
from tsanalyze.analysis.compare import Comparison
from tsanalyze.analysis.runset import ComparisonRow
from tsanalyze.analysis.series import SeriesAnalysis, analyze_series
from tsanalyze.datasets import simulate_series
from tsanalyze.report import figures as F


def _label(plot: p9.ggplot, key: str) -> str:
    labels = plot.labels  # a dict in plotnine 0.13, a labels_view later
    return str(labels[key] if isinstance(labels, dict) else getattr(labels, key))


def _layers(plot: p9.ggplot, geom: str) -> list[object]:
    return [layer for layer in plot.layers if type(layer.geom).__name__ == geom]


def _geom_data(plot: p9.ggplot, geom: str) -> pd.DataFrame:
    (layer,) = _layers(plot, geom)
    return layer.geom.data  # type: ignore[attr-defined,no-any-return]


@pytest.fixture(scope="module")
def warm() -> SeriesAnalysis:
    """600 samples around 1 µs with a warm-up of 100: one change point, stable segment."""
    sa = analyze_series(simulate_series(600, rng=1, warmup=(100, 0.5)).x, rng=1)
    assert sa.stable and sa.changepoints
    return sa


def test_run_sequence_draws_every_sample_the_stable_segment_and_the_change_points(
    warm: SeriesAnalysis,
) -> None:
    plot = F.run_sequence_figure(warm, "parse")
    # per-evaluation ns, in the unit time_unit picks for the median
    assert _label(plot, "y") in ("time per evaluation (µs)", "time per evaluation (ns)")
    factor = 1000.0 if "µs" in _label(plot, "y") else 1.0
    np.testing.assert_allclose(plot.data["time"], warm.samples / factor)
    assert list(plot.data["sample"]) == list(range(warm.n))
    rect = _geom_data(plot, "geom_rect")
    assert (rect["xmin"].item(), rect["xmax"].item()) == (warm.start, warm.stop)
    assert list(_geom_data(plot, "geom_vline")["xintercept"]) == list(warm.changepoints)
    assert _layers(plot, "geom_point") and not _layers(plot, "geom_ribbon")
    assert _label(plot, "title") == "parse: run sequence"


def test_run_sequence_of_a_long_series_is_binned_min_median_max() -> None:
    x = simulate_series(F.MAX_POINTS * 3, rng=2).x
    sa = analyze_series(x, raw=True, rng=1)
    plot = F.run_sequence_figure(sa, "long")
    frame = plot.data
    assert len(frame) == F.MAX_BINS
    edges = np.linspace(0, x.size, F.MAX_BINS + 1).astype(int)
    factor = 1000.0 if "µs" in _label(plot, "y") else 1.0
    first = x[edges[0] : edges[1]] / factor
    assert frame["low"].iloc[0] == pytest.approx(first.min())
    assert frame["time"].iloc[0] == pytest.approx(np.median(first))
    assert (frame["low"] <= frame["time"]).all() and (frame["time"] <= frame["high"]).all()
    assert _layers(plot, "geom_ribbon") and not _layers(plot, "geom_point")
    assert f"in {F.MAX_BINS} bins" in _label(plot, "title")
    # raw analysis: no stable segment shaded, no change points drawn
    assert not _layers(plot, "geom_rect") and not _layers(plot, "geom_vline")


def test_distribution_marks_minimum_median_trimmed_mean_and_cuts_the_far_tail() -> None:
    x = simulate_series(800, noise="gaussian", rng=3).x
    x[::100] *= 50.0  # a few far spikes
    sa = analyze_series(x, raw=True, rng=1)
    plot = F.distribution_figure(sa, "spiky")
    factor = 1000.0 if "µs" in _label(plot, "x") else 1.0
    marks = _geom_data(plot, "geom_vline")
    np.testing.assert_allclose(
        marks["value"], np.array([sa.minimum, sa.median, sa.trimmed_mean]) / factor
    )
    assert list(marks["statistic"]) == ["minimum", "median", "trimmed mean"]
    shown = plot.data["time"] * factor
    assert shown.max() < 5 * sa.median  # the spikes are not drawn
    assert len(shown) >= 0.95 * sa.n  # the bulk is
    assert _layers(plot, "geom_histogram") and _layers(plot, "geom_line")  # with the KDE


def test_distribution_keeps_every_mode_in_view() -> None:
    rng = np.random.default_rng(8)
    x = np.where(rng.random(2000) < 0.9, rng.normal(1000, 5, 2000), rng.normal(2000, 5, 2000))
    sa = analyze_series(x, raw=True, rng=1)
    assert len(sa.modes) == 2
    plot = F.distribution_figure(sa, "bimodal")
    factor = 1000.0 if "µs" in _label(plot, "x") else 1.0
    assert plot.data["time"].max() * factor > 1990  # the 10% mode at 2000 is drawn


def test_distribution_of_a_constant_series_does_not_fail() -> None:
    sa = analyze_series(np.full(50, 7.0), raw=True, rng=1)
    plot = F.distribution_figure(sa, "flat")
    assert len(plot.data) == 50 and not _layers(plot, "geom_line")
    assert F.to_svg(plot).startswith("<svg")


def test_acf_draws_the_acf_and_its_band(warm: SeriesAnalysis) -> None:
    plot = F.acf_figure(warm, "parse")
    np.testing.assert_allclose(plot.data["acf"], warm.acf)
    band = _geom_data(plot, "geom_ribbon")
    np.testing.assert_allclose(band["high"], warm.acf_band)
    np.testing.assert_allclose(band["low"], -np.asarray(warm.acf_band))


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    x = simulate_series(300, noise="gaussian", rng=4).x
    return compare(x, x * 1.1, rng=1)


def _row(c: Comparison, benchmark: str, ratio: float, verdict: str) -> ComparisonRow:
    row = ComparisonRow.of(
        c, kind="run", benchmark=benchmark, baseline_benchmark=benchmark, run="new",
        baseline_run="old",
    )  # fmt: skip
    return dataclasses.replace(
        row, ratio=ratio, ci_low=ratio * 0.98, ci_high=ratio * 1.02, verdict=verdict
    )


def test_forest_plot_one_row_per_comparison_first_on_top(comparison: Comparison) -> None:
    rows = [
        _row(comparison, "a", 1.10, "slower"),
        _row(comparison, "b", 0.90, "faster"),
        _row(comparison, "c", 1.0, "same"),
    ]
    plot = F.forest_figure(rows, ["a: new vs old", "b: new vs old", "c: new vs old"])
    frame = plot.data
    np.testing.assert_allclose(frame["ratio"], [1.10, 0.90, 1.0])
    np.testing.assert_allclose(frame["low"], [1.078, 0.882, 0.98])
    # y categories bottom to top: the first comparison is drawn at the top
    assert list(frame["label"].cat.categories) == [
        "c: new vs old",
        "b: new vs old",
        "a: new vs old",
    ]
    assert list(frame["verdict"].cat.categories) == ["slower", "faster", "same", "inconclusive"]
    assert list(_geom_data(plot, "geom_vline")["xintercept"]) == [1.0]


def test_svg_is_inline_deterministic_and_shows_names_as_typed(warm: SeriesAnalysis) -> None:
    name = "<b>x</b> & $\\alpha$ a\\b"
    svg = F.to_svg(F.acf_figure(warm, name))
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "<?xml" not in svg and "<metadata>" not in svg and "<b>" not in svg
    # XML-escaped text, dollar signs and backslashes as typed (no mathtext, no doubling)
    assert "&lt;b&gt;x&lt;/b&gt; &amp; $\\alpha$ a\\b: autocorrelation" in svg
    assert svg == F.to_svg(F.acf_figure(warm, name))  # same input, same bytes
    assert not re.search(r"https?://(?!www\.w3\.org/)", svg)


def test_a_name_holding_broken_tex_does_not_break_drawing(comparison: Comparison) -> None:
    # before: matplotlib's mathtext parsed forest labels and raised on "$\\foo{$"
    plot = F.forest_figure([_row(comparison, "b", 1.1, "slower")], ["$\\foo{$ vs x"])
    assert "$\\foo{$ vs x" in F.to_svg(plot)


def test_every_figure_kind_renders(warm: SeriesAnalysis) -> None:
    assert list(F.FIGURE_KINDS) == ["run-sequence", "distribution", "acf"]
    for kind, make in F.FIGURE_KINDS.items():
        assert F.to_svg(make(warm, kind)).count("<svg") == 1
