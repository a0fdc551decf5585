"""Mode detection: KDE against scipy, mixtures found, unimodal noise left alone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import tsanalyze
from tsanalyze.datasets import simulate_series
from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.multimodality import Modes, kde_grid, multimodality


def _mixture(sep: float, w: float, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = int(w * n)
    a = simulate_series(k, noise="gaussian", scale=0.01, rng=rng).x
    b = simulate_series(n - k, noise="gaussian", t0=1000 * (1 + sep), scale=0.01, rng=rng).x
    return rng.permutation(np.concatenate([a, b]))


def test_binned_kde_matches_scipy_gaussian_kde() -> None:
    x = np.random.default_rng(0).normal(size=3000)
    h = 0.3
    pts, f = kde_grid(x, h, -3.0, 3.0, 1024)
    # scipy gaussian_kde with the same bandwidth (bw_method is a factor of the sd)
    ref = stats.gaussian_kde(x, bw_method=h / np.std(x, ddof=1))(pts)
    assert np.abs(f - ref).max() / ref.max() < 0.005


def test_two_clusters_found_with_locations_and_masses() -> None:
    x = _mixture(0.1, 0.3, 2000, seed=1)
    m = multimodality(x)
    assert isinstance(m, Modes)
    assert m.multimodal and m.n_modes == 2
    np.testing.assert_allclose(m.locations, [1000.0, 1100.0], rtol=0.005)
    np.testing.assert_allclose(m.masses, [0.3, 0.7], atol=0.01)
    assert m.masses.sum() == pytest.approx(1.0)
    assert 1000 < m.antimodes[0] < 1100
    assert "multimodal" in m.warning_codes
    frame = m.to_frame()
    assert list(frame.columns) == ["mode", "location", "mass", "height"] and len(frame) == 2
    assert tsanalyze.multimodality is multimodality


def test_old_name_modes_still_works_with_a_deprecation_warning() -> None:
    import tsanalyze.stats.multimodality as mm

    with pytest.warns(DeprecationWarning, match="use tsanalyze.multimodality"):
        assert tsanalyze.modes is multimodality
    with pytest.warns(DeprecationWarning, match="use multimodality"):
        assert mm.modes is multimodality
    assert "modes" not in tsanalyze.__all__


def test_three_clusters_and_min_mass() -> None:
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(0, 1, 1000), rng.normal(10, 1, 800), rng.normal(20, 1, 60)])
    # the third cluster holds 3.2% of the samples: dropped at the default 5%, kept at 2%
    assert multimodality(x, min_mass=0.05).n_modes == 2
    assert multimodality(x, min_mass=0.02).n_modes == 3


@pytest.mark.parametrize(
    "kw",
    [
        {"noise": "gaussian"},
        {"noise": "t3"},
        {"noise": "t3-spikes"},
        {"noise": "delay"},
        {"noise": "gaussian", "phi": 0.7},
    ],
)
def test_unimodal_noise_gives_one_mode(kw: dict[str, object]) -> None:
    rng = np.random.default_rng(3)
    counts = [multimodality(simulate_series(2000, rng=rng, **kw).x).n_modes for _ in range(20)]  # type: ignore[arg-type]
    assert counts == [1] * 20


def test_edge_cases() -> None:
    with pytest.raises(NotEnoughData):
        multimodality([])
    few = multimodality([1.0, 2.0, 3.0])
    assert few.n_modes == 1 and "too-few-samples" in few.warning_codes
    const = multimodality(np.full(100, 4.0))
    assert const.n_modes == 1 and const.locations[0] == 4.0
    with pytest.raises(ValueError, match="min_mass"):
        multimodality(np.arange(100.0), min_mass=0.6)
    with pytest.raises(ValueError, match="bandwidth"):
        multimodality(np.arange(100.0), bandwidth=-1.0)
    with pytest.raises(ValueError, match="index 3"):
        multimodality([1.0, 2.0, 3.0, np.nan])


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), shift=st.floats(-1e6, 1e6), scale=st.floats(1e-3, 1e3))
def test_affine_equivariance(seed: int, shift: float, scale: float) -> None:
    x = _mixture(0.1, 0.4, 600, seed)
    a = multimodality(x)
    b = multimodality(x * scale + shift)
    assert a.n_modes == b.n_modes
    np.testing.assert_allclose(b.masses, a.masses, atol=0.01)
    np.testing.assert_allclose(
        b.locations, a.locations * scale + shift, rtol=1e-3, atol=1e-3 * scale * 100
    )
