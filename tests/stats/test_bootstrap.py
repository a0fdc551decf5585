"""Bootstrap resampling and intervals, checked against scipy and arch."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from _helpers import ar1 as _ar1
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.bootstrap import (
    BootstrapCI,
    bootstrap_ci,
    optimal_block_length,
    resample_indices,
    student_factor,
)

# ----------------------------------------------------------------------- scipy agreement


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("stat", [np.median, np.mean])
def test_iid_interval_equals_scipy_bootstrap(method: str, stat: object) -> None:
    x = np.random.default_rng(3).lognormal(size=300)
    ours = bootstrap_ci(x, stat, method=method, n_resamples=2000, rng=5)  # type: ignore[arg-type]
    # scipy.stats.bootstrap with the same seed draws the same resamples
    ref = stats.bootstrap(
        (x,),
        stat,
        method="BCa" if method == "bca" else "percentile",
        n_resamples=2000,
        rng=np.random.default_rng(5),
    )
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
    assert ours.seed == 5 and ours.method == method


def test_iid_indices_are_scipys_stream() -> None:
    idx = resample_indices(50, 7, kind="iid", rng=9)
    np.testing.assert_array_equal(idx, np.random.default_rng(9).integers(0, 50, (7, 50)))


# ------------------------------------------------------------------------ arch agreement


@pytest.mark.parametrize(
    ("n", "phi", "seed"), [(50, 0.6, 1), (500, 0.6, 2), (5000, 0.3, 3), (3000, 0.0, 4)]
)
def test_optimal_block_length_equals_arch(n: int, phi: float, seed: int) -> None:
    from arch.bootstrap import optimal_block_length as arch_obl

    x = _ar1(n, phi, seed)
    ref = arch_obl(x)
    # arch may return values below 1; ours floors at 1
    assert optimal_block_length(x) == pytest.approx(max(1.0, ref["stationary"].iloc[0]), rel=1e-9)
    assert optimal_block_length(x, kind="circular") == pytest.approx(
        max(1.0, ref["circular"].iloc[0]), rel=1e-9
    )


def test_stationary_bootstrap_se_agrees_with_arch() -> None:
    from arch.bootstrap import StationaryBootstrap

    x = _ar1(1000, 0.7, seed=8)
    bl = optimal_block_length(x)
    ours = bootstrap_ci(x, np.mean, kind="stationary", block_length=bl, n_resamples=4000, rng=1)
    bs = StationaryBootstrap(bl, x, seed=2)
    ref = bs.apply(np.mean, 4000)
    # two Monte-Carlo estimates of one bootstrap SE: they agree to a few percent
    assert ours.standard_error == pytest.approx(float(np.std(ref, ddof=1)), rel=0.08)
    # and both are far wider than the i.i.d. bootstrap, which ignores the dependence
    iid = bootstrap_ci(x, np.mean, n_resamples=4000, rng=1)
    assert ours.standard_error > 1.8 * iid.standard_error


# ---------------------------------------------------------------------- resample shapes


@pytest.mark.parametrize("kind", ["iid", "stationary", "circular"])
def test_resample_indices_shape_and_range(kind: str) -> None:
    idx = resample_indices(97, 33, kind=kind, block_length=5.0, rng=2)  # type: ignore[arg-type]
    assert idx.shape == (33, 97) and idx.dtype == np.int64
    assert idx.min() >= 0 and idx.max() < 97
    small = resample_indices(1000, 4, kind=kind, block_length=3.0, rng=2, size=10)  # type: ignore[arg-type]
    assert small.shape == (4, 10)


@pytest.mark.parametrize("bl", [1.5, 4.0, 20.0])
def test_stationary_blocks_have_geometric_mean_length(bl: float) -> None:
    n = 10_000
    idx = resample_indices(n, 200, kind="stationary", block_length=bl, rng=4)
    cont = np.diff(idx, axis=1)
    continues = (cont == 1) | (cont == 1 - n)  # next index or wrap-around
    # a new block starts with probability 1/bl (a random start continues by chance 1/n)
    assert 1.0 - continues.mean() == pytest.approx(1.0 / bl, rel=0.03)


def test_circular_blocks_are_contiguous() -> None:
    idx = resample_indices(50, 10, kind="circular", block_length=5.0, rng=3)
    blocks = idx.reshape(10, 10, 5)
    steps = np.diff(blocks, axis=2) % 50
    assert (steps == 1).all()


def test_resample_validation() -> None:
    with pytest.raises(ValueError, match="block_length"):
        resample_indices(10, 5, kind="stationary", rng=1)
    with pytest.raises(ValueError, match="block_length"):
        resample_indices(10, 5, kind="circular", block_length=0.5, rng=1)
    with pytest.raises(ValueError, match="kind"):
        resample_indices(10, 5, kind="moving", rng=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_resamples"):
        resample_indices(10, 0, rng=1)


# ------------------------------------------------------------------------ interval logic


def test_m_out_of_n_rescaling_matches_full_bootstrap() -> None:
    x = np.random.default_rng(0).standard_t(4, 40_000)
    full = bootstrap_ci(x, np.median, n_resamples=1000, rng=1)
    sub = bootstrap_ci(x, np.median, n_resamples=1000, resample_size=5000, rng=1)
    assert sub.resample_size == 5000
    assert sub.standard_error == pytest.approx(full.standard_error, rel=0.15)
    assert sub.ci_high - sub.ci_low == pytest.approx(full.ci_high - full.ci_low, rel=0.2)


def test_mean_variance_calibration() -> None:
    x = _ar1(1000, 0.6, seed=12)
    # the same stationary bootstrap of the median throughout; only mean_variance varies
    median_ci = functools.partial(
        bootstrap_ci, x, np.median, kind="stationary", block_length=10.0, n_resamples=300, rng=4
    )
    plain = median_ci()
    assert plain.calibration == 1.0
    # a trusted var(mean) four times the bootstrap's widens the replicates by 2
    vb = bootstrap_ci(x, np.mean, kind="stationary", block_length=10.0, n_resamples=300, rng=4)
    wide = median_ci(mean_variance=4 * vb.standard_error**2)
    assert wide.calibration == pytest.approx(2.0, rel=1e-9)
    assert "block-bootstrap-calibrated" in wide.warning_codes
    assert wide.ci_high - wide.ci_low == pytest.approx(2 * (plain.ci_high - plain.ci_low), rel=1e-9)
    # never narrower, capped at 3, and ignored for i.i.d. resampling
    small = median_ci(mean_variance=1e-12)
    assert small.calibration == 1.0 and (small.ci_low, small.ci_high) == (
        plain.ci_low,
        plain.ci_high,
    )
    huge = bootstrap_ci(
        x, np.median, kind="circular", block_length=10.0, n_resamples=300, rng=4, mean_variance=1e6
    )
    assert huge.calibration == 3.0
    iid = bootstrap_ci(x, np.median, n_resamples=300, rng=4, mean_variance=1e6)
    assert iid.calibration == 1.0


def test_student_factor_is_t_over_z() -> None:
    # reference: scipy.stats t and norm quantiles
    for k, cl in [(5, 0.95), (12, 0.95), (30, 0.9), (400, 0.99)]:
        q = 0.5 + cl / 2
        assert student_factor(k, cl) == pytest.approx(stats.t.ppf(q, k - 1) / stats.norm.ppf(q))
    assert student_factor(1, 0.95) == 1.0
    assert student_factor(10**9, 0.95) == pytest.approx(1.0)


def test_mean_variance_blocks_add_the_student_factor() -> None:
    # the subsession variance from k = 12 block means has 11 degrees of freedom: the
    # replicates are widened by t_11 / z on top of the variance ratio
    x = _ar1(1000, 0.6, seed=12)
    kw = {"kind": "stationary", "block_length": 10.0, "n_resamples": 300, "rng": 4}
    vb = bootstrap_ci(x, np.mean, **kw)  # type: ignore[arg-type]
    mv = 4 * vb.standard_error**2
    wide = bootstrap_ci(x, np.median, mean_variance=mv, **kw)  # type: ignore[arg-type]
    wider = bootstrap_ci(
        x,
        np.median,
        mean_variance=mv,
        mean_variance_blocks=12,
        **kw,  # type: ignore[arg-type]
    )
    t = stats.t.ppf(0.975, 11) / stats.norm.ppf(0.975)
    assert wider.calibration == pytest.approx(2.0 * t, rel=1e-9)
    assert wider.ci_high - wider.ci_low == pytest.approx(t * (wide.ci_high - wide.ci_low))
    msg = next(w.message for w in wider.warnings if w.code == "block-bootstrap-calibrated")
    assert "2.00² times below" in msg and "t/z = " in msg


def test_block_bca_runs_and_reports() -> None:
    x = _ar1(800, 0.6, seed=6)
    r = bootstrap_ci(x, np.median, method="bca", kind="circular", n_resamples=500, rng=3)
    assert isinstance(r, BootstrapCI)
    assert r.kind == "circular" and r.block_length > 1 and r.method == "bca"
    assert math.isfinite(r.acceleration) and math.isfinite(r.z0)
    assert r.ci_low < r.estimate < r.ci_high


def test_degenerate_and_small_inputs() -> None:
    r = bootstrap_ci(np.full(30, 5.0), np.mean, method="bca", n_resamples=100, rng=1)
    assert r.ci_low == r.ci_high == 5.0
    assert "bootstrap-degenerate" in r.warning_codes
    with pytest.raises(NotEnoughData):
        bootstrap_ci([1.0], np.mean, rng=1)
    with pytest.raises(ValueError, match="x"):
        bootstrap_ci([1.0, math.nan, 2.0], np.mean, rng=1)
    with pytest.raises(ValueError, match="method"):
        bootstrap_ci([1.0, 2.0, 3.0], np.mean, method="basic", rng=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="resample_size"):
        bootstrap_ci([1.0, 2.0, 3.0], np.mean, resample_size=4, rng=1)
    two = bootstrap_ci([1.0, 3.0], np.mean, n_resamples=200, rng=1)
    assert 1.0 <= two.ci_low <= two.ci_high <= 3.0
    assert optimal_block_length(np.full(10, 1.0)) == 1.0


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(5, 200),
    kind=st.sampled_from(["iid", "stationary", "circular"]),
    method=st.sampled_from(["percentile", "bca"]),
)
def test_interval_is_ordered_and_inside_data(seed: int, n: int, kind: str, method: str) -> None:
    x = 1e9 + np.random.default_rng(seed).standard_normal(n)
    r = bootstrap_ci(x, np.median, kind=kind, method=method, n_resamples=200, rng=seed)  # type: ignore[arg-type]
    assert x.min() <= r.ci_low <= r.ci_high <= x.max()
