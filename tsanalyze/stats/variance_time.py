"""The variance-time curve: how the variance of block means falls with the block length.

Short-range dependence (AR-like, correlations decaying geometrically) averages out: the
variance of the mean of b consecutive samples falls like 1/b once b is several times the
correlation time, so means of long enough blocks are nearly independent. Under long-range
dependence (correlations decaying like a power k^(2H - 2), Hurst exponent H > 1/2) it
falls like b^(2H - 2) at every scale: no block length makes block means independent, and
intervals built on them are too narrow by a factor that grows with the series.

:func:`variance_time` measures the curve (overlapping batch means, the aggregated-variance
plot) and fits both shapes to it: a short-memory curve (:func:`short_memory_fit`) and the
power law of long memory (:func:`aggregated_variance_fit`, the aggregated-variance Hurst
exponent). :func:`robust_hurst` reads the Hurst exponent from second differences of
block means instead, which a level shift or a drift does not inflate (for change points,
whose positions are not known yet). The Whittle-likelihood test of long memory is
:mod:`tsanalyze.stats.longmemory`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from tsanalyze._result import Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array, check_positive_int

__all__ = [
    "CurveFits",
    "VarianceTime",
    "aggregated_variance_fit",
    "curve_top",
    "hurst_margin",
    "robust_hurst",
    "scale_excess_pvalue",
    "short_memory_fit",
    "variance_curve",
    "variance_time",
]


@result
class VarianceTime(Result):
    """Variance of block means against block length (aggregated-variance curve).

    Attributes
    ----------
    block_sizes : numpy.ndarray
        Block lengths b (about sqrt(2) apart, each leaving at least ``min_blocks`` blocks).
    variances : numpy.ndarray
        Overlapping-batch-means estimate of var(mean of b consecutive samples).
    ratios : numpy.ndarray
        b var_b / var_1: the long-run variance factor seen at block length b. It levels off
        (at the integrated autocorrelation time) under short-range dependence and keeps
        growing like b^(2H - 1) under long-range dependence.
    slope : float
        2H - 2 of the fit below: -1 for independent samples.
    hurst : float
        Aggregated-variance estimate of the Hurst exponent (Taqqu et al. 1995) over all
        block lengths, corrected for the centring: E var_b = c (b^(2H - 2) - n^(2H - 2)),
        fitted by least squares on the log scale with weights n / b. Short-range
        dependence that has not died out within the block lengths measured raises it
        too: it is the memory the curve is consistent with, not a test.
    long_memory_rss, short_memory_rss : float
        Weighted residual sums of squares (log scale) of that power law and of a
        short-memory curve, white noise plus AR(1): b var_b = c0 + c1 (tau - 2 rho
        (1 - rho^b) / ((1 - rho)^2 b)), tau = (1 + rho) / (1 - rho), with the same
        centring. Short memory fits clearly better when the curve levels off.
    """

    block_sizes: Float64Array
    variances: Float64Array
    ratios: Float64Array
    slope: float
    hurst: float
    long_memory_rss: float = math.nan
    short_memory_rss: float = math.nan


#: above this many samples the overlapping windows are strided (see variance_time)
_STRIDE_ABOVE = 50_000


def _block_grid(n: int, min_blocks: int) -> np.ndarray:
    top = n // min_blocks
    if top < 1:
        return np.zeros(0, dtype=np.int64)
    j = np.arange(0, int(2 * math.log2(top)) + 2)
    b = np.unique(np.round(2.0 ** (j / 2.0)).astype(np.int64))
    return b[(b >= 1) & (b <= top)]


def variance_time(x: ArrayLike, *, min_blocks: int = 8) -> VarianceTime:
    """The variance of block means at block lengths 1, 2, 3, 4, 6, 8, 11, ... (aggregated
    variance), by overlapping batch means.

    Parameters
    ----------
    x : array_like
        1-d series in time order (at least ``2 * min_blocks`` values).
    min_blocks : int, default 8
        Fewest non-overlapping blocks the largest block length must leave.

    Returns
    -------
    VarianceTime

    Notes
    -----
    With S the cumulative sum of the centred series, the mean of a window of b
    consecutive samples is (S[t + b] - S[t]) / b; the mean square over all windows
    estimates var(mean of b samples) (overlapping batch means, Meketon & Schmeiser 1984:
    lower variance than non-overlapping blocks). Above 50,000 samples the windows start
    every max(1, b // 4) samples, which keeps nearly all of that efficiency. One
    cumulative sum serves every b: O(n) per block length, O(n log n) in all.
    The estimate is biased low by about var(mean of n) (the centring), which matters only
    under long memory; the Hurst fit accounts for it.

    References
    ----------
    Meketon, M. S., Schmeiser, B. (1984). Overlapping batch means: something for nothing?
    Proc. Winter Simulation Conference, 226-230.
    Taqqu, M. S., Teverovsky, V., Willinger, W. (1995). Estimators for long-range
    dependence: an empirical study. Fractals 3(4), 785-798, doi:10.1142/S0218348X95000692.
    """
    min_blocks = check_positive_int(min_blocks, "min_blocks", minimum=2)
    a = as_series_array(x, "x", min_size=2 * min_blocks)
    bs, var, ratios = variance_curve(a, min_blocks)
    slope, hurst, rss_long = aggregated_variance_fit(bs, var, a.size)
    rss_short = short_memory_fit(bs, var, a.size)
    return VarianceTime(
        block_sizes=bs,
        variances=var,
        ratios=ratios,
        slope=slope,
        hurst=hurst,
        long_memory_rss=rss_long,
        short_memory_rss=rss_short,
    )


def variance_curve(
    a: Float64Array, min_blocks: int = 8
) -> tuple[Float64Array, Float64Array, Float64Array]:
    """(block lengths, variances, ratios) of :func:`variance_time` without its fits.

    ``a`` is a checked series (float64, at least ``2 * min_blocks`` values); the fits are
    :func:`aggregated_variance_fit` and :func:`short_memory_fit` of the curve, for callers
    that need them only sometimes (each is a nonlinear least-squares fit).
    """
    bs = _block_grid(a.size, min_blocks)
    var = _obm_variances(a, bs)
    v1 = var[0] if var.size and var[0] > 0 else math.nan
    ratios = bs * var / v1 if math.isfinite(v1) else np.full(bs.size, math.nan)
    return bs.astype(np.float64), var, np.asarray(ratios, dtype=np.float64)


def _obm_variances(a: Float64Array, bs: np.ndarray) -> Float64Array:
    """Overlapping-batch-means variances of the means of ``bs`` consecutive samples."""
    n = a.size
    d = a - a.mean()
    cs = np.concatenate(([0.0], np.cumsum(d)))
    var = np.empty(bs.size)
    for i, b in enumerate(bs):
        # long series: windows starting every max(1, b // 4) samples keep nearly all of
        # the overlapping estimator's efficiency at a fraction of the cost
        step = max(1, int(b) // 4) if n > _STRIDE_ABOVE else 1
        w = cs[b::step] - cs[: cs.size - b : step]
        var[i] = float(np.dot(w, w)) / (w.size * float(b) * float(b))
    return var


def curve_top(a: Float64Array, min_blocks: int = 8) -> tuple[float, float]:
    """The ratios b var_b / var_1 of :func:`variance_curve` at its longest block and,
    interpolated on the log scale between its neighbouring block lengths, at a sixteenth
    of that block: the same numbers from four block lengths instead of all of them.

    ``a`` is a checked series of at least ``2 * min_blocks`` values; (NaN, NaN) when it is
    constant.
    """
    grid = _block_grid(a.size, min_blocks)
    if grid.size == 0:
        return math.nan, math.nan
    top = float(grid[-1])
    j = int(np.clip(np.searchsorted(grid, top / 16.0), 1, grid.size - 1))
    bs = np.unique(np.array([1, grid[j - 1], grid[j], grid[-1]], dtype=np.int64))
    var = _obm_variances(a, bs)
    if not var[0] > 0:
        return math.nan, math.nan
    ratios = bs * var / var[0]
    mid = float(np.interp(math.log(top / 16.0), np.log(bs.astype(np.float64)), ratios))
    return float(ratios[-1]), mid


def scale_excess_pvalue(
    block_sizes: Float64Array, ratios: Float64Array, n: int, implied: float, *, above: float = 1.0
) -> float:
    """How unlikely the curve's ratios are if the long-run variance factor is ``implied``:
    the smallest p-value over the block lengths longer than ``above``, Bonferroni-adjusted.

    Parameters
    ----------
    block_sizes, ratios : numpy.ndarray
        The curve (:func:`variance_curve`): block lengths b and ratios b var_b / var_1.
    n : int
        Length of the series.
    implied : float
        The long-run variance factor the chosen blocks imply (1 for independent samples).
    above : float
        Only block lengths b > ``above`` are tested.

    Returns
    -------
    float
        ``min(1, m * min_b p_b)`` over the m block lengths tested; 1 when none is.

    Notes
    -----
    Where the factor has levelled off at ``implied`` by block length b, the overlapping
    batch means estimate of var_b is about (1 - b / n) var_b chi2(nu) / nu with
    nu = 1.5 (n / b - 1) degrees of freedom (Meketon & Schmeiser 1984: its variance is
    about 4 b / (3 n) of var_b^2; the factor is the bias of centring at the series' mean),
    so p_b = P(chi2(nu) / nu > ratio_b / (implied (1 - b / n))). For blocks of a few
    samples the ratio is more precise than nu says (var_1 and var_b share their noise),
    which only makes the test there conservative; so do the correlations between the
    ratios of neighbouring block lengths for the Bonferroni adjustment. A component of
    the variance that is small but slow (a level that shifts by half a standard deviation
    for stretches of tens of samples) raises the ratios of the middle block lengths well
    beyond their noise while lag 1, the subsession rule and the longest block's ratio
    alone stay within theirs.

    References
    ----------
    Meketon, M. S., Schmeiser, B. (1984). Overlapping batch means: something for nothing?
    Proc. Winter Simulation Conference, 226-230.
    Lo, A. W., MacKinlay, A. C. (1988). Stock market prices do not follow random walks:
    evidence from a simple specification test. Review of Financial Studies 1(1), 41-66,
    doi:10.1093/rfs/1.1.41.
    """
    keep = (block_sizes > above) & np.isfinite(ratios)
    if not (implied > 0 and np.any(keep)):
        return 1.0
    b = block_sizes[keep]
    nu = 1.5 * (n / b - 1.0)
    p = stats.chi2.sf(nu * ratios[keep] / (implied * (1.0 - b / n)), nu)
    return float(min(1.0, b.size * float(np.min(p))))


def _ar_curve(b: Float64Array, rho: float) -> Float64Array:
    """b var(mean of b) / var of a unit AR(1): tau - 2 rho (1 - rho^b) / ((1 - rho)^2 b)."""
    one = 1.0 - rho
    return np.asarray((1.0 + rho) / one - 2.0 * rho * (1.0 - rho**b) / (one * one * b))


def short_memory_fit(b: Float64Array, var: Float64Array, n: int) -> float:
    """Weighted RSS of E var_b = s(b) / b - s(n) / n, s = c0 + c1 AR(1) curve."""
    ok = var > 0
    if int(np.count_nonzero(ok)) < 4:
        return math.nan
    b, lv = b[ok], np.log(var[ok])
    lv = lv - lv[0]  # relative to the first block size: the fit is the same at any scale
    w = np.sqrt(n / b)
    bn = np.append(b, float(n))

    def resid(p: Float64Array) -> Float64Array:
        rho = 1.0 / (1.0 + math.exp(-p[2]))
        s = math.exp(p[0]) + math.exp(p[1]) * _ar_curve(bn, rho)
        m = s[:-1] / b - s[-1] / n
        return np.asarray(w * (lv - np.log(np.maximum(m, 1e-300))))

    v0 = float(lv[0])
    starts = ([v0 - 0.7, v0 - 0.7, 0.0], [v0 - 2.0, v0 - 1.0, 3.0], [v0 - 3.0, v0 - 3.0, 6.0])
    best = math.inf
    for p0 in starts:
        fit = optimize.least_squares(resid, p0, bounds=([-50, -50, -8.0], [50, 50, 12.0]))
        best = min(best, 2.0 * float(fit.cost))
    return best


def aggregated_variance_fit(
    b: Float64Array, var: Float64Array, n: int
) -> tuple[float, float, float]:
    """(2H - 2, H, RSS) from E var_b = c (b^(2H - 2) - n^(2H - 2)), weighted least squares."""
    ok = var > 0
    if int(np.count_nonzero(ok)) < 2:
        return math.nan, math.nan, math.nan
    b, lv = b[ok], np.log(var[ok])
    lv = lv - lv[0]  # relative to the first block size: the fit is the same at any scale
    w = np.sqrt(n / b)
    lb, ln = np.log(b), math.log(n)

    def resid(p: Float64Array) -> Float64Array:
        e = 2.0 * p[1] - 2.0
        model = p[0] + np.log(np.maximum(np.exp(e * lb) - math.exp(e * ln), 1e-300))
        return np.asarray(w * (lv - model))

    fit = optimize.least_squares(
        resid, [float(lv[0]), 0.6], bounds=([-np.inf, 0.01], [np.inf, 0.995])
    )
    h = float(fit.x[1])
    return 2.0 * h - 2.0, h, 2.0 * float(fit.cost)


class CurveFits:
    """The variance-time curve of a series (:func:`variance_curve`, blocks up to n / 8)
    whose two least-squares fits (:func:`aggregated_variance_fit`,
    :func:`short_memory_fit`) are made when first asked for: from 1000 samples on the
    long-memory test decides and the fits are rarely needed (issue 24)."""

    def __init__(self, a: Float64Array) -> None:
        self.n = a.size
        self.block_sizes, self.variances, self.ratios = variance_curve(a, 8)
        self._power: tuple[float, float, float] | None = None
        self._short: float | None = None

    @property
    def hurst(self) -> float:
        return self._power_fit()[1]

    @property
    def long_memory_rss(self) -> float:
        return self._power_fit()[2]

    @property
    def short_memory_rss(self) -> float:
        if self._short is None:
            self._short = short_memory_fit(self.block_sizes, self.variances, self.n)
        return self._short

    def _power_fit(self) -> tuple[float, float, float]:
        if self._power is None:
            self._power = aggregated_variance_fit(self.block_sizes, self.variances, self.n)
        return self._power


#: the robust Hurst exponent (robust_hurst): fraction of the squared second differences kept at each block size (drops a shift)
_KEEP = 0.9
#: E[W | W <= q_0.9] / 1 for W ~ chi2(1): bias of the trimmed mean of squared Gaussians
_TRIM_BIAS = float(stats.chi2.cdf(stats.chi2.ppf(_KEEP, 1), 3) / _KEEP)
#: fewest blocks at the largest block size
_MIN_BLOCKS = 8
#: smallest block size: blocks of 4 average out the shortest-range correlation and the
#: timer's quantisation, which would otherwise bend the slope at the small end
_MIN_BLOCK = 4


def hurst_margin(n: int) -> float:
    """Added to the estimate before the critical values are read, so that an
    underestimated H does not make the tests too liberal: its small downward bias (0.015)
    plus 1.5 of its standard errors, 2.4/√n by simulation of fractional Gaussian noise
    (0.116, 0.070, 0.037, 0.018, 0.006 at n = 500, 1000, 3000, 10⁴, 10⁵; H = 0.5 and 0.8)."""
    return 0.015 + 1.5 * 2.4 / math.sqrt(max(n, 1))


def robust_hurst(y: Float64Array) -> float:
    """Hurst exponent of ``y`` from the slope of its trimmed Hadamard variance: an
    estimate that a level shift or a linear drift does not inflate.

    Change points need a Hurst exponent taken on the whole series *before* anyone knows
    where its changes are. The aggregated variance (:func:`aggregated_variance_fit`) and
    local-Whittle estimates read a step as long memory (an i.i.d. series with one 1-sd
    step gives H ≈ 0.8 by local Whittle at n = 1000). The Hadamard variance of block
    means, the mean square of second differences B_{k+2} − 2B_{k+1} + B_k, cancels a
    linear drift exactly, and trimmed it lets a step touch at most two of the
    differences at each block size, so its slope in block size stays that of the noise:
    Var ∝ b^{2H−2}.

    Block sizes b = 4, 8, 16, … while at least 8 blocks fit; at each, the mean of the
    smallest 90% of (B_{k+2} − 2B_{k+1} + B_k)² (divided by its χ² trimming bias) is
    regressed on b in log-log with weights = number of differences; H = 1 + slope/2.
    0.5 for i.i.d. samples, above 1 when the level wanders more at long scales than
    stationary long memory allows (strong short-range dependence looks like that at
    short scales). Returns 0.5 for series too short to have two block sizes.

    References
    ----------
    .. [1] Baugh, R. A. (1971). Frequency modulation analysis with the Hadamard variance.
       *Proceedings of the 25th Annual Symposium on Frequency Control*, 222–225 (the
       variance of second differences of means).
    .. [2] Taqqu, M. S., Teverovsky, V. and Willinger, W. (1995). Estimators for
       long-range dependence: an empirical study. *Fractals* 3(4), 785–798.
       doi:10.1142/S0218348X95000692.
    """
    n = y.size
    sizes: list[int] = []
    logs: list[float] = []
    weights: list[float] = []
    b = _MIN_BLOCK
    while n // b >= _MIN_BLOCKS:
        k = n // b
        means = y[: k * b].reshape(k, b).mean(axis=1)
        d = means[2:] - 2.0 * means[1:-1] + means[:-2]
        sq = np.sort(d * d)
        keep = max(1, int(_KEEP * sq.size))
        v = float(sq[:keep].mean()) / _TRIM_BIAS
        if v > 0:
            sizes.append(b)
            logs.append(math.log(v))
            weights.append(float(k - 2))
        b *= 2
    if len(sizes) < 2:
        return 0.5
    lb = np.log(np.asarray(sizes, dtype=np.float64))
    lv = np.asarray(logs)
    w = np.asarray(weights)
    mb = float(w @ lb) / float(w.sum())
    mv = float(w @ lv) / float(w.sum())
    slope = float(w @ ((lb - mb) * (lv - mv))) / float(w @ ((lb - mb) ** 2))
    return 1.0 + slope / 2.0
