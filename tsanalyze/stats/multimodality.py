"""Several modes in one series: KDE modes with a minimum mass and a significant valley.

A benchmark whose samples cluster around two or more values (two code paths, two
memory layouts, two CPU frequencies) has no single "typical time": its median can land
between the clusters, and its CI describes a mixture. This module finds the clusters.
"""

from __future__ import annotations

import heapq
import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.signal import fftconvolve

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array, Int64Array
from tsanalyze._units import check_unit, format_times
from tsanalyze._validation import as_series_array, check_positive_int
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats._memo import ContentMemo
from tsanalyze.stats._numba import HAVE_NUMBA, jit

__all__ = ["Modes", "kde_grid", "multimodality"]

#: fewest samples for mode detection
_MIN_N = 20
#: central range used for the density (timing data have far outliers)
_CENTRAL = (0.005, 0.995)


@result
class Modes(Result):
    """Modes of a series' distribution.

    Attributes
    ----------
    n : int
    n_modes : int
    multimodal : bool
        More than one mode survived the mass and valley checks.
    locations : numpy.ndarray
        Mode locations (KDE maxima), ascending.
    masses : numpy.ndarray
        Fraction of the samples in each mode's basin (between the neighbouring
        antimodes); they sum to 1.
    heights : numpy.ndarray
        KDE density at each mode.
    antimodes : numpy.ndarray
        Density minima separating consecutive modes (n_modes - 1 values).
    bandwidth : float
        Gaussian kernel bandwidth.
    min_mass : float
    warnings : tuple of Finding
    """

    n: int
    n_modes: int
    multimodal: bool
    locations: Float64Array
    masses: Float64Array
    heights: Float64Array
    antimodes: Float64Array
    bandwidth: float
    min_mass: float
    warnings: tuple[Finding, ...] = ()

    _headline: ClassVar[tuple[str, ...]] = ("multimodal", "n_modes", "locations", "masses", "n")

    def to_frame(self) -> pd.DataFrame:
        """One row per mode: ``mode``, ``location``, ``mass``, ``height``."""
        return pd.DataFrame(
            {
                "mode": np.arange(self.n_modes),
                "location": self.locations,
                "mass": self.masses,
                "height": self.heights,
            }
        )


def kde_grid(
    x: Float64Array, bandwidth: float, lo: float, hi: float, grid: int
) -> tuple[Float64Array, Float64Array]:
    """Gaussian KDE of ``x`` on ``grid`` points spanning [lo, hi] by linear binning + FFT.

    Samples outside [lo, hi] still count in the normalisation (density integrates to the
    share of samples inside). Returns (points, density).
    """
    pts = np.linspace(lo, hi, grid)
    dx = pts[1] - pts[0]
    inside = x[(x >= lo) & (x <= hi)]
    pos = (inside - lo) / dx
    left = np.clip(np.floor(pos).astype(np.int64), 0, grid - 2)
    frac = pos - left
    counts = np.bincount(left, weights=1.0 - frac, minlength=grid)
    counts += np.bincount(left + 1, weights=frac, minlength=grid)
    half = int(min(grid - 1, math.ceil(5 * bandwidth / dx)))
    k = np.arange(-half, half + 1) * dx
    kernel = np.exp(-0.5 * (k / bandwidth) ** 2) / (bandwidth * math.sqrt(2 * math.pi))
    dens = fftconvolve(counts, kernel, mode="same") / x.size
    return pts, np.maximum(dens, 0.0)


def multimodality(
    x: ArrayLike,
    *,
    min_mass: float = 0.05,
    bandwidth: float | None = None,
    grid: int = 2048,
    z: float = 3.0,
    unit: str | None = None,
    sorted_x: Float64Array | None = None,
) -> Modes:
    """Does the series have several modes? Find them, with their masses.

    Parameters
    ----------
    x : array_like
        Samples (order does not matter).
    min_mass : float, default 0.05
        Smallest share of samples a mode must hold.
    bandwidth : float, optional
        Kernel bandwidth (default: Silverman's robust rule on the central 99% of the
        data, 0.9 min(sd, IQR / 1.349) n^(-1/5), halved; see Notes).
    grid : int, default 2048
        Grid points of the density.
    z : float, default 3.0
        How many standard errors of the density a valley must lie below the lower of
        its two peaks for the peaks to count as separate modes.
    unit : str, optional
        Unit of ``x`` (a name :func:`tsanalyze._units.parse_unit` reads), for the mode
        locations the finding quotes (``0.8724 and 1.236 µs``); None (default) quotes them
        as bare numbers.
    sorted_x : numpy.ndarray, optional
        ``np.sort(x)`` when the caller holds it already: the per-series analysis sorts
        each series once and shares the sorted copy between the descriptive statistics
        and the modes (issue 24); the result is exactly that without it. Not checked
        beyond its length: it must be the sorted values of ``x``.

    Returns
    -------
    Modes

    Notes
    -----
    The density is a Gaussian KDE (linear binning + FFT; tests check it against
    ``scipy.stats.gaussian_kde``) over the central 99% of the samples. Local maxima are
    candidate modes; each owns the samples between its neighbouring antimodes (density
    minima). Candidates are merged into a neighbour, weakest first, until every mode
    holds at least ``min_mass`` of the samples and every valley is significant:
    peak − valley > z (se(peak) + se(valley)) with the KDE's pointwise standard error
    se(f) = sqrt(f R(K) / (n h)), R(K) = 1 / (2 sqrt(pi)). This plays the role of
    Hartigan's dip test (not a dependency of tsanalyze): a split must be larger than
    the density's own sampling noise. Silverman's rule oversmooths mixtures, so half of
    it is used; the valley test keeps the extra wiggles out. Serial dependence inflates
    the KDE's noise, so for strongly autocorrelated series pass a larger ``z``.

    References
    ----------
    Chen, J., Revels, J., & Edelman, A. (2016), "Robust benchmarking in noisy
    environments", IEEE HPEC 2016, arXiv:1608.04295, Figs. 3–4 (multimodal timings).
    Silverman, B. W. (1986), Density Estimation for Statistics and Data Analysis, §3.4.
    Hartigan, J. A., Hartigan, P. M. (1985), "The dip test of unimodality", Annals of
    Statistics 13(1), doi:10.1214/aos/1176346577.
    """
    a = as_series_array(x, "x", min_size=1)
    if sorted_x is None:
        sorted_a = np.sort(a)
    elif sorted_x.shape != a.shape:
        raise InvalidArgumentError(
            f"sorted_x: has {sorted_x.size} values but x has {a.size}; pass np.sort(x)"
        )
    else:
        sorted_a = sorted_x
    if not 0.0 < min_mass < 0.5:
        raise InvalidArgumentError(f"min_mass: must be in (0, 0.5), got {min_mass!r}")
    grid = check_positive_int(grid, "grid", minimum=64)
    if not z > 0:
        raise InvalidArgumentError(f"z: must be > 0, got {z!r}")
    if bandwidth is not None and not (math.isfinite(bandwidth) and bandwidth > 0):
        raise InvalidArgumentError(f"bandwidth: must be a positive number, got {bandwidth!r}")
    check_unit(unit)
    n = a.size
    found: list[Finding] = []
    med = float(np.median(sorted_a))

    def single(h: float, why: Finding | None = None) -> Modes:
        if why is not None:
            found.append(why)
        return Modes(
            n=n,
            n_modes=1,
            multimodal=False,
            locations=np.array([med]),
            masses=np.array([1.0]),
            heights=np.array([math.nan]),
            antimodes=np.array([]),
            bandwidth=h,
            min_mass=float(min_mass),
            warnings=tuple(found),
        )

    if n < _MIN_N:
        return single(
            math.nan,
            Finding("too-few-samples", f"{n} samples are too few to look for modes", "info"),
        )
    # the density depends on neither min_mass nor z: the per-series analysis and the
    # regimes of its dependence assessment ask for the same one (issue 24)
    h, pts, f = _DENSITIES.get(a, (bandwidth, grid), lambda: _density(a, sorted_a, bandwidth, grid))
    if not h > 0:
        return single(0.0)
    cand = np.flatnonzero((f[1:-1] > f[:-2]) & (f[1:-1] >= f[2:])) + 1
    if not cand.size:
        return single(h)
    peaks, valleys, counts = _merge_candidates(
        f, cand.astype(np.int64), sorted_a, pts, n=n, h=h, min_mass=min_mass, z=z
    )
    masses = counts / n
    locs = pts[peaks]
    heights = f[peaks]
    anti = pts[valleys]
    multimodal = len(peaks) > 1
    if multimodal:
        shares = "/".join(f"{m:.0%}" for m in masses)
        found.append(
            Finding(
                "multimodal",
                f"the samples form {len(peaks)} clusters, at {format_times(locs, unit)} "
                f"(masses {shares}); a single location estimate (and its CI) describes a "
                "mixture",
                "warning",
            )
        )
    return Modes(
        n=n,
        n_modes=len(peaks),
        multimodal=multimodal,
        locations=np.asarray(locs, dtype=np.float64),
        masses=np.asarray(masses, dtype=np.float64),
        heights=np.asarray(heights, dtype=np.float64),
        antimodes=np.asarray(anti, dtype=np.float64),
        bandwidth=float(h),
        min_mass=float(min_mass),
        warnings=tuple(found),
    )


#: the KDE of a series by its content, bandwidth and grid (see multimodality)
_DENSITIES: ContentMemo[tuple[float, Float64Array, Float64Array]] = ContentMemo(64)


def _density(
    a: Float64Array, sorted_a: Float64Array, bandwidth: float | None, grid: int
) -> tuple[float, Float64Array, Float64Array]:
    """The bandwidth, grid points and density of :func:`multimodality` (bandwidth 0
    and no density when the central values have no spread). The arrays are kept, so
    they are made read-only."""
    lo, hi = np.quantile(sorted_a, _CENTRAL)
    empty = np.zeros(0)
    if hi <= lo:
        return 0.0, empty, empty
    if bandwidth is None:
        central = a[(a >= lo) & (a <= hi)]  # in the order of a, for the sum of the sd
        inside = sorted_a[np.searchsorted(sorted_a, lo) : np.searchsorted(sorted_a, hi, "right")]
        q75, q25 = np.quantile(inside, [0.75, 0.25])
        sd = float(np.std(central, ddof=1))
        spread = min(sd, (q75 - q25) / 1.349) if q75 > q25 else sd
        h = 0.45 * spread * a.size ** (-0.2)
    else:
        h = float(bandwidth)
    if not h > 0:
        return 0.0, empty, empty
    pts, f = kde_grid(a, h, float(lo) - 3 * h, float(hi) + 3 * h, grid)
    pts.flags.writeable = False
    f.flags.writeable = False
    return h, pts, f


def _valleys(f: Float64Array, peaks: Int64Array) -> Int64Array:
    """First position of the minimum of ``f[p:q]`` for each pair of consecutive peaks."""
    if peaks.size < 2:
        return np.empty(0, dtype=np.int64)
    lo, hi = int(peaks[0]), int(peaks[-1])
    seg_min = np.minimum.reduceat(f[:hi], peaks[:-1])
    seg = np.repeat(np.arange(peaks.size - 1), np.diff(peaks))
    at_min = np.flatnonzero(f[lo:hi] == seg_min[seg])
    first = np.r_[True, seg[at_min][1:] != seg[at_min][:-1]]
    return at_min[first] + lo  # type: ignore[no-any-return]


def _merge_loop_py(
    count: Any, pos: Any, fv: Any, se: Any, valley_at: Any, light_s: Any, light_i: Any,
    shallow_s: Any, shallow_i: Any, n: int, min_mass: float, z: float,
) -> tuple[Any, Any, Any]:  # fmt: skip
    """The rounds of :func:`_merge_candidates` (the source of the compiled kernel).

    ``count``/``valley_at`` (per candidate) are updated in place; returns (alive, count,
    valley_at). Two heaps with lazy deletion: (mass score, peak, version) of the light
    candidates and (margin, left peak, version) of the shallow valleys; ties go to the
    leftmost candidate, as in the direct formulation.
    """
    p_count = len(pos)
    nxt = [0] * p_count
    prv = [0] * p_count
    alive = [True] * p_count
    mver = [0] * p_count  # bumped when a peak's mass changes
    gver = [0] * p_count  # bumped when the valley to a peak's right changes
    for i in range(p_count):
        nxt[i] = i + 1 if i + 1 < p_count else -1
        prv[i] = i - 1
    light = [(0.0, 0, 0)]  # typed by its first item (numba), then emptied
    light.pop()
    for k in range(len(light_i)):
        light.append((light_s[k], light_i[k], 0))
    heapq.heapify(light)
    shallow = [(0.0, 0, 0)]
    shallow.pop()
    for k in range(len(shallow_i)):
        shallow.append((shallow_s[k], shallow_i[k], 0))
    heapq.heapify(shallow)
    left = p_count
    while left > 1:
        while len(light) > 0 and (not alive[light[0][1]] or light[0][2] != mver[light[0][1]]):
            heapq.heappop(light)
        if len(light) > 0:
            worst = light[0][1]
        else:
            while len(shallow) > 0 and (
                not alive[shallow[0][1]] or shallow[0][2] != gver[shallow[0][1]]
            ):
                heapq.heappop(shallow)
            if len(shallow) == 0:
                break
            i = shallow[0][1]
            worst = i if fv[pos[i]] < fv[pos[nxt[i]]] else nxt[i]
        a = prv[worst]
        b = nxt[worst]
        alive[worst] = False
        left -= 1
        if a < 0:  # the first candidate: its samples join the next one
            prv[b] = -1
            gets = b
        elif b < 0:  # the last: its samples join the previous one
            nxt[a] = -1
            gets = a
        else:
            keep_left = fv[valley_at[a]] <= fv[valley_at[worst]]
            if not keep_left:
                valley_at[a] = valley_at[worst]
            nxt[a] = b
            prv[b] = a
            gets = b if keep_left else a
        count[gets] += count[worst]
        mver[gets] += 1
        m = count[gets] / n
        if m < min_mass:
            heapq.heappush(light, (m / min_mass, gets, mver[gets]))
        if a >= 0:  # the valley to the right of a changed (or vanished)
            gver[a] += 1
            k = nxt[a]
            if k >= 0:
                lo = pos[a] if fv[pos[a]] <= fv[pos[k]] else pos[k]
                v = valley_at[a]
                g = (fv[lo] - fv[v]) / (z * (se[lo] + se[v]))
                if g < 1.0:
                    heapq.heappush(shallow, (g, a, gver[a]))
    return alive, count, valley_at


_merge_loop_nb = jit(_merge_loop_py)


def _merge_candidates(
    f: Float64Array, peaks: Int64Array, sorted_a: Float64Array, pts: Float64Array, *,
    n: int, h: float, min_mass: float, z: float,
) -> tuple[Int64Array, Int64Array, Int64Array]:  # fmt: skip
    """Merge candidate modes, weakest first, until each is heavy enough and separated.

    Returns the kept peaks, the valleys between them (grid positions) and the count of
    samples in each kept peak's basin.

    Each round removes one candidate: among those holding less than ``min_mass`` of the
    samples, the lightest; when there is none, the lower peak of the least significant
    valley (margin < 1); ties go to the leftmost. A removal only changes its two
    neighbours (their shared valley is the lower of the two valleys, the left one on a
    tie, which is the first minimum of the density between them; the removed basin's
    samples join the neighbour across the vanished valley), so the candidates live in a
    linked list and the two kinds of weakness in two heaps with lazy deletion:
    O(P log P) for P candidates instead of the P rounds of P argmins of the direct
    formulation (which the tests keep as the reference this must agree with exactly).
    """
    p_count = peaks.size
    valley = np.zeros(p_count, dtype=np.int64)  # valley[i]: between peak i and nxt[i]
    valley[:-1] = _valleys(f, peaks)
    cuts = np.concatenate(([-np.inf], pts[valley[:-1]], [np.inf]))
    counts = np.diff(np.searchsorted(sorted_a, cuts, side="right"))
    rk = 1.0 / (2.0 * math.sqrt(math.pi))
    nh = n * h
    # the KDE's pointwise standard error at every grid point, sqrt(f R(K) / (n h))
    se_arr = np.sqrt(np.maximum(f, 0.0) * rk / nh)
    # the initial weaknesses, computed at once: mass scores and valley margins
    mass = counts / n
    light_i = np.flatnonzero(mass < min_mass)
    fp = f[peaks]
    lower = np.where(fp[:-1] <= fp[1:], peaks[:-1], peaks[1:])  # grid position of the lower
    margin = (f[lower] - f[valley[:-1]]) / (z * (se_arr[lower] + se_arr[valley[:-1]]))
    shallow_i = np.flatnonzero(margin < 1.0)
    args = (
        counts.astype(np.int64), peaks.astype(np.int64), f, se_arr, valley,
        (mass[light_i] / min_mass), light_i.astype(np.int64), margin[shallow_i],
        shallow_i.astype(np.int64), int(n), float(min_mass), float(z),
    )  # fmt: skip
    if HAVE_NUMBA:
        alive, count, valley_at = _merge_loop_nb(*args)
    else:  # the same source on lists, which plain Python indexes fastest
        listed = tuple(a.tolist() if isinstance(a, np.ndarray) else a for a in args)
        alive, count, valley_at = _merge_loop_py(*listed)  # type: ignore[arg-type]
    kept = np.flatnonzero(np.asarray(alive, dtype=bool))
    return (
        peaks[kept],
        np.asarray(valley_at, dtype=np.int64)[kept[:-1]],
        np.asarray(count, dtype=np.int64)[kept],
    )


def __getattr__(name: str) -> Any:
    if name == "modes":  # the old name, until the next minor version
        warnings.warn(
            "tsanalyze.stats.multimodality.modes is deprecated; use multimodality",
            DeprecationWarning,
            stacklevel=2,
        )
        return multimodality
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
