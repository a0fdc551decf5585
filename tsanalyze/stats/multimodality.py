"""Several modes in one series: KDE modes with a minimum mass and a significant valley.

A benchmark whose samples cluster around two or more values (two code paths, two
memory layouts, two CPU frequencies) has no single "typical time": its median can land
between the clusters, and its CI describes a mixture. This module finds the clusters.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.signal import fftconvolve

from tsanalyze._result import Finding, Result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array, check_positive_int
from tsanalyze.errors import InvalidArgumentError

__all__ = ["Modes", "kde_grid", "multimodality"]

#: fewest samples for mode detection
_MIN_N = 20
#: central range used for the density (timing data have far outliers)
_CENTRAL = (0.005, 0.995)


@dataclasses.dataclass(frozen=True, slots=True)
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
    seed 000: Chen, Revels, Edelman (HPEC 2016), Figs. 3–4 (multimodal timings).
    Silverman, B. W. (1986), Density Estimation for Statistics and Data Analysis, §3.4.
    Hartigan, J. A., Hartigan, P. M. (1985), "The dip test of unimodality", Annals of
    Statistics 13(1), doi:10.1214/aos/1176346577.
    """
    a = as_series_array(x, "x", min_size=1)
    if not 0.0 < min_mass < 0.5:
        raise InvalidArgumentError(f"min_mass: must be in (0, 0.5), got {min_mass!r}")
    grid = check_positive_int(grid, "grid", minimum=64)
    if not z > 0:
        raise InvalidArgumentError(f"z: must be > 0, got {z!r}")
    if bandwidth is not None and not (math.isfinite(bandwidth) and bandwidth > 0):
        raise InvalidArgumentError(f"bandwidth: must be a positive number, got {bandwidth!r}")
    n = a.size
    found: list[Finding] = []
    med = float(np.median(a))

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
    lo, hi = np.quantile(a, _CENTRAL)
    central = a[(a >= lo) & (a <= hi)]
    if hi <= lo:
        return single(0.0)
    if bandwidth is None:
        q75, q25 = np.quantile(central, [0.75, 0.25])
        sd = float(np.std(central, ddof=1))
        spread = min(sd, (q75 - q25) / 1.349) if q75 > q25 else sd
        h = 0.45 * spread * n ** (-0.2)
    else:
        h = float(bandwidth)
    if not h > 0:
        return single(0.0)
    pts, f = kde_grid(a, h, float(lo) - 3 * h, float(hi) + 3 * h, grid)
    peaks = list(np.flatnonzero((f[1:-1] > f[:-2]) & (f[1:-1] >= f[2:])) + 1)
    if not peaks:
        return single(h)
    rk = 1.0 / (2.0 * math.sqrt(math.pi))

    def se(v: float) -> float:
        return math.sqrt(max(v, 0.0) * rk / (n * h))

    sorted_a = np.sort(a)
    while True:
        valleys = [p + int(np.argmin(f[p:q])) for p, q in itertools.pairwise(peaks)]
        cuts = np.concatenate(([-np.inf], pts[valleys], [np.inf])) if valleys else None
        if cuts is None:
            masses = np.array([1.0])
        else:
            counts = np.diff(np.searchsorted(sorted_a, cuts, side="right"))
            masses = counts / n
        # weakest candidate: smallest mass below min_mass, or the least significant valley
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
                    # drop the lower of the two peaks of this valley
                    worst = j if f[peaks[j]] < f[peaks[j + 1]] else j + 1
                    worst_score = margin
        if worst < 0 or len(peaks) == 1:
            break
        peaks.pop(worst)
    locs = pts[peaks]
    heights = f[peaks]
    anti = pts[valleys] if len(peaks) > 1 else np.array([])
    multimodal = len(peaks) > 1
    if multimodal:
        desc = ", ".join(f"{loc:.4g} ({m:.0%})" for loc, m in zip(locs, masses, strict=True))
        found.append(
            Finding(
                "multimodal",
                f"the samples form {len(peaks)} clusters: {desc}; a single location "
                "estimate (and its CI) describes a mixture",
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


def __getattr__(name: str) -> Any:
    if name == "modes":  # the old name, until the next minor version
        warnings.warn(
            "tsanalyze.stats.multimodality.modes is deprecated; use multimodality",
            DeprecationWarning,
            stacklevel=2,
        )
        return multimodality
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
