"""Welch from summary statistics, minimum detectable effect, CI consistency."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from tsanalyze.stats.summary_tests import (
    ci_consistency,
    ci_overlap,
    minimum_detectable_effect,
    welch_from_summary,
)


def test_welch_matches_scipy_on_raw_samples() -> None:
    rng = np.random.default_rng(11)
    a = rng.normal(100.0, 3.0, 20)
    b = rng.normal(103.0, 6.0, 15)
    r = welch_from_summary(a.mean(), a.std(ddof=1), a.size, b.mean(), b.std(ddof=1), b.size)
    # reference: scipy.stats.ttest_ind(equal_var=False) on the raw samples
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.df == pytest.approx(ref.df, rel=1e-10)
    # reference: the CI of mean(a) - mean(b) from scipy, negated for mean(b) - mean(a)
    ci = ref.confidence_interval(0.95)
    assert r.ci_low == pytest.approx(-ci.high, rel=1e-10)
    assert r.ci_high == pytest.approx(-ci.low, rel=1e-10)
    assert r.estimate == pytest.approx(b.mean() - a.mean())
    one = welch_from_summary(
        a.mean(), a.std(ddof=1), a.size, b.mean(), b.std(ddof=1), b.size, alternative="less"
    )
    assert one.pvalue == pytest.approx(
        stats.ttest_ind(a, b, equal_var=False, alternative="less").pvalue
    )


def test_welch_hand_formula() -> None:
    # Welch (1947) by hand: m1=10, s1=2, n1=12; m2=12, s2=3, n2=9
    v1, v2 = 4 / 12, 9 / 9
    t = (10 - 12) / math.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / (v1**2 / 11 + v2**2 / 8)
    p = 2 * stats.t.sf(abs(t), df)
    r = welch_from_summary(10, 2, 12, 12, 3, 9)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.df == pytest.approx(df, rel=1e-12)
    assert r.pvalue == pytest.approx(p, rel=1e-10)


def test_welch_is_scale_free_down_to_tiny_sds() -> None:
    # hypothesis found sd = 1.2e-122 (vs sd 0): v² underflowed to 0 and df divided by zero
    ref = welch_from_summary(1.0, 0.3, 12, 1.2, 0.5, 9)
    for scale in (1e-122, 1e-150, 1e150):
        r = welch_from_summary(1.0 * scale, 0.3 * scale, 12, 1.2 * scale, 0.5 * scale, 9)
        assert r.df == pytest.approx(ref.df, rel=1e-12)
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-9)
    one_tiny = welch_from_summary(1.0, 1.174284271398686e-122, 2, 1.0, 0.0, 2)
    assert one_tiny.df == pytest.approx(1.0) and one_tiny.pvalue == 1.0


def test_welch_edges() -> None:
    same = welch_from_summary(5.0, 0.0, 10, 5.0, 0.0, 10)
    assert same.pvalue == 1.0
    diff = welch_from_summary(5.0, 0.0, 10, 6.0, 0.0, 10)
    assert diff.pvalue == 0.0 and diff.estimate == 1.0
    with pytest.raises(ValueError, match="n1"):
        welch_from_summary(1, 1, 1, 2, 1, 10)
    with pytest.raises(ValueError, match="sd2"):
        welch_from_summary(1, 1, 10, 2, -1, 10)
    with pytest.raises(ValueError, match="mean1"):
        welch_from_summary(float("nan"), 1, 10, 2, 1, 10)
    with pytest.raises(ValueError, match="alternative"):
        welch_from_summary(1, 1, 10, 2, 1, 10, alternative="both")  # type: ignore[arg-type]
    # nasty: 1e9 + tiny differences
    r = welch_from_summary(1e9, 1e-3, 20, 1e9 + 1e-3, 1e-3, 20)
    assert 0.0 <= r.pvalue <= 1.0


@settings(max_examples=60, deadline=None)
@given(
    st.floats(1e-3, 1e6), st.floats(1e-6, 1e3), st.integers(2, 500),
    st.floats(1e-3, 1e6), st.floats(1e-6, 1e3), st.integers(2, 500),
)  # fmt: skip
def test_welch_pvalue_in_unit_interval_and_ci_contains_estimate(
    m1: float, s1: float, n1: int, m2: float, s2: float, n2: int
) -> None:
    r = welch_from_summary(m1, s1, n1, m2, s2, n2)
    assert 0.0 <= r.pvalue <= 1.0
    assert r.ci_low <= r.estimate <= r.ci_high


def test_mde_formula_and_large_n_limit() -> None:
    r = minimum_detectable_effect(2.0, 20, mean=100.0)
    # reference: statsmodels noncentral-t solution; the MDE is d * sd
    assert r.estimate == pytest.approx(2.0 * r.effect_size)
    assert r.relative == pytest.approx(r.estimate / 100.0)
    # large n: (z_{1-α/2} + z_power) sd sqrt(2/n) (normal approximation)
    big = minimum_detectable_effect(1.0, 100_000)
    approx = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * math.sqrt(2 / 100_000)
    assert big.estimate == pytest.approx(approx, rel=1e-3)
    # n = 162 takes statsmodels' fallback root finder (it returns an array there)
    r162 = minimum_detectable_effect(1.0, 162)
    assert isinstance(r162.estimate, float)
    assert minimum_detectable_effect(1.0, 161).estimate > r162.estimate
    assert r162.estimate > minimum_detectable_effect(1.0, 163).estimate
    with pytest.raises(ValueError, match="sd"):
        minimum_detectable_effect(0.0, 20)
    with pytest.raises(ValueError, match="n"):
        minimum_detectable_effect(1.0, 1)
    with pytest.raises(ValueError, match="power"):
        minimum_detectable_effect(1.0, 20, power=1.0)


@pytest.mark.slow
def test_mde_has_its_power_monte_carlo() -> None:
    # Monte-Carlo: at a true difference equal to the MDE, Welch rejects ~80% of the time
    rng = np.random.default_rng(5)
    n, reps = 20, 4000
    mde = minimum_detectable_effect(1.0, n).estimate
    a = rng.normal(0.0, 1.0, (reps, n))
    b = rng.normal(mde, 1.0, (reps, n))
    p = stats.ttest_ind(a, b, axis=1, equal_var=False).pvalue
    power = float((p < 0.05).mean())
    # binomial sd at 0.8 with 4000 reps is 0.0063; Welch vs pooled t differ slightly
    assert power == pytest.approx(0.8, abs=0.03)


def test_ci_consistency_t_interval_is_consistent() -> None:
    rng = np.random.default_rng(8)
    x = rng.normal(50.0, 4.0, 25)
    m, s = x.mean(), x.std(ddof=1)
    # reference: scipy's t-interval of the mean
    lo, hi = stats.t.interval(0.95, x.size - 1, loc=m, scale=s / math.sqrt(x.size))
    r = ci_consistency(m, s, x.size, lo, hi)
    assert r.ratio == pytest.approx(1.0, rel=1e-10)
    assert r.implied_sd == pytest.approx(s, rel=1e-10)
    assert r.consistent and r.warnings == ()


def test_ci_consistency_flags_sd_reported_as_se() -> None:
    # a common error: mean ± sd presented as if it were a CI half-width / 10
    r = ci_consistency(100.0, 5.0, 20, 99.5, 100.5)
    assert not r.consistent
    assert r.warning_codes == ("ci-too-narrow",)
    assert r.warnings[0].severity == "serious"
    wide = ci_consistency(100.0, 5.0, 20, 80.0, 120.0)
    assert wide.warning_codes == ("ci-too-wide",) and wide.consistent
    off = ci_consistency(100.0, 5.0, 20, 101.0, 105.0)
    assert "ci-excludes-location" in off.warning_codes
    with pytest.raises(ValueError, match="ci_high"):
        ci_consistency(100.0, 5.0, 20, 105.0, 101.0)
    # with the unit of the numbers, each width and bound is a time: 0.1 ms is 100 µs
    expected = stats.t.ppf(0.975, 19) * 5.0 / math.sqrt(20)
    in_ms = ci_consistency(0.1, 0.005, 20, 0.0995, 0.1005, unit="ms")
    assert in_ms.warnings[0].message == (
        f"claimed 95% CI half-width 500 ns is 0.21 x the {float(f'{expected:.4g}'):g} µs that sd 5 µs "
        "and n 20 imply"
    )
    off_us = ci_consistency(100.0, 5.0, 20, 101.0, 105.0, unit="us").warnings[-1].message
    assert off_us == "claimed CI [101 µs, 105 µs] does not contain the location 100 µs"
    assert "[101, 105]" in off.warnings[-1].message  # no unit given: bare numbers
    with pytest.raises(ValueError, match="n"):
        ci_consistency(100.0, 5.0, 1, 95.0, 105.0)


def test_ci_overlap() -> None:
    assert ci_overlap(1, 2, 2, 3)
    assert ci_overlap(1, 5, 2, 3)
    assert not ci_overlap(1, 2, 2.5, 3)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5000), st.floats(0.5, 0.99), st.floats(1e-4, 0.2))
def test_mde_has_the_requested_power(n: int, power: float, alpha: float) -> None:
    from statsmodels.stats.power import TTestIndPower

    r = minimum_detectable_effect(1.0, n, power=power, alpha=alpha)
    # reference: statsmodels' power function evaluated at the solved effect size
    achieved = TTestIndPower().power(effect_size=r.effect_size, nobs1=n, alpha=alpha)
    assume(np.isfinite(achieved))  # statsmodels gives NaN far in the tail at tiny n
    assert achieved == pytest.approx(power, abs=1e-6)


def test_power_far_in_the_tail_monte_carlo() -> None:
    # scipy's noncentral t is NaN here (df = 2, nc = 8 and 20); the integral fallback must
    # match a Monte-Carlo of the pooled two-sample t-test (measured: 0.398 and 0.956)
    from tsanalyze.stats.summary_tests import _t_test_power

    rng = np.random.default_rng(1)
    reps, alpha = 100_000, 0.0078125
    for d in (8.0, 20.0):
        a = rng.normal(0.0, 1.0, (reps, 2))
        b = rng.normal(d, 1.0, (reps, 2))
        mc = float((stats.ttest_ind(a, b, axis=1).pvalue < alpha).mean())
        assert _t_test_power(d, 2, alpha) == pytest.approx(mc, abs=0.006)
    # and it agrees with statsmodels where statsmodels is finite
    from statsmodels.stats.power import TTestIndPower

    ref = TTestIndPower().power(effect_size=0.5, nobs1=2, alpha=alpha)
    assert _t_test_power(0.5, 2, alpha) == pytest.approx(ref, rel=1e-9)
