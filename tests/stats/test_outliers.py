"""Tukey fences and Boyer's σ-blowup model."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tsanalyze
from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.outliers import (
    classify_outlier_fraction,
    outlier_variance,
    tukey_fences,
    tukey_filter,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def _pyperf_values(path: Path) -> np.ndarray:
    """Values (seconds per loop) of a pyperf JSON file; runs with only warmups are skipped."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        doc = json.load(fh)
    runs = doc["benchmarks"][0]["runs"]
    return np.array([v for r in runs for v in r.get("values", [])], dtype=np.float64)


# ----------------------------------------------------------------------------- Tukey
def test_pyperf_outliers_documented_answer() -> None:
    x = _pyperf_values(DATA / "pyperf" / "outliers.json.gz")
    # pyperf doc/analyze.rst: 60 values
    assert x.size == 60
    r = tukey_fences(x * 1e6)  # µs
    # pyperf doc/analyze.rst: "Number of outlier (out of 4.07 us..4.44 us): 9"
    assert round(r.low_mild_fence, 2) == 4.07
    assert round(r.high_mild_fence, 2) == 4.44
    assert r.n_outliers == 9
    # the documented range is the mild fence range: nothing inside it is an outlier
    inside = (x * 1e6 >= r.low_mild_fence) & (x * 1e6 <= r.high_mild_fence)
    assert set(np.flatnonzero(~inside)) == set(r.outlier_idx.tolist())


def test_tukey_classes_small_example() -> None:
    # hand computation: quartiles of 1..8 plus two extremes are 3.25 and 7.75 (linear)
    x = np.array([1, 2, 3, 4, 5, 6, 7, 8, -40.0, 22.0])
    q1, q3 = np.percentile(x, [25, 75])
    assert (q1, q3) == (2.25, 6.75)
    r = tukey_fences(x)
    # iqr 4.5: mild fences -4.5 / 13.5, severe -11.25 / 20.25
    assert r.low_mild_fence == pytest.approx(-4.5)
    assert r.high_severe_fence == pytest.approx(20.25)
    assert r.low_severe_idx.tolist() == [8]
    assert r.high_severe_idx.tolist() == [9]
    assert r.low_mild == 0 and r.high_mild == 0
    frame = r.to_frame()
    assert frame["count"].tolist() == [1, 0, 0, 1]
    assert frame["fraction"].tolist() == [0.1, 0.0, 0.0, 0.1]


def test_tukey_mild_versus_severe() -> None:
    base = np.linspace(10.0, 11.0, 21)  # q1 10.25, q3 10.75, iqr 0.5
    x = np.concatenate([base, [11.0 + 0.5 * 2.0, 11.0 + 0.5 * 5.0, 10.0 - 0.5 * 2.0]])
    r = tukey_fences(x)
    # q3 + 1.5 iqr < 12 < q3 + 3 iqr ; 13.5 > q3 + 3 iqr ; 9 < q1 - 1.5 iqr
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    assert q3 + 1.5 * iqr < 12.0 < q3 + 3 * iqr
    assert r.high_mild_idx.tolist() == [21]
    assert r.high_severe_idx.tolist() == [22]
    assert (r.low_mild + r.low_severe) == 1


def test_tukey_nasty_large_values() -> None:
    rng = np.random.default_rng(3)
    x = 1e9 + rng.normal(0.0, 1e-3, 200)
    x[17] = 1e9 + 1.0
    r = tukey_fences(x)
    assert 17 in r.high_severe_idx.tolist()
    assert r.n_outliers < 10


def test_tukey_edge_cases() -> None:
    with pytest.raises(NotEnoughData):
        tukey_fences([])
    one = tukey_fences([5.0])
    assert one.n_outliers == 0 and "few-samples" in one.warning_codes
    two = tukey_fences([5.0, 6.0])
    assert two.n_outliers == 0
    const = tukey_fences([3.0] * 10)
    assert const.iqr == 0.0 and const.n_outliers == 0
    const_one_off = tukey_fences([3.0] * 10 + [3.5])
    assert const_one_off.high_severe_idx.tolist() == [10]
    with pytest.raises(ValueError, match="x"):
        tukey_fences([1.0, float("nan"), 2.0])
    with pytest.raises(ValueError, match="x"):
        tukey_fences([1.0, float("inf")])
    with pytest.raises(ValueError, match="severe"):
        tukey_fences([1.0, 2.0], mild=3.0, severe=1.5)
    with pytest.raises(ValueError, match="mild"):
        tukey_fences([1.0, 2.0], mild=-1.0)
    # negative and zero values are just numbers here
    neg = tukey_fences([-5.0, -4.0, -4.5, 0.0, -4.2, -100.0])
    assert neg.low_severe_idx.tolist() == [5]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=60),
    st.floats(1e-3, 1e3),
    st.floats(-1e3, 1e3),
)
def test_tukey_partition_and_affine_invariance(
    values: list[float], scale: float, shift: float
) -> None:
    x = np.array(values)
    r = tukey_fences(x)
    idx = np.concatenate([r.low_severe_idx, r.low_mild_idx, r.high_mild_idx, r.high_severe_idx])
    assert len(set(idx.tolist())) == idx.size  # the classes are disjoint
    assert r.low_severe_fence <= r.low_mild_fence <= r.high_mild_fence <= r.high_severe_fence
    # every flagged value is outside the mild fences, every other value inside
    out = np.zeros(x.size, dtype=bool)
    out[idx] = True
    assert np.all((x[out] < r.low_mild_fence) | (x[out] > r.high_mild_fence))
    assert np.all((x[~out] >= r.low_mild_fence) & (x[~out] <= r.high_mild_fence))
    # an increasing affine map keeps the labels (away from float ties on a fence)
    y = x * scale + shift
    s = tukey_fences(y)
    margin = 1e-6 * (np.abs(y).max() + 1.0)
    near = np.abs(y[:, None] - np.array([s.low_mild_fence, s.high_mild_fence])).min(axis=1) < margin
    if not near.any() and np.ptp(x) > 1e-3:
        assert s.outlier_idx.tolist() == r.outlier_idx.tolist()


# ------------------------------------------------------------------- σ-blowup model
def test_seed003_worked_example_to_the_printed_digits() -> None:
    # seed 003 (Boyer), "--model quantities: a = 67108864, muB = 1.395522860870968,
    # sigmaB = 0.0013859776344426547, ..." (the nanobenchmark of Listing 3)
    r = tsanalyze.outlier_variance(1.395522860870968, 0.0013859776344426547, 67108864)
    # seed 003 worked example: muA, sigmaA, muGMin, sigmaG
    assert repr(r.mean_eval) == "2.079491109953773e-08"
    assert repr(r.sd_eval) == "1.6918672295442562e-07"
    assert repr(r.mu_g_min) == "1.0397455549768865e-08"
    assert repr(r.sigma_g) == "2.5993638874422163e-09"
    # seed 003 worked example: cMax1 = 998962, cMax2 = 252560, cMax = 252560
    assert (r.c_max_t_min, r.c_max_mu_g_min, r.c_max) == (998962, 252560, 252560)
    # seed 003 worked example: varOutMin = 1.9132546611046498E-6
    assert repr(r.min_outlier_variance) == "1.9132546611046498e-06"
    # seed 003 worked example: "at least 99.60022873987793% of the measured VARIANCE"
    assert repr(100 * r.fraction) == "99.60022873987793"
    # criterion's classification: >= 50% is severe
    assert r.effect == "severe"
    assert r.warning_codes == ("sd-blowup",)
    assert r.warnings[0].severity == "serious"


def test_criterion_classification_thresholds() -> None:
    # criterion Criterion.Analysis.outlierVariance: < 0.01 no, < 0.1 slight, < 0.5 moderate
    assert classify_outlier_fraction(0.0) == "unaffected"
    assert classify_outlier_fraction(0.00999) == "unaffected"
    assert classify_outlier_fraction(0.01) == "slight"
    assert classify_outlier_fraction(0.0999) == "slight"
    assert classify_outlier_fraction(0.1) == "moderate"
    assert classify_outlier_fraction(0.4999) == "moderate"
    assert classify_outlier_fraction(0.5) == "severe"


def _blocks(
    rng: np.random.Generator, n_blocks: int, a: int, mu: float, sd: float, p_out: float, out: float
) -> np.ndarray:
    """Block (sample) times of ``a`` evaluations each: Gaussian evaluations plus rare
    equal-valued outliers -- Boyer's model, simulated (vectorised through the sums)."""
    gauss = rng.normal(a * mu, sd * math.sqrt(a), n_blocks)
    return gauss + rng.binomial(a, p_out, n_blocks) * out


def test_model_on_simulated_blocks() -> None:
    rng = np.random.default_rng(2024)
    a = 10_000
    # no outliers: the Gaussian part explains the variance
    clean = _blocks(rng, 400, a, 100.0, 5.0, 0.0, 0.0)
    r = outlier_variance(float(clean.mean()), float(clean.std(ddof=1)), a)
    assert r.effect == "unaffected"
    # rare huge outliers (one in 10^4 evaluations costs 10^5 ns, a context switch)
    dirty = _blocks(rng, 400, a, 100.0, 5.0, 1e-4, 1e5)
    r = outlier_variance(float(dirty.mean()), float(dirty.std(ddof=1)), a)
    assert r.effect == "severe"
    assert r.fraction > 0.9


def test_outlier_variance_not_applicable_and_edges() -> None:
    r = outlier_variance(100.0, 10.0, 1)
    assert r.effect == "not-applicable" and r.fraction == 0.0
    r = outlier_variance(100.0, 0.0, 50)
    assert r.effect == "not-applicable"
    # a huge per-evaluation sd vs a bound close to the mean: still a defined answer
    r = outlier_variance(1000.0, 500.0, 2, t_min=400.0)
    assert 0.0 <= r.fraction <= 1.0
    # overhead-corrected times at or below zero: no model, no crash
    for mean in (0.0, -5.0):
        z = outlier_variance(mean, 1.0, 10)
        assert z.effect == "not-applicable" and "not positive" in z.warnings[0].message
    with pytest.raises(ValueError, match="sd"):
        outlier_variance(1.0, -1.0, 10)
    with pytest.raises(ValueError, match="evals"):
        outlier_variance(1.0, 1.0, 0)
    with pytest.raises(ValueError, match="evals"):
        outlier_variance(1.0, 1.0, 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="t_min"):
        outlier_variance(10.0, 1.0, 10, t_min=1.0)  # t_min >= mean / evals
    with pytest.raises(ValueError, match="sd"):
        outlier_variance(1.0, float("nan"), 10)
    d = r.to_dict()
    assert set(d) >= {"fraction", "effect", "c_max", "warnings"}
    assert r.to_frame().shape[0] == 1


@settings(max_examples=80, deadline=None)
@given(
    st.floats(1e-3, 1e9),
    st.floats(0.0, 5.0),
    st.integers(2, 10**9),
)
# issue 18: hypothesis once drew this; sd**2 is subnormal and the fraction came out -1/3
@example(117879.0, 2.98e-167, 5)
@example(117879.0, 1e-300, 5)
def test_fraction_is_a_fraction(mean: float, rel_sd: float, evals: int) -> None:
    r = outlier_variance(mean, mean * rel_sd, evals)
    assert 0.0 <= r.fraction <= 1.0 + 1e-12
    if r.effect != "not-applicable":
        assert r.c_max is not None and 1 <= r.c_max <= evals
        assert r.effect == classify_outlier_fraction(r.fraction)


def test_tukey_filter_counts_and_fences() -> None:
    # reference: fences from numpy percentiles written out (Q1 - 1.5 IQR, Q3 + 1.5 IQR)
    d = np.array([0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 50.0, -40.0])
    q1, q3 = np.percentile(d, [25, 75])
    res = tukey_filter(d)
    assert res.low_mild_fence == pytest.approx(q1 - 1.5 * (q3 - q1))
    assert res.high_mild_fence == pytest.approx(q3 + 1.5 * (q3 - q1))
    assert res.n_removed == 2
    assert not res.keep[6] and not res.keep[7] and res.keep[:6].all()
    assert tukey_filter([5.0]).n_removed == 0
    assert tukey_filter([2.0, 2.0, 2.0]).n_removed == 0
    with pytest.raises(ValueError, match="mild:"):
        tukey_filter(d, mild=0)


@pytest.mark.parametrize("rel_sd", [1e-6, 1e-9, 1e-12, 1e-100, 2.98e-167, 1e-300])
def test_a_tiny_sd_gives_the_limit_of_the_model(rel_sd: float) -> None:
    # issue 18: with sd << mean, sigma_G = sd/sqrt(a), so v(c)/sd^2 = ((a - c)/a)(c/a) and
    # c_max = a - 1 (c -> a from below): f = (a - 1)/a^2 = 0.16 for a = 5, however small
    # sd is. Before, c_max rounded to a for sd/mean < 1e-8 (f = 0) and the subnormal
    # squares gave f = -1/3 at sd/mean = 2.98e-167.
    r = outlier_variance(117879.0, 117879.0 * rel_sd, 5)
    assert r.c_max == 4
    assert r.fraction == pytest.approx(4 / 25, rel=1e-12)
