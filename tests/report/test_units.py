"""Units chosen for readability."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tsanalyze._units import (
    format_duration,
    format_percent,
    format_pvalue,
    format_ratio,
    format_time,
    time_unit,
)


@pytest.mark.parametrize(
    ("ns", "expected"),
    [
        (0.5, "0.5000 ns"),
        (12.34567, "12.35 ns"),
        (1214.3, "1.214 µs"),
        (999_999.0, "1000.0 µs"),
        (1_430_000.0, "1.430 ms"),
        (2.5e9, "2.500 s"),
        (-1500.0, "-1.500 µs"),
        (0.0, "0 ns"),
    ],
)
def test_format_time(ns: float, expected: str) -> None:
    # hand-computed: the unit is the largest with value >= 1, 4 significant digits
    assert format_time(ns) == expected


@pytest.mark.parametrize("bad", [None, math.nan, math.inf, -math.inf])
def test_format_time_missing(bad: float | None) -> None:
    assert format_time(bad) == "–"


def test_shared_unit() -> None:
    unit = time_unit(1214.0)
    assert unit == ("µs", 1e3)
    # a CI bound shown in the estimate's unit, even when it would read better in ns
    assert format_time(999.0, unit=unit) == "0.9990 µs"


@given(st.floats(min_value=1e-3, max_value=1e13, allow_nan=False))
def test_format_time_round_trips(ns: float) -> None:
    text = format_time(ns)
    value, unit = text.split(" ")
    factor = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]
    assert 1.0 <= float(value) < 1000.5 or unit == "ns" or unit == "s"
    assert float(value) * factor == pytest.approx(ns, rel=1e-3)


def test_other_formats() -> None:
    assert format_percent(0.8712) == "87.1%"
    assert format_percent(None) == "–"
    assert format_ratio(1.02134) == "1.021×"
    assert format_pvalue(0.00001) == "<0.001"
    assert format_pvalue(0.04567) == "0.046"
    assert format_duration(1.9) == "1.90 s"
    assert format_duration(0.312) == "312 ms"
    assert format_duration(150.0) == "2.50 min"


def test_format_percent_signed_for_changes() -> None:
    from tsanalyze._units import format_percent

    assert format_percent(2.774, signed=True) == "+277%"
    assert format_percent(-0.05, signed=True) == "-5.00%"
    assert format_percent(0.0, signed=True) == "0%"
    assert format_percent(0.5) == "50.0%"
    assert format_percent(float("nan"), signed=True) == "–"
