"""The report's figures (``tsanalyze.report.figures``), checked on what they draw: the data
of each figure against the analysis it comes from, the axis scaled to the bulk, and the
SVG text they render to."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from tsanalyze import compare
from tsanalyze.analysis.compare import Comparison
from tsanalyze.analysis.runset import ComparisonRow
from tsanalyze.analysis.series import SeriesAnalysis, analyze_series
from tsanalyze.datasets import simulate_series
from tsanalyze.report import figures as F


@pytest.fixture(scope="module")
def warm() -> SeriesAnalysis:
    """600 samples around 1 µs with a warm-up of 100: one change point, stable segment."""
    sa = analyze_series(simulate_series(600, rng=1, warmup=(100, 0.5)).x, rng=1)
    assert sa.stable and sa.changepoints
    return sa


def _factor(unit: str) -> float:
    return {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]


def test_run_sequence_draws_every_sample_the_stable_segment_and_the_change_points(
    warm: SeriesAnalysis,
) -> None:
    d = F.run_sequence_data(warm, "parse")
    # per-evaluation ns, in the unit time_unit picks for the median, every sample drawn:
    # inside the axis where it is, the few delays of the noise model at its edge
    y = warm.samples / _factor(d.unit)
    assert not d.binned and list(d.x) == list(range(warm.n))
    np.testing.assert_allclose(d.y, np.clip(y, *d.ylim))
    assert list(d.above) == list(np.flatnonzero(y > d.ylim[1])) and d.below.size == 0
    assert d.above.size < 0.01 * warm.n
    assert d.stable == ((warm.start, warm.stop),) and d.stationary
    assert d.changepoints == warm.changepoints
    assert d.title.startswith("parse: run sequence")
    # the warm-up (1.5x the level) stays in view
    assert d.ylim[1] >= np.quantile(y[: warm.start], 0.9)


def test_run_sequence_is_scaled_to_the_bulk_with_outliers_at_the_edge() -> None:
    # like the squares-* samples: ~30 µs with 2% of delays up to 4 ms, and a warm-up
    rng = np.random.default_rng(5)
    x = 30_000.0 * (1 + 0.01 * rng.standard_normal(1200))
    x[:150] *= 1.3
    spikes = rng.choice(np.arange(150, 1200), 24, replace=False)
    x[spikes] = rng.uniform(500_000, 4_000_000, 24)
    sa = analyze_series(x, rng=1)
    d = F.run_sequence_data(sa, "squares")
    lo, hi = (v * _factor(d.unit) for v in d.ylim)
    # the axis holds the warm-up and the level, not the delays: a 1% change is visible
    assert lo < 29_000 and 39_000 * 1.0 < hi < 60_000 and not d.log
    assert sorted(d.above.astype(int)) == sorted(spikes.tolist())  # each delay, at the edge
    assert "24 samples beyond the axis" in d.title
    assert np.all(d.y <= d.ylim[1])


def test_a_range_over_30x_is_drawn_on_a_log_axis() -> None:
    # a slowdown from 7 µs to 600 µs (like list-grow): every level in view, on a log axis
    x = np.geomspace(7_000, 600_000, 1000) * np.random.default_rng(1).lognormal(0, 0.02, 1000)
    d = F.run_sequence_data(analyze_series(x, rng=1), "grow")
    assert d.log and d.above.size == 0 and d.below.size == 0


def test_bulk_limits_per_segment() -> None:
    y = np.r_[np.full(50, 10.0), np.full(50, 1.0)] + np.tile([0.0, 0.01], 50)
    lo, hi, log = F.bulk_limits(y, (50,))
    assert lo <= 1.0 and hi >= 10.0 and not log
    # without the change point, the quartiles straddle both levels and still hold them
    assert F.bulk_limits(y)[1] >= 10.0
    assert F.bulk_limits(np.empty(0)) == (0.0, 1.0, False)
    lo, hi, _ = F.bulk_limits(np.full(20, 5.0))
    assert lo <= 5.0 < hi  # a constant series still has an axis


def test_run_sequence_of_a_long_series_is_binned_min_median_max() -> None:
    x = simulate_series(F.MAX_POINTS * 3, rng=2).x
    sa = analyze_series(x, raw=True, rng=1)
    d = F.run_sequence_data(sa, "long")
    assert d.binned and d.y.size == F.MAX_BINS
    edges = np.linspace(0, x.size, F.MAX_BINS + 1).astype(int)
    first = x[edges[0] : edges[1]] / _factor(d.unit)
    assert d.low is not None and d.high is not None
    assert d.low[0] == pytest.approx(max(first.min(), d.ylim[0]))
    assert d.y[0] == pytest.approx(np.median(first))
    assert (d.low <= d.y + 1e-12).all() and (d.y <= d.high + 1e-12).all()
    assert f"in {F.MAX_BINS} bins" in d.title
    # raw analysis: no stable segment shaded, no change points drawn
    assert d.stable == () and d.changepoints == ()


def test_a_segment_that_is_not_stationary_is_not_shaded_as_stable() -> None:
    # an epidemic change no change-point search found: the segment is analysed whole, and
    # its dependence check says it is not stationary; the plot must not call it stable
    rng = np.random.default_rng(3)
    x = 85e6 * (1 + 0.03 * rng.standard_normal(150))
    x[32:78] *= 62 / 85
    sa = analyze_series(x, rng=1)
    if not any(w.code == "no-subsession-size" for w in sa.warnings):
        pytest.skip("the change-point search found the change: nothing to check here")
    d = F.run_sequence_data(sa, "startup")
    assert not d.stationary
    assert d.ylim[0] * _factor(d.unit) < 62e6 * 0.97  # the drop is in view


def test_distribution_marks_minimum_median_trimmed_mean_and_cuts_the_far_tail() -> None:
    x = simulate_series(800, noise="gaussian", rng=3).x
    x[::100] *= 50.0  # a few far spikes
    sa = analyze_series(x, raw=True, rng=1)
    d = F.distribution_data(
        sa.segment, "spiky", (("minimum", sa.minimum), ("median", sa.median)), sa.modes
    )
    f = _factor(d.unit)
    assert [m[0] for m in d.marks] == ["minimum", "median"]
    np.testing.assert_allclose([m[1] for m in d.marks], np.array([sa.minimum, sa.median]) / f)
    assert d.shown.max() * f < 5 * sa.median  # the spikes are not drawn
    assert d.cut == 8 and len(d.shown) >= 0.95 * sa.n  # the bulk is
    assert d.counts.size and d.grid.size  # histogram and KDE
    # the histogram is a density over what is shown
    assert np.sum(d.counts * np.diff(d.edges)) == pytest.approx(1.0)


def test_distribution_keeps_every_mode_in_view() -> None:
    rng = np.random.default_rng(8)
    x = np.where(rng.random(2000) < 0.9, rng.normal(1000, 5, 2000), rng.normal(2000, 5, 2000))
    sa = analyze_series(x, raw=True, rng=1)
    assert len(sa.modes) == 2
    d = F.distribution_data(sa.segment, "bimodal", (), sa.modes)
    assert d.shown.max() * _factor(d.unit) > 1990  # the 10% mode at 2000 is drawn


def test_distribution_of_a_constant_series_does_not_fail() -> None:
    sa = analyze_series(np.full(50, 7.0), raw=True, rng=1)
    d = F.distribution_data(sa.segment, "flat", (("median", 7.0),))
    assert len(d.shown) == 50 and d.grid.size == 0 and d.counts.size == 1
    assert F.to_svg(F.draw_distribution(d)).startswith("<svg")


def test_acf_figure_draws_the_acf_and_its_band(warm: SeriesAnalysis) -> None:
    fig = F.acf_figure(warm, "parse")
    (ax,) = fig.axes
    # the stems end at the ACF; the band is ± acf_band around 0
    stems = ax.collections[-1].get_segments()
    np.testing.assert_allclose([seg[1][1] for seg in stems], warm.acf)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.max() == pytest.approx(max(warm.acf_band))


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
    labels = ["a: new vs old", "b: new vs old", "c: new vs old"]
    d = F.forest_data(rows, labels)
    np.testing.assert_allclose(d.ratio, [1.10, 0.90, 1.0])
    np.testing.assert_allclose(d.low, [1.078, 0.882, 0.98])
    assert d.labels == tuple(labels)
    assert d.colors[0] != d.colors[1] != d.colors[2]
    (ax,) = F.draw_forest(d).axes
    # the first comparison is drawn at the top
    ticks = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    assert ticks["a: new vs old"] > ticks["b: new vs old"] > ticks["c: new vs old"]
    # an unbounded CI end is drawn at the ratio, not at infinity
    inf = dataclasses.replace(rows[0], ci_high=float("inf"))
    assert F.forest_data([inf], ["a"]).high[0] == pytest.approx(1.10)


def test_svg_is_inline_deterministic_and_shows_names_as_typed(warm: SeriesAnalysis) -> None:
    name = "<b>x</b> & $\\alpha$ a\\b"
    svg = F.to_svg(F.acf_figure(warm, name))
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "<?xml" not in svg and "<metadata>" not in svg and "<b>" not in svg
    # XML-escaped text, dollar signs and backslashes as typed (no mathtext, no doubling)
    assert "&lt;b&gt;x&lt;/b&gt; &amp; $\\alpha$ a\\b: autocorrelation" in svg
    assert svg == F.to_svg(F.acf_figure(warm, name))  # same input, same bytes
    assert not re.search(r"https?://(?!www\.w3\.org/)", svg)


def test_control_characters_in_names_keep_the_svg_valid_xml(warm: SeriesAnalysis) -> None:
    import xml.etree.ElementTree as ET

    name = "bench\x1b]0;pwned\x07\x00\u202e"
    svg = F.to_svg(F.run_sequence_figure(warm, name))
    ET.fromstring(svg)  # NUL, ESC or BEL in the text would make it invalid XML
    assert "\x1b" not in svg and "\\x1b]0;pwned\\x07\\x00\\u202e" in svg


def test_a_name_holding_broken_tex_does_not_break_drawing(comparison: Comparison) -> None:
    # before: matplotlib's mathtext parsed forest labels and raised on "$\\foo{$"
    fig = F.forest_figure([_row(comparison, "b", 1.1, "slower")], ["$\\foo{$ vs x"])
    assert "$\\foo{$ vs x" in F.to_svg(fig)


def test_every_figure_kind_renders(warm: SeriesAnalysis) -> None:
    assert list(F.FIGURE_KINDS) == ["run-sequence", "distribution", "acf"]
    for kind, make in F.FIGURE_KINDS.items():
        assert F.to_svg(make(warm, kind)).count("<svg") == 1
