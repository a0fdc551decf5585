"""The shared result machinery (``tsanalyze._result``): repr, summary, equality, hashing,
``to_dict``/``to_frame``, on a small hand-made result type and on the real ones."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import math
import pkgutil

import numpy as np
import pandas as pd
import pytest

import tsanalyze
from tsanalyze._result import Finding, Result, format_number, result, to_builtin
from tsanalyze.datasets import simulate_run, simulate_series


@dataclasses.dataclass(frozen=True, slots=True)
class _Toy(Result):
    benchmark: str
    estimate: float
    ci_low: float
    ci_high: float
    n: int
    values: np.ndarray
    table: pd.DataFrame
    labels: tuple[str, ...] = ()
    warnings: tuple[Finding, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _NoEq(Result):
    """eq=False used to inherit the base dataclass's __eq__, which compared () with ()."""

    x: float


@dataclasses.dataclass(frozen=True, slots=True)
class _OwnRepr(Result):
    x: float

    def __repr__(self) -> str:
        return "mine"


def _toy(**changes: object) -> _Toy:
    base = {
        "benchmark": "parse",
        "estimate": 1234.5678,
        "ci_low": 1200.0,
        "ci_high": 1300.0,
        "n": 500,
        "values": np.array([1.0, np.nan, 3.0]),
        "table": pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]}),
        "labels": ("p", "q"),
        "warnings": (Finding("autocorrelated", "lag-1 = 0.3", "info"),),
    }
    base.update(changes)
    return _Toy(**base)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ equality
def test_equal_values_are_equal_nan_included() -> None:
    a, b = _toy(), _toy(values=np.array([1.0, np.nan, 3.0]), table=_toy().table.copy())
    assert a is not b and a == b and not (a != b)
    assert hash(a) == hash(b)
    assert _toy(estimate=math.nan) == _toy(estimate=math.nan)


@pytest.mark.parametrize(
    "change",
    [
        {"values": np.array([1.0, 2.0, 3.0])},
        {"values": np.array([1.0, np.nan])},
        {"table": pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})},
        {"labels": ("p",)},
        {"estimate": 1234.0},
        {"warnings": ()},
    ],
)
def test_a_different_field_makes_results_unequal(change: dict[str, object]) -> None:
    assert _toy() != _toy(**change)


def test_other_types_are_not_equal() -> None:
    assert _toy() != "parse"
    assert _NoEq(1.0) != _OwnRepr(1.0)


def test_eq_false_subclasses_compare_values_not_nothing() -> None:
    # before: any two _NoEq (and SteadyState, ChangePoints, SeriesAnalysis) were equal
    assert _NoEq(1.0) == _NoEq(1.0)
    assert _NoEq(1.0) != _NoEq(2.0)


def test_results_with_arrays_are_hashable_and_usable_in_sets() -> None:
    assert len({_toy(), _toy(), _toy(n=3)}) == 2


def test_every_result_type_in_the_package_gets_the_shared_methods() -> None:
    for info in pkgutil.walk_packages(tsanalyze.__path__, "tsanalyze."):
        importlib.import_module(info.name)
    seen = 0
    stack = list(Result.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if not cls.__module__.startswith("tsanalyze."):
            continue
        seen += 1
        for name in ("__repr__", "__eq__", "__hash__"):
            assert cls.__dict__[name] is Result.__dict__[name], f"{cls.__qualname__}.{name}"
        declared = getattr(importlib.import_module(cls.__module__), cls.__name__, None)
        if declared is cls:  # not the class slots=True replaced (it lingers until collected)
            assert cls.__dataclass_params__.frozen and "__slots__" in cls.__dict__, cls.__name__
    assert seen >= 30


def test_the_result_decorator_makes_a_frozen_slotted_result() -> None:
    @result
    class _Declared(Result):
        x: float
        values: np.ndarray

    d = _Declared(1.0, np.array([1.0, np.nan]))
    assert dataclasses.is_dataclass(d) and "__slots__" in _Declared.__dict__
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.x = 2.0  # type: ignore[misc]
    assert d == _Declared(1.0, np.array([1.0, np.nan])) and hash(d) == hash(copy.copy(d))
    assert repr(d).startswith("_Declared(x=1")


def test_the_result_decorator_refuses_a_class_that_is_not_a_result() -> None:
    with pytest.raises(TypeError, match="does not inherit"):

        @result  # type: ignore[type-var]
        class _Plain:
            x: float


def test_real_results_that_used_to_raise_or_lie_on_eq() -> None:
    x = simulate_series(600, rng=1, warmup=(100, 0.5)).x
    y = simulate_series(400, rng=2).x
    run = simulate_run({"a": 1000.0, "b": 1500.0}, n_rounds=100, rng=3).frame
    makers = {
        "Autocorrelation": tsanalyze.autocorrelation,
        "Modes": tsanalyze.stats.multimodality.multimodality,
        "TukeyFences": tsanalyze.tukey_fences,
        "SteadyState": tsanalyze.steady_state,
        "ChangePoints": tsanalyze.changepoints,
    }
    for name, make in makers.items():
        a, a2, b = make(x), make(x.copy()), make(y)
        assert type(a).__name__ == name
        assert a == a2, name
        assert a != b, name
    tc = tsanalyze.timer_checks_per_series(run)
    assert tc == tsanalyze.timer_checks_per_series(run.copy())
    assert tc != tsanalyze.timer_checks_per_series(run[run.benchmark == "a"])
    nf = tsanalyze.noise_floor(run, "a")
    assert nf == tsanalyze.noise_floor(run, "a") and nf != tsanalyze.noise_floor(run, "b")
    # replay: the same seed gives an equal result, another seed a different one
    assert tsanalyze.estimate(x, "mean", rng=5) == tsanalyze.estimate(x, "mean", rng=5)


# ---------------------------------------------------------------------- repr/summary
def test_repr_is_one_short_line_with_the_key_numbers() -> None:
    r = repr(_toy())
    assert "\n" not in r
    assert r == (
        "_Toy(benchmark='parse', estimate=1235 [1200, 1300], n=500, warnings=[autocorrelated])"
    )


def test_repr_counts_repeated_codes_and_caps_the_list() -> None:
    ws = tuple(Finding(c, "m") for c in ("a", "b", "b", "c", "d"))
    assert repr(_toy(warnings=ws)).endswith("warnings=[a, b ×2, c, +1])")


def test_a_subclass_keeps_its_own_repr_and_passes_it_on() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class _Child(_OwnRepr):
        y: float = 0.0

    assert repr(_OwnRepr(1.0)) == "mine" and repr(_Child(1.0)) == "mine"
    assert _Child(1.0, 2.0) == _Child(1.0, 2.0) != _Child(1.0, 3.0)


def test_repr_of_real_results_is_short() -> None:
    x = simulate_series(500, rng=1).x
    c = tsanalyze.compare(x, x * 1.05, rng=1)
    r = repr(c)
    assert len(r) < 250 and "\n" not in r
    assert r.startswith("Comparison(verdict='slower'") and "ratio=1.05 [" in r
    ra = tsanalyze.analyze(
        simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=200, rng=1).frame, rng=1
    )
    assert len(repr(ra)) < 200 and "series=<2>" in repr(ra)


def test_summary_shows_every_field_and_the_warnings() -> None:
    text = _toy().summary()
    lines = text.splitlines()
    assert lines[:2] == ["_Toy", "===="]
    for name in ("benchmark", "estimate", "n", "values", "table", "labels"):
        assert any(line.startswith(name) for line in lines), name
    assert "1234.57 [1200, 1300]" in text  # 6 significant digits, CI beside the estimate
    assert "3 values: 1, nan, 3" in text
    assert "  [info] autocorrelated: lag-1 = 0.3" in text
    assert text.index("table:") < text.index("warnings: 1")  # tables after the fields


def test_summary_of_nested_results_lists_one_line_each() -> None:
    ra = tsanalyze.analyze(
        simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=200, rng=1).frame, rng=1
    )
    text = ra.summary()
    assert "series: 2" in text
    assert sum(line.startswith("  SeriesAnalysis(") for line in text.splitlines()) == 2


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1234.5678, "1235"),
        (66299.22, "66299"),
        (1.5e9, "1.5e+09"),
        (4.9096e-156, "4.91e-156"),
        (0.0, "0"),
        (math.nan, "nan"),
        (-math.inf, "-inf"),
        (np.float64(0.5), "0.5"),
        (np.int64(7), "7"),
        (3, "3"),
        (True, "True"),
    ],
)
def test_format_number(value: object, text: str) -> None:
    assert format_number(value) == text


# ------------------------------------------------------------------ to_dict/to_frame
def test_to_dict_is_plain_json() -> None:
    d = _toy(estimate=math.nan).to_dict()
    assert d["estimate"] is None and d["values"] == [1.0, None, 3.0]
    assert d["table"] == [{"a": 1.0, "b": "x"}, {"a": None, "b": "y"}]
    assert d["warnings"] == [
        {"code": "autocorrelated", "message": "lag-1 = 0.3", "severity": "info"}
    ]
    json.dumps(d, allow_nan=False)


def test_to_frame_keeps_scalars_and_joins_the_codes() -> None:
    f = _toy(warnings=(Finding("a", "m"), Finding("b", "m"))).to_frame()
    assert list(f.columns) == ["benchmark", "estimate", "ci_low", "ci_high", "n", "warnings"]
    assert f.loc[0, "warnings"] == "a;b" and f.loc[0, "n"] == 500


def test_to_builtin_handles_numpy_pandas_and_containers() -> None:
    assert to_builtin({"a": np.float64(np.inf), 1: (np.int64(2),)}) == {"a": None, "1": [2]}
    assert to_builtin(pd.Series([1.5, np.nan])) == [1.5, None]
    assert to_builtin(pd.Timestamp("2026-01-02")) == "2026-01-02T00:00:00"
    assert to_builtin(Finding("c", "m", "serious")) == {
        "code": "c",
        "message": "m",
        "severity": "serious",
    }


def test_finding_rank_orders_severities() -> None:
    ranks = [Finding("c", "m", s).rank for s in ("info", "warning", "serious")]
    assert ranks == [0, 1, 2]


def test_results_are_still_frozen() -> None:
    t = _toy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.n = 3  # type: ignore[misc]
    assert copy.copy(t) == t
