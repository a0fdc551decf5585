"""Regime switching: separate levels that the series visits for long stretches.

A benchmark can alternate between two performance modes (a cache layout, a JIT decision,
a CPU frequency, a noisy neighbour) and stay in each for many samples. Its distribution is
then multimodal *and* the modes come in long runs. A location estimate of such a series
describes a mixture whose weights the series itself cannot pin down unless it switched
many times, so an interval computed as if the series were stationary around one level is
far too narrow.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from tsanalyze._result import Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array
from tsanalyze.stats.exceedance import far_cutoff, far_from_bulk
from tsanalyze.stats.multimodality import multimodality

__all__ = ["Regimes", "regimes"]

#: fewest samples for the check
_MIN_N = 20
#: smallest share of samples each of the two main modes must hold
_MIN_MASS = 0.05
#: the runs test must show this many standard deviations fewer runs than independence
_RUNS_Z = 4.0
#: and the stretches must be this long on average
_MIN_SOJOURN = 8.0
#: an excursion: samples far from the bulk (tsanalyze.stats.exceedance.far_from_bulk:
#: beyond 3 robust sds from the median, at least 1.5% of the series), at least this many
_MIN_EXCURSION = 3
#: ... in stretches this long on average (isolated outliers are not a regime)
_MIN_EXCURSION_RUN = 3.0
#: the density is estimated from at most about this many samples
_MAX_KDE_POINTS = 100_000


@result
class Regimes(Result):
    """Modes of a series and how long it stays in each.

    Attributes
    ----------
    n : int
    n_modes : int
        Modes of the distribution (:func:`~tsanalyze.stats.multimodality.multimodality`).
    locations : numpy.ndarray
        Mode locations.
    antimode : float
        The density minimum between the two heaviest modes (NaN when unimodal).
    n_runs : int
        Stretches spent on one side of the antimode (0 when unimodal).
    expected_runs : float
        Their expected number for independent samples with the same shares.
    runs_z : float
        (n_runs - expected) / sd (Wald–Wolfowitz); strongly negative means long sojourns.
    mean_sojourn : float
        n / n_runs (NaN when unimodal).
    switching : bool
        Several modes, visited in runs far longer than independence allows.
    """

    n: int
    n_modes: int
    locations: Float64Array
    antimode: float
    n_runs: int
    expected_runs: float
    runs_z: float
    mean_sojourn: float
    switching: bool


def regimes(x: ArrayLike) -> Regimes:
    """Check whether a series switches between separate levels for long stretches.

    Parameters
    ----------
    x : array_like
        1-d series in time order.

    Returns
    -------
    Regimes

    Notes
    -----
    The modes come from :func:`~tsanalyze.stats.multimodality.multimodality` (KDE modes with a
    minimum mass and a significant valley). With two or more, each sample is labelled by
    the side of the antimode between the two heaviest modes, and the number of runs R of
    the labels is compared with its distribution for independent labels with the same
    counts n1, n2 (Wald & Wolfowitz 1940): E R = 1 + 2 n1 n2 / n,
    var R = 2 n1 n2 (2 n1 n2 - n) / (n^2 (n - 1)). Switching is declared when
    z = (R - E R) / sd(R) < -4 and the mean run is at least 8 samples: modes visited in
    long sojourns, as a two-state Markov chain with sticky states makes them (Hamilton
    1989). Independent bimodal samples (two code paths taken at random) have z near 0.

    A short visit to another level makes no density mode; it is caught as an
    *excursion*: samples more than 3 robust sds (1.4826 MAD) from the median, at least
    1.5% of the series and 3 samples, in stretches of 3 samples or more on average, with
    the runs test of the far/near labels at z < -4.

    References
    ----------
    Wald, A., Wolfowitz, J. (1940). On a test whether two samples are from the same
    population. Annals of Mathematical Statistics 11(2), 147-162,
    doi:10.1214/aoms/1177731909.
    Hamilton, J. D. (1989). Econometrica 57(2), 357-384, doi:10.2307/1912559.
    """
    a = as_series_array(x, "x", min_size=1)
    n = a.size
    none = Regimes(
        n, 1, np.array([float(np.median(a))]), math.nan, 0, math.nan, math.nan, math.nan, False
    )
    if n < _MIN_N or float(np.ptp(a)) == 0.0:
        return none
    # the modes of a long series come from an evenly strided subsample (the runs test
    # below uses every sample)
    stride = max(1, n // _MAX_KDE_POINTS)
    md = multimodality(a[::stride], min_mass=_MIN_MASS)
    if not md.multimodal:
        exc = _excursions(a)
        return dataclasses.replace(none, locations=md.locations) if exc is None else exc
    heavy = np.sort(np.argsort(md.masses)[-2:])
    # antimode between the two heaviest modes: the deepest valley between them
    between = md.antimodes[heavy[0] : heavy[1]]
    anti = float(between[0]) if between.size == 1 else float(np.median(between))
    side = a > anti
    runs, expected, z = _runs_test(side)
    sojourn = n / runs
    return Regimes(
        n=n,
        n_modes=md.n_modes,
        locations=md.locations,
        antimode=anti,
        n_runs=runs,
        expected_runs=expected,
        runs_z=float(z),
        mean_sojourn=float(sojourn),
        switching=bool(z < -_RUNS_Z and sojourn >= _MIN_SOJOURN),
    )


def _runs_test(side: np.ndarray) -> tuple[int, float, float]:
    """Runs of a boolean sequence, their expectation under independence, and z."""
    n = side.size
    n2 = int(np.count_nonzero(side))
    n1 = n - n2
    runs = 1 + int(np.count_nonzero(side[1:] != side[:-1]))
    expected = 1.0 + 2.0 * n1 * n2 / n
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    return runs, expected, (runs - expected) / math.sqrt(var) if var > 0 else 0.0


def _excursions(a: Float64Array) -> Regimes | None:
    """A second level visited too briefly to make a density mode: stretches of samples
    far from the bulk (beyond 3 robust sds), at least 1.5% of the series, whose runs are
    long (3 samples on average, and the runs test at z < -4). Isolated outliers and
    heavy tails make short runs; a Gaussian bulk puts 0.3% of its samples there."""
    n = a.size
    med = float(np.median(a))
    ind = far_from_bulk(a, med, min_far=_MIN_EXCURSION)
    if ind is None:
        return None
    far = ind > 0
    k = int(np.count_nonzero(far))
    runs, expected, z = _runs_test(far)
    stretches = int(np.count_nonzero(far[1:] & ~far[:-1])) + int(far[0])
    if not (z < -_RUNS_Z and k / stretches >= _MIN_EXCURSION_RUN):
        return None
    locs = np.array([float(np.median(a[~far])), float(np.median(a[far]))])
    return Regimes(
        n=n, n_modes=2, locations=np.sort(locs), antimode=med + math.copysign(
            far_cutoff(a, med), locs[1] - locs[0] if locs[1] != locs[0] else 1.0
        ), n_runs=runs, expected_runs=expected, runs_z=float(z),
        mean_sojourn=float(n / runs), switching=True,
    )  # fmt: skip
