"""The pandas accessor ``.tsa``: equal to the public functions, grouped, empty groups.

The reference for every accessor result is the public function it wraps, called directly
on the same values (the accessor must add no statistics of its own).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import tsanalyze
from tsanalyze.accessor import TsaDataFrameAccessor, TsaSeriesAccessor
from tsanalyze.datasets import simulate_run

#: accessor method -> public function it wraps
WRAPS = {
    "changepoints": "changepoints",
    "steady_state": "steady_state",
    "autocorrelation": "autocorrelation",
    "estimate": "estimate",
    "outliers": "tukey_fences",
    "modes": "multimodality",
}
#: keyword arguments that make a method deterministic (the bootstrap needs a seed)
KWARGS: dict[str, dict[str, Any]] = {"estimate": {"rng": 7}}
METHODS = sorted(WRAPS)


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a.to_dict() == b.to_dict()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Two runs of two interleaved benchmarks (a warm-up in run 1), rows shuffled."""
    r1 = simulate_run(
        {"fast": 1000.0, "slow": 1300.0}, n_rounds=150, warmup=(30, 0.5), run="run-1", rng=1
    )
    r2 = simulate_run({"fast": 1000.0, "slow": 1200.0}, n_rounds=120, run="run-2", rng=2)
    df = pd.concat([r1.frame, r2.frame], ignore_index=True)
    for col in ("benchmark", "run"):
        df[col] = df[col].astype(str).astype("category")
    df.attrs["runs"] = {**r1.frame.attrs["runs"], **r2.frame.attrs["runs"]}
    # shuffled rows: the accessor must restore time order from `sample`
    return df.sample(frac=1.0, random_state=3).reset_index(drop=True)


def _series(df: pd.DataFrame, run: str, bench: str, column: str = "time_ns") -> pd.Series:
    g = df[(df["run"] == run) & (df["benchmark"] == bench)].sort_values("sample")
    return g[column].reset_index(drop=True)


def test_accessors_are_registered_on_import() -> None:
    assert isinstance(pd.Series([1.0, 2.0]).tsa, TsaSeriesAccessor)
    assert isinstance(pd.DataFrame({"x": [1.0]}).tsa, TsaDataFrameAccessor)


def test_every_wrapped_function_is_public() -> None:
    for method, fn in WRAPS.items():
        assert fn in tsanalyze._API, (
            f"accessor .tsa.{method} wraps tsanalyze.{fn}, which is not public"
        )
        assert callable(getattr(TsaSeriesAccessor, method))
        assert callable(getattr(TsaDataFrameAccessor, method))


# --- Series: one series, the function's own result ------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_series_method_equals_function(frame: pd.DataFrame, method: str) -> None:
    s = _series(frame, "run-1", "fast")
    kw = KWARGS.get(method, {})
    got = getattr(s.tsa, method)(**kw)
    want = getattr(tsanalyze, WRAPS[method])(s.to_numpy(), **kw)
    assert _same(got, want)


def test_series_method_passes_arguments_on(frame: pd.DataFrame) -> None:
    s = _series(frame, "run-1", "slow")
    got = s.tsa.outliers(mild=1.0, severe=2.0)
    assert _same(got, tsanalyze.tukey_fences(s.to_numpy(), mild=1.0, severe=2.0))
    assert not _same(got, tsanalyze.tukey_fences(s.to_numpy()))


def test_series_uses_value_order_not_index(frame: pd.DataFrame) -> None:
    s = _series(frame, "run-1", "fast")
    shuffled_index = s.set_axis(np.arange(len(s))[::-1])
    assert _same(shuffled_index.tsa.outliers(), s.tsa.outliers())


@pytest.mark.parametrize("bad", [[1.0, np.nan, 2.0] * 10, [1.0, np.inf, 2.0] * 10])
def test_series_non_finite_is_rejected_by_the_function(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        pd.Series(bad).tsa.outliers()


def test_series_of_strings_is_rejected() -> None:
    with pytest.raises(ValueError, match="series"):
        pd.Series(pd.date_range("2026-01-01", periods=5)).tsa.outliers()


# --- DataFrame: per series, stacked under the keys ------------------------------------------


def _expected(
    df: pd.DataFrame, fn: str, keys: list[str], column: str = "time_ns", **kw: Any
) -> pd.DataFrame:
    parts = []
    grouped = df.groupby(keys, observed=True, sort=True) if keys else [((), df)]
    for key, g in grouped:
        key = key if isinstance(key, tuple) else (key,)
        t = getattr(tsanalyze, fn)(g.sort_values("sample")[column].to_numpy(), **kw).to_frame()
        t = t.drop(columns=[k for k in keys if k in t.columns])
        for pos, (k, v) in enumerate(zip(keys, key, strict=True)):
            t.insert(pos, k, v)
        parts.append(t)
    return pd.concat(parts, ignore_index=True)


def _assert_frames_equal(got: pd.DataFrame, want: pd.DataFrame) -> None:
    # group keys come back as plain values (not the frame's categoricals)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_categorical=False)


@pytest.mark.parametrize("method", METHODS)
def test_frame_method_equals_function_per_series(frame: pd.DataFrame, method: str) -> None:
    kw = KWARGS.get(method, {})
    got = getattr(frame.tsa, method)(**kw)
    assert list(got.columns[:2]) == ["run", "benchmark"]
    assert got[["run", "benchmark"]].drop_duplicates().shape[0] == 4
    _assert_frames_equal(got, _expected(frame, WRAPS[method], ["run", "benchmark"], **kw))


@pytest.mark.parametrize("by", ["benchmark", ["benchmark"], ["benchmark", "run"], []])
def test_frame_grouping(frame: pd.DataFrame, by: str | list[str]) -> None:
    keys = [by] if isinstance(by, str) else list(by)
    got = frame.tsa.outliers(by=by)
    _assert_frames_equal(got, _expected(frame, "tukey_fences", keys))
    if keys:
        groups = frame.groupby(keys, observed=True).ngroups
        assert got[keys].drop_duplicates().shape[0] == groups
    else:
        assert list(got.columns[:1]) != ["run"]  # one series: no key columns


def test_frame_other_column(frame: pd.DataFrame) -> None:
    got = frame.tsa.outliers(column="time_ns_raw")
    _assert_frames_equal(
        got, _expected(frame, "tukey_fences", ["run", "benchmark"], column="time_ns_raw")
    )
    assert not got.equals(frame.tsa.outliers())


def test_frame_row_order_does_not_matter(frame: pd.DataFrame) -> None:
    ordered = frame.sort_values(["run", "benchmark", "sample"]).reset_index(drop=True)
    _assert_frames_equal(frame.tsa.outliers(), ordered.tsa.outliers())


def test_empty_groups_are_skipped(frame: pd.DataFrame) -> None:
    # filtering keeps the unused categories of `benchmark` and `run`: those groups are empty
    only = frame[(frame["benchmark"] == "fast") & (frame["run"] == "run-2")]
    assert set(only["benchmark"].cat.categories) == {"fast", "slow"}
    got = only.tsa.outliers()
    assert set(got["benchmark"]) == {"fast"} and set(got["run"]) == {"run-2"}
    _assert_frames_equal(got, _expected(only, "tukey_fences", ["run", "benchmark"]))


def test_empty_frame_gives_the_same_columns(frame: pd.DataFrame) -> None:
    full = frame.tsa.outliers()
    empty = frame.iloc[:0].tsa.outliers()
    assert len(empty) == 0
    assert list(empty.columns) == list(full.columns)


def test_rows_with_missing_keys_are_not_a_series(frame: pd.DataFrame) -> None:
    df = frame.copy()
    df["benchmark"] = df["benchmark"].astype(object)
    missing = df.index[:5]
    df.loc[missing, "benchmark"] = None
    got = df.tsa.outliers()
    # the rows without a benchmark are left out: no group of their own, and no series
    # holds them (reference: the function on each group of the other rows)
    assert got["benchmark"].notna().all()
    assert got[["run", "benchmark"]].drop_duplicates().shape[0] == 4
    kept = df.drop(index=missing)
    _assert_frames_equal(got, _expected(kept, "tukey_fences", ["run", "benchmark"]))
    # with the five rows, the fences of their series differ
    assert not np.allclose(got["fence"], frame.tsa.outliers()["fence"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"by": "nope"}, "by"),
        ({"by": ["run", "run"]}, "by"),
        ({"column": "nope"}, "column"),
        ({"column": "benchmark"}, "column"),
        ({"column": "run", "by": "run"}, "column"),
    ],
)
def test_frame_bad_arguments_name_the_parameter(
    frame: pd.DataFrame, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        frame.tsa.outliers(**kwargs)


def test_a_repeated_column_is_named(frame: pd.DataFrame) -> None:
    # before: AttributeError "'DataFrame' object has no attribute 'dtype'"
    twice = pd.concat([frame, frame[["time_ns"]]], axis=1)
    with pytest.raises(ValueError, match="column: 'time_ns' appears more than once"):
        twice.tsa.summary()
    twice = pd.concat([frame, frame[["run"]]], axis=1)
    with pytest.raises(ValueError, match="by: column 'run' appears more than once"):
        twice.tsa.outliers()


def test_frame_without_run_columns_is_one_series() -> None:
    x = np.linspace(1.0, 2.0, 50) ** 2
    df = pd.DataFrame({"t": x})
    _assert_frames_equal(df.tsa.outliers(column="t"), tsanalyze.tukey_fences(x).to_frame())


# --- summary: one row per series ------------------------------------------------------------


def test_summary_one_row_per_series_equal_to_the_per_series_analysis(frame: pd.DataFrame) -> None:
    from tsanalyze.analysis.series import analyze_series

    got = frame.tsa.summary(rng=1)
    assert len(got) == 4
    for col in (
        "run",
        "benchmark",
        "n",
        "stable_share",
        "estimate",
        "ci_low",
        "ci_high",
        "confidence_level",
        "subsession_size",
        "warnings",
    ):
        assert col in got.columns, col
    parts = []
    for (run, bench), g in frame.groupby(["run", "benchmark"], observed=True, sort=True):
        g = g.sort_values("sample")
        # what `tsanalyze report` passes for each series
        row = analyze_series(
            g["time_ns"].to_numpy(),
            benchmark=str(bench),
            run=str(run),
            evals=int(np.median(g["evals"])),
            sample_ns=g["ns"].to_numpy(),
            timer=frame.attrs["runs"][run]["timer"],
            rng=1,
        ).to_frame()
        parts.append(row)
    want = pd.concat(parts, ignore_index=True)
    want = want[[c for c in got.columns]]
    _assert_frames_equal(got, want)
    assert (got["ci_low"] <= got["estimate"]).all() and (got["estimate"] <= got["ci_high"]).all()


def test_summary_grouping_and_empty_groups(frame: pd.DataFrame) -> None:
    by_bench = frame.tsa.summary(by="benchmark", rng=1)
    assert list(by_bench["benchmark"]) == ["fast", "slow"]
    assert (by_bench["n"] == frame.groupby("benchmark", observed=True).size().to_numpy()).all()
    only = frame[frame["benchmark"] == "slow"]
    got = only.tsa.summary(rng=1)
    assert set(got["benchmark"]) == {"slow"} and len(got) == 2
    empty = frame.iloc[:0].tsa.summary()
    assert len(empty) == 0 and list(empty.columns) == list(got.columns)


def test_series_summary_equals_the_analysis(frame: pd.DataFrame) -> None:
    from tsanalyze.analysis.series import analyze_series

    s = _series(frame, "run-2", "slow")
    _assert_frames_equal(s.tsa.summary(rng=3), analyze_series(s.to_numpy(), rng=3).to_frame())


# --- compare: one row per comparison ----------------------------------------------------------


def test_compare_runs_equals_compare_runs(frame: pd.DataFrame) -> None:
    from tsanalyze.analysis.compare import compare_runs

    got = frame.tsa.compare("run-1", "run-2", rng=5)
    want = compare_runs(
        frame[frame["run"] == "run-1"], frame[frame["run"] == "run-2"], rng=5
    ).to_frame()
    _assert_frames_equal(got, want)
    assert len(got) == 2  # the two benchmarks both runs hold


def test_compare_benchmarks_equals_compare_on_the_stable_segments(frame: pd.DataFrame) -> None:
    from tsanalyze.analysis._seed import family_seeds
    from tsanalyze.analysis.compare.verdicts import adjust_verdicts
    from tsanalyze.analysis.series import stable_rows

    a, b = frame[frame["benchmark"] == "fast"], frame[frame["benchmark"] == "slow"]
    got = frame.tsa.compare("fast", "slow", between="benchmark", rng=5)
    # each series cut to its stable segment, the seed the report gives a family's comparison
    # and, as in the report, a family: Holm over one comparison leaves p as it is
    want = tsanalyze.compare(stable_rows(a), stable_rows(b), rng=family_seeds(5, 1)[0])
    (adjusted,) = adjust_verdicts([want])
    assert adjusted.pvalue_adjusted == want.pvalue
    _assert_frames_equal(got, adjusted.to_frame())
    assert len(got) == 1
    whole = frame.tsa.compare("fast", "slow", between="benchmark", rng=5, raw=True)
    (plain,) = adjust_verdicts([tsanalyze.compare(a, b, rng=family_seeds(5, 1)[0])])
    _assert_frames_equal(whole, plain.to_frame())


def test_compare_benchmarks_per_run_equals_the_report(frame: pd.DataFrame) -> None:
    got = frame.tsa.compare("fast", "slow", between="benchmark", by="run", rng=5)
    assert list(got["run"]) == ["run-1", "run-2"]
    # the numbers of `tsanalyze report --baseline-benchmark fast` (each run its own side)
    report = tsanalyze.analyze(frame, baseline_benchmark="fast", rng=5)
    rows = {c.run: c for c in report.comparisons if c.kind == "benchmark"}
    for run in ("run-1", "run-2"):
        row = got[got["run"] == run].iloc[0]
        for col in ("ratio", "ci_low", "ci_high", "pvalue", "statistic", "pvalue_adjusted"):
            assert row[col] == pytest.approx(getattr(rows[run], col), rel=1e-12), (run, col)
    # the candidate is slower in both runs: the verdict must see it
    assert set(got["verdict"]) == {"slower"}


def test_compare_skips_groups_without_both_sides(frame: pd.DataFrame) -> None:
    df = frame[~((frame["run"] == "run-2") & (frame["benchmark"] == "slow"))]
    got = df.tsa.compare("fast", "slow", between="benchmark", by="run", rng=5)
    assert list(got["run"]) == ["run-1"]


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("run-1", "nope"), {}, "candidate"),
        (("nope", "run-2"), {}, "baseline"),
        (("run-1", "run-2"), {"between": "round"}, "between"),
        (("run-1", "run-2"), {"by": "benchmark"}, "by"),
        (("fast", "slow"), {"between": "benchmark", "by": "benchmark"}, "by"),
    ],
)
def test_compare_bad_arguments(
    frame: pd.DataFrame, args: tuple[str, str], kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        frame.tsa.compare(*args, **kwargs)


# --- signatures and docstrings are the wrapped functions' -------------------------------------


@pytest.mark.parametrize("method", [*METHODS, "summary"])
def test_methods_show_the_wrapped_signature_and_docstring(frame: pd.DataFrame, method: str) -> None:
    import inspect

    from tsanalyze.analysis.series import analyze_series

    fn = analyze_series if method == "summary" else getattr(tsanalyze, WRAPS[method])
    params = list(inspect.signature(fn).parameters.values())[1:]  # without the values
    on_series = getattr(_series(frame, "run-1", "fast").tsa, method)
    assert list(inspect.signature(on_series).parameters.values()) == params
    assert on_series.__doc__ == inspect.getdoc(fn)
    on_frame = inspect.signature(getattr(frame.tsa, method)).parameters
    assert [p for p in on_frame.values() if p.name not in ("by", "column")] == params
    assert on_frame["by"].default is None and on_frame["column"].default == "time_ns"
    assert on_frame["by"].kind is inspect.Parameter.KEYWORD_ONLY
    assert (inspect.getdoc(fn) or "") in getattr(frame.tsa, method).__doc__


def test_by_sets_the_grouping(frame: pd.DataFrame) -> None:
    _assert_frames_equal(frame.tsa.by("benchmark").outliers(), frame.tsa.outliers(by="benchmark"))
    raw = frame.tsa.by(["run", "benchmark"], column="time_ns_raw")
    _assert_frames_equal(raw.estimate(rng=7), frame.tsa.estimate(rng=7, column="time_ns_raw"))
    # keywords still override what by() set
    _assert_frames_equal(raw.outliers(column="time_ns"), frame.tsa.outliers())
    with pytest.raises(ValueError, match="by"):
        frame.tsa.by("nope")
    # unbound use, as for a plain method
    s = _series(frame, "run-1", "fast")
    assert _same(TsaSeriesAccessor.outliers(s.tsa), s.tsa.outliers())
