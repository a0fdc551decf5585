"""Location intervals under long-range dependence, from one dependence assessment.

Under long memory the variance of the mean of n samples decays like n^(2H - 2), not 1/n,
and the means of blocks stay correlated at every block length. The intervals here take
the block structure and the Hurst exponent H from
:func:`~tsanalyze.stats.dependence.assess_dependence` and apply them to each estimator's
influence series: the samples (mean), the samples winsorised at the trimming points
(trimmed mean), the indicator 1{x <= median} (median).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from tsanalyze._result import Finding
from tsanalyze._typing import Float64Array
from tsanalyze.stats.autocorrelation import residual_inflation
from tsanalyze.stats.dependence import Dependence, long_run_variance
from tsanalyze.stats.quantiles import min_samples_for_ci, quantile_ci

__all__ = ["long_range_ci", "unbounded_median_finding"]


def _winsorised(a: Float64Array, trim: float) -> Float64Array:
    """``a`` clipped at the order statistics scipy's ``trim_mean`` keeps (int(trim n) cut
    from each end)."""
    n = a.size
    g = int(trim * n)
    if g == 0:
        return a
    part = np.partition(a, (g, n - g - 1))
    return np.clip(a, part[g], part[n - g - 1])


def long_range_ci(
    a: Float64Array,
    estimator: str,
    est: float,
    dependence: Dependence,
    confidence_level: float,
    trim: float = 0.05,
) -> tuple[float, float, str, float]:
    """Interval for the median, mean or trimmed mean of a long-range dependent series.

    Parameters
    ----------
    a : numpy.ndarray
        The series (time order).
    estimator : {"median", "mean", "trimmed_mean"}
    est : float
        The point estimate.
    dependence : Dependence
        Its assessment (``hurst > 0.5``).
    confidence_level : float
    trim : float
        Trimming fraction of the trimmed mean.

    Returns
    -------
    (ci_low, ci_high, method, effective_n)

    Notes
    -----
    var(estimate) = sigma^2 / n with sigma^2 the long-run variance
    (:func:`~tsanalyze.stats.dependence.long_run_variance`: 16 block means, their variance
    extrapolated to the whole series with g(16, H)) of the estimator's influence series:

    - mean: the samples; the interval is est ± q sqrt(sigma^2 / n);
    - trimmed mean: the samples winsorised at the trimming points, divided by
      (1 - 2 trim) (the trimmed mean's influence function);
    - median: the indicator 1{x <= median} (Bahadur representation); the order-statistic
      interval is taken with the effective n = 1 / (4 var(mean of indicator)), reduced by
      (z / q)^2 so that its normal-theory width matches the quantile q.
    - median at large scales (``hurst`` 1/2: the longest blocks carry the interval because
      they vary more than short ones imply): est ± q s sqrt(f / k), s the standard
      deviation of the k block medians (batch medians), f their bias-corrected residual
      lag-1 factor as for block means
      (:func:`~tsanalyze.stats.autocorrelation.residual_inflation`). The indicator's
      linearisation fails there: when the bulk wanders by more than its own width, the
      blocks' indicator means sit near 0 or 1 and the order statistics of the pooled
      samples reach into the tails (on half a real JMH series drifting by 1.6%, an
      interval 7.4% wide, against 2.6% from the block medians).

    q is Student t with Satterthwaite's degrees of freedom for correlated block means
    (:meth:`~tsanalyze.stats.dependence.Dependence.critical_value`). Under Gaussian long
    memory the indicator and the winsorised series keep the series' Hurst exponent
    (Hermite rank 1), so one assessment serves all three.

    References
    ----------
    Beran, J. (1994). Statistics for Long-Memory Processes, §8.1.
    Bahadur, R. R. (1966). A note on quantiles in large samples. Annals of Mathematical
    Statistics 37(3), 577-580, doi:10.1214/aoms/1177699450.
    Huber, P. J., Ronchetti, E. M. (2009). Robust Statistics, 2nd ed., §3.3 (influence
    function of the trimmed mean).
    Schmeiser, B. (1982). Batch size effects in the analysis of simulation output.
    Operations Research 30(3), 556-568, doi:10.1287/opre.30.3.556 (batching any
    estimator).
    """
    n = a.size
    q = dependence.critical_value(confidence_level)
    if estimator == "median" and dependence.hurst <= 0.5:
        return _batch_medians_ci(a, est, dependence, confidence_level, q)
    if estimator == "median":
        ind = (a <= est).astype(np.float64)
        v = long_run_variance(ind, dependence) / n
        z = float(ndtri(0.5 + confidence_level / 2.0))
        neff = 1.0 / (4.0 * v) * (z / q) ** 2 if v > 0 else float(n)
        neff = max(1.0, min(float(n), neff))
        ci = quantile_ci(a, 0.5, confidence_level=confidence_level, effective_sample_size=neff)
        return ci.ci_low, ci.ci_high, f"order-statistic-{_scale(dependence)}", neff
    y = a if estimator == "mean" else _winsorised(a, trim) / (1.0 - 2.0 * trim)
    v = long_run_variance(y, dependence) / n
    half = q * math.sqrt(v)
    var_x = float(np.var(a, ddof=1))
    neff = var_x / v if v > 0 else float(n)
    return est - half, est + half, f"batch-means-{_scale(dependence)}", neff


def unbounded_median_finding(n: int, neff: float, cl: float) -> Finding:
    """The ``ci-unbounded`` finding of a median whose long-memory interval has no bound:
    the effective n the interval used (that of the indicator 1{x <= median}, not the
    mean's the dependence finding quotes) is below what the order statistics need."""
    need = min_samples_for_ci(0.5, cl)
    needs = f"a {cl:.0%} interval needs >= {need}" if need else f"a {cl:.0%} interval needs > 50"
    return Finding(
        "ci-unbounded",
        f"the long memory leaves the median of {n} samples ~{neff:.1f} effective samples "
        f"({needs}): the interval is unbounded, the data cannot bound the median "
        "(collect several runs)",
        "warning",
    )


def _batch_medians_ci(
    a: Float64Array, est: float, dependence: Dependence, confidence_level: float, q: float
) -> tuple[float, float, str, float]:
    """The large-scale median interval of :func:`long_range_ci` from batch medians; its
    effective n is the number of independent samples whose order-statistic interval would
    be as wide."""
    k = a.size // dependence.block_size
    if k < 2 or not math.isfinite(q):
        return -math.inf, math.inf, "batch-medians-large-scale", 0.0
    meds = np.median(a[: k * dependence.block_size].reshape(k, -1), axis=1)
    half = q * math.sqrt(float(np.var(meds, ddof=1)) / k * residual_inflation(meds))
    iid = quantile_ci(a, 0.5, confidence_level=confidence_level)
    iid_half = (iid.ci_high - iid.ci_low) / 2.0
    neff = float(a.size) * (iid_half / half) ** 2 if half > 0 else float(a.size)
    return est - half, est + half, "batch-medians-large-scale", min(float(a.size), neff)


def _scale(dependence: Dependence) -> str:
    """Which dependence the blocks answer: long memory, or variance at large scales that
    short-range blocks missed (:attr:`~tsanalyze.stats.dependence.Dependence.large_scale`)."""
    return "long-range" if dependence.hurst > 0.5 else "large-scale"
