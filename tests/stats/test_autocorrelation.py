"""Autocorrelation, Ljung–Box, effective sample size and Pilot's subsession size."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _helpers import ar1 as _ar1
from hypothesis import given, settings
from hypothesis import strategies as st

import tsanalyze
from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.acf import integrated_autocorrelation_time
from tsanalyze.stats.autocorrelation import (
    Autocorrelation,
    autocorrelation,
    block_means,
    lag1,
    residual_inflation,
    subsession_block_size,
    subsession_size,
)


def _sm_acf(x: np.ndarray, nlags: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    from statsmodels.tsa.stattools import acf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # statsmodels' result_object notice
        return acf(x, nlags=nlags, fft=True, alpha=alpha)  # type: ignore[no-any-return]


def _sm_pacf(x: np.ndarray, nlags: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    from statsmodels.tsa.stattools import pacf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return pacf(x, nlags=nlags, method="ywadjusted", alpha=alpha)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ statsmodels agreement


@pytest.mark.parametrize(("phi", "n"), [(0.0, 300), (0.6, 1000), (-0.4, 257)])
def test_acf_pacf_ljungbox_match_statsmodels(phi: float, n: int) -> None:
    from statsmodels.stats.diagnostic import acorr_ljungbox

    x = _ar1(n, phi, seed=3)
    r = autocorrelation(x, confidence_level=0.9)
    nl = r.acf.size - 1
    # statsmodels acf(fft=True, alpha=0.1) and pacf(method="ywadjusted") on the same data
    acf_ref, acf_ci = _sm_acf(x, nl, 0.1)
    pacf_ref, pacf_ci = _sm_pacf(x, nl, 0.1)
    np.testing.assert_allclose(r.acf, acf_ref, atol=1e-12)
    np.testing.assert_allclose(r.acf_confint, acf_ci, atol=1e-12)
    np.testing.assert_allclose(r.pacf, pacf_ref, atol=1e-10)
    np.testing.assert_allclose(r.pacf_confint, pacf_ci, atol=1e-10)
    # statsmodels acorr_ljungbox at the same lag
    lb = acorr_ljungbox(x, lags=[r.ljungbox_lags], return_df=True)
    assert r.ljungbox_statistic == pytest.approx(float(lb["lb_stat"].iloc[0]), rel=1e-10)
    assert r.ljungbox_pvalue == pytest.approx(float(lb["lb_pvalue"].iloc[0]), rel=1e-8, abs=1e-300)
    assert r.lag1 == pytest.approx(acf_ref[1], abs=1e-12)


def test_lag1_matches_statsmodels_and_edge_cases() -> None:
    x = _ar1(500, 0.5, seed=1)
    assert lag1(x) == pytest.approx(_sm_acf(x, 1, 0.05)[0][1], abs=1e-12)
    assert math.isnan(lag1([1.0]))
    assert math.isnan(lag1([]))
    assert lag1([3.0, 3.0, 3.0]) == 0.0
    with pytest.raises(ValueError, match="x"):
        lag1(np.ones((2, 2)))


def test_block_means() -> None:
    x = np.arange(10.0)
    np.testing.assert_array_equal(block_means(x, 3), [1.0, 4.0, 7.0])
    np.testing.assert_array_equal(block_means(x, 1), x)
    assert block_means(x, 11).size == 0
    with pytest.raises(ValueError, match="m"):
        block_means(x, 0)


# ---------------------------------------------------------------------- subsession size


def _subsession_naive(x: np.ndarray, threshold: float, min_blocks: int) -> int | None:
    for m in range(1, x.size // min_blocks + 1):
        if abs(lag1(block_means(x, m))) <= threshold:
            return m
    return None


@settings(max_examples=40, deadline=None)
@given(
    phi=st.floats(-0.5, 0.95),
    n=st.integers(20, 600),
    seed=st.integers(0, 2**31),
    threshold=st.sampled_from([0.05, 0.1, 0.2]),
)
def test_subsession_size_equals_direct_definition(
    phi: float, n: int, seed: int, threshold: float
) -> None:
    x = 1e9 + _ar1(n, phi, seed)  # nanosecond-like magnitudes with tiny noise
    assert subsession_size(x, threshold) == _subsession_naive(x, threshold, 10)


def test_subsession_size_iid_ar_trend_and_short() -> None:
    assert subsession_size(_ar1(2000, 0.0, seed=5)) == 1
    m = subsession_size(_ar1(2000, 0.7, seed=5))
    assert m is not None and m > 1
    # a trend never decorrelates: a clear "no size works"
    assert subsession_size(np.arange(500.0)) is None
    assert subsession_size(np.arange(9.0)) is None  # fewer than min_blocks samples
    assert subsession_size(np.full(50, 2.0)) == 1
    assert subsession_size(_ar1(2000, 0.7, seed=5), max_m=1) is None
    with pytest.raises(ValueError, match="threshold"):
        subsession_size(np.arange(50.0), threshold=1.5)


@settings(max_examples=30, deadline=None)
@given(phi=st.floats(-0.5, 0.95), n=st.integers(20, 600), seed=st.integers(0, 2**31))
def test_subsession_block_size_follows_its_rules(phi: float, n: int, seed: int) -> None:
    from scipy.stats import rankdata

    x = 1e9 + _ar1(n, phi, seed)
    # reference: the rules written out with the direct definition of the subsession size
    mv, mr = _subsession_naive(x, 0.1, 10), _subsession_naive(rankdata(x), 0.1, 10)
    got = subsession_block_size(x)
    if mv is None or mr is None:
        assert got.block_size == max(1, n // 10) and got.subsession_size is None
        assert got.warning_codes == ("subsession-not-found",)
    else:
        m = max(mv, mr)
        assert got.subsession_size == m
        assert got.block_size == (2 * m if m > 1 and n // (2 * m) >= 8 else m)
        assert got.warning_codes == (("autocorrelated",) if m > 1 else ())
    # Pilot's plain rule: the values' subsession size, or 1 when there is none
    plain = subsession_block_size(x, min_n=4, ranks=False, widen=False, fallback_blocks=None)
    assert plain.block_size == (mv or 1)


def test_subsession_block_size_short_constant_and_labels() -> None:
    short = subsession_block_size(np.arange(19.0), label="a")
    assert short.block_size == 1 and short.warning_codes == ("independence-unchecked",)
    assert short.warnings[0].message.startswith("a: 19 values")
    assert subsession_block_size(np.full(50, 3.0)).warnings == ()
    assert subsession_block_size([]).block_size == 1
    trend = subsession_block_size(np.arange(500.0), fallback_blocks=20)
    assert trend.block_size == 25 and trend.warning_codes == ("subsession-not-found",)
    none = subsession_block_size(np.arange(500.0), fallback_blocks=None)
    assert none.block_size == 1 and "too liberal" in none.warnings[0].message
    ar = _ar1(2000, 0.7, seed=5)
    assert (
        subsession_block_size(ar, widen=False).block_size
        == subsession_block_size(ar).subsession_size
    )


# ---------------------------------------------------------------- effective sample size


def test_residual_inflation_bias_correction() -> None:
    # Monte-Carlo reference for the bias (Marriott & Pope 1954): for AR(1) rho = 0.3 and
    # k = 20 values our lag-1 estimate (denominator k) averages rho - (1 + 4 rho) / k; the
    # inverse in residual_inflation, (k r + 1) / (k - 4), brings its mean back to rho
    gen = np.random.default_rng(4)
    rho, k, reps = 0.3, 20, 20000
    e = gen.standard_normal((reps, k))
    x = np.empty_like(e)
    x[:, 0] = e[:, 0] / math.sqrt(1 - rho**2)
    for t in range(1, k):
        x[:, t] = rho * x[:, t - 1] + e[:, t]
    r = np.array([lag1(row) for row in x])
    assert r.mean() == pytest.approx(rho - (1 + 4 * rho) / k, abs=0.005)
    corrected = (k * r + 1) / (k - 4)
    assert corrected.mean() == pytest.approx(rho, abs=0.01)
    # the factor itself: (1 + r) / (1 - r) of the corrected r, floored at 1, capped r 0.9
    row = x[0]
    rc = min((k * lag1(row) + 1) / (k - 4), 0.9)
    assert residual_inflation(row) == pytest.approx(max(1.0, (1 + rc) / (1 - rc)))
    assert residual_inflation([1.0, 2.0]) == 1.0
    assert residual_inflation(np.arange(50.0)) == pytest.approx(19.0)  # r capped at 0.9
    assert residual_inflation(np.tile([1.0, -1.0], 20)) == 1.0  # negative r: no inflation


def test_integrated_time_recovers_ar1_value() -> None:
    # AR(1): tau = (1 + phi) / (1 - phi) = 3 for phi = 0.5
    x = _ar1(200_000, 0.5, seed=11)
    assert integrated_autocorrelation_time(x) == pytest.approx(3.0, rel=0.08)
    # i.i.d.: tau = 1
    assert integrated_autocorrelation_time(_ar1(200_000, 0.0, seed=11)) == pytest.approx(
        1.0, abs=0.05
    )


def test_autocorrelation_result_and_warnings() -> None:
    r = autocorrelation(_ar1(2000, 0.7, seed=2))
    assert isinstance(r, Autocorrelation)
    assert not r.independent
    assert r.subsession_size is not None and r.n_subsessions == 2000 // r.subsession_size
    assert abs(r.subsession_lag1) <= 0.1
    assert r.ljungbox_pvalue < 1e-6
    assert "autocorrelated" in r.warning_codes
    # AR(1) phi = 0.7: tau = 1.7 / 0.3 = 5.67 (checked on a longer series: at n = 2000
    # Geyer's estimate scatters by about 25%)
    long = autocorrelation(_ar1(50_000, 0.7, seed=2))
    assert long.effective_sample_size == pytest.approx(50_000 / 5.67, rel=0.1)
    frame = r.to_frame()
    assert list(frame.columns) == [
        "lag",
        "acf",
        "acf_ci_low",
        "acf_ci_high",
        "pacf",
        "pacf_ci_low",
        "pacf_ci_high",
    ]
    assert len(frame) == r.acf.size
    assert r.summary_frame().loc[0, "subsession_size"] == r.subsession_size
    assert r.to_dict()["independent"] is False

    iid = autocorrelation(_ar1(2000, 0.0, seed=2))
    assert iid.independent and iid.subsession_size == 1 and iid.warnings == ()


def test_autocorrelation_edge_cases() -> None:
    with pytest.raises(NotEnoughData):
        autocorrelation([])
    with pytest.raises(NotEnoughData):
        autocorrelation([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="index 2"):
        autocorrelation([1.0, 2.0, math.nan, 4.0, 5.0])
    with pytest.raises(ValueError, match="index 0"):
        autocorrelation([math.inf, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match="nlags"):
        autocorrelation(np.arange(1.0, 21.0), nlags=15)
    const = autocorrelation(np.full(40, 7.0))
    assert const.independent and const.ljungbox_pvalue == 1.0
    assert const.integrated_time == 1.0
    assert "constant" in const.warning_codes
    trend = autocorrelation(np.arange(1.0, 301.0))
    assert trend.subsession_size is None and not trend.independent
    assert "no-subsession-size" in trend.warning_codes
    # issue 18: times must be > 0, as in compare() (one validation path for every entry)
    with pytest.raises(ValueError, match=r"x: value at index 0 is -1\.0; times must be > 0"):
        autocorrelation([-1.0, 0.0, 2.0, -3.0])
    assert autocorrelation([1.0, 4.0, 2.0, 3.0]).n == 4


def test_public_export() -> None:
    assert tsanalyze.autocorrelation is autocorrelation


def test_levinson_durbin_pacf_is_statsmodels_to_the_last_bit() -> None:
    # issue 24: the recursion without importing statsmodels, the same numbers
    from statsmodels.tsa.stattools import levinson_durbin

    from tsanalyze.stats.acf import acf_fft, levinson_durbin_pacf

    g = np.random.default_rng(3)
    for n, phi, nlags in [(50, 0.0, 5), (1000, 0.7, 40), (400, -0.5, 1), (3000, 0.95, 60)]:
        e = g.normal(size=n)
        x = np.empty(n)
        x[0] = e[0]
        for i in range(1, n):
            x[i] = phi * x[i - 1] + e[i]
        rho = acf_fft(x, nlags, adjusted=True)
        ref = np.asarray(levinson_durbin(rho, nlags=nlags, isacov=True)[2])
        got = levinson_durbin_pacf(rho, nlags)
        assert got.tobytes() == ref.tobytes()
        if phi != 0.0 and nlags > 1:
            assert abs(got[1] - phi) < 0.1 and abs(got[2]) < 0.15  # an AR(1)'s PACF


@pytest.mark.parametrize(("lags", "seed"), [(1, 1), (10, 2), (25, 3)])
def test_ljung_box_matches_statsmodels(lags: int, seed: int) -> None:
    from statsmodels.stats.diagnostic import acorr_ljungbox

    from tsanalyze.stats.acf import acf_fft, ljung_box

    x = np.cumsum(np.random.default_rng(seed).standard_normal(300)) * 0.1 + np.random.default_rng(
        seed + 10
    ).standard_normal(300)
    q, p = ljung_box(acf_fft(x, lags), x.size, lags)
    ref = acorr_ljungbox(x, lags=[lags], return_df=True)
    assert q == pytest.approx(float(ref["lb_stat"].iloc[0]), rel=1e-10)
    assert p == pytest.approx(float(ref["lb_pvalue"].iloc[0]), rel=1e-8, abs=1e-300)
