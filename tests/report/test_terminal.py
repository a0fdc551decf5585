"""Terminal report: tables, findings worst first, untrusted names never read as markup."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tsanalyze.analysis.runset import RunAnalysis, analyze
from tsanalyze.datasets import simulate_run
from tsanalyze.report.findings import report_findings
from tsanalyze.report.terminal import render_terminal

NASTY = "[bold red]boom[/] [/]"


def _render(ra: RunAnalysis) -> str:
    buf = io.StringIO()
    render_terminal(ra, Console(width=200, color_system=None, file=buf))
    return buf.getvalue()


@pytest.fixture(scope="module")
def ra() -> RunAnalysis:
    sim = simulate_run(
        {"plain": 1000.0, NASTY: 1300.0}, n_rounds=600, noise="gaussian", scale=0.01,
        warmup=(120, 0.4), rng=3,
    )  # fmt: skip
    out = analyze(sim.frame, baseline_benchmark="plain", rng=1, jobs=1)
    return out


def test_markup_in_names_is_shown_verbatim(ra: RunAnalysis) -> None:
    text = _render(ra)
    # the name appears exactly as typed (rich did not eat "[bold red]" or "[/]")
    assert NASTY in text


def test_tables_and_findings(ra: RunAnalysis) -> None:
    text = _render(ra)
    assert "Summary: median with 95% CI" in text
    assert "Comparisons" in text and "slower" in text
    assert "warm-up of" in text and "removed" in text
    assert "µs" in text


def test_findings_worst_first(ra: RunAnalysis) -> None:
    found = report_findings(ra)
    ranks = [rf.finding.rank for rf in found]
    assert ranks == sorted(ranks, reverse=True)
    # one benchmark slower than another of the same run (asked for with a baseline
    # benchmark) is a result, said as a note: not a regression, not serious
    (slower,) = [rf.finding for rf in found if rf.finding.code == "slower"]
    assert slower.severity == "info" and "30% slower than plain" in slower.message


def test_trials_table() -> None:
    import pandas as pd

    sims = [
        simulate_run({"t": 1000.0}, n_rounds=400, noise="gaussian", rng=20 + i) for i in range(3)
    ]
    df = pd.concat([s.frame for s in sims], ignore_index=True)
    df.attrs["runs"] = {k: v for s in sims for k, v in s.frame.attrs["runs"].items()}
    ra = analyze(df, rng=1, jobs=1)
    assert len(ra.trials) == 1
    text = _render(ra)
    assert "Trials" in text and "two-level bootstrap" in text
