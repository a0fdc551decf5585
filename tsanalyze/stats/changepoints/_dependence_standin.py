"""STAND-IN for the one dependence assessment of issue 20 (``tsanalyze.stats.dependence``).

Change points need a Hurst exponent that a level shift or a linear drift does not
inflate: the estimate is taken on the whole series *before* anyone knows where its
changes are. Variance-time and local-Whittle estimates read a step as long memory (an
i.i.d. series with one 1-sd step gives H ≈ 0.8 by local Whittle at n = 1000). The
Hadamard variance of block means — the mean square of second differences
B_{k+2} − 2B_{k+1} + B_k, trimmed — cancels a linear drift exactly and lets a step touch
at most two of the differences at each block size, so its slope in block size stays
that of the noise: Var ∝ b^{2H−2}.

This module exists only until ``assess_dependence`` of issue 20 offers such a shift-
and drift-robust estimate (with its standard error); then :func:`robust_hurst` is
replaced by it and this file is deleted.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from tsanalyze._typing import Float64Array

__all__ = ["hurst_margin", "robust_hurst"]

#: fraction of the squared second differences kept at each block size (drops a shift)
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
    """Hurst exponent of ``y`` from the slope of its trimmed Hadamard variance.

    Block sizes b = 4, 8, 16, … while at least 8 blocks fit; at each, the mean of the
    smallest 90% of (B_{k+2} − 2B_{k+1} + B_k)² (divided by its χ² trimming bias) is
    regressed on b in log-log with weights = number of differences; H = 1 + slope/2.
    0.5 for i.i.d. samples, above 1 when the level wanders more at long scales than
    stationary long memory allows (strong short-range dependence looks like that at
    short scales). Returns 0.5 for series too short to have two block sizes.
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
