"""analyze(): every series on its stable segment, comparisons chosen from the design."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import tsanalyze
from tsanalyze.analysis.runset import RunAnalysis, analyze, executor, plan
from tsanalyze.analysis.runset.analysis import family_verdicts
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError, NotEnoughData


def _two_runs(shift: float = 0.05) -> pd.DataFrame:
    """Two runs of the same two benchmarks; the second is ``shift`` slower on ``b``."""
    base = simulate_run(
        {"a": 1000.0, "b": 2000.0}, n_rounds=600, noise="gaussian", scale=0.01, rng=1
    )
    cand = simulate_run(
        {"a": 1000.0, "b": 2000.0 * (1 + shift)}, n_rounds=600, noise="gaussian", scale=0.01, rng=2
    )
    df = pd.concat([base.frame, cand.frame], ignore_index=True)
    df.attrs["runs"] = {**base.frame.attrs["runs"], **cand.frame.attrs["runs"]}
    return df


@pytest.fixture(scope="module")
def interleaved() -> tuple[RunAnalysis, object]:
    sim = simulate_run(
        {"base": 1000.0, "fast": 900.0, "slow": 1100.0}, n_rounds=800, noise="gaussian", scale=0.01,
        warmup=(100, 0.3), rng=4,
    )  # fmt: skip
    return analyze(sim.frame, baseline_benchmark="base", rng=1, jobs=1), sim


def test_one_series_per_run_and_benchmark(interleaved: tuple[RunAnalysis, object]) -> None:
    ra, sim = interleaved
    assert [s.benchmark for s in ra.series] == ["base", "fast", "slow"]
    for s in ra.series:
        x = (
            sim.frame.loc[sim.frame["benchmark"] == s.benchmark]
            .sort_values("sample")["time_ns"]
            .to_numpy()
        )
        np.testing.assert_array_equal(s.samples, x)
        assert s.stable and s.start > 0  # the warm-up was cut


def test_benchmarks_compared_with_baseline_paired(interleaved: tuple[RunAnalysis, object]) -> None:
    ra, _ = interleaved
    rows = {c.benchmark: c for c in ra.comparisons}
    assert set(rows) == {"fast", "slow"}
    assert all(
        c.kind == "benchmark" and c.paired and c.baseline_benchmark == "base" for c in rows.values()
    )
    # true ratios from the simulator's t0: 0.9 and 1.1
    assert rows["fast"].ci_low <= 0.9 * 1.01 and rows["fast"].ci_high >= 0.9 * 0.99
    assert rows["fast"].verdict == "faster" and rows["slow"].verdict == "slower"
    # one benchmark slower than another of the same run is not a regression
    assert not ra.regression and ra.any_slower
    # Holm over the family of 2: adjusted p >= raw p
    assert all(c.pvalue_adjusted >= c.pvalue for c in rows.values())
    assert ra.baseline_benchmark == "base"


def test_runs_compared_with_first_run() -> None:
    df = _two_runs(0.05)
    ra = analyze(df, rng=1, jobs=1)
    first, second = list(df.attrs["runs"])
    assert ra.baseline_run == first
    rows = {c.benchmark: c for c in ra.comparisons}
    assert set(rows) == {"a", "b"}
    assert all(
        c.kind == "run" and c.run == second and c.baseline_run == first for c in rows.values()
    )
    assert rows["b"].verdict == "slower"
    assert rows["b"].ci_low <= 1.05 <= rows["b"].ci_high * 1.005
    assert rows["a"].verdict in ("same", "inconclusive")


def test_baseline_run_by_id() -> None:
    df = _two_runs(0.05)
    first, second = list(df.attrs["runs"])
    ra = analyze(df, baseline=second, rng=1, jobs=1)
    assert ra.baseline_run == second
    assert {c.run for c in ra.comparisons} == {first}
    assert {c.benchmark: c for c in ra.comparisons}["b"].verdict == "faster"


def test_results_do_not_depend_on_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    df = _two_runs(0.0)
    serial = analyze(df, rng=5, jobs=1)
    monkeypatch.setattr(executor, "_PARALLEL_MIN_SAMPLES", 0)
    parallel = analyze(df, rng=5, jobs=2)
    assert serial.to_dict() == parallel.to_dict()


def test_progress_callback_counts_series_then_comparisons() -> None:
    calls: list[tuple[int, int]] = []
    analyze(_two_runs(), rng=1, jobs=1, progress=lambda d, t: calls.append((d, t)))
    # four series, then the two run-against-run comparisons
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4), (5, 6), (6, 6)]


def test_summary_frame_and_json() -> None:
    ra = analyze(_two_runs(), rng=1, jobs=1)
    frame = ra.to_frame()
    assert len(frame) == 4 and {"benchmark", "run", "estimate", "ci_low", "ci_high"} <= set(
        frame.columns
    )
    assert len(ra.comparisons_frame()) == 2
    json.dumps(ra.to_dict(), allow_nan=False)


def test_series_input_gives_a_run_analysis_of_that_series() -> None:
    from tsanalyze.analysis.series import analyze_series

    x = simulate_run(["a"], n_rounds=300, rng=1).frame["time_ns"]
    ra = analyze(x, rng=1)
    assert isinstance(ra, RunAnalysis)
    (sa,) = ra.series
    assert isinstance(sa, SeriesAnalysis) and sa.n == 300
    # the series analysed with the seed itself, as analyze_series does
    assert sa.to_dict() == analyze_series(x.to_numpy(), rng=1).to_dict()
    assert ra.seed == 1 and ra.comparisons == () and ra.trials == () and ra.runs == ()
    assert ra.to_frame().equals(sa.to_frame())


def test_public_name() -> None:
    assert tsanalyze.analyze is analyze


def test_bad_input() -> None:
    df = _two_runs()
    with pytest.raises(InvalidRunError, match="time_ns"):
        analyze(df.drop(columns=["time_ns"]))
    with pytest.raises(NotEnoughData):
        analyze(df.iloc[:0])
    with pytest.raises(ValueError, match="baseline"):
        analyze(df, baseline="no-such-run", jobs=1)
    with pytest.raises(ValueError, match="baseline_benchmark"):
        analyze(df, baseline_benchmark="zzz", jobs=1)
    with pytest.raises(ValueError, match="jobs"):
        analyze(df, jobs=0)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        # before: ValueError "could not convert string to float" (a traceback)
        (lambda d: d.assign(time_ns="abc"), "column 'time_ns' is not numeric (dtype"),
        # before: times given as text, timestamps or categories were converted silently
        (lambda d: d.assign(time_ns=d["time_ns"].astype(str)), "column 'time_ns' is not numeric"),
        (lambda d: d.assign(time_ns=pd.to_datetime(d["time_ns"])), "dtype datetime64"),
        (lambda d: d.assign(time_ns=d["time_ns"].astype("category")), "dtype category"),
        (lambda d: d.assign(time_ns=True), "dtype bool"),
        # before: ZeroDivisionError / IndexError deep in the planning
        (lambda d: d.assign(benchmark=np.nan), "column 'benchmark' has a missing value at row 0"),
        (lambda d: d.assign(run=None), "column 'run' has a missing value at row 0"),
        (lambda d: d.assign(sample=np.nan), "column 'sample' has a missing value at row 0"),
    ],
)
def test_frames_of_the_wrong_kind_are_refused_by_column(change: object, needle: str) -> None:
    df = change(_two_runs())  # type: ignore[operator]
    with pytest.raises(InvalidRunError) as err:
        analyze(df, jobs=1)
    assert needle in str(err.value) and str(err.value).startswith("df: ")


def test_sides_sharing_no_benchmark_are_said_to_be_compared_on_nothing() -> None:
    df = _two_runs()
    rid = list(df.attrs["runs"])[1]
    other = df["run"] == rid
    df["benchmark"] = df["benchmark"].astype(str).where(~other, df["benchmark"].astype(str) + "-8")
    sides = dict(zip(df.attrs["runs"], ["old", "new"], strict=True))  # two arguments
    r = analyze(df, jobs=1, sides=sides)
    # each run compares its own alternatives: something was compared, no warning
    assert r.comparisons and all(c.kind == "benchmark" for c in r.comparisons)
    assert not r.warnings
    # one benchmark per run (Go suites are never compared within): nothing at all
    one = df[df["benchmark"].isin(["a", "a-8"])]
    assert not analyze(one, jobs=1).warnings  # no sides given (one directory): no warning
    r = analyze(one, jobs=1, sides=sides)
    assert not r.comparisons
    (w,) = r.warnings
    assert w.code == "nothing-compared" and w.severity == "warning"
    assert "'a'" in w.message and "'a-8'" in w.message
    shared = analyze(_two_runs(), jobs=1, sides=sides).warnings  # sharing benchmarks
    assert [w.code for w in shared] == ["single-run-verdicts"]  # (not about the sides)
    # sharing some: the others are named, as a note
    df["benchmark"] = df["benchmark"].astype(str).where(df["benchmark"] != "a-8", "a")
    (w,) = analyze(df, jobs=1, sides=sides).warnings
    assert (w.code, w.severity) == ("one-side-only", "info")
    assert "2 benchmark(s)" in w.message and "'b' (old)" in w.message and "'b-8' (new)" in w.message


def test_runs_sharing_nothing_are_compared_within() -> None:
    # like data/samples: several runs, each an interleaved pair measured nowhere else
    one = simulate_run(
        {"p1": 1000.0, "p2": 800.0}, n_rounds=400, noise="gaussian", scale=0.01, rng=1
    )
    two = simulate_run(
        {"q1": 500.0, "q2": 500.0}, n_rounds=400, noise="gaussian", scale=0.01, rng=2
    )
    df = pd.concat([one.frame, two.frame], ignore_index=True)
    df.attrs["runs"] = {**one.frame.attrs["runs"], **two.frame.attrs["runs"]}
    ra = analyze(df, rng=1, jobs=1)
    rows = {c.benchmark: c for c in ra.comparisons}
    assert set(rows) == {"p2", "q2"}
    assert rows["p2"].baseline_benchmark == "p1" and rows["q2"].baseline_benchmark == "q1"
    assert all(c.kind == "benchmark" and c.paired for c in rows.values())
    assert rows["p2"].verdict == "faster"
    assert ra.baseline_run is None  # no run-against-run comparison was made


def test_trials_summarised_with_two_level_bootstrap() -> None:
    from tsanalyze.analysis.trials import estimate_trials

    # three runs of one benchmark; the third process is 3% slower (a between-run effect)
    sims = [
        simulate_run({"t": t0}, n_rounds=600, noise="gaussian", scale=0.01, rng=10 + i)
        for i, t0 in enumerate((1000.0, 1000.0, 1030.0))
    ]
    df = pd.concat([s.frame for s in sims], ignore_index=True)
    df.attrs["runs"] = {k: v for s in sims for k, v in s.frame.attrs["runs"].items()}
    ra = analyze(df, rng=1, jobs=1)
    (t,) = ra.trials
    assert t.benchmark == "t" and t.n_trials == 3 and t.runs == tuple(df.attrs["runs"])
    # reference: estimate_trials itself on the stable segments, with the same seed path
    ref = estimate_trials({s.run: s.segment for s in ra.series}, "median")
    assert t.estimate == pytest.approx(ref.estimate)
    assert t.disagree and "trials-disagree" in t.warning_codes
    assert t.consistent == (len(set(t.classifications)) == 1)
    # two runs are a comparison, not a trials summary
    two = pd.concat([s.frame for s in sims[:2]], ignore_index=True)
    two.attrs["runs"] = {k: v for s in sims[:2] for k, v in s.frame.attrs["runs"].items()}
    ra2 = analyze(two, rng=1, jobs=1)
    assert ra2.trials == ()


@pytest.mark.parametrize("n_rounds", [1, 2, 3])
def test_tiny_run_sets_give_results_with_warnings(n_rounds: int) -> None:
    sim = simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=n_rounds, rng=1)
    ra = analyze(sim.frame, rng=1, jobs=1)
    assert [s.n for s in ra.series] == [n_rounds, n_rounds]
    assert all(s.warnings for s in ra.series)
    (c,) = ra.comparisons
    assert c.warnings  # says the comparison rests on too few samples
    json.dumps(ra.to_dict(), allow_nan=False)


def test_constant_series_in_a_run_set() -> None:
    sim = simulate_run({"a": 1000.0, "b": 1100.0}, n_rounds=200, rng=1)
    df = sim.frame.copy()
    df.loc[df["benchmark"] == "a", "time_ns"] = 1000.0
    ra = analyze(df, rng=1, jobs=1)
    a = next(s for s in ra.series if s.benchmark == "a")
    assert a.estimate == 1000.0 and a.sd == 0.0


def test_verdicts_use_holm_adjusted_pvalues() -> None:
    import dataclasses

    from statsmodels.stats.multitest import multipletests

    from tsanalyze.analysis.compare import compare

    base = compare(
        np.full(50, 100.0) + np.arange(50) % 7, np.full(50, 103.0) + np.arange(50) % 7, rng=1
    )
    # three comparisons whose CIs lie wholly above +1% and whose raw p-values are < 0.05:
    # each alone would be "slower", but not after Holm over the family of three
    raw = [0.02, 0.03, 0.04]
    compared = [dataclasses.replace(base, pvalue=p, ci_low=1.02, ci_high=1.04) for p in raw]
    jobs = [
        plan.CompareJob(
            1,
            "benchmark",
            f"b{i}",
            "a",
            "r",
            "r",
            pd.DataFrame(),
            pd.DataFrame(),
            "median",
            0.95,
            0,
        )
        for i in range(3)
    ]
    rows = family_verdicts(jobs, compared)
    # statsmodels' Holm as the reference
    expected = multipletests(raw, method="holm")[1]
    np.testing.assert_allclose([r.pvalue_adjusted for r in rows], expected)
    assert all(r.verdict == "inconclusive" for r in rows)
    # the same p-values in three separate families keep their "slower" verdicts
    alone = [dataclasses.replace(j, family=i) for i, j in enumerate(jobs)]
    assert [r.verdict for r in family_verdicts(alone, compared)] == ["slower"] * 3


def test_sequential_and_imported_runs_are_compared_unpaired(tmp_path: object) -> None:
    # hyperfine runs its commands one after another: their "round" is only the sample
    # index, so pairing them by round would claim an interleaving that never happened
    from pathlib import Path

    fixture = Path(__file__).resolve().parents[1] / "data" / "importers" / "handmade"
    ra = analyze(tsanalyze.read_runs(fixture / "hyperfine.json"), rng=1, jobs=1)
    assert len(ra.comparisons) == 1
    assert ra.comparisons[0].kind == "benchmark" and not ra.comparisons[0].paired
    # the same simulated run, recorded interleaved or one benchmark after another
    for inter in (True, False):
        sim = simulate_run(
            {"a": 1000.0, "b": 1100.0}, n_rounds=200, noise="gaussian", scale=0.01,
            interleave=inter, rng=3,
        )  # fmt: skip
        res = analyze(sim.frame, rng=1, jobs=1)
        assert res.comparisons[0].paired is inter
    # no metadata: a position that varies within the run says interleaved
    frame = pd.DataFrame({"run": ["r"] * 4, "position": [0, 1, 1, 0]})
    assert plan.interleaved(frame, "r", None)
    assert not plan.interleaved(frame.assign(position=0), "r", None)
    assert not plan.interleaved(frame, "r", {"collector": {"evals_method": "imported"}})


def test_results_do_not_depend_on_jobs_to_the_last_bit_on_long_series() -> None:
    """Long autocorrelated series (40 000 rounds): the serial path limits BLAS to one
    thread as the workers do; with multi-threaded OpenBLAS in the serial path the
    documents differed in the last bits of the autocorrelations."""
    df = simulate_run({"a": 1000.0, "b": 1100.0, "c": 900.0}, n_rounds=40_000, phi=0.7, rng=3)
    serial = analyze(df.frame, jobs=1, rng=1)
    parallel = analyze(df.frame, jobs=2, rng=1)
    assert serial.to_dict() == parallel.to_dict()


def test_verdicts_of_one_run_against_another_are_said_to_rest_on_single_runs() -> None:
    # two runs, b 5% slower in the second: the comparison of b says slower, and each
    # comparison of one run against another says its interval is the noise within the
    # runs (single-runs); the run set says once that a verdict rests on single runs
    r = analyze(_two_runs(), jobs=1)
    assert {c.verdict for c in r.comparisons} == {"same", "slower"}
    for c in r.comparisons:
        assert "single-runs" in [w.code for w in c.warnings]
    (w,) = [w for w in r.warnings if w.code == "single-run-verdicts"]
    assert w.severity == "warning" and "1 of 2 comparisons" in w.message and "(b)" in w.message
    # no verdict, no warning
    same = analyze(_two_runs(shift=0.0), jobs=1)
    assert not [w for w in same.warnings if w.code == "single-run-verdicts"]


def test_single_runs_is_said_of_separate_runs_only() -> None:
    rng = np.random.default_rng(3)
    a, b = 1000 + rng.standard_normal(400), 1000 + rng.standard_normal(400)
    assert "single-runs" in [w.code for w in tsanalyze.compare(a, b).warnings]
    # paired by round (one interleaved run): both benchmarks share the run's conditions
    run = simulate_run({"a": 1000.0, "b": 1010.0}, n_rounds=300, rng=4).frame
    ca = run[run.benchmark == "a"].set_index("round")["time_ns"]
    cb = run[run.benchmark == "b"].set_index("round")["time_ns"]
    paired = tsanalyze.compare(ca, cb)
    assert paired.paired and "single-runs" not in [w.code for w in paired.warnings]
    # several runs a side: run level (the runs' spread is in the interval)
    def runs(*seeds: int) -> pd.DataFrame:
        frames = [simulate_run({"a": 1000.0}, n_rounds=200, rng=s).frame for s in seeds]
        return pd.concat(frames, ignore_index=True)

    multi = tsanalyze.compare(runs(5, 6), runs(7, 8))
    assert multi.test.startswith("run") and "single-runs" not in [w.code for w in multi.warnings]
