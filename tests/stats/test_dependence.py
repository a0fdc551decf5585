"""The dependence assessment: kinds, block sizes, long-run variance, regime switching."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import signal, stats

import tsanalyze
from tsanalyze.datasets_dependent import fgn, simulate_dependent
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.autocorrelation import residual_inflation
from tsanalyze.stats.dependence import Dependence, assess_dependence, long_run_variance
from tsanalyze.stats.estimators import estimate
from tsanalyze.stats.regimes import regimes


def _ar1(n: int, phi: float, rng: int, size: int | None = None) -> np.ndarray:
    g = np.random.default_rng(rng)
    z = g.standard_normal((size or 1, n))
    e = z.copy()
    e[:, 1:] *= math.sqrt(1 - phi * phi)
    y = np.empty_like(z)
    y[:, 0] = z[:, 0]
    y[:, 1:] = signal.lfilter([1.0], [1.0, -phi], e[:, 1:], axis=1, zi=phi * z[:, :1])[0]
    return y[0] if size is None else y


def _serious(d: Dependence) -> bool:
    return any(f.severity == "serious" for f in d.findings)


def test_public_and_fields() -> None:
    d = tsanalyze.assess_dependence(np.random.default_rng(1).normal(size=2000))
    assert isinstance(d, Dependence)
    assert d.kind == "independent" and d.block_size == 1 and d.n_blocks == 2000
    assert d.hurst == 0.5 and not d.serious and d.supports_interval
    row = d.to_frame()
    assert row.loc[0, "kind"] == "independent"
    assert d.to_dict()["variance_inflation"] == pytest.approx(1.0, abs=0.2)


def test_kinds_on_clear_cases() -> None:
    ar = assess_dependence(_ar1(2000, 0.7, 2))
    assert ar.kind == "short-range" and not _serious(ar) and ar.block_size > 1
    assert "autocorrelated" in {f.code for f in ar.findings}
    lrd = assess_dependence(fgn(2000, 0.8, rng=3))
    assert lrd.kind == "long-range" and _serious(lrd) and lrd.supports_interval
    assert lrd.hurst == pytest.approx(0.8, abs=0.1) and lrd.n_blocks == 16
    assert "long-range-dependence" in {f.code for f in lrd.findings}
    short = assess_dependence(_ar1(200, 0.97, 4))
    assert short.kind == "too-short" and not short.supports_interval
    assert math.isinf(short.variance_inflation) and math.isinf(short.critical_value())
    modes = assess_dependence(simulate_dependent(2000, "markov-modes", rng=5).x)
    assert modes.kind == "regime-switching" and modes.modes == 2
    assert modes.mean_sojourn > 10 and "regime-switching" in {f.code for f in modes.findings}


def test_edge_cases() -> None:
    one = assess_dependence([3.0])
    assert one.kind == "independent" and one.n == 1
    few = assess_dependence(np.arange(10.0))
    assert "dependence-unchecked" in {f.code for f in few.findings} and not few.serious
    const = assess_dependence(np.full(100, 2.0))
    assert const.kind == "independent" and const.variance_inflation == 1.0
    with pytest.raises(ValueError, match="x"):
        assess_dependence([1.0, math.nan, 2.0])
    with pytest.raises(ValueError, match="threshold"):
        assess_dependence(np.ones(50), threshold=1.5)
    with pytest.raises(ValueError, match="min_effective_n"):
        assess_dependence(np.ones(50), min_effective_n=1)


def test_short_independent_series_are_not_refused_for_noise() -> None:
    # 20-39 samples: Geyer's correlation time, noisy upwards, left fewer than 20
    # effective samples in 41% of independent series of 20 (10% of 30), which were then
    # refused as too short (an infinite interval, and compare lost its power: a 5%
    # slowdown called in 22 of 100 pairs of 20 samples, 100 of 100 at 10); 200 series
    rng = np.random.default_rng(40)
    for n, most in ((20, 0.15), (30, 0.1)):
        refused = np.mean([assess_dependence(100 + rng.standard_normal(n)).serious
                           for _ in range(200)])  # fmt: skip
        assert refused <= most, (n, refused)
    # strong dependence at that length is still refused: AR(1) phi = 0.97, 30 samples
    e = rng.standard_normal(30)
    x = np.empty(30)
    x[0] = e[0]
    for t in range(1, 30):
        x[t] = 0.97 * x[t - 1] + math.sqrt(1 - 0.97**2) * e[t]
    assert assess_dependence(100 + x).serious


def test_a_tiny_long_memory_p_value_is_not_written_as_zero() -> None:
    from tsanalyze.datasets_dependent import fgn

    dep = assess_dependence(1000 + 10 * fgn(20_000, 0.9, rng=1))
    assert dep.long_memory_pvalue < 1e-3
    msg = next(f.message for f in dep.findings if f.code == "long-range-dependence")
    assert "p < 0.001" in msg and "p = 0" not in msg


def test_long_run_variance_against_ar1_theory() -> None:
    # sigma^2 = var (1 + phi) / (1 - phi) for AR(1): averaged over 100 series of 4000
    phi = 0.6
    x = _ar1(4000, phi, 6, size=100)
    lrv = [long_run_variance(row) for row in x]
    assert float(np.mean(lrv)) == pytest.approx((1 + phi) / (1 - phi), rel=0.08)
    iid = np.random.default_rng(7).normal(size=(100, 2000))
    lrv_iid = [long_run_variance(r) for r in iid]
    assert float(np.median(lrv_iid)) == pytest.approx(1.0, rel=0.03)
    # the mean carries the few i.i.d. series that the checks take for dependent, by design
    # conservatively (here one allowed long memory, 5.8, and two whose middle scales
    # stand out, 1.8 and 1.2: 1.056 in all, 1.046 before the scales' test)
    assert float(np.mean(lrv_iid)) == pytest.approx(1.0, rel=0.08)


def test_long_run_variance_of_fgn_is_the_variance_of_its_mean() -> None:
    # var(mean of n) = n^(2H - 2) for unit fGn, so n var(mean) = n^(2H - 1)
    n, h = 2000, 0.8
    x = fgn(n, h, size=60, rng=8)
    lrv = [long_run_variance(row) for row in x]
    assert float(np.median(lrv)) == pytest.approx(n ** (2 * h - 1), rel=0.35)


def test_long_run_variance_of_a_transform_uses_the_series_blocks() -> None:
    x = _ar1(2000, 0.8, 9)
    d = assess_dependence(x)
    ranks = np.argsort(np.argsort(x)).astype(float)
    v = long_run_variance(ranks, d)
    # ranks of a Gaussian AR(1) keep nearly its correlation: factor close to x's
    assert v / ranks.var() == pytest.approx(d.variance_inflation, rel=0.25)
    with pytest.raises(ValueError, match="x"):
        long_run_variance(x[:100], d)
    short = assess_dependence(_ar1(200, 0.97, 10))
    assert math.isinf(long_run_variance(_ar1(200, 0.97, 10), short))


def test_regimes_need_modes_and_long_runs() -> None:
    rng = np.random.default_rng(11)
    # two modes drawn independently each sample: bimodal, but runs are short
    iid = 1000 * (1 + 0.05 * (rng.random(2000) < 0.3) + 0.01 * rng.standard_normal(2000))
    r = regimes(iid)
    assert r.n_modes == 2 and not r.switching and abs(r.runs_z) < 4
    sticky = simulate_dependent(2000, "markov-modes", rng=12).x
    s = regimes(sticky)
    assert s.switching and s.runs_z < -10 and s.mean_sojourn > 20
    uni = regimes(rng.normal(size=500))
    assert uni.n_modes == 1 and not uni.switching and math.isnan(uni.antimode)


def test_estimate_refuses_or_widens() -> None:
    short = 1000.0 + 10.0 * _ar1(200, 0.97, 13)
    for est in ("median", "mean", "trimmed_mean"):
        e = estimate(short, est, rng=1)  # type: ignore[arg-type]
        assert e.method == "unbounded" and (e.ci_low, e.ci_high) == (-math.inf, math.inf)
        assert "too-short-for-dependence" in e.warning_codes
    x = fgn(2000, 0.8, rng=14) * 10 + 1000
    d = assess_dependence(x)
    naive = 1.96 * x.std() / math.sqrt(x.size)
    for est, method in (
        ("mean", "batch-means-long-range"),
        ("trimmed_mean", "batch-means-long-range"),
        ("median", "order-statistic-long-range"),
    ):
        e = estimate(x, est, dependence=d, rng=1)  # type: ignore[arg-type]
        assert e.method == method and "long-range-dependence" in e.warning_codes
        # var(mean) is n^0.6 ~ 96 times the i.i.d. one: the interval is ~6-20x wider
        assert 4 * naive < (e.ci_high - e.ci_low) / 2 < 25 * naive
    # the independent and short-range paths are untouched: benchstat's interval stays
    iid = 100.0 + np.random.default_rng(15).normal(size=500)
    assert estimate(iid).method == "order-statistic"
    with pytest.raises(ValueError, match="dependence"):
        estimate(iid, dependence=d)


def test_a_short_visit_to_another_level_is_regime_switching() -> None:
    # too brief for a density mode (4% of the series) but far from the bulk in one long
    # stretch: a regime, not outliers. The same values scattered are outliers.
    g = np.random.default_rng(31)
    x = 1000.0 + 10.0 * g.standard_normal(200)
    visit = x.copy()
    visit[120:128] += 50.0
    r = regimes(visit)
    assert r.switching and r.n_modes == 2 and r.locations[1] > 1040
    assert "regime-switching" in [f.code for f in assess_dependence(visit).findings]
    scattered = x.copy()
    scattered[::25] += 50.0
    assert not regimes(scattered).switching
    # heavy tails alone are not regimes
    t3 = 1000.0 + 10.0 * g.standard_t(3, size=(50, 200))
    assert np.mean([regimes(row).switching for row in t3]) <= 0.04


def test_levels_that_overlap_in_the_samples_show_in_block_means() -> None:
    from statsmodels.sandbox.stats.runs import runstest_1samp

    from tsanalyze.datasets_dependent import markov_modes
    from tsanalyze.stats.autocorrelation import block_means
    from tsanalyze.stats.regimes import _two_means_cut

    # levels 100 and 102 under noise of sd 1 (one density mode), sojourns of ~300
    g = np.random.default_rng(81)
    state = markov_modes(2000, (300.0, 300.0), rng=g)
    x = 100.0 + 2.0 * state + g.standard_normal(2000)
    r = regimes(x)
    assert r.switching and r.block_size > 1 and r.n_modes == 2
    # the levels are the modes' means (within a few standard errors of a block mean)
    for k, level in enumerate(r.locations):
        assert level == pytest.approx(100.0 + 2.0 * k, abs=0.25)
    # the runs and z are the Wald-Wolfowitz test of the blocks' sides (statsmodels)
    m = block_means(x, r.block_size)
    z, _ = runstest_1samp((m > r.antimode).astype(float), cutoff=0.5, correction=False)
    assert r.runs_z == pytest.approx(z, rel=1e-9) and r.runs_z < -3
    assert r.n_runs == 1 + np.count_nonzero(np.diff(m > r.antimode))
    # the cut is the exact two-means split (brute force over every cut)
    s = np.sort(m)
    lo = math.ceil(0.05 * s.size)
    sse = [np.var(s[:j]) * j + np.var(s[j:]) * (s.size - j) for j in range(lo, s.size - lo + 1)]
    j = lo + int(np.argmin(sse))
    assert _two_means_cut(m, 0.05) == pytest.approx(0.5 * (s[j - 1] + s[j]))
    d = assess_dependence(x)
    assert d.kind == "regime-switching" and d.serious
    msg = next(f.message for f in d.findings if f.code == "regime-switching")
    assert f"in means of {r.block_size} samples" in msg and "if the blocks were" in msg
    # a slow Gaussian wander (AR(1), phi 0.97) has block means that wander too, but
    # they scatter far more than white noise of its successive differences allows
    ar = _ar1(2000, 0.97, 82, size=40)
    assert sum(regimes(row).block_size > 1 for row in ar) == 0
    # the block means of a skewed distribution, split in two, are never two levels
    iid = np.random.default_rng(83).lognormal(size=(40, 2000))
    assert not any(regimes(row).switching for row in iid)


def _two_levels(n: int = 2000, stretch: int = 100, rng: int = 6) -> np.ndarray:
    """Levels 872.4 and 1236 (ns) visited in stretches of ``stretch`` samples, 1% noise."""
    g = np.random.default_rng(rng)
    level = np.where((np.arange(n) // stretch) % 2 == 0, 1236.0, 872.4)
    return level * (1 + 0.01 * g.standard_normal(n))


def _quoted_levels(message: str, unit: str) -> list[float]:
    """The numbers of ``levels (a and b UNIT)`` in the regime-switching message."""
    inside = message.split("levels (", 1)[1].split(")", 1)[0]
    assert inside.endswith(f" {unit}"), message
    return [float(v) for v in inside.removesuffix(f" {unit}").replace(",", " and").split(" and ")]


def test_regime_levels_are_quoted_in_the_unit_of_the_series() -> None:
    x = _two_levels()
    dep = assess_dependence(x, unit="ns")
    reg = dep.regimes
    assert dep.kind == "regime-switching" and reg is not None
    msg = next(f.message for f in dep.findings if f.code == "regime-switching")
    # the levels in µs with 4 significant digits (reference: the regime check's own
    # locations, scaled by hand), not the bare ns of before ("872.4, 1236")
    shown = _quoted_levels(msg, "µs")
    assert shown == [float(f"{v / 1000:.4g}") for v in reg.locations]
    assert shown == pytest.approx([0.8724, 1.236], rel=0.01)
    # the same series in seconds says the same; without a unit the numbers are bare
    in_s = assess_dependence(x * 1e-9, unit="s")
    assert next(f.message for f in in_s.findings if f.code == "regime-switching") == msg
    bare = next(f.message for f in assess_dependence(x).findings if f.code == "regime-switching")
    assert "µs" not in bare and "ns" not in bare
    assert [float(v) for v in bare.split("levels (")[1].split(")")[0].split(" and ")] == [
        float(f"{v:.4g}") for v in reg.locations
    ]
    # the estimate quotes them so too
    assert msg in [w.message for w in estimate(x, "median", unit="ns").warnings]


def test_unknown_unit_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="fortnights"):
        assess_dependence(_two_levels(), unit="fortnights")
    with pytest.raises(InvalidArgumentError, match="fortnights"):
        estimate(_two_levels(), "median", unit="fortnights")


def test_variance_at_large_scales_that_lag_1_misses_carries_the_interval() -> None:
    # white noise plus a slow cycle (period 500, 0.15 sd): lag 1 ~0.07, so blocks of one
    # sample look independent, but means of 250 samples vary with the cycle
    rng = np.random.default_rng(5)
    t = np.arange(2000)
    x = 1000.0 + 10.0 * (rng.standard_normal(t.size) + 0.15 * math.sqrt(2) * np.sin(2 * np.pi * t / 500))
    dep = assess_dependence(x)
    assert dep.subsession_size == 1 and dep.large_scale and not dep.serious
    assert dep.block_size > 100 and dep.n_blocks >= 8
    assert "large-scale-variance" in [f.code for f in dep.findings]
    # the variance of the mean it implies is that of the chosen blocks' means (k - 1 dof)
    means = x[: dep.n_blocks * dep.block_size].reshape(dep.n_blocks, -1).mean(axis=1)
    assert dep.critical_value(0.95) == pytest.approx(float(stats.t.ppf(0.975, dep.n_blocks - 1)))
    assert dep.long_run_sd**2 / x.size >= np.var(means, ddof=1) / dep.n_blocks * 0.999
    short = dataclasses.replace(dep, block_size=1, n_blocks=x.size)
    for est in ("median", "mean", "trimmed_mean"):
        wide = estimate(x, est, dependence=dep, rng=1)
        narrow = estimate(x, est, dependence=short, rng=1)
        assert wide.method.endswith("-large-scale")
        # never narrower than the short blocks' interval, and here much wider
        assert wide.ci_low <= narrow.ci_low and wide.ci_high >= narrow.ci_high
        assert wide.ci_high - wide.ci_low > 1.5 * (narrow.ci_high - narrow.ci_low)


def test_large_scale_rule_leaves_plain_series_alone() -> None:
    # i.i.d., heavy-tailed and AR(1) series: the longest blocks vary as the short ones
    # imply, so the rule does not fire (2 of 1000 i.i.d. series of 2000 in development)
    rng = np.random.default_rng(6)
    rows = [1000 + 10 * rng.standard_normal(2000) for _ in range(30)]
    rows += [1000 + 3 * rng.standard_t(3, 2000) for _ in range(30)]
    rows += list(_ar1(2000, 0.7, 7, size=30) * 10 + 1000)
    assert sum(assess_dependence(r).large_scale for r in rows) <= 1


@pytest.mark.slow
def test_a_small_slow_level_component_is_seen_at_the_middle_scales() -> None:
    """A level that shifts by half a noise sd for stretches of ~30 samples, 10% of the
    time (a noisy neighbour): 1.2% of the variance, lag 1 ~0.02, yet it doubles the long-run
    variance of the mean. The longest block alone saw it in 10-20% of such series; the ratios
    of all block lengths beyond the chosen blocks (variance_time.scale_excess_pvalue) see
    it in 29-44%, and those series get the longest blocks' intervals."""
    from tsanalyze.datasets_dependent import markov_modes

    rng = np.random.default_rng(31)
    reps, n = 100, 2000
    modes = markov_modes(n, (270.0, 30.0), size=reps, rng=rng)
    rows = 1000.0 + 10.0 * (rng.standard_normal((reps, n)) + 0.5 * modes)
    fired = sum(assess_dependence(r).large_scale_in == "samples" for r in rows)
    assert fired >= 24  # measured 29 of 100 (the longest block alone: 17 of 100)


def _wander_under_delays(n: int, reps: int, amp: float, rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise whose level wanders slowly (AR(1), phi = 0.995, ``amp`` of its sd),
    plus delays in 8% of the samples with Pareto(1.5) sizes (heavy tails)."""
    slow = _ar1(n, 0.995, 97, size=reps)
    base = rng.standard_normal((reps, n))
    delays = (rng.random((reps, n)) < 0.08) * rng.pareto(1.5, (reps, n)) * 8.0
    return 1000.0 + 2.0 * (base + amp * slow) + delays


def test_a_wander_of_the_bulk_that_heavy_tails_hide_carries_the_interval() -> None:
    # the delays swamp the samples' variance-time curve (the mean's rule does not fire)
    # but the share of samples below the median varies between long blocks. (In about
    # half of such series the wander is a random walk at this length, which the ranks'
    # long-memory checks see: those are refused as too short; ~40% take the bulk rule)
    rows = _wander_under_delays(2000, 10, 0.3, np.random.default_rng(40))
    deps = [assess_dependence(r) for r in rows]
    bulk = [i for i, d in enumerate(deps) if d.large_scale_in == "bulk"]
    assert len(bulk) >= 2
    x, dep = rows[bulk[0]], deps[bulk[0]]
    assert dep.large_scale and not dep.serious
    (msg,) = [f.message for f in dep.findings if f.code == "large-scale-variance"]
    assert "share of samples below the median" in msg
    med = estimate(x, "median", dependence=dep, rng=1)
    assert med.method == "batch-medians-large-scale"
    # the batch medians' t interval from its definition: block medians, Student t with
    # k - 1 dof (scipy), their variance inflated by the residual lag-1 factor
    k, b = dep.n_blocks, dep.block_size
    meds = np.median(x[: k * b].reshape(k, b), axis=1)
    half = stats.t.ppf(0.975, k - 1) * math.sqrt(meds.var(ddof=1) / k * residual_inflation(meds))
    assert (med.ci_low, med.ci_high) == pytest.approx((np.median(x) - half, np.median(x) + half))
    short = estimate(x, "median", dependence=dataclasses.replace(dep, block_size=1, n_blocks=x.size), rng=1)
    assert med.ci_low <= short.ci_low and med.ci_high >= short.ci_high


def test_bulk_rule_leaves_plain_heavy_tailed_series_alone() -> None:
    # the same delays without the wander, and i.i.d. lognormal samples: the indicator's
    # longest blocks vary as its short ones imply (~1% of series beyond the 99% point)
    rng = np.random.default_rng(41)
    rows = list(_wander_under_delays(2000, 60, 0.0, rng))
    rows += list(1000 * np.exp(0.3 * rng.standard_normal((60, 2000))))
    fired = sum(assess_dependence(r).large_scale_in == "bulk" for r in rows)
    assert fired <= 3


def _fgn_under_delays(reps: int, rng: np.random.Generator) -> np.ndarray:
    """fGn H = 0.8 (sd 2) plus lognormal delays (median ~12) in 10% of 2000 samples."""
    d = np.exp(rng.normal(2.5, 1.0, (reps, 2000))) * (rng.random((reps, 2000)) < 0.1)
    return 1000.0 + 2.0 * fgn(2000, 0.8, size=reps, rng=rng) + d


def test_long_memory_hidden_by_delays_shows_in_the_ranks() -> None:
    # the delays swamp the samples' periodogram: their long-memory test does not reject;
    # on the normal scores of the ranks of the bulk (the samples more than 3 robust sds
    # from the median left out; scipy's rankdata and norm.ppf here) it does, and the
    # assessment takes the scores' exponent and says where it saw the memory
    from tsanalyze.stats.longmemory import long_memory

    x = _fgn_under_delays(1, np.random.default_rng(50))[0]
    assert long_memory(x).pvalue > 0.05
    bulk = x[np.abs(x - np.median(x)) <= 3.0 * stats.median_abs_deviation(x, scale="normal")]
    z = stats.norm.ppf(stats.rankdata(bulk) / (bulk.size + 1))
    lz = long_memory(z)
    assert lz.pvalue < 0.01 and lz.d >= 0.05
    dep = assess_dependence(x)
    assert (dep.kind, dep.memory_in, dep.hurst_source) == ("long-range", "ranks", "whittle")
    assert dep.hurst == pytest.approx(lz.hurst) and dep.long_memory_pvalue == pytest.approx(lz.pvalue)
    (f,) = [f for f in dep.findings if f.code == "long-range-dependence"]
    assert f.severity == "serious" and "in the ranks of the samples" in f.message
    # the interval is the long-range one: 16 block means of the samples
    assert dep.n_blocks == 16 and dep.variance_inflation > 3.0


def test_bulk_scores_leave_the_far_samples_out() -> None:
    # the scores are those of the samples within 3 robust sds (1.4826 MAD) of the median,
    # in time order; with too few far samples to read (under 1.5% of them), of all samples
    from tsanalyze.stats.memory_call import bulk_scores

    rng = np.random.default_rng(52)
    x = 1000.0 + rng.standard_normal(2000)
    assert np.allclose(bulk_scores(x), stats.norm.ppf(stats.rankdata(x) / 2001))
    delayed = rng.random(2000) < 0.1
    y = x + 50.0 * delayed
    keep = np.abs(y - np.median(y)) <= 3.0 * stats.median_abs_deviation(y, scale="normal")
    assert not keep[delayed].any()
    z = bulk_scores(y)
    assert z.size == keep.sum() < 1850
    assert np.allclose(z, stats.norm.ppf(stats.rankdata(y[keep]) / (keep.sum() + 1)))
    # far samples that cluster in time (a mode, a burst of delays) stay: their switching
    # is the series' own dependence
    burst = x + 50.0 * (np.arange(2000) % 500 < 50)
    assert np.allclose(bulk_scores(burst), stats.norm.ppf(stats.rankdata(burst) / 2001))


def test_ranks_are_not_read_on_a_coarse_grid_or_below_500_samples() -> None:
    # the same series on a grid coarse enough that one value holds more than 5% of the
    # samples: the scores are a step function of a few values, and their slow variation
    # is the shares of neighbouring values; below 500 samples no long-memory fit is made
    x = _fgn_under_delays(1, np.random.default_rng(50))[0]
    coarse = np.round(x / 4.0) * 4.0
    top_share = np.unique(coarse, return_counts=True)[1].max() / coarse.size
    assert top_share > 0.05
    assert assess_dependence(coarse).memory_in != "ranks"
    assert assess_dependence(x[:499]).memory_in != "ranks"


def test_ranks_keep_plain_series_plain() -> None:
    # i.i.d. noise with and without Pareto delays and i.i.d. lognormal samples: the checks
    # on the scores declare or allow for long memory about as rarely as on the samples
    rng = np.random.default_rng(51)
    rows = list(_wander_under_delays(2000, 40, 0.0, rng))
    rows += list(1000 + rng.standard_normal((20, 2000)))
    rows += list(1000 * np.exp(0.3 * rng.standard_normal((20, 2000))))
    deps = [assess_dependence(r) for r in rows]
    assert sum(d.memory_in == "ranks" for d in deps) <= 2
    assert sum(d.serious for d in deps) <= 1


def _sine_plus_noise(reps: int, n: int, period: float, rng: np.random.Generator) -> np.ndarray:
    """White noise (sd 1) plus a sine of amplitude 0.5 and random phase, level 1000."""
    phase = rng.uniform(0.0, 2.0 * math.pi, (reps, 1))
    return 1000.0 + rng.standard_normal((reps, n)) + 0.5 * np.sin(2 * math.pi * np.arange(n) / period + phase)


def test_a_cycle_is_set_aside_not_taken_for_long_memory() -> None:
    # a sine of 0.5 sd with a period of 300 samples (6.7 periods in 2000): the long-memory
    # test's monotone spectra took its peak for long memory in 49% of such series (a
    # serious finding and a 3.7 times wider median interval); the cycle is now found, its
    # period and amplitude are the generator's, and it is set aside for the checks
    from tsanalyze.stats.memory_call import without_cycle

    rows = _sine_plus_noise(30, 2000, 300.0, np.random.default_rng(60))
    deps = [assess_dependence(r) for r in rows]
    assert sum(d.serious for d in deps) <= 2
    periods = np.array([d.cycle_period for d in deps])
    assert np.sum(np.abs(periods / 300.0 - 1.0) < 0.03) >= 28
    (f,) = [f for f in deps[0].findings if f.code == "cycle"]
    assert f.severity == "info" and "the long-memory checks set it aside" in f.message
    y, period = without_cycle(rows[0])
    removed = rows[0] - y
    amplitude = math.sqrt(2.0) * float(np.std(removed))
    assert period == pytest.approx(300.0, rel=0.03) and amplitude == pytest.approx(0.5, rel=0.15)


def test_no_cycle_is_found_in_noise_or_long_memory() -> None:
    # the local Fisher test at a family-wise 0.1% (F(2, 32) per frequency, Bonferroni over
    # them): white noise, long memory (whose spectrum rises steeply at low frequencies)
    # and a slow AR(1) keep their series
    from tsanalyze.datasets_dependent import arfima
    from tsanalyze.stats.memory_call import without_cycle

    rng = np.random.default_rng(61)
    rows = list(rng.standard_normal((200, 1000)))
    rows += list(fgn(2000, 0.9, size=60, rng=rng))
    rows += list(arfima(2000, 0.4, size=60, rng=rng))
    rows += list(_ar1(2000, 0.97, 62, size=60))
    found = sum(math.isfinite(without_cycle(r)[1]) for r in rows)
    assert found <= 2


def test_the_cycle_check_does_not_depend_on_the_scale_of_the_values() -> None:
    # the periodogram of a series of values near 1e300 overflowed (a RuntimeWarning, and
    # no cycle found) before the check worked on the series scaled to its largest
    # deviation
    import warnings

    from tsanalyze.stats.memory_call import without_cycle

    x = _sine_plus_noise(1, 20_000, 300.0, np.random.default_rng(64))[0] / 1000.0
    y1, p1 = without_cycle(x)
    for scale in (1e-300, 1e300):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y, p = without_cycle(x * scale)
        assert p == p1
        np.testing.assert_allclose(y / scale, y1, rtol=1e-9)
