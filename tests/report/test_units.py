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
    format_times,
    quote_pvalue,
    quote_time,
    time_unit,
)
from tsanalyze.errors import InvalidArgumentError


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
    # in a sentence: an underflowed tail (0.0) is not written as p = 0
    assert quote_pvalue(0.0) == "p < 0.001" and quote_pvalue(0.04567) == "p = 0.046"
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


@pytest.mark.parametrize(
    ("value", "unit", "digits", "expected"),
    [
        # hand-computed: value × ns per unit, in the unit that reads best, trailing zeros
        # dropped
        (872.4, "ns", 4, "872.4 ns"),
        (1236.04, "ns", 4, "1.236 µs"),
        (3e-8, "s", 4, "30 ns"),
        (1.2364e-6, "s", 4, "1.236 µs"),
        (1.5, "ms", 4, "1.5 ms"),
        (0.26749, "ns", 3, "0.267 ns"),
        (0.26749, None, 3, "0.267"),  # unknown unit: the bare number
        (1236.04, None, 4, "1236"),
    ],
)
def test_quote_time(value: float, unit: str | None, digits: int, expected: str) -> None:
    assert quote_time(value, unit, digits=digits) == expected


@pytest.mark.parametrize(
    ("values", "unit", "expected"),
    [
        # one unit for the group, chosen from the largest (as the modes finding does)
        ([872.4, 1236.0], "ns", "0.8724 and 1.236 µs"),
        ([8.724e-7, 1.236e-6], "s", "0.8724 and 1.236 µs"),
        ([910.3, 1174.0, 1269.0, 1377.0], "ns", "0.9103, 1.174, 1.269 and 1.377 µs"),
        ([12.0, 950.0], "us", "12.00 and 950.0 µs"),
        ([12.0, 1950.0], "us", "0.01200 and 1.950 ms"),
        ([884.574, 1241.66], None, "884.6 and 1242"),
        ([30.0], "ns", "30.00 ns"),
    ],
)
def test_format_times(values: list[float], unit: str | None, expected: str) -> None:
    assert format_times(values, unit) == expected


def test_quoting_an_unknown_unit_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="weeks"):
        quote_time(1.0, "weeks")
    with pytest.raises(InvalidArgumentError, match="weeks"):
        format_times([1.0, 2.0], "weeks")
