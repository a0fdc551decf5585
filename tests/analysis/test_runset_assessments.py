"""A run set assesses the dependence of each series once, whichever process runs which
job (issue 24): the worker that analysed a series hands its assessment to the jobs that
compare it or summarise its trials, and the numbers are those of assessing again."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from tsanalyze.analysis.runset import analysis as runset_analysis
from tsanalyze.analysis.runset import analyze
from tsanalyze.datasets import simulate_run
from tsanalyze.report.document import report_document
from tsanalyze.stats import dependence as dm


def _sides(k: int = 4) -> pd.DataFrame:
    """``k`` single-run sides of two benchmarks: k - 1 comparisons per benchmark with the
    first, and a trials summary across the runs."""
    frames = [
        simulate_run({"a": 1000.0, "b": 2000.0 + 10 * i}, n_rounds=300, rng=30 + i).frame
        for i in range(k)
    ]
    df = pd.concat(frames, ignore_index=True)
    df.attrs["runs"] = {r: m for f in frames for r, m in f.attrs["runs"].items()}
    return df


def _doc(result: Any) -> str:
    doc = report_document(result)
    doc.pop("tsanalyze_version", None)
    return json.dumps(doc, sort_keys=True)


def test_each_series_is_assessed_once_even_by_another_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df = _sides()
    dm.clear_memo()
    plain = _doc(analyze(df, rng=3, jobs=1))

    made: list[str] = []
    real = dm._assess

    def counted(*args: Any) -> Any:
        made.append(phase[0])
        return real(*args)

    phase = ["series"]
    monkeypatch.setattr(dm, "_assess", counted)

    def elsewhere(fn: Any) -> Any:
        def run(job: Any) -> Any:
            # as in a worker that did not analyse the series: nothing kept but what the
            # job carries
            dm.clear_memo()
            phase[0] = type(job).__name__
            return fn(job)

        return run

    monkeypatch.setattr(runset_analysis, "run_compare", elsewhere(runset_analysis.run_compare))
    monkeypatch.setattr(runset_analysis, "run_trials", elsewhere(runset_analysis.run_trials))
    dm.clear_memo()
    handed = analyze(df, rng=3, jobs=1)
    assert len(handed.comparisons) == 6 and len(handed.trials) == 2
    assert made.count("series") == 8  # 4 runs x 2 benchmarks
    assert [p for p in made if p != "series"] == []  # every other job got its assessments
    assert _doc(handed) == plain


def test_without_the_handover_the_jobs_would_assess_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the check above can fail: with the assessments dropped from the jobs, a process
    # that did not analyse the series assesses them itself (and gets the same numbers)
    df = _sides(3)
    made: list[int] = []
    real = dm._assess

    def counted(*args: Any) -> Any:
        made.append(1)
        return real(*args)

    monkeypatch.setattr(dm, "_assess", counted)
    monkeypatch.setattr(runset_analysis, "_with_assessments", lambda lay, pairs, c, t: (c, t))
    orig = runset_analysis.run_compare

    def fresh(job: Any) -> Any:
        dm.clear_memo()
        return orig(job)

    monkeypatch.setattr(runset_analysis, "run_compare", fresh)
    dm.clear_memo()
    analyze(df, rng=3, jobs=1)
    assert len(made) > 6  # 6 series, then again in the comparisons
