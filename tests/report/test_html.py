"""HTML report: self-contained, one figure group per series, untrusted names escaped."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from tsanalyze.analysis.runset import RunAnalysis, analyze
from tsanalyze.datasets import simulate_run
from tsanalyze.report.html import render_html

XSS = "<script>alert(1)</script>"
QUOTE = 'a"onmouseover="alert(2)'


@pytest.fixture(scope="module")
def page() -> tuple[str, RunAnalysis]:
    base = simulate_run(
        {XSS: 1000.0, QUOTE: 1200.0, "$x^2$": 1500.0}, n_rounds=400, noise="gaussian", rng=1
    )
    cand = simulate_run(
        {XSS: 1050.0, QUOTE: 1200.0, "$x^2$": 1500.0}, n_rounds=400, noise="gaussian", rng=2
    )
    df = pd.concat([base.frame, cand.frame], ignore_index=True)
    df.attrs["runs"] = {**base.frame.attrs["runs"], **cand.frame.attrs["runs"]}
    ra = analyze(df, rng=1, jobs=1)
    return render_html(ra), ra


def test_untrusted_names_are_escaped(page: tuple[str, RunAnalysis]) -> None:
    text, _ = page
    assert XSS not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    # a quote in a name never ends an attribute: no tag gains an event handler
    assert not re.search(r"<[^>]*\bonmouseover\s*=", text, re.I)
    # no script element at all: the report is static
    assert "<script" not in text.lower()


def test_self_contained(page: tuple[str, RunAnalysis]) -> None:
    text, _ = page
    # nothing is fetched: no external src/href/url()/@import, no <link>
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', text, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", text, re.I)
    assert "@import" not in text and "<link" not in text.lower()
    # the only URLs left are XML namespace names, which browsers never fetch
    urls = set(re.findall(r"https?://[^\s\"'<>]+", text))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def test_one_figure_per_series_and_a_forest_plot(page: tuple[str, RunAnalysis]) -> None:
    text, ra = page
    assert len(re.findall(r'<figure class="series"', text)) == len(ra.series) == 6
    # each series figure holds the three plots
    assert text.count("<svg") == 3 * len(ra.series) + 1
    assert len(re.findall(r'<figure class="forest"', text)) == 1


def test_ids_are_unique(page: tuple[str, RunAnalysis]) -> None:
    text, _ = page
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))
