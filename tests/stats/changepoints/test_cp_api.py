"""tsanalyze.changepoints: one interface over every method."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tsanalyze
from tsanalyze.stats.changepoints import ChangePoints
from tsanalyze.stats.changepoints.api import METHODS

OPTIONS: dict[str, dict[str, Any]] = {
    "e-divisive": {"rng": 1, "permutations": 19},
    "edm-percent": {"percent": 0.5},
}


def signal() -> np.ndarray:
    rng = np.random.default_rng(2)
    return np.r_[rng.normal(100, 1, 100), rng.normal(110, 1, 100)]


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_same_interface(method: str) -> None:
    x = signal()
    res = tsanalyze.changepoints(x, method=method, min_size=20, **OPTIONS.get(method, {}))  # type: ignore[arg-type]
    assert isinstance(res, ChangePoints) and res.method == method
    assert any(abs(v - 100) <= 3 for v in res.locations)
    assert list(res.locations) == sorted(res.locations)
    frame = res.to_frame()
    assert list(frame.columns) == ["method", "segment", "start", "stop", "n", "median", "mean"]
    assert frame["n"].sum() == 200 and frame["start"].iloc[0] == 0 and frame["stop"].iloc[-1] == 200
    json.dumps(res.to_dict())  # JSON-serialisable


def test_segments_match_pandas() -> None:
    x = signal()
    res = tsanalyze.changepoints(pd.Series(x))
    seg = res.segments
    for _, row in seg.iterrows():
        part = x[int(row["start"]) : int(row["stop"])]
        assert row["median"] == pytest.approx(np.median(part))
        assert row["mean"] == pytest.approx(np.mean(part))


def test_compat_argument() -> None:
    x = signal()
    a = tsanalyze.changepoints(x, "edm-multi", compat="breakoutdetection", min_size=24)
    assert a.compat == "breakoutdetection"
    with pytest.raises(ValueError, match="compat"):
        tsanalyze.changepoints(x, "edm", compat="breakoutdetection")
    with pytest.raises(ValueError, match="compat"):
        tsanalyze.changepoints(x, "edm-x", compat="r")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="method"):
        tsanalyze.changepoints(x, "kernel")  # type: ignore[arg-type]


@settings(max_examples=30, deadline=None)
@given(
    values=st.lists(st.floats(1e-3, 1e6, allow_nan=False), min_size=0, max_size=120),
    method=st.sampled_from(["edm", "edm-multi", "edm-x", "binseg-l2"]),
)
def test_locations_sorted_inside_and_segments_tile(values: list[float], method: str) -> None:
    x = np.asarray(values, dtype=float)
    res = tsanalyze.changepoints(x, method=method, min_size=5)  # type: ignore[arg-type]
    locs = list(res.locations)
    assert locs == sorted(set(locs))
    assert all(5 <= v <= x.size - 5 for v in locs)
    assert res.segments["n"].sum() == x.size
    assert res.n == x.size
