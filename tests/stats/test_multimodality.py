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
    # the locations quoted in the unit of the samples, in one unit chosen from the larger
    shown = ", ".join(f"{v / 1000:#.4g}" for v in m.locations).replace(", ", " and ")
    masses = "/".join(f"{v:.0%}" for v in m.masses)
    in_ns = multimodality(x, unit="ns").warnings[0].message
    assert in_ns.startswith(f"the samples form 2 clusters, at {shown} µs (masses {masses}); ")
    assert multimodality(x * 1e-9, unit="s").warnings[0].message == in_ns
    bare = ", ".join(f"{v:.4g}" for v in m.locations).replace(", ", " and ")
    assert m.warnings[0].message.startswith(f"the samples form 2 clusters, at {bare} (masses ")


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


def test_sorted_copy_given_by_the_caller_gives_the_same_modes() -> None:
    from tsanalyze.stats import multimodality as mm

    x = _mixture(0.1, 0.4, 600, 5)
    mm._DENSITIES.clear()  # both calls compute their density (no shared memo entry)
    own = multimodality(x, unit="ns")
    mm._DENSITIES.clear()
    given = multimodality(x, unit="ns", sorted_x=np.sort(x))
    assert own.n_modes == given.n_modes == 2
    assert own == given
    with pytest.raises(ValueError, match="sorted_x"):
        multimodality(x, sorted_x=np.sort(x)[1:])


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


def _merge_reference(
    f: np.ndarray, peaks: list[int], sorted_a: np.ndarray, pts: np.ndarray, n: int,
    h: float, min_mass: float, z: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The direct formulation (the code before issue 24): every round recomputes every
    valley with an argmin and every basin's mass, then drops the weakest candidate."""
    import itertools
    import math

    peaks = list(peaks)
    rk = 1.0 / (2.0 * math.sqrt(math.pi))

    def se(v: float) -> float:
        return math.sqrt(max(v, 0.0) * rk / (n * h))

    while True:
        valleys = [p + int(np.argmin(f[p:q])) for p, q in itertools.pairwise(peaks)]
        cuts = np.concatenate(([-np.inf], pts[valleys], [np.inf])) if valleys else None
        if cuts is None:
            masses = np.array([1.0])
        else:
            masses = np.diff(np.searchsorted(sorted_a, cuts, side="right")) / n
        worst, worst_score = -1, 0.0
        for i in range(len(peaks)):
            if masses[i] < min_mass:
                score = masses[i] / min_mass
                if worst < 0 or score < worst_score:
                    worst, worst_score = i, score
        if worst < 0:
            for j, v in enumerate(valleys):
                low_peak = min(f[peaks[j]], f[peaks[j + 1]])
                margin = (low_peak - f[v]) / (z * (se(low_peak) + se(f[v])))
                if margin < 1.0 and (worst < 0 or margin < worst_score):
                    worst = j if f[peaks[j]] < f[peaks[j + 1]] else j + 1
                    worst_score = margin
        if worst < 0 or len(peaks) == 1:
            break
        peaks.pop(worst)
    return np.asarray(peaks), np.asarray(valleys, dtype=np.int64), masses


def _candidates(f: np.ndarray) -> np.ndarray:
    return np.flatnonzero((f[1:-1] > f[:-2]) & (f[1:-1] >= f[2:])) + 1  # type: ignore[no-any-return]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("seed", range(40))
def test_merging_with_heaps_is_exactly_the_direct_formulation(
    seed: int, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both the compiled merge loop and its Python twin (used without numba)."""
    import tsanalyze.stats.multimodality as mm
    from tsanalyze.stats._numba import HAVE_NUMBA
    from tsanalyze.stats.multimodality import _merge_candidates

    if compiled and not HAVE_NUMBA:
        pytest.skip("numba is not installed (extra 'fast')")
    monkeypatch.setattr(mm, "HAVE_NUMBA", compiled)

    rng = np.random.default_rng(seed)
    size = int(rng.integers(64, 1500))
    if seed % 3 == 0:  # plateaus and equal valleys: every tie rule is exercised
        f = rng.integers(0, 4, size).astype(float) + 0.5
    elif seed % 3 == 1:  # a wiggly density with a few real bumps
        t = np.linspace(0, 1, size)
        f = np.exp(-((t - 0.3) ** 2) / 0.002) + 0.6 * np.exp(-((t - 0.7) ** 2) / 0.001)
        f = np.abs(f + rng.normal(0, 0.05, size))
    else:
        f = rng.exponential(1.0, size)
    pts = np.linspace(0.0, 1.0, size)
    n = int(rng.integers(20, 5000))
    sorted_a = np.sort(rng.choice(np.r_[pts, rng.uniform(-0.1, 1.1, 50)], n))
    h = float(rng.uniform(0.001, 0.05))
    min_mass = float(rng.choice([0.01, 0.05, 0.2]))
    z = float(rng.choice([0.5, 3.0]))
    peaks = _candidates(f)
    assert peaks.size > 1
    ref = _merge_reference(f, list(peaks), sorted_a, pts, n, h, min_mass, z)
    kept, valleys, counts = _merge_candidates(
        f, peaks, sorted_a, pts, n=n, h=h, min_mass=min_mass, z=z
    )
    np.testing.assert_array_equal(kept, ref[0])
    np.testing.assert_array_equal(valleys, ref[1])
    np.testing.assert_array_equal(counts / n, ref[2])


def test_real_densities_merge_exactly_as_the_direct_formulation() -> None:
    from tsanalyze.stats.multimodality import _merge_candidates

    rng = np.random.default_rng(5)
    series = [
        _mixture(0.1, 0.3, 2000, seed=1),
        simulate_series(1000, noise="delay", rng=rng).x,
        simulate_series(5000, noise="t3-spikes", rng=rng).x,
        np.concatenate([rng.normal(0, 1, 1000), rng.normal(10, 1, 800), rng.normal(20, 1, 60)]),
    ]
    for x in series:
        m = multimodality(x)
        lo, hi = np.quantile(x, [0.005, 0.995])
        h = m.bandwidth
        pts, f = kde_grid(x, h, float(lo) - 3 * h, float(hi) + 3 * h, 2048)
        peaks = _candidates(f)
        sorted_a = np.sort(x)
        ref = _merge_reference(f, list(peaks), sorted_a, pts, x.size, h, 0.05, 3.0)
        kept, valleys, counts = _merge_candidates(
            f, peaks, sorted_a, pts, n=x.size, h=h, min_mass=0.05, z=3.0
        )
        np.testing.assert_array_equal(kept, ref[0])
        np.testing.assert_array_equal(valleys, ref[1])
        np.testing.assert_array_equal(counts / x.size, ref[2])
        np.testing.assert_array_equal(m.locations, pts[ref[0]])
