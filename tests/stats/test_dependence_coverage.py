"""Monte-Carlo checks of issue 20: no quiet wrong interval on long-range, multi-scale,
mode-switching and short dependent series; the plain cases keep their figures.

"Quiet" means no serious finding. For each class the claim is that quiet intervals of
the median, mean and trimmed mean cover the truth at least 90% of the time. With few
quiet series the point estimate is noisy, so the claim is checked as a one-sided
binomial test (the quiet misses must not be improbably many for a 10% miss rate, at
1%); with many, directly. Every series is simulated at once (vectorised), and each
series is assessed once (``estimate(dependence=...)``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, signal, stats

from tsanalyze.datasets_dependent import arfima, fgn, markov_modes, simulate_dependent
from tsanalyze.stats.dependence import assess_dependence
from tsanalyze.stats.estimators import estimate

LOCATIONS = ("median", "mean", "trimmed_mean")


def _ar1(n: int, phi: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    z = rng.standard_normal((reps, n))
    e = z.copy()
    e[:, 1:] *= math.sqrt(1 - phi * phi)
    y = np.empty_like(z)
    y[:, 0] = z[:, 0]
    y[:, 1:] = signal.lfilter([1.0], [1.0, -phi], e[:, 1:], axis=1, zi=phi * z[:, :1])[0]
    return 1000.0 * (1.0 + 0.01 * y)


def _run(x: np.ndarray, truth: dict[str, float]) -> dict[str, np.ndarray]:
    """hit[est], quiet (no serious finding) and width[est] per series."""
    reps = x.shape[0]
    out = {"quiet": np.zeros(reps, bool)}
    for est in LOCATIONS:
        out[est] = np.zeros(reps, bool)
        out["w-" + est] = np.zeros(reps)
    for r in range(reps):
        dep = assess_dependence(x[r])
        out["quiet"][r] = not dep.serious
        for est in LOCATIONS:
            e = estimate(x[r], est, dependence=dep, rng=r, n_resamples=200)  # type: ignore[arg-type]
            out[est][r] = e.ci_low <= truth[est] <= e.ci_high
            out["w-" + est][r] = e.ci_high - e.ci_low
    return out


def _quiet_ok(hit: np.ndarray, quiet: np.ndarray) -> tuple[bool, str]:
    """Quiet coverage >= 90%: directly with >= 40 quiet series, else not rejected by a
    one-sided binomial test at 1%."""
    q = int(quiet.sum())
    miss = int((quiet & ~hit).sum())
    if q == 0:
        return True, "no quiet series"
    if q >= 40:
        return miss / q <= 0.10, f"{q} quiet, coverage {1 - miss / q:.3f}"
    p = float(stats.binom.sf(miss - 1, q, 0.10))  # P(misses >= miss | 10% miss rate)
    return p >= 0.01, f"{q} quiet, {miss} missed (binomial p = {p:.3g})"


def _check(res: dict[str, np.ndarray], mask: np.ndarray | None = None) -> None:
    quiet = res["quiet"] if mask is None else res["quiet"] & mask
    for est in LOCATIONS:
        ok, why = _quiet_ok(res[est], quiet)
        assert ok, (est, why)


# ------------------------------------------------------------------ the classes


@pytest.mark.slow
def test_long_range_fgn_h08_n2000() -> None:
    sim = simulate_dependent(2000, "fgn", hurst=0.8, size=200, rng=20)
    t = sim.truth
    res = _run(sim.x, {"median": t.median, "mean": t.mean, "trimmed_mean": t.trimmed_mean})
    _check(res)
    # it is found (a serious finding on nearly every series) and the widened interval is
    # honest too: 57% coverage before, 91-96% now over all 200 series
    assert res["quiet"].mean() <= 0.05
    for est in LOCATIONS:
        assert res[est].mean() >= 0.88, est


@pytest.mark.slow
@pytest.mark.parametrize(("d", "seed"), [(0.2, 31), (0.3, 32)])
def test_long_range_arfima_n2000(d: float, seed: int) -> None:
    # long memory of another shape than fGn (ARFIMA(0, d, 0), H = d + 1/2: weaker short
    # lags). Quiet series are those the long-memory test misses; their fitted memory
    # parameter is allowed for when it is at least 0.1. Quiet wrong intervals: 2-6.5% of
    # all series before, 1-4.5% now (the quiet ones cover 74-83%, the binomial test
    # of 90% is not passed at d = 0.2 for the mean: long memory of this strength cannot
    # always be told from short memory at 2000 samples)
    x = 1000.0 * (1.0 + 0.01 * arfima(2000, d, size=200, rng=seed))
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    assert res["quiet"].mean() <= 0.25
    for est in LOCATIONS:
        assert float(np.mean(res["quiet"] & ~res[est])) <= 0.05, est
        assert res[est].mean() >= 0.9, est


@pytest.mark.slow
def test_weak_long_memory_arfima_01_n2000() -> None:
    # d = 0.1 (H = 0.6): block means keep a lag-1 correlation of ~0.15 at every length,
    # which the subsession rule accepts, and the test has little power. A gap that stays
    # (methods page): 82% of series are quiet and their intervals cover 80-87% (67-78%
    # before the fitted d was allowed for); over all series 84-90% (73-82% before)
    x = 1000.0 * (1.0 + 0.01 * arfima(2000, 0.1, size=200, rng=30))
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    for est in LOCATIONS:
        assert res[est].mean() >= 0.8, est
        assert float(np.mean(res["quiet"] & ~res[est])) <= 0.17, est
    assert float(np.mean(res["quiet"] & ~res["median"])) <= 0.12


@pytest.mark.slow
def test_long_range_fgn_h08_n800_is_allowed_for() -> None:
    # below 1000 samples the long-memory test is not run (too little power), but from 500
    # on the fit's memory parameter is allowed for when d >= 0.1: quiet wrong intervals
    # 14-15% of all series before, about 6% now (the quiet ones still cover only ~84%:
    # the methods page says so)
    x = 1000.0 * (1.0 + 0.01 * fgn(800, 0.8, size=150, rng=1))
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    for est in LOCATIONS:
        assert float(np.mean(res["quiet"] & ~res[est])) <= 0.09, est


@pytest.mark.slow
def test_slow_wander_under_white_noise_n2000() -> None:
    # a CI machine's slow drift under measurement noise: white noise plus an AR(1) with
    # phi = 0.995 of a fifth of its sd. Lag 1 is ~0.04, so the subsession rule took the
    # samples as independent: 74% of the series were quiet and their intervals covered
    # 50-57% (32-37% of all series quiet and wrong). The variance-time curve's longest
    # blocks now carry the interval where they vary more than 2.5 times as much as the
    # short ones imply: the quiet ones cover 86-87%, 10-10.5% of all series quiet and
    # wrong (the long blocks are still correlated: a gap that stays, methods page)
    rng = np.random.default_rng(12)
    rng.standard_normal((200, 2000))
    slow = (_ar1(2000, 0.995, 200, rng) - 1000.0) / 10.0
    x = 1000.0 + 10.0 * (rng.standard_normal((200, 2000)) + 0.2 * slow)
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    for est in LOCATIONS:
        assert float(np.mean(res["quiet"] & ~res[est])) <= 0.13, est


@pytest.mark.slow
def test_slow_wander_under_heavy_tailed_delays_n2000() -> None:
    # the wander above, of the typical sample, under delays in 8% of the samples with
    # Pareto(1.5) sizes: the delays swamp the samples' variance-time curve, so the mean's
    # large-scale rule did not fire and 98% of the series were quiet with median
    # intervals covering 58%. The indicator 1{x <= median}'s curve sees the wander (the
    # bulk rule; batch medians carry the median's interval): quiet coverage 88%. The
    # truth is the median of the process, from 500 series of 4000 samples
    def make(n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
        slow = (_ar1(n, 0.995, reps, rng) - 1000.0) / 10.0
        base = rng.standard_normal((reps, n))
        delays = (rng.random((reps, n)) < 0.08) * rng.pareto(1.5, (reps, n)) * 8.0
        return 1000.0 + 2.0 * (base + 0.3 * slow) + delays

    truth = float(np.median(make(4000, 500, np.random.default_rng(99))))
    x = make(2000, 300, np.random.default_rng(5))
    quiet = np.zeros(x.shape[0], bool)
    hit = np.zeros(x.shape[0], bool)
    for r in range(x.shape[0]):
        dep = assess_dependence(x[r])
        e = estimate(x[r], "median", dependence=dep, rng=r)
        quiet[r] = not dep.serious
        hit[r] = e.ci_low <= truth <= e.ci_high
    # since 27 November the long-memory checks also read the ranks' normal scores, which
    # the delays do not swamp: the series get the verdicts of the same wander without
    # delays (46% quiet there): 59% quiet here, 58% of 400 other series. At 2000 samples
    # the wander of phi = 0.995 is a random walk in many series, which are refused as
    # too short for it; they were covered, so the quiet coverage is of harder series:
    # 0.84 here, 0.90 on the 400. Quiet and wrong stay ~9% of all series, as before:
    # nothing in them shows the wander (methods page)
    assert quiet.mean() >= 0.4
    assert np.mean(quiet & ~hit) <= 0.10, np.mean(quiet & ~hit)
    assert hit.mean() >= 0.88, hit.mean()


def _delays(shape: tuple[int, ...], rng: np.random.Generator, rate: float) -> np.ndarray:
    """lognormal(2.5, 1) delays in a share ``rate`` of the samples (at independent times)."""
    return np.exp(rng.normal(2.5, 1.0, shape)) * (rng.random(shape) < rate)


@pytest.mark.slow
def test_long_range_under_heavy_tailed_delays_n2000() -> None:
    # fGn H = 0.8 (the long-range class, 0% quiet on its own) with 10% of the
    # samples delayed by lognormal amounts (median ~6 sd of the noise): the delays swamp
    # the samples' periodogram and variance-time curve, and 98.7% of these series were
    # quiet, their median, mean and trimmed-mean intervals wrong in 15%, 8% and 18% of
    # all series. The long-memory checks on the normal scores of the ranks see through
    # the delays: 6% quiet, wrong in 0.7-1.3%. The marginal does not depend on the
    # dependence, so the truths are those of 4 * 10^6 independent draws of it (the mean's
    # exactly: E lognormal(2.5, 1) = e^3)
    rng = np.random.default_rng(30)
    big = 2.0 * rng.standard_normal(4_000_000) + _delays((4_000_000,), rng, 0.1)
    truth = {
        "median": 1000.0 + float(np.median(big)),
        "mean": 1000.0 + 0.1 * math.exp(3.0),
        "trimmed_mean": 1000.0 + float(stats.trim_mean(big, 0.05)),
    }
    x = 1000.0 + 2.0 * fgn(2000, 0.8, size=150, rng=31) + _delays((150, 2000), rng, 0.1)
    res = _run(x, truth)
    _check(res)
    for est in LOCATIONS:
        assert np.mean(res["quiet"] & ~res[est]) <= 0.05, est
        assert res[est].mean() >= 0.9, (est, res[est].mean())


@pytest.mark.slow
def test_weak_long_memory_under_frequent_delays_n2000() -> None:
    # ARFIMA(0, 0.2, 0) of sd 2 with lognormal(2.5, 1) delays in 20% of the samples: the
    # delays hold the top fifth of the ranks, and their scores are white noise on the
    # bulk's, which pulls the long-memory fit's d down (it has no noise term). The memory
    # showed in 67% of 150 series and 9.3% were quiet and wrong (median interval); the
    # scores of the bulk alone (the samples far from it left out) show it in 83%, 5.3%
    # quiet and wrong. On i.i.d. noise with the same delays they show no more memory.
    from tsanalyze.stats.autocorrelation import lag1
    from tsanalyze.stats.memory_call import memory_call
    from tsanalyze.stats.variance_time import CurveFits

    rng = np.random.default_rng(40)
    big = 2.0 * rng.standard_normal(4_000_000) + _delays((4_000_000,), rng, 0.2)
    truth = 1000.0 + float(np.median(big))
    x = 1000.0 + 2.0 * arfima(2000, 0.2, size=150, rng=41) + _delays((150, 2000), rng, 0.2)
    quiet, hit, shown = [], [], []
    for i, row in enumerate(x):
        dep = assess_dependence(row)
        e = estimate(row, "median", dependence=dep, rng=i)
        quiet.append(not dep.serious)
        hit.append(e.ci_low <= truth <= e.ci_high)
        shown.append(dep.memory_in != "none")
    q, h = np.array(quiet), np.array(hit)
    assert np.mean(shown) >= 0.75, np.mean(shown)
    assert np.mean(q & ~h) <= 0.07, np.mean(q & ~h)
    null = 1000.0 + 2.0 * rng.standard_normal((150, 2000)) + _delays((150, 2000), rng, 0.2)
    calls = [memory_call(a, lag1(a), CurveFits(a)) for a in null]
    assert sum(c.lrd for c in calls) <= 5


def _bursty(
    n: int, reps: int, rates: tuple[float, float], sojourn: float, rng: np.random.Generator
) -> np.ndarray:
    """Gaussian noise plus lognormal(2.5, 1) delays whose rate switches between
    ``rates`` as a stationary two-state Markov chain (mean sojourn ``sojourn`` in each)."""
    state = markov_modes(n, (sojourn, sojourn), size=reps, rng=rng)
    p = np.where(state == 1, rates[1], rates[0])
    delays = (rng.random((reps, n)) < p) * np.exp(rng.normal(2.5, 1.0, (reps, n)))
    return 1000.0 + rng.standard_normal((reps, n)) + delays


@pytest.mark.slow
def test_bursty_delays_n2000() -> None:
    # delays whose rate switches between 2% and 20% of the samples (sojourns of ~200
    # samples): the median and the mean move with the rate. The samples' curve (swamped by
    # the delays), the ranks and the bulk indicator's curve missed the switching in a
    # quarter of the series, whose intervals then took the samples as independent: quiet
    # median intervals covered 89%, the mean's 84% (1000 series; 8% and 12% of all series
    # quiet and wrong). The curve of the share of samples far from the bulk sees it:
    # 92.5% and 90% (5.6% and 7.5%). The truths: those of the marginal, noise plus delays
    # at the mean rate of 11% (the median's by root-finding its distribution function)
    rng = np.random.default_rng(70)
    x = _bursty(2000, 300, (0.02, 0.2), 200.0, rng)
    z, w = np.polynomial.hermite_e.hermegauss(80)
    cdf = lambda q: 0.89 * stats.norm.cdf(q) + 0.11 * float(  # noqa: E731
        w @ stats.norm.cdf(q - np.exp(2.5 + z)) / w.sum()
    )
    big = rng.standard_normal(4_000_000) + np.exp(rng.normal(2.5, 1.0, 4_000_000)) * (
        rng.random(4_000_000) < 0.11
    )
    truth = {
        "median": 1000.0 + float(optimize.brentq(lambda q: cdf(q) - 0.5, -5.0, 10.0)),
        "mean": 1000.0 + 0.11 * math.exp(3.0),
        "trimmed_mean": 1000.0 + float(stats.trim_mean(big, 0.05)),
    }
    res = _run(x, truth)
    seen = np.array([(d.serious or d.large_scale) for d in map(assess_dependence, x)])
    # the switching is seen (a serious finding, or the longest blocks carry the interval)
    # in 87% of 1000 series (74% before); of these 300, 88% (76% on the code before, whose
    # mean's and trimmed mean's intervals were quiet and wrong in 10.3% and 13% of them)
    assert seen.mean() >= 0.82, seen.mean()
    ok, why = _quiet_ok(res["median"], res["quiet"])
    assert ok, why
    # the mean's and trimmed mean's quiet intervals cover ~90% (blocks of n / 8 are
    # about one sojourn: their means are still correlated; methods page)
    for est in LOCATIONS:
        assert np.mean(res["quiet"] & ~res[est]) <= 0.09, (est, np.mean(res["quiet"] & ~res[est]))


@pytest.mark.slow
def test_a_cycle_keeps_its_intervals_quiet_n2000() -> None:
    # white noise plus a sine of half its sd with a period of 300 samples (random phase):
    # the long-memory test took the cycle's spectral peak for long memory in 49% of the
    # series (serious findings, median intervals 3.7 times wider than needed, covering
    # 100%). The cycle is set aside for the checks: quiet again, and still covering
    rng = np.random.default_rng(63)
    phase = rng.uniform(0.0, 2.0 * math.pi, (150, 1))
    x = 1000.0 + rng.standard_normal((150, 2000)) + 0.5 * np.sin(2 * math.pi * np.arange(2000) / 300 + phase)
    # the truths: the marginal's (a sine with a uniform phase is symmetric about 0)
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    assert res["quiet"].mean() >= 0.9
    _check(res)


@pytest.mark.slow
def test_three_scale_ar_sum_n2000() -> None:
    sim = simulate_dependent(2000, "ar-sum", phis=(0.6, 0.96, 0.996), size=200, rng=21)
    t = sim.truth
    res = _run(sim.x, {"median": t.median, "mean": t.mean, "trimmed_mean": t.trimmed_mean})
    _check(res)
    assert res["quiet"].mean() <= 0.05


@pytest.mark.slow
@pytest.mark.parametrize("n", [200, 50])
def test_markov_modes(n: int) -> None:
    # two modes 5% apart, mean sojourns 100 and 43. A series that never switched is an
    # i.i.d. sample of one mode: nothing in it shows the other (10% of series at n = 200,
    # 52% at n = 50), and one that visited the other mode for under 5% of its samples
    # (1 to 9 samples at n = 200) shows it as a few outliers; the claim is about the
    # series that show both modes.
    rng = np.random.default_rng(22 + n)
    reps = 300
    s = markov_modes(n, (100.0, 43.0), size=reps, rng=rng)
    x = 1000.0 * (1.0 + 0.05 * s + 0.01 * rng.standard_normal(s.shape))
    t = simulate_dependent(10, "markov-modes", rng=1).truth
    res = _run(x, {"median": t.median, "mean": t.mean, "trimmed_mean": t.trimmed_mean})
    share = s.mean(axis=1)
    both = np.minimum(share, 1.0 - share) * n >= max(3.0, 0.05 * n)
    _check(res, both)


@pytest.mark.slow
def test_overlapping_modes_n2000() -> None:
    # two modes two noise sds apart (their mixture has one density mode), switching as a
    # Markov chain with sojourns of ~300: the samples' density showed no modes, so half
    # of the series were quiet ("short-range", blocks of ~125) and their median intervals
    # covered 68%, the mean's 89% (16% of all series quiet and wrong). The means of
    # blocks of 4-32 samples separate the levels: (nearly) every series gets the serious
    # regime-switching finding now
    rng = np.random.default_rng(80)
    reps, gap = 150, 2.0
    x = 100.0 + gap * markov_modes(2000, (300.0, 300.0), size=reps, rng=rng)
    x = x + rng.standard_normal(x.shape)
    truth = 100.0 + gap / 2  # median and mean of the symmetric mixture
    quiet = np.zeros(reps, bool)
    hit = {"median": np.zeros(reps, bool), "mean": np.zeros(reps, bool)}
    for r in range(reps):
        dep = assess_dependence(x[r])
        quiet[r] = not dep.serious
        for est in hit:
            e = estimate(x[r], est, dependence=dep)  # type: ignore[arg-type]
            hit[est][r] = e.ci_low <= truth <= e.ci_high
    for est in hit:
        ok, why = _quiet_ok(hit[est], quiet)
        assert ok, (est, why)
    assert quiet.mean() <= 0.1, quiet.mean()


@pytest.mark.slow
@pytest.mark.parametrize("n", [200, 50])
def test_ar1_097_short(n: int) -> None:
    x = _ar1(n, 0.97, 200, np.random.default_rng(24 + n))
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    _check(res)
    assert res["quiet"].mean() <= 0.05  # effective sample size ~3 (n = 200) or less


@pytest.mark.slow
def test_multi_scale_ar_sum_n50() -> None:
    # at n = 50 the slowest component (phi = 0.996, correlation time ~250 samples) is a
    # level offset that nothing in the series shows; what can be claimed is that quiet
    # wrong intervals became rare: 11-16% of all series before issue 20 (quiet 29%,
    # covering 40-47%), at most 8% now
    sim = simulate_dependent(50, "ar-sum", size=200, rng=26)
    res = _run(sim.x, dict.fromkeys(LOCATIONS, 1000.0))
    for est in LOCATIONS:
        quiet_miss = float(np.mean(res["quiet"] & ~res[est]))
        assert quiet_miss <= 0.08, (est, quiet_miss)


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="at n = 50 a third of fGn(H = 0.8) series get no serious finding (about a fifth "
    "have lag-1 below 1.64/sqrt(50) and look i.i.d.) and their intervals cover 46-58% "
    "(27 November 2026, seeds 27 and 28); no rule flags them without flagging many i.i.d. "
    "series (issue 20 note)",
)
def test_long_range_fgn_h08_n50() -> None:
    sim = simulate_dependent(50, "fgn", hurst=0.8, size=200, rng=27)
    res = _run(sim.x, dict.fromkeys(LOCATIONS, 1000.0))
    _check(res)


# ------------------------------------------------------------------------ plain cases


@pytest.mark.slow
def test_plain_ar1_05_stays_quiet() -> None:
    # no serious finding on >= 90% of stationary AR(1) phi = 0.5 series at n = 2000 (the
    # issue's plain case; 100% measured). At n = 200 a variance-time curve of 9 block
    # lengths sometimes passes for long memory, and the series is then refused as too
    # short for it: 88-92% quiet measured, so >= 85% is asserted
    rng = np.random.default_rng(28)
    # (n = 500: the long-memory fit's d is allowed for from 500 samples; 99% measured)
    for n, reps, least in ((2000, 100, 0.9), (500, 100, 0.9), (200, 200, 0.85)):
        x = _ar1(n, 0.5, reps, rng)
        quiet = np.array([not assess_dependence(row).serious for row in x])
        assert quiet.mean() >= least, (n, quiet.mean())
    # i.i.d. Gaussian at n = 50: false alarms stay rare
    iid = 1000 + 10 * rng.standard_normal((200, 50))
    assert np.mean([assess_dependence(row).serious for row in iid]) <= 0.1


@pytest.mark.slow
def test_plain_ar1_097_n2000_keeps_its_coverage() -> None:
    # AR(1) phi = 0.97 at n = 2000: short-range, ~30 effective samples; the intervals
    # are today's (92.5% for the median before issue 20). Measured 76% quiet: Geyer's
    # correlation time, noisy upwards, leaves under 20 effective samples in ~10% (too
    # short), the long-memory test rejects in ~10% and a wandering level looks like
    # two modes in ~5%; all three say so, and the quiet ones still cover >= 90%
    x = _ar1(2000, 0.97, 200, np.random.default_rng(29))
    res = _run(x, dict.fromkeys(LOCATIONS, 1000.0))
    _check(res)
    assert res["quiet"].mean() >= 0.70
    for est in LOCATIONS:
        assert 0.90 <= res[est].mean() <= 0.985, (est, res[est].mean())
