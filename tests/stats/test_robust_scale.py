"""The robust sd against scipy's normal-consistent MAD."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tsanalyze.stats.robust_scale import MAD_TO_SD, robust_sd


def test_constant_is_the_normal_quartile_scale() -> None:
    assert MAD_TO_SD == pytest.approx(1.0 / stats.norm.ppf(0.75), rel=1e-15)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_matches_scipy_along_any_axis(axis: int | None) -> None:
    x = np.random.default_rng(3).standard_t(2, size=(7, 41))
    want = stats.median_abs_deviation(x, axis=axis, scale="normal")
    np.testing.assert_allclose(robust_sd(x, axis=axis), want, rtol=1e-13)
    kept = robust_sd(x, axis=axis, keepdims=True)
    assert kept.ndim == 2


def test_a_given_center_is_used_as_given() -> None:
    x = np.array([1.0, 2.0, 4.0, 8.0, 100.0])
    # deviations from 2: 1, 0, 2, 6, 98 -> median 2
    assert robust_sd(x, center=2.0) == pytest.approx(2.0 * MAD_TO_SD)
    assert robust_sd(x) == pytest.approx(stats.median_abs_deviation(x, scale="normal"))
    assert isinstance(robust_sd(x), float)


def test_normal_samples_give_their_sd() -> None:
    x = np.random.default_rng(5).normal(10.0, 3.0, size=200_000)
    assert robust_sd(x) == pytest.approx(3.0, rel=0.01)
