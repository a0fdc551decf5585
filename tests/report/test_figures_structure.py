"""The run-sequence figure draws a drift as a line and marks every mode visit; the
findings say drift and mode switching once."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotnine as p9
import pytest

from tsanalyze.analysis.series import analyze_series
from tsanalyze.datasets import simulate_series
from tsanalyze.report.figures import run_sequence_figure
from tsanalyze.report.findings import series_findings


def _segments(plot: p9.ggplot) -> list[pd.DataFrame]:
    """The data of every segment layer (plotnine keeps a layer's data in ``_data``)."""
    return [layer._data for layer in plot.layers if type(layer.geom).__name__ == "geom_segment"]


def test_drift_line_and_finding_once() -> None:
    x = simulate_series(1000, noise="gaussian", scale=0.01, drift=0.02, rng=3).x
    s = analyze_series(x, benchmark="b", run="r", rng=1)
    assert s.drift is not None and s.classification == "no steady state"
    codes = [f.code for f in series_findings(s)]
    assert codes.count("drift") == 1 and codes.count("no-steady-state") == 1
    plot = run_sequence_figure(s, "b")
    (segment,) = _segments(plot)
    # from the fitted level at the first sample to the one at the last, in µs
    assert segment["y"].iloc[0] == pytest.approx(s.drift.start_level / 1000.0)
    assert segment["yend"].iloc[0] == pytest.approx(s.drift.end_level / 1000.0)
    assert (segment["x"].iloc[0], segment["xend"].iloc[0]) == (0, 999)
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
    plot = run_sequence_figure(s, "b")
    (visits,) = _segments(plot)
    assert len(visits) == len(s.mode_switching.runs) == 10
    assert sorted(set(np.round(visits["level"], 2))) == pytest.approx([1.0, 1.05], abs=0.005)
