"""The run-sequence figure draws a drift as a line and marks every mode visit; the
findings say drift and mode switching once."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tsanalyze.analysis.series import analyze_series
from tsanalyze.datasets import simulate_series
from tsanalyze.report.figures import run_sequence_data, run_sequence_figure, to_svg
from tsanalyze.report.findings import series_findings


def test_drift_line_and_finding_once() -> None:
    x = simulate_series(1000, noise="gaussian", scale=0.01, drift=0.02, rng=3).x
    s = analyze_series(x, benchmark="b", run="r", rng=1)
    assert s.drift is not None and s.classification == "no steady state"
    codes = [f.code for f in series_findings(s)]
    assert codes.count("drift") == 1 and codes.count("no-steady-state") == 1
    d = run_sequence_data(s, "b")
    assert d.drift is not None
    x0, y0, x1, y1 = d.drift
    # from the fitted level at the first sample to the one at the last, in µs
    assert d.unit == "µs"
    assert y0 == pytest.approx(s.drift.start_level / 1000.0)
    assert y1 == pytest.approx(s.drift.end_level / 1000.0)
    assert (x0, x1) == (0, 999)
    assert to_svg(run_sequence_figure(s, "b")).startswith("<svg")
    assert json.loads(json.dumps(s.to_dict()))["drift"]["total_change"] == pytest.approx(
        s.drift.total_change
    )


def test_mode_visits_marked_and_finding_once() -> None:
    rng = np.random.default_rng(4)
    state = (np.arange(1500) // 150) % 2
    x = 1000.0 * (1 + 0.05 * state + 0.01 * rng.standard_normal(1500))
    s = analyze_series(x, benchmark="b", run="r", rng=1)
    assert s.mode_switching is not None and s.changepoints == ()
    assert [f.code for f in series_findings(s)].count("mode-switching") == 1
    visits = run_sequence_data(s, "b").visits
    assert len(visits) == len(s.mode_switching.runs) == 10
    levels = sorted({round(level, 2) for _, _, level in visits})
    assert levels == pytest.approx([1.0, 1.05], abs=0.005)
