"""tsanalyze.history on simulated histories with known changes (issue 25).

The simulator (:mod:`tsanalyze.analysis.history.simulate`) draws the two-level noise the
method models (AR(1) wander between commits, white run-to-run noise, within-run samples);
the checks are against the known truth: the step's commit in the reported set and its
ratio in the interval, spikes not changes, the false-alarm rate of stationary series at
most its stated level (Monte Carlo).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _helpers import history_to_asv
from typer.testing import CliRunner

import tsanalyze
from tsanalyze.analysis.history.noise import fit_noise, fit_noise_whittle, simulate_noise
from tsanalyze.analysis.history.scan import scan, tail_pvalue
from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history
from tsanalyze.cli.app import app
from tsanalyze.errors import InvalidArgumentError


def _h(i: int) -> str:
    return f"{i:040x}"


def test_clear_step_found_with_commit_set_and_ratio_ci() -> None:
    rng = np.random.default_rng(3)
    df = simulate_history(150, ["a", "b"], changes=[SimulatedChange("a", 70, 1.08)], rng=rng)
    h = tsanalyze.history(df, seed=1)
    rows = h.changes[h.changes["benchmark"] == "a"]
    assert len(rows) == 1
    c = rows.iloc[0]
    assert _h(70) in c["commits"] and len(c["commits"]) <= 15
    assert c["ci_low"] <= 1.08 <= c["ci_high"]
    assert c["direction"] == "regression" and c["recovered_at"] is None
    assert (h.changes["benchmark"] == "b").sum() == 0
    doc = h.to_dict()
    assert doc["format"] == "tsanalyze-history"
    assert set(doc["changes"][0]) >= {"benchmark", "commit", "commits", "ratio", "ci_low",
                                      "ci_high", "direction"}  # fmt: skip


def test_spike_is_an_outlier_not_a_change_and_recovery_is_reported() -> None:
    rng = np.random.default_rng(4)
    df = simulate_history(
        150, ["spiky", "bump"], changes=[SimulatedChange("bump", 40, 1.25, until=90)],
        spikes=[("spiky", 75, 1.5)], rng=rng,
    )  # fmt: skip
    h = tsanalyze.history(df, seed=2)
    assert (h.changes["benchmark"] == "spiky").sum() == 0
    assert _h(75) in set(h.outliers["commit"])
    bump = h.changes[h.changes["benchmark"] == "bump"]
    reg = bump[bump["direction"] == "regression"].iloc[0]
    assert _h(40) in reg["commits"]
    assert reg["recovered_at"] is not None and int(reg["recovered_at"], 16) in range(85, 96)


def test_regression_that_recovered_is_found_with_its_recovery() -> None:
    # a x1.08 regression lasting 40 of 150 commits (4 times the ~2% noise): with one of
    # its two steps taken out before the refit the other inflated the fitted wander and
    # no benchmark reported anything (0 of 6 on this seed); both steps are taken out now
    rng = np.random.default_rng(12)
    names = [f"r{i}" for i in range(6)]
    df = simulate_history(150, [*names, "s0", "s1", "s2", "s3", "s4", "s5"],
                          changes=[SimulatedChange(b, 50, 1.08, until=90) for b in names],
                          rng=rng)  # fmt: skip
    h = tsanalyze.history(df, seed=4)
    found = 0
    for b in names:
        rows = h.changes[(h.changes["benchmark"] == b) & (h.changes["direction"] == "regression")]
        found += any(
            _h(50) in r["commits"] and len(r["commits"]) <= 15 and r["recovered_at"] is not None
            and int(r["recovered_at"], 16) in range(85, 96)
            for _, r in rows.iterrows()
        )  # fmt: skip
    assert found >= 5, found
    assert not h.changes["benchmark"].str.startswith("s").any()


@pytest.mark.slow
def test_drift_is_reported_as_a_drift_and_steps_stay_steps() -> None:
    # a x1.12 drift over 40 commits: before, it was reported as one step (a set of 1-4
    # commits) or as several steps, never as a drift (0 of 6: same-direction steps were
    # merged only where one straight line fitted the whole history, flat ends
    # included). Now a ramp (flat, line, flat) is tried for merged steps, and a single
    # step is tested against a ramp: 5 of 6 are drifts spanning the ramp. A step is
    # taken for a drift in about 1% of cases (DRIFT_LEVEL); none of these four
    rng = np.random.default_rng(31)
    drifts = [f"d{i}" for i in range(6)]
    steps = [f"s{i}" for i in range(4)]
    df = simulate_history(
        150, [*drifts, *steps], sd_wander=0.01, sd_run=0.01,
        changes=[SimulatedChange(b, 50, 1.12, length=40) for b in drifts]
        + [SimulatedChange(b, 70, 1.08) for b in steps], rng=rng,
    )  # fmt: skip
    h = tsanalyze.history(df, seed=5)
    as_drift = 0
    for b in drifts:
        rows = h.changes[(h.changes["benchmark"] == b) & (h.changes["kind"] == "drift")]
        as_drift += any(
            len(set(r["commits"]) & {_h(i) for i in range(50, 91)}) >= 8 for _, r in rows.iterrows()
        )
    assert as_drift >= 4, as_drift  # 5 of 6 measured (the sixth: three steps)
    # a drift's commits are those over which the fitted ramp moves the level: inside the
    # true ramp (50-90) give or take 15 (merged steps' drifts spanned their first and last
    # step's whole sets before: 90 commits in one case)
    d0, s0, r0 = "s.time_d0", "s.time_s0", "s.time_r0"  # 59-148 (90 commits) before
    df = simulate_history(
        150, [d0, s0, r0], sd_wander=0.01, sd_run=0.01,
        changes=[SimulatedChange(d0, 50, 1.12, length=40), SimulatedChange(s0, 70, 1.08),
                 SimulatedChange(r0, 40, 1.1, until=90)],
        rng=np.random.default_rng(31),
    )  # fmt: skip
    for hist in (h, tsanalyze.history(df, seed=0)):
        for _, r in hist.changes[hist.changes["kind"] == "drift"].iterrows():
            at = [int(c, 16) for c in r["commits"]]
            assert 35 <= min(at) and max(at) <= 105, (r["benchmark"], min(at), max(at))
    st = h.changes[h.changes["benchmark"].isin(steps)]
    assert (st["kind"] == "step").all() and set(st["commit"]) == {_h(70)}


def test_shared_step_is_an_environment_shift() -> None:
    rng = np.random.default_rng(5)
    names = [f"b{i}" for i in range(6)]
    df = simulate_history(120, names, changes=[SimulatedChange(b, 60, 0.85) for b in names],
                          spikes=[(b, 30, 1.4) for b in names] + [("b0", 90, 1.4)],
                          rng=rng)  # fmt: skip
    h = tsanalyze.history(df, seed=3)
    env = h.outliers[h.outliers["environment"]]
    assert set(env["commit"]) == {_h(30)} and len(env) >= 5
    assert _h(90) in set(h.outliers.loc[~h.outliers["environment"], "commit"])
    assert "environment-outliers" in h.warning_codes
    assert len(h.changes) >= 5
    assert h.changes["environment_shift"].all()
    assert "environment-shift" in h.warning_codes


@pytest.mark.slow
def test_false_alarm_rate_of_stationary_series_is_at_most_stated() -> None:
    # 60 stationary series analysed one at a time at fdr 0.05: the per-series false-alarm
    # rate is the level; 60 series give a one-sided binomial bound of 8 alarms at 5%.
    rng = np.random.default_rng(6)
    alarms = 0
    for _ in range(60):
        df = simulate_history(100, ["x"], rng=rng)
        alarms += len(tsanalyze.history(df, seed=rng).changes) > 0
    assert alarms <= 7


def test_noise_fit_recovers_simulated_parameters() -> None:
    # the robust variogram fit on long simulated series is close to the truth
    from tsanalyze.analysis.history.noise import NoiseModel

    n = 4000
    true = NoiseModel(0.02, 0.7, 0.01, np.full(n, 0.01**2), 20)
    x = simulate_noise(true, 1, np.random.default_rng(7))[0]
    fit = fit_noise(x, np.ones(n), np.zeros(n))
    assert fit.sd_wander == pytest.approx(0.02, rel=0.2)
    assert fit.phi == pytest.approx(0.7, abs=0.1)
    assert fit.sd_run == pytest.approx(0.01, rel=0.35)


def test_whittle_fit_recovers_parameters_and_its_bound_less_than_the_variogram() -> None:
    # long series: the Whittle fit is close to the truth; 150-commit series (the
    # accuracy harness's length): its phi is at 0.9 or above far less often than the
    # variogram fit's (whose bound is 0.9), and its median is near the truth
    from tsanalyze.analysis.history.noise import NoiseModel

    rng = np.random.default_rng(21)
    n = 4000
    true = NoiseModel(0.02, 0.7, 0.01, np.full(n, 0.01**2), 0)
    fit = fit_noise_whittle(simulate_noise(true, 1, rng)[0], np.ones(n), np.zeros(n))
    assert fit.sd_wander == pytest.approx(0.02, rel=0.15)
    assert fit.phi == pytest.approx(0.7, abs=0.05)
    assert fit.sd_run == pytest.approx(0.01, rel=0.25)
    n = 150
    w = 0.03**2 * np.pi / 20  # the sampling variance of a 10-sample median
    short = NoiseModel(0.015, 0.7, 0.013, np.full(n, 0.013**2 + w), 0)
    rows = simulate_noise(short, 200, rng)
    ones, wv = np.ones(n), np.full(n, w)
    phi_w = np.array([fit_noise_whittle(r, ones, wv).phi for r in rows])
    phi_v = np.array([fit_noise(r, ones, wv).phi for r in rows])
    assert np.mean(phi_w >= 0.9) < 0.15 < np.mean(phi_v >= 0.9)
    assert abs(float(np.median(phi_w)) - 0.7) < 0.1


def test_median3_removes_one_commit_excursions_and_keeps_steps() -> None:
    from scipy.ndimage import median_filter

    from tsanalyze.analysis.history.scan import median3

    rng = np.random.default_rng(23)
    x = rng.standard_normal((4, 60))
    # scipy's running median (ends: the nearest value repeated) as the reference
    assert np.allclose(median3(x), median_filter(x, size=(1, 3), mode="nearest"))
    step = np.where(np.arange(40) >= 20, 1.0, 0.0)
    spiked = step.copy()
    spiked[[5, 30]] += [0.4, -0.9]  # one-commit regime excursions
    assert np.array_equal(median3(spiked), step)


def test_whittle_loglik_matches_its_definition_and_the_gate_is_the_nulls() -> None:
    # the maximised Whittle log-likelihood, -sum(log f_j + I_j / f_j) over the Fourier
    # frequencies 0 < w_j < pi at the fitted (phi, wander, white), recomputed here with a
    # direct DFT, and row by row
    from tsanalyze.analysis.history.detect import SeriesDetector
    from tsanalyze.analysis.history.noise import NoiseModel, whittle_loglik, whittle_logliks
    from tsanalyze.analysis.history.scan import despike

    rng = np.random.default_rng(24)
    n = 150
    true = NoiseModel(0.015, 0.7, 0.013, np.full(n, 0.013**2), 0)
    x = simulate_noise(true, 1, rng)[0]
    fit = fit_noise_whittle(x, np.ones(n), np.zeros(n))
    m = (n - 1) // 2
    w = 2 * np.pi * np.arange(1, m + 1) / n
    t = np.arange(n)
    dft = np.exp(-1j * np.outer(w, t)) @ (x - x.mean())
    per = np.abs(dft) ** 2 / n
    c = float(fit.white_var[0])
    f = fit.sd_wander**2 * (1 - fit.phi**2) / np.abs(1 - fit.phi * np.exp(1j * w)) ** 2 + c
    assert whittle_loglik(x) == pytest.approx(float(-np.sum(np.log(f) + per / f)), rel=1e-9)
    assert np.allclose(whittle_logliks(np.stack([x, x[::-1] * 2.0])),
                       [whittle_loglik(x), whittle_loglik(x[::-1] * 2.0)], rtol=1e-12)  # fmt: skip
    # the gate: removing a x1.08 step raises it by more than removing the best split
    # does on 95% of the null series; removing the best split of a stationary series
    # passes the same gate about 5% of the time (a calibrated gate: the null's own)
    step = x + np.log(1.08) * (t >= 70)
    det = SeriesDetector(step, np.ones(n), np.zeros(n), rng, n_null=200, n_refit=2,
                         whittle=False)  # fmt: skip
    gate = float(np.quantile(det.null_step_gains(100), 0.95))
    assert whittle_loglik(despike(det.without_steps([70]))) - whittle_loglik(despike(step)) > gate
    passed = 0
    for row in simulate_noise(true, 60, rng):
        det = SeriesDetector(row, np.ones(n), np.zeros(n), rng, n_null=200, n_refit=2,
                             whittle=False)  # fmt: skip
        best = det.test(0, n)[1]
        gain = whittle_loglik(despike(det.without_steps([best]))) - whittle_loglik(despike(row))
        passed += gain > float(np.quantile(det.null_step_gains(100), 0.95))
    assert passed <= 9, passed  # binomial(60, 0.05): P(>= 10) = 0.003


def test_forward_splits_are_least_squares_forward_selection() -> None:
    # each step chosen is the one whose addition lowers the residual sum of squares of
    # the whitened series most (least squares on the whitened level and the steps
    # chosen so far, numpy's lstsq), at least MIN_SEG commits from the others
    from tsanalyze.analysis.history.detect import MIN_SEG, SeriesDetector
    from tsanalyze.analysis.history.noise import NoiseModel
    from tsanalyze.analysis.history.scan import despike

    n, k = 60, 3
    rng = np.random.default_rng(41)
    true = NoiseModel(0.015, 0.7, 0.013, np.full(n, 0.013**2), 0)
    x = simulate_noise(true, 1, rng)[0] + 0.05 * (np.arange(n) >= 20) - 0.04 * (np.arange(n) >= 41)
    det = SeriesDetector(x, np.ones(n), np.zeros(n), rng, n_null=50, n_refit=2, whittle=False)
    rows = det.null[:8]
    got = det.forward_splits(rows, k)
    g = det.gls(0, n)
    level = g.whiten(np.ones((1, n)))[0]
    steps = g.whiten((np.arange(n)[None, :] >= np.arange(1, n)[:, None]).astype(float))
    for row, mine in zip(g.whiten(despike(rows)), got, strict=True):
        chosen: list[int] = []
        for _ in range(k):
            best, where = np.inf, -1
            for t in range(MIN_SEG, n - MIN_SEG + 1):
                if any(abs(t - c) < MIN_SEG for c in chosen):
                    continue
                a = np.column_stack([level, *(steps[c - 1] for c in [*chosen, t])])
                rss = float(np.sum((row - a @ np.linalg.lstsq(a, row, rcond=None)[0]) ** 2))
                if rss < best - 1e-12:
                    best, where = rss, t
            chosen.append(where)
        assert list(mine) == chosen


@pytest.mark.slow
def test_the_gate_of_two_steps_is_the_nulls_too() -> None:
    # taking two steps out (a regression that recovered) is gated against the null
    # series' own two best splits (forward selection): a stationary series passes the
    # gate of two splits about 5% of the time, a x1.08 bump of 40 commits nearly always
    from tsanalyze.analysis.history.detect import SeriesDetector
    from tsanalyze.analysis.history.noise import NoiseModel, whittle_loglik
    from tsanalyze.analysis.history.scan import despike

    n = 150
    rng = np.random.default_rng(21)
    true = NoiseModel(0.015, 0.7, 0.013, np.full(n, 0.013**2), 0)
    passed = bumps = 0
    for i, row in enumerate(simulate_noise(true, 80, rng)):
        bump = i % 2 == 1
        x = row + np.log(1.08) * ((np.arange(n) >= 50) & (np.arange(n) < 90)) if bump else row
        det = SeriesDetector(x, np.ones(n), np.zeros(n), rng, n_null=200, n_refit=2,
                             whittle=False)  # fmt: skip
        two = sorted(det.forward_splits(x[None, :], 2)[0])
        gain = whittle_loglik(despike(det.without_steps(two))) - whittle_loglik(despike(x))
        ok = gain > float(np.quantile(det.null_step_gains(100, 2), 0.95))
        passed += ok and not bump
        bumps += ok and bump
    assert passed <= 5, passed  # binomial(40, 0.05): P(>= 6) = 0.05
    assert bumps >= 30, bumps


def test_block_resample_keeps_values_and_dependence() -> None:
    from scipy import signal

    from tsanalyze.analysis.history.detect import block_resample

    rng = np.random.default_rng(22)
    resid = signal.lfilter([1.0], [1.0, -0.8], rng.standard_normal(400))
    out = block_resample(resid, 50, rng)
    assert out.shape == (50, 400)
    centred = resid - np.median(resid)
    assert np.isin(out, centred).all()
    lag1 = np.mean([np.corrcoef(r[1:], r[:-1])[0, 1] for r in out])
    assert lag1 > 0.5  # blocks of mean length 400^(1/3) ~ 7.4 keep most of 0.8


@pytest.mark.slow
def test_set_coverage_under_regime_switching() -> None:
    # Monte Carlo: a runner switching between speed regimes (+20%, +40% at 12% and 8% of
    # the commits) with a x1.10 step at a random commit; of the steps detected at 5%, the
    # 95% set holds the true commit in 0.92-0.95 here (seeds 3, 4; 0.82-0.83 with the
    # model's Gaussian noise in the bootstrap instead of the resampled residuals)
    from tsanalyze.analysis.history.detect import SeriesDetector

    rng = np.random.default_rng(3)
    hit = tot = 0
    for _ in range(100):
        n = 200
        regime = rng.choice([0.0, 0.2, 0.4], n, p=[0.8, 0.12, 0.08])
        at = int(rng.integers(40, 160))
        x = regime + 0.02 * rng.standard_normal(n) + np.log(1.10) * (np.arange(n) >= at)
        det = SeriesDetector(x, np.ones(n), np.full(n, 1e-4), rng, n_null=200, n_refit=5)
        assert det.wild
        p, t = det.test(0, n)
        if p <= 0.05:
            tot += 1
            hit += at in det.locate(0, t, n).candidates
    assert tot >= 90
    assert hit / tot >= 0.88, (hit, tot)


def test_scan_pvalue_uniform_under_its_own_null() -> None:
    rng = np.random.default_rng(8)
    s = np.full(60, 1.0)
    null = scan(rng.standard_normal((2000, 60)), s, min_seg=2).statistic
    obs = scan(rng.standard_normal((300, 60)), s, min_seg=2).statistic
    p = np.array([tail_pvalue(float(o), null) for o in obs])
    assert abs(np.mean(p <= 0.1) - 0.1) < 0.05
    # the generalized Pareto tail is monotone and below the plain estimate's floor
    assert tail_pvalue(float(null.max()) * 2, null) < 1 / 2001


def test_since_last_and_widened_sets() -> None:
    rng = np.random.default_rng(9)
    df = simulate_history(100, ["a"], changes=[SimulatedChange("a", 70, 1.15)], rng=rng)
    h = tsanalyze.history(df, last=50, seed=0)
    assert h.series["commits"].iloc[0] == 50
    assert _h(70) in h.changes.iloc[0]["commits"]
    # every second commit benchmarked: a set widened by the unbenchmarked ones
    keep = {r for r, m in df.attrs["runs"].items() if int(m["commit"], 16) % 2 == 0}
    sub = df[df["run"].isin(keep)].copy()
    sub.attrs["runs"] = {r: m for r, m in df.attrs["runs"].items() if r in keep}
    full = [_h(i) for i in range(100)]
    c = tsanalyze.history(sub, commits=full, seed=0).changes.iloc[0]
    assert _h(69) in c["commits"] and _h(70) in c["commits"]
    with pytest.raises(InvalidArgumentError, match="--since"):
        tsanalyze.history(df, since="zzz")
    with pytest.raises(InvalidArgumentError, match="fdr"):
        tsanalyze.history(df, fdr=2.0)


def test_window_leaves_out_series_without_commits_in_it() -> None:
    # a benchmark removed before the window (django-asv: `--last 200` crashed on one)
    # is not a series of that window; one with a commit or two in it is a short series
    rng = np.random.default_rng(19)
    df = simulate_history(100, ["a", "gone", "few"], changes=[SimulatedChange("a", 85, 1.15)],
                          rng=rng)  # fmt: skip
    runs = df.attrs["runs"]
    at = df["run"].map(lambda r: int(runs[r]["commit"], 16))
    df = df[~((df["benchmark"] == "gone") & (at >= 60)) & ~((df["benchmark"] == "few") & (at >= 72))]
    df.attrs["runs"] = runs
    h = tsanalyze.history(df, last=30, seed=0)
    assert set(h.series["benchmark"]) == {"a", "few"}
    assert h.series.set_index("benchmark").loc["few", "commits"] == 2
    assert list(h.changes["benchmark"]) == ["a"] and _h(85) in h.changes.iloc[0]["commits"]
    assert not (h.levels["benchmark"] == "gone").any()


def test_commit_list_that_does_not_fit_the_history(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # --commits is what widens the sets: a list of another repository (or of abbreviated
    # hashes) matched nothing and was silently ignored, and a list newest first (git
    # rev-list without --reverse) emptied the sets of their commits, both with exit 0
    rng = np.random.default_rng(23)
    df = simulate_history(60, ["a"], changes=[SimulatedChange("a", 30, 1.2)], rng=rng)
    full = [_h(i) for i in range(60)]
    with pytest.raises(InvalidArgumentError, match="--commits: none of the 60 benchmarked"):
        tsanalyze.history(df, commits=[c[:10] for c in full], seed=0)
    with pytest.raises(InvalidArgumentError, match="newest first"):
        tsanalyze.history(df, commits=full[::-1], seed=0)
    # a list missing some benchmarked commits (another branch's): said, and every set
    # still holds its own commit
    h = tsanalyze.history(df, commits=full[:20] + full[40:], seed=0)
    assert any(f.code == "commits-missing" and "20 of the 60" in f.message for f in h.warnings)
    assert _h(30) in h.changes.iloc[0]["commits"]
    # two commits swapped (a rebase's commit times): said, and the sets keep their commits
    swapped = [*full[:29], full[30], full[29], *full[31:]]
    h = tsanalyze.history(df, commits=swapped, seed=0)
    assert any(f.code == "commits-order" for f in h.warnings)
    assert all(len(c) >= 1 for c in h.changes["commits"])
    assert _h(30) in h.changes.iloc[0]["commits"]
    path = history_to_asv(df, tmp_path / "results")
    lst = tmp_path / "revs.txt"
    lst.write_text("\n".join(full[::-1]) + "\n")
    r = CliRunner().invoke(app, ["history", str(path), "--commits", str(lst)])
    assert r.exit_code == 2 and str(lst) in r.output and "newest first" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_histories_of_a_few_commits_run_quietly() -> None:
    # 5 to 7 commits: too few for the Whittle likelihood the refit's gate compares, which
    # subtracted -inf from -inf (a RuntimeWarning on every such series)
    for seed in range(4):
        for n in (5, 6, 7):
            df = simulate_history(n, ["a"], rng=np.random.default_rng(seed))
            h = tsanalyze.history(df, seed=0)
            assert h.series["commits"].tolist() == [n]


def test_size_interval_of_a_step_in_a_regime_switching_series_stays_near_it() -> None:
    # one-run excursions at 8% of the commits make the series regime-switching (CUSUM
    # path, block-resampled residuals); replicates whose split went to an excursion
    # measured no step there, and the basic interval of a x3 step reached x8 (django-asv:
    # a x143 regression's reached x20,000): the interval is of the step at its commit
    rng = np.random.default_rng(3)
    at = rng.choice(np.arange(5, 120), 12, replace=False)
    df = simulate_history(150, ["a"], changes=[SimulatedChange("a", 135, 3.0)],
                          spikes=[("a", int(i), 40.0) for i in at], rng=rng)  # fmt: skip
    h = tsanalyze.history(df, seed=0)
    c = h.changes[h.changes["ratio"] > 2].iloc[0]
    assert 2.8 < c["ratio"] < 3.2
    assert c["ci_high"] / c["ratio"] < 1.5 and c["ratio"] / c["ci_low"] < 1.5


def test_cli_json_and_fail_on(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(10)
    df = simulate_history(80, ["a", "b"], changes=[SimulatedChange("a", 40, 1.2)], rng=rng)
    path = history_to_asv(df, tmp_path / "results")
    r = CliRunner().invoke(app, ["history", str(path), "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["format"] == "tsanalyze-history"
    assert (
        doc["changes"][0]["benchmark"] == "s.time_a"
        and doc["changes"][0]["direction"] == "regression"
    )
    r = CliRunner().invoke(app, ["history", str(path), "--fail-on", "regression"])
    assert r.exit_code == 1 and "a" in r.output
    r = CliRunner().invoke(app, ["history", str(path), "--since", "nope"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1


def test_gls_scan_whitens_like_cholesky_and_is_standard_normal_under_its_model() -> None:
    # the Kalman whitening equals the inverse Cholesky factor of the AR(1)+white
    # covariance (independent reference), and each split's score is N(0, 1) under it
    from tsanalyze.analysis.history.scan import GlsScan

    rng = np.random.default_rng(12)
    n, phi, sw = 40, 0.7, 1.0
    white = rng.uniform(0.2, 0.8, n)
    lag = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    cov = sw**2 * phi**lag + np.diag(white)
    chol = np.linalg.cholesky(cov)
    g = GlsScan(sw, phi, white)
    v = rng.standard_normal((3, n))
    assert np.allclose(g.whiten(v), np.linalg.solve(chol, v.T).T)
    x = (chol @ rng.standard_normal((n, 4000))).T + 5.0  # any level
    t2 = g.scan(x).profile ** 2
    assert np.all(np.abs(t2.mean(axis=0) - 1.0) < 0.12)
    # a step at 25 is the best split of a noiseless step series
    step = (np.arange(n) >= 25).astype(float)
    assert int(g.scan(step[None, :], 2).best[0]) == 25


def test_despike_bounds_a_spike_and_keeps_a_step() -> None:
    from tsanalyze.analysis.history.scan import despike

    rng = np.random.default_rng(13)
    x = rng.standard_normal(60) * 0.01
    x[40:] += 0.05
    y = x.copy()
    y[20] += 0.5
    d = despike(y)
    assert d[20] - x[20] < 0.05  # the spike keeps at most k local sds
    assert np.allclose(np.delete(d, 20), np.delete(despike(x), 20), atol=0.01)
    assert d[40:].mean() - d[:40].mean() > 0.04  # the step is left alone


def test_regime_switching_series_falls_back_to_the_bounded_cusum() -> None:
    # a machine switching between speed regimes from run to run (many wild commit-to-
    # commit jumps) is not scanned with the GLS scan; an AR(1) history with a step is
    from tsanalyze.analysis.history.detect import SeriesDetector

    rng = np.random.default_rng(14)
    n = 200
    regime = rng.choice([0.0, 0.2, 0.4], n, p=[0.7, 0.2, 0.1])
    x = regime + 0.01 * rng.standard_normal(n)
    det = SeriesDetector(x, np.ones(n), np.zeros(n), rng, n_null=50, n_refit=2)
    assert det.wild_share() > 0.05 and not det.use_gls
    df = simulate_history(150, ["a"], changes=[SimulatedChange("a", 70, 1.08)], rng=rng)
    from tsanalyze.analysis.history.series import build_series

    s = build_series(df)[0][0]
    det = SeriesDetector(s.x, s.runs, s.within_var, rng, n_null=50, n_refit=2)
    assert det.use_gls


@pytest.mark.slow
def test_size_interval_coverage_of_found_steps() -> None:
    # Monte Carlo: 15 histories x 10 benchmarks, each with a x1.10 step at a random commit
    # (30..119 of 150), ~2% wandering noise. Of the steps found with the true commit in
    # the set, the 95% interval of the ratio covers 1.10 in 0.94 with 30 histories (also at
    # x1.05), its replicates drawn from the refitted noise models; drawn from the fit
    # alone it covered 0.88 here (0.907 with 30 histories): the fit's uncertainty was left
    # out of the interval
    names = [f"b{i}" for i in range(10)]
    found = covered = 0
    for r in range(15):
        rng = np.random.default_rng(100 + r)
        pos = {b: int(rng.integers(30, 120)) for b in names}
        df = simulate_history(
            150, names, changes=[SimulatedChange(b, pos[b], 1.10) for b in names], rng=rng
        )
        changes = tsanalyze.history(df, seed=r).changes
        for b in names:
            c = changes[changes.benchmark == b]
            m = c[[_h(pos[b]) in cs for cs in c.commits]]
            if len(m):
                found += 1
                covered += bool(m.iloc[0].ci_low <= 1.10 <= m.iloc[0].ci_high)
    assert found >= 140  # x1.10 steps are found with their commit nearly always
    assert covered / found >= 0.91, (covered, found)


def _detected_sets(ratio: float, histories: int, seed: int) -> tuple[int, int, list[int]]:
    """Steps of ``ratio`` at random commits of 150-commit histories: how many were
    detected at 5% by the first scan, how many of those sets hold the true commit, and
    the sets' sizes."""
    from tsanalyze.analysis.history import api
    from tsanalyze.analysis.history.series import build_series

    rng = np.random.default_rng(seed)
    names = [f"b{i}" for i in range(10)]
    tot = hit = 0
    sizes = []
    for _ in range(histories):
        pos = {b: int(rng.integers(20, 130)) for b in names}
        df = simulate_history(
            150, names, changes=[SimulatedChange(b, pos[b], ratio) for b in names], rng=rng
        )
        for s in build_series(df)[0]:
            work = api._first_pass(api._Job(s, int(rng.integers(2**31)), 200))
            p, t = work.first
            if p <= 0.05:
                tot += 1
                cand = work.det.locate(0, t, s.x.size).candidates
                hit += pos[s.benchmark] in cand
                sizes.append(len(cand))
    return tot, hit, sizes


@pytest.mark.slow
def test_set_coverage_of_small_detected_steps() -> None:
    # Monte Carlo: x1.045 steps (~2 sds of the commit-to-commit noise) in the simulator's
    # ~2% wandering noise; of those detected at 5%, the 95% set holds the true commit
    # in 0.974 here (0.958 with the set calibrated at the fitted step instead of its
    # lower bound; over the accuracy harness's 400 steps of 3-10%, with binary
    # segmentation and BH, 92.3% -> 94.8%) with a median of 4-5 commits
    tot, hit, sizes = _detected_sets(1.045, 10, 31)
    assert tot >= 85
    assert hit / tot >= 0.93, (hit, tot)
    assert np.median(sizes) <= 6


def test_set_is_calibrated_at_the_steps_lower_bound(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the set's critical value is simulated with the step shrunk to its one-sided 95%
    # lower bound: a smaller step is placed less exactly, so with the same random
    # numbers the set can only grow against one calibrated at the fitted step (and does
    # for some x1.05 steps), while for a step far above its noise nothing changes
    from tsanalyze.analysis.history import api, detect
    from tsanalyze.analysis.history.series import build_series

    rng = np.random.default_rng(32)
    at = {"a0": 80, "a1": 40, "a2": 100, "a3": 70, "a4": 55, "big": 60}
    df = simulate_history(150, list(at), rng=rng, changes=[
        SimulatedChange(b, t, 1.5 if b == "big" else 1.05) for b, t in at.items()])  # fmt: skip
    grew = 0
    for s in build_series(df)[0]:
        det = api._first_pass(api._Job(s, 7, 200)).det
        sets = {}
        for z in (0.0, detect.SET_Z_LOW):
            monkeypatch.setattr(detect, "SET_Z_LOW", z)
            det.rng = np.random.default_rng(5)
            sets[z] = set(det.locate(0, at[s.benchmark], s.x.size).candidates)
        assert sets[0.0] <= sets[detect.SET_Z_LOW], s.benchmark
        grew += len(sets[detect.SET_Z_LOW]) > len(sets[0.0])
        if s.benchmark == "big":
            assert sets[detect.SET_Z_LOW] == sets[0.0] == {60}
    assert grew >= 1, grew


def test_bad_frames_are_refused_by_name_and_an_empty_one_says_so() -> None:
    import warnings

    import pandas as pd

    from tsanalyze.errors import InvalidRunError

    with pytest.raises(InvalidArgumentError, match="df: expected a DataFrame"):
        tsanalyze.history([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(InvalidRunError, match="missing column"):
        tsanalyze.history(pd.DataFrame())
    h = tsanalyze.history(pd.DataFrame({"benchmark": [], "run": [], "time_ns": []}))
    assert h.changes.empty and "no-runs" in h.warning_codes
    # a benchmark run at one commit only: not tested, and no numpy warning on the way
    df = simulate_history(20, ["a"], rng=np.random.default_rng(1))
    one = df[df["run"] == df["run"].iloc[0]].copy()
    one.attrs = df.attrs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = tsanalyze.history(one)
    assert h.changes.empty and "too-few-commits" in h.warning_codes


def test_a_spike_beside_a_step_does_not_draw_its_commit_set() -> None:
    # a one-run spike (x0.7 or x1.3) one to three commits before a step of 6-9%, in the
    # step's direction or against it, says nothing of which level its commit belongs to.
    # A set that holds the spike is the step's, within two commits of it. While spikes
    # were only bounded, a spike drew the step's set onto itself (sets {72}, {81} and {46}
    # for steps at 73, 83 and 49 in the accuracy harness) and the step's commit was in a
    # set of at most 5 commits for 13 of these 24 series on each of three seeds; with the
    # spikes missing to the GLS scan for 20-23 (21-23 of 24 without the spikes)
    rng = np.random.default_rng(77)
    names = [f"b{i:02d}" for i in range(24)]
    changes, spikes = [], []
    for i, b in enumerate(names):
        size = float(rng.uniform(0.06, 0.09)) * (1 if i % 2 else -1)
        changes.append(SimulatedChange(b, 75, float(np.exp(size))))
        spikes.append((b, 75 - 1 - i % 3, 0.7 if (i // 2) % 2 else 1.3))
    df = simulate_history(150, names, changes=changes, spikes=spikes, rng=rng)
    h = tsanalyze.history(df, seed=3)
    held = 0
    for b, t_spike, _ in spikes:
        rows = h.changes[h.changes["benchmark"] == b]
        sets = [{int(c, 16) for c in cs} for cs in rows["commits"]]
        # a set holding the spike is the step's, located within two commits
        assert all(min(abs(c - 75) for c in s) <= 2 for s in sets if t_spike in s), (b, sets)
        held += any(75 in s and len(s) <= 5 for s in sets)
        assert _h(t_spike) in set(h.outliers.loc[h.outliers["benchmark"] == b, "commit"])
    assert held >= 0.75 * len(names)


def test_spikes_are_flagged_and_missing_to_the_gls_scan() -> None:
    from tsanalyze.analysis.history.scan import GlsScan, spikes

    rng = np.random.default_rng(5)
    x = rng.standard_normal(150) * 0.02
    x[75:] += 0.08  # a step is not a spike, nor are the commits beside it
    y = x.copy()
    y[[30, 74]] += [0.3, -0.35]  # spikes: one alone, one just before the step
    assert np.flatnonzero(spikes(y)).tolist() == [30, 74]
    # Gaussian noise almost never passes for a spike (4 robust sds beyond both neighbours)
    null = rng.standard_normal((400, 150))
    assert np.mean([spikes(r).mean() for r in null]) < 1e-3
    # a missing commit (infinite white variance) has no say in the scan: any value there
    # gives the same profile, and the steps just before and after it score alike
    white = np.full(150, 0.013**2)
    white[74] = np.inf
    g = GlsScan(0.015, 0.7, white)
    a, b = y.copy(), y.copy()
    b[74] = 5.0
    pa, pb = g.scan(a[None, :]).profile[0], g.scan(b[None, :]).profile[0]
    assert np.allclose(pa, pb)
    assert pa[73] == pytest.approx(pa[74])  # steps at commits 74 and 75
