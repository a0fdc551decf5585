"""``tsanalyze history --html`` (issue 25): one self-contained page, one history figure per
series, untrusted names escaped, figures that show the changes where they are, and no
half-written file on an error."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _helpers import history_to_asv
from typer.testing import CliRunner

import tsanalyze
from tsanalyze.analysis.history import History
from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history
from tsanalyze.cli.app import app
from tsanalyze.report.history import history_figure_jobs, history_html
from tsanalyze.report.history_figures import history_figure_data

XSS = "<script>alert(1)</script>"
NAMES = ["a", XSS, 'q"onmouseover="alert(2)', "$x^2$", "e\x1b[31m"]


def _h(i: int) -> str:
    return f"{i:040x}"


@pytest.fixture(scope="module")
def hist() -> History:
    rng = np.random.default_rng(31)
    df = simulate_history(
        80, NAMES,
        changes=[SimulatedChange("a", 30, 1.15), SimulatedChange(XSS, 50, 0.85)],
        spikes=[("$x^2$", 20, 1.5)], rng=rng,
    )  # fmt: skip
    return tsanalyze.history(df, seed=0)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.ids += [v for k, v in attrs if k == "id" and v]


def test_one_figure_per_series_and_escaped(hist: History) -> None:
    page = history_html(hist)
    assert page.count('<figure class="history"') == len(hist.series) == len(NAMES)
    assert page.count("<svg") == len(NAMES)
    assert XSS not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"<[^>]*onmouseover", page)  # text, never an attribute
    assert "\x1b" not in page and "\\x1b[31m" in page
    parser = _Tags()
    parser.feed(page)
    assert "script" not in parser.tags
    assert len(parser.ids) == len(set(parser.ids))  # svg ids made unique per figure
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        ET.fromstring(svg)  # each figure is well-formed XML
    # self-contained: no link, no image or script fetched from elsewhere
    assert not re.search(r'(src|href)="(?!#)', page)
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls


def test_changes_table_links_to_figures_with_changes_first(hist: History) -> None:
    page = history_html(hist)
    assert len(hist.changes) >= 2
    first = history_figure_jobs(hist)[0]
    assert first[0]["benchmark"].iloc[0] in set(hist.changes["benchmark"])
    for _, c in hist.changes.iterrows():
        assert f"{c['ratio']:.3f}" in page and f"{c['ci_low']:.3f}–{c['ci_high']:.3f}" in page
    assert page.count('<a href="#h') == len(hist.changes)


def test_figure_shows_sets_ratios_and_outliers(hist: History) -> None:
    jobs = {j[0]["benchmark"].iloc[0]: j for j in history_figure_jobs(hist)}
    d = history_figure_data(*jobs["a"])
    c = hist.changes.set_index("benchmark").loc["a"]
    assert len(d.spans) == 1
    span = d.spans[0]
    pos = sorted(int(k, 16) for k in c["commits"])  # simulated commit i is at position i
    assert (span.start, span.stop, span.first) == (pos[0], pos[-1], int(c["commit"], 16))
    assert span.label.startswith(f"×{c['ratio']:.3f} [{c['ci_low']:.3f}")
    assert span.color == "#d62728"  # a regression
    assert d.x.size == 80 and np.all(d.low < d.y) and np.all(d.y < d.high)
    # the fitted level steps by the change's ratio at its first commit
    k = span.first
    assert d.level[k] / d.level[k - 1] == pytest.approx(c["ratio"], rel=0.02)
    spike = history_figure_data(*jobs["$x^2$"])
    assert list(spike.outlier_x) == [20.0] and not spike.outlier_env[0]
    assert spike.outlier_y[0] == pytest.approx(spike.y[20])
    assert history_figure_data(*jobs[XSS]).spans[0].color == "#2ca02c"  # an improvement


def test_environment_shift_drawn_purple() -> None:
    rng = np.random.default_rng(4)
    names = ["a", "b", "c", "d"]
    df = simulate_history(60, names, changes=[SimulatedChange(b, 30, 1.2) for b in names], rng=rng)
    h = tsanalyze.history(df, seed=0)
    assert h.changes["environment_shift"].sum() >= 3
    d = history_figure_data(*history_figure_jobs(h)[0])  # the largest change, shared
    assert d.spans[0].color == "#9467bd" and d.spans[0].label.endswith("env?")
    assert "probable environment shift" in history_html(h)


def test_cli_writes_the_page_whole_or_not_at_all(tmp_path: Path, hist: History) -> None:
    rng = np.random.default_rng(5)
    df = simulate_history(40, ["a", "b"], changes=[SimulatedChange("a", 20, 1.2)], rng=rng)
    path = history_to_asv(df, tmp_path / "results")
    out = tmp_path / "sub" / "h.html"
    r = CliRunner().invoke(app, ["history", str(path), "--html", str(out), "-q"])
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    assert page.count('<figure class="history"') == 2 and page.rstrip().endswith("</html>")
    # an error before the page is written: the old page stays as it was, nothing beside it
    out.write_text("old", encoding="utf-8")
    r = CliRunner().invoke(app, ["history", str(tmp_path / "nope"), "--html", str(out)])
    assert r.exit_code == 2 and out.read_text(encoding="utf-8") == "old"
    # a page that cannot be written: one line naming it, no temporary file left
    blocked = tmp_path / "file"
    blocked.write_text("x")
    r = CliRunner().invoke(app, ["history", str(path), "--html", str(blocked / "h.html")])
    assert r.exit_code == 2 and "cannot write the HTML page" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "results", "sub"]
    assert sorted(p.name for p in out.parent.iterdir()) == ["h.html"]


def test_cli_html_never_replaces_an_input(tmp_path: Path) -> None:
    # before: --html naming a result file of the asv directory replaced it with the page
    rng = np.random.default_rng(5)
    df = simulate_history(8, ["a"], rng=rng)
    path = history_to_asv(df, tmp_path / "results")
    victim = next(p for p in sorted(path.rglob("*.json")) if p.name != "machine.json")
    before = victim.read_bytes()
    r = CliRunner().invoke(app, ["history", str(path), "--html", str(victim), "-q"])
    assert r.exit_code == 2 and "--html" in r.output and "nothing written" in r.output
    assert victim.read_bytes() == before


def test_write_fails_midway_leaves_old_file(tmp_path: Path, monkeypatch: Any) -> None:
    from tsanalyze.cli import _output

    target = tmp_path / "h.html"
    target.write_text("old", encoding="utf-8")

    def boom(self: Path, *args: Any, **kwargs: Any) -> None:
        with Path.open(self, "w") as f:
            f.write("half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", boom)
    with pytest.raises(Exception) as info:  # typer.Exit(2) after the one-line message
        _output.write_files({target: "<html>new</html>"}, what="the HTML page")
    monkeypatch.undo()
    assert getattr(info.value, "exit_code", None) == 2
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["h.html"]


def test_series_without_levels_make_an_empty_page() -> None:
    h = History(changes=pd.DataFrame(), outliers=pd.DataFrame(), series=pd.DataFrame(), fdr=0.05)
    page = history_html(h)
    assert "<figure" not in page and "No change found" in page


def test_change_labels_of_nearby_changes_do_not_overlap() -> None:
    # four changes within a few commits of each other at the right edge (django-asv's
    # url_resolve): two labels were written on one row over each other
    from tsanalyze.report.history_figures import label_rows

    anchors = np.array([265.0, 283.0, 288.0, 293.0, 20.0, 120.0])
    widths = np.full(6, 60.0)
    left = anchors > 200
    rows = label_rows(anchors, widths, left)
    lo = np.where(left, anchors - widths, anchors)
    for i in range(6):
        for j in range(i):
            if rows[i] == rows[j]:  # same row: the intervals must not overlap
                assert lo[i] >= lo[j] + widths[j] or lo[j] >= lo[i] + widths[i], (i, j, rows)
    assert rows[4] == rows[5] == 0  # far apart: both on the top row
    # more overlapping labels than rows: every row used, each label still gets one
    many = label_rows(np.full(6, 50.0), np.full(6, 10.0), np.zeros(6, bool), n_rows=4)
    assert sorted(set(many)) == [0, 1, 2, 3] and len(many) == 6


def test_figures_spanning_more_than_x10_are_drawn_on_a_log_scale() -> None:
    # a x150 regression (django-asv's FormValidate) drew every earlier change flat at 0
    from tsanalyze.report.history_figures import draw_history, log_scale

    for ratio, log in ((150.0, True), (1.2, False)):
        rng = np.random.default_rng(5)
        df = simulate_history(60, ["a"], changes=[SimulatedChange("a", 40, ratio)], rng=rng)
        h = tsanalyze.history(df, seed=0)
        d = history_figure_data(*history_figure_jobs(h)[0])
        assert log_scale(d) is log
        assert draw_history(d).axes[0].get_yscale() == ("log" if log else "linear")
