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
from tsanalyze.stats.autocorrelation import block_means
from tsanalyze.stats.exceedance import far_cutoff, far_from_bulk
from tsanalyze.stats.multimodality import multimodality
from tsanalyze.stats.robust_scale import robust_sd

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
#: levels in block means (modes that overlap in the samples): block lengths 4, 8, 16, ...
#: leaving at least this many blocks
_MIN_LEVEL_BLOCKS = 30
#: the two levels of the block means must lie this many standard errors of a block mean
#: of white noise apart (sigma / sqrt(b), sigma from the samples' successive differences)
_LEVEL_SEPARATION = 4.0
#: and the block means of each group must scatter around its level by no more than
#: this many of those standard errors (1 for a level plus white noise; a Gaussian split
#: in two scatters 0.4 of its group means' distance, a wander far more than white noise)
_LEVEL_SCATTER = 1.4
#: at most this many blocks (a longer series starts at longer blocks)
_MAX_LEVEL_BLOCKS = 4096
#: the runs test of the blocks' levels at z below minus this
_LEVEL_RUNS_Z = 3.0
#: and runs of at least this many blocks on average
_LEVEL_MIN_RUN = 2.0


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
        n / n_runs (NaN when unimodal), in samples.
    switching : bool
        Several modes, visited in runs far longer than independence allows.
    block_size : int
        1 when the modes are those of the samples; b > 1 when they showed only in the
        means of blocks of b samples (modes that overlap in the samples: the noise of a
        block mean is sqrt(b) times smaller). The runs then are runs of blocks.
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
    block_size: int = 1


def regimes(x: ArrayLike, *, far: Float64Array | None = None) -> Regimes:
    """Check whether a series switches between separate levels for long stretches.

    Parameters
    ----------
    x : array_like
        1-d series in time order.
    far : numpy.ndarray, optional
        :func:`~tsanalyze.stats.exceedance.far_indicator` of ``x``, when the caller has
        made it (the dependence assessment reads it twice more).

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

    Two levels whose spreads overlap make no density mode either (levels one noise sd
    apart: the mixture is unimodal). Their means over blocks of b samples do (their
    noise is sqrt(b) times smaller). So for b = 4, 8, 16, ... (30 blocks or more) the block means are
    split in two at the cut that minimises the within-group sum of squares (1-d
    two-means; each group 5% of the blocks or more; at most 4096 blocks, so a long series
    starts at longer blocks), and the split is a level switch when
    (i) the group means lie at least 4 standard errors s / sqrt(b) apart, s the noise sd
    of the samples from their mean square successive difference, s^2 = mean(diff^2) / 2
    (von Neumann et al. 1941: a level step is one difference among many), (ii)
    the block means of each group scatter around its mean by at most 1.4 s / sqrt(b)
    (1.4826 MAD): a level plus white noise, and (iii) the runs test of the blocks' groups gives
    z < -3 with runs of 2 blocks or more on average. A single Gaussian split in two has
    group means 1.6 sd apart and scatter 0.65 sd, so (i) and (ii) together exclude it
    (the upper tail of a skewed one, split off, scatters widely); a
    slow Gaussian wander (AR(1) with phi near 1) has successive differences far smaller
    than its block means' scatter and fails (ii). The smallest passing b is reported
    (:attr:`Regimes.block_size`). A level wander that is not two levels plus white noise
    (correlated or heavy-tailed noise within a mode) is not seen here; the variance-time
    checks of :func:`~tsanalyze.stats.dependence.assess_dependence` see its variance.

    References
    ----------
    Wald, A., Wolfowitz, J. (1940). On a test whether two samples are from the same
    population. Annals of Mathematical Statistics 11(2), 147-162,
    doi:10.1214/aoms/1177731909.
    Hamilton, J. D. (1989). Econometrica 57(2), 357-384, doi:10.2307/1912559.
    von Neumann, J., Kent, R. H., Bellinson, H. R., Hart, B. I. (1941). The mean square
    successive difference. Annals of Mathematical Statistics 12(2), 153-162,
    doi:10.1214/aoms/1177731746.
    """
    a = as_series_array(x, "x", min_size=1)
    n = a.size
    med = float(np.median(a))
    none = Regimes(n, 1, np.array([med]), math.nan, 0, math.nan, math.nan, math.nan, False)
    if n < _MIN_N or float(np.ptp(a)) == 0.0:
        return none
    # the modes of a long series come from an evenly strided subsample (the runs test
    # below uses every sample)
    stride = max(1, n // _MAX_KDE_POINTS)
    md = multimodality(a[::stride], min_mass=_MIN_MASS)
    if not md.multimodal:
        found = _excursions(a, med, far)
        if found is None:
            found = _block_levels(a)
        return dataclasses.replace(none, locations=md.locations) if found is None else found
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


def _excursions(a: Float64Array, med: float, far_ind: Float64Array | None) -> Regimes | None:
    """A second level visited too briefly to make a density mode: stretches of samples
    far from the bulk (beyond 3 robust sds), at least 1.5% of the series, whose runs are
    long (3 samples on average, and the runs test at z < -4). Isolated outliers and
    heavy tails make short runs; a Gaussian bulk puts 0.3% of its samples there."""
    n = a.size
    ind = far_from_bulk(a, med, min_far=_MIN_EXCURSION, indicator=far_ind)
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


def _two_means_cut(m: Float64Array, min_mass: float) -> float:
    """The cut of ``m`` into a lower and an upper group that minimises the within-group
    sum of squares (exact 1-d two-means), each group holding ``min_mass`` of the values
    or more: the midpoint between the groups' nearest values."""
    s = np.sort(m)
    k = s.size
    c1, c2 = np.cumsum(s), np.cumsum(s * s)
    left = np.arange(1, k, dtype=np.float64)  # values in the lower group
    sse = (c2[:-1] - c1[:-1] ** 2 / left) + (
        (c2[-1] - c2[:-1]) - (c1[-1] - c1[:-1]) ** 2 / (k - left)
    )
    lo = max(1, math.ceil(min_mass * k))
    j = lo - 1 + int(np.argmin(sse[lo - 1 : k - lo]))
    return float(0.5 * (s[j] + s[j + 1]))


def _block_levels(a: Float64Array) -> Regimes | None:
    """Two levels that overlap in the samples but separate in block means (see
    :func:`regimes`, Notes): the smallest block length whose means split into two
    groups far apart, each a level plus white noise, visited in long runs of blocks."""
    n = a.size
    # the noise sd from successive differences (von Neumann): a level step is one
    # difference among many, a slow wander hardly moves them
    noise = math.sqrt(float(np.mean(np.diff(a) ** 2)) / 2.0)
    if not noise > 0:
        return None
    # blocks of 4, 8, 16, ... samples, at most _MAX_LEVEL_BLOCKS of them (a longer
    # series starts at longer blocks), each length's means from the previous ones
    size = 4
    while n // size > _MAX_LEVEL_BLOCKS:
        size *= 2
    m = block_means(a, size)
    while m.size >= _MIN_LEVEL_BLOCKS:
        found = _two_levels(m, size, noise / math.sqrt(size), n)
        if found is not None:
            return found
        k = m.size // 2
        m = 0.5 * (m[: 2 * k : 2] + m[1 : 2 * k : 2])
        size *= 2
    return None


def _two_levels(m: Float64Array, size: int, se: float, n: int) -> Regimes | None:
    """Means ``m`` of blocks of ``size`` samples as two levels plus white noise of
    standard error ``se``, visited in long runs of blocks (None when they are not)."""
    if float(np.ptp(m)) == 0.0:
        return None
    cut = _two_means_cut(m, _MIN_MASS)
    upper = m > cut
    levels = np.array([float(np.mean(m[~upper])), float(np.mean(m[upper]))])
    # each group scatters about its level like white noise: its own robust sd (the
    # upper tail of a skewed wander, cut off as a group, scatters widely)
    scatter = max(
        robust_sd(m[side], center=level) for side, level in ((~upper, levels[0]), (upper, levels[1]))
    )
    if levels[1] - levels[0] < _LEVEL_SEPARATION * se or scatter > _LEVEL_SCATTER * se:
        return None
    runs, expected, z = _runs_test(upper)
    if not (z < -_LEVEL_RUNS_Z and m.size / runs >= _LEVEL_MIN_RUN):
        return None
    return Regimes(
        n=n, n_modes=2, locations=levels, antimode=cut, n_runs=runs,
        expected_runs=expected, runs_z=float(z), mean_sojourn=float(n / runs),
        switching=True, block_size=size,
    )  # fmt: skip
