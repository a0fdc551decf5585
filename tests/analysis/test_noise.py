"""Noise floor from a reference benchmark; timer checks on run DataFrames."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import tsanalyze
from tsanalyze.datasets import simulate_run


def _frame(parts: dict[tuple[str, str], np.ndarray], timer: dict | None = None) -> pd.DataFrame:
    """A minimal run-format frame (``run``, ``benchmark``, ``sample``, ``evals``, ``ns``)."""
    frames = []
    for (run, bench), ns in parts.items():
        frames.append(
            pd.DataFrame(
                {"benchmark": bench, "run": run, "sample": np.arange(ns.size), "evals": 1, "ns": ns}
            )
        )
    df = pd.concat(frames, ignore_index=True)
    df.attrs["runs"] = {r: {"timer": timer or {}} for r, _ in parts}
    return df


def test_noise_floor_recovers_the_environmental_share_monte_carlo() -> None:
    # Monte-Carlo: environmental noise with variance growing linearly in sample duration
    # (seed 003, Fig. 2), v = 0.01 ns^2 per ns. Reference: 1e4 ns samples (sd 10 ns);
    # benchmark: 1e5 ns samples with env sd sqrt(1e3) = 31.6 ns plus its own sd 31.6 ns,
    # so the floor explains sqrt(1e3) / sqrt(2e3) = 70.7% of its sd.
    rng = np.random.default_rng(17)
    n, v = 4000, 0.01
    ref = 1e4 + rng.normal(0.0, math.sqrt(v * 1e4), n)
    bench = 1e5 + rng.normal(0.0, math.sqrt(v * 1e5), n) + rng.normal(0.0, math.sqrt(1e3), n)
    quiet = 1e5 + rng.normal(0.0, math.sqrt(v * 1e5), n)  # only environmental noise
    noisy = 1e5 + rng.normal(0.0, 3000.0, n)  # its own variation dwarfs the floor
    df = _frame({("r1", "lfsr"): ref, ("r1", "bench"): bench, ("r1", "quiet"): quiet,
                 ("r1", "noisy"): noisy})  # fmt: skip
    nf = tsanalyze.noise_floor(df, "lfsr")
    t = nf.table.set_index("benchmark")
    assert t.loc["bench", "fraction"] == pytest.approx(1 / math.sqrt(2), abs=0.04)
    assert t.loc["quiet", "fraction"] == pytest.approx(1.0, abs=0.05)
    assert t.loc["noisy", "fraction"] == pytest.approx(math.sqrt(1e3) / 3000.0, rel=0.1)
    assert "lfsr" not in t.index
    # Boyer's 1% threshold: every one of them is "affected"; the severity tells apart
    sev = {w.message.split(":")[0]: w.severity for w in nf.warnings}
    assert sev == {"bench": "warning", "quiet": "warning", "noisy": "info"}
    # each sd quoted in the unit that reads best: noisy's ~3000 ns is ~3 µs
    said = {w.message.split(":")[0]: w.message for w in nf.warnings}
    sd_noisy = float(np.std(noisy, ddof=1))
    assert f"of the sd ({float(f'{sd_noisy / 1000:.4g}'):g} µs)" in said["noisy"]
    # no duration scaling: the raw reference sd (10 ns) against each sd
    flat = tsanalyze.noise_floor(df, "lfsr", scaling="none").table.set_index("benchmark")
    assert flat.loc["bench", "floor_sd_ns"] == pytest.approx(ref.std(ddof=1))


def test_noise_floor_on_a_simulated_run_and_runs_without_reference() -> None:
    a = simulate_run({"lfsr": 1000.0, "work": 10_000.0}, n_rounds=300, rng=3).frame
    b = simulate_run({"work": 10_000.0}, n_rounds=300, rng=4).frame
    df = pd.concat([a, b], ignore_index=True)
    df.attrs["runs"] = {**a.attrs["runs"], **b.attrs["runs"]}
    nf = tsanalyze.noise_floor(df, "lfsr")
    assert len(nf.table) == 1  # only the run that has the reference
    assert "no-reference" in nf.warning_codes
    assert 0.0 <= nf.table["fraction"].iloc[0] <= 1.0
    assert nf.to_frame().columns.tolist()[:2] == ["run", "benchmark"]


def test_noise_floor_edges() -> None:
    df = _frame(
        {("r", "lfsr"): np.array([10.0, 10.0, 10.0]), ("r", "b"): np.array([5.0, 5.0, 5.0])}
    )
    t = tsanalyze.noise_floor(df, "lfsr").table
    assert t["fraction"].iloc[0] == 0.0  # both constant: nothing to explain, no floor
    one = _frame({("r", "lfsr"): np.array([10.0]), ("r", "b"): np.array([5.0, 6.0])})
    assert math.isnan(tsanalyze.noise_floor(one, "lfsr").table["fraction"].iloc[0])
    with pytest.raises(ValueError, match="reference"):
        tsanalyze.noise_floor(df, "nope")
    with pytest.raises(ValueError, match="threshold"):
        tsanalyze.noise_floor(df, "lfsr", threshold=0.0)
    with pytest.raises(ValueError, match="scaling"):
        tsanalyze.noise_floor(df, "lfsr", scaling="log")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="df"):
        tsanalyze.noise_floor(pd.DataFrame({"x": [1.0]}), "lfsr")
    with pytest.raises(ValueError, match="df"):
        tsanalyze.noise_floor([1, 2, 3], "lfsr")  # type: ignore[arg-type]


def test_timer_checks_per_series_on_a_simulated_run() -> None:
    # a 20 ns benchmark timed with a 25 ns clock-read pair (seed 004's situation) and a
    # 100 µs one; the simulator records overhead 25 ns, precision and accuracy 1 ns
    run = simulate_run({"tiny": 20.0, "big": 100_000.0}, n_rounds=200, scale=0.01, rng=8)
    tc = tsanalyze.timer_checks_per_series(run.frame)
    t = tc.table.set_index("benchmark")
    assert t.loc["tiny", "overhead_share"] > 0.4
    assert t.loc["tiny", "n_dominated"] > 100
    assert t.loc["tiny", "n_precision"] == 200
    assert "timer-dominated" in t.loc["tiny", "warnings"]
    assert t.loc["big", "n_overhead"] == 0 and t.loc["big", "n_dominated"] == 0
    assert t.loc["big", "warnings"] == ""
    assert any(w.message.startswith("tiny: ") and w.severity == "serious" for w in tc.warnings)


def test_timer_checks_without_metadata_and_time_ns_raw_only() -> None:
    df = _frame({("r", "q"): np.round(np.random.default_rng(1).normal(100.0, 1.0, 100))})
    df.attrs = {}
    tc = tsanalyze.timer_checks_per_series(df)
    row = tc.table.iloc[0]
    assert row["overhead_share"] is None or (
        isinstance(row["overhead_share"], float) and math.isnan(row["overhead_share"])
    )
    assert bool(row["quantised"])  # ~7 distinct values on a 1 ns grid
    raw = df.drop(columns=["ns"]).assign(time_ns_raw=df["ns"])
    assert tsanalyze.timer_checks_per_series(raw).table["n_distinct"].iloc[0] == row["n_distinct"]
    with pytest.raises(ValueError, match="ns"):
        tsanalyze.timer_checks_per_series(df.drop(columns=["ns"]))


def test_old_name_timer_checks_still_works_with_a_deprecation_warning() -> None:
    from tsanalyze.analysis import noise

    with pytest.warns(DeprecationWarning, match="use tsanalyze.timer_checks_per_series"):
        assert tsanalyze.timer_checks is noise.timer_checks_per_series
    with pytest.warns(DeprecationWarning, match="use TimerChecksPerSeries"):
        assert noise.TimerChecks is noise.TimerChecksPerSeries
    with pytest.raises(AttributeError):
        noise.no_such_name  # noqa: B018
