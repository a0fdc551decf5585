"""The indicators' large-scale check (stats/exceedance.py): the delay indicator, the
variance-time ratios it reads, and the dependence assessment's use of them on a delay
rate that switches."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from tsanalyze.datasets_dependent import markov_modes
from tsanalyze.stats.dependence import assess_dependence
from tsanalyze.stats.estimators import estimate
from tsanalyze.stats.exceedance import (
    LARGE_SCALE_INDICATOR_RATIO,
    MIN_FAR,
    far_from_bulk,
    far_indicator,
    varies_at_large_scale,
)
from tsanalyze.stats.variance_time import curve_top, variance_curve


def _bursty(n: int, reps: int, rates: tuple[float, float], rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise plus lognormal(2.5, 1) delays at a rate switching between ``rates``
    (two-state Markov chain, mean sojourn 200 samples in each)."""
    state = markov_modes(n, (200.0, 200.0), size=reps, rng=rng)
    p = np.where(state == 1, rates[1], rates[0])
    return (
        1000.0
        + rng.standard_normal((reps, n))
        + (rng.random((reps, n)) < p) * np.exp(rng.normal(2.5, 1.0, (reps, n)))
    )


def _obm_ratio(y: np.ndarray, b: int) -> float:
    """b var_b / var_1 by overlapping batch means, written out window by window."""
    d = y - y.mean()
    means = np.array([d[t : t + b].mean() for t in range(y.size - b + 1)])
    return b * float(np.mean(means**2)) / float(np.mean(d**2))


def test_far_from_bulk_is_beyond_three_robust_sds() -> None:
    rng = np.random.default_rng(1)
    x = (
        1000.0
        + rng.standard_normal(2000)
        + (rng.random(2000) < 0.1) * np.exp(rng.normal(2.5, 1.0, 2000))
    )
    far = far_from_bulk(x)
    assert far is not None
    s = stats.median_abs_deviation(x, scale="normal")
    expected = np.abs(x - np.median(x)) > 3.0 * s
    assert np.array_equal(far.astype(bool), expected)
    # ... the delays, nearly all of them (lognormal(2.5, 1) above 3: 98.7%) and little else
    assert 0.09 <= far.mean() <= 0.11
    assert far_from_bulk(x, float(np.median(x))) is not None


def test_far_from_bulk_needs_enough_far_samples() -> None:
    rng = np.random.default_rng(2)
    # a Gaussian bulk puts 0.3% of its samples beyond 3 sds: 6 of 2000, too few to read a rate
    assert far_from_bulk(rng.standard_normal(2000)) is None
    # 1.5% of 1000 samples but fewer than MIN_FAR of them
    x = rng.standard_normal(1000)
    x[:15] += 50.0
    assert 15 < MIN_FAR and far_from_bulk(x) is None
    # no spread in the bulk (MAD 0): no scale to measure "far" by
    assert far_from_bulk(np.r_[np.full(100, 5.0), np.arange(30.0)]) is None


def test_an_indicator_made_once_is_read_as_if_made_anew() -> None:
    # the dependence assessment makes the far indicator once and hands it to the regime
    # check and the delay indicator's check: the same answer as each making its own
    rng = np.random.default_rng(4)
    x = 1000.0 + rng.standard_normal(2000)
    x[::40] += 30.0  # 50 far samples (2.5%)
    ind = far_indicator(x)
    assert ind is not None
    s = stats.median_abs_deviation(x, scale="normal")
    assert np.array_equal(ind.astype(bool), np.abs(x - np.median(x)) > 3.0 * s)
    for min_far in (3, MIN_FAR, 60):
        made = far_from_bulk(x, min_far=min_far)
        given = far_from_bulk(x, min_far=min_far, indicator=ind)
        assert (made is None) == (given is None) == (min_far > 50)
        if made is not None and given is not None:
            assert np.array_equal(made, given)
    assert far_indicator(np.r_[np.full(100, 5.0), np.arange(30.0)]) is None


def test_curve_top_is_the_full_curves_ends() -> None:
    rng = np.random.default_rng(3)
    for n in (16, 40, 500, 2000, 60_000):
        y = (rng.random(n) < 0.2).astype(np.float64)
        bs, _, ratios = variance_curve(y, 8)
        mid = float(np.interp(math.log(bs[-1] / 16.0), np.log(bs), ratios))
        assert curve_top(y, 8) == pytest.approx((float(ratios[-1]), mid), rel=1e-12)
    # and the ratio is that of overlapping windows, written out
    y = (rng.random(400) < 0.3).astype(np.float64)
    assert curve_top(y, 8)[0] == pytest.approx(_obm_ratio(y, 45), rel=1e-9)
    assert all(math.isnan(v) for v in curve_top(np.ones(100), 8))


def test_an_indicator_whose_rate_switches_varies_at_large_scale() -> None:
    # an indicator with mean 0.02 or 0.2 in stretches of ~200: its means of 250 samples
    # vary ~10 times as much as independent ones, its means of 16 ~2 times
    rng = np.random.default_rng(4)
    state = markov_modes(2000, (200.0, 200.0), size=20, rng=rng)
    ind = (rng.random((20, 2000)) < np.where(state == 1, 0.2, 0.02)).astype(np.float64)
    assert sum(varies_at_large_scale(row, 1.0) for row in ind) >= 17
    # ... not when the chosen blocks already imply that much variance
    assert not any(varies_at_large_scale(row, 100.0) for row in ind)


def test_an_independent_indicator_does_not() -> None:
    # i.i.d. Bernoulli at 2-50%: the top ratio's 99% point is about 2 (the threshold)
    rng = np.random.default_rng(5)
    fired = sum(
        varies_at_large_scale((rng.random(2000) < p).astype(np.float64), 1.0)
        for p in (0.02, 0.1, 0.5)
        for _ in range(100)
    )
    assert fired <= 6
    assert not varies_at_large_scale(np.zeros(100), 1.0)
    assert LARGE_SCALE_INDICATOR_RATIO == 2.0


def test_a_switching_delay_rate_carries_the_interval() -> None:
    # delays whose rate switches between 2% and 20%: where the samples' and the bulk's
    # curves miss it, the delay indicator's shows it, and the longest blocks carry the
    # intervals, with a finding that says why
    x_all = _bursty(2000, 20, (0.02, 0.2), np.random.default_rng(6))
    deps = [assess_dependence(r) for r in x_all]
    seen = [i for i, d in enumerate(deps) if d.large_scale_in == "delays"]
    assert len(seen) >= 2
    x, dep = x_all[seen[0]], deps[seen[0]]
    assert dep.large_scale and not dep.serious and dep.block_size == 181
    (msg,) = [f.message for f in dep.findings if f.code == "large-scale-variance"]
    assert "rate of the largest samples switches" in msg and "delays" in msg
    short = dataclasses.replace(dep, block_size=1, n_blocks=x.size)
    for est in ("median", "mean"):
        wide = estimate(x, est, dependence=dep, rng=1)
        narrow = estimate(x, est, dependence=short, rng=1)
        assert wide.method.endswith("-large-scale")
        assert wide.ci_low <= narrow.ci_low and wide.ci_high >= narrow.ci_high


def test_a_constant_delay_rate_is_left_alone() -> None:
    # the same delays at a constant 11%, t(2) and Pareto(1.5) samples: the delay
    # indicator is independent, and its rule fires at about its 1% false-alarm rate
    rng = np.random.default_rng(7)
    rows = list(_bursty(2000, 60, (0.11, 0.11), rng))
    rows += list(1000.0 + rng.standard_t(2, (40, 2000)).clip(-900, None))
    rows += list(1000.0 + rng.pareto(1.5, (40, 2000)))
    fired = sum(assess_dependence(r).large_scale_in == "delays" for r in rows)
    assert fired <= 3
