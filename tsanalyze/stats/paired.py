"""Tests on paired differences (interleaved rounds): the zenbench pipeline.

Arrays of per-round differences ``d = b - a`` in, frozen results out: the Wilcoxon
signed-rank test, the paired t test and the Spearman drift of the difference against the
round index (zenbench methodology [1]_). The Tukey filter of the differences that precedes
them is :func:`tsanalyze.stats.outliers.tukey_filter`; the joint bootstrap CI of the ratio
is :func:`tsanalyze.stats.ratio.bootstrap_ratio_ci` with ``paired=True``.

References
----------
.. [1] zenbench documentation, "Methodology" (interleaved rounds, steps 5–6 of the
   statistical pipeline). https://github.com/imazen/zenbench
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike
from tsanalyze._validation import as_series_array, check_confidence_level
from tsanalyze.stats.two_sample import HypothesisTest

__all__ = ["Drift", "paired_t", "spearman_drift", "wilcoxon_signed_rank"]


@result
class Drift(Result):
    """Spearman rank correlation of a series against its index (zenbench's drift check).

    Attributes
    ----------
    statistic : float
        Spearman's r (NaN for a constant series).
    pvalue : float
        Two-sided p-value of r = 0 (NaN for a constant series).
    n : int

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (step 6, "Spearman drift").
       https://github.com/imazen/zenbench
    """

    statistic: float
    pvalue: float
    n: int


def wilcoxon_signed_rank(d: ArrayLike) -> HypothesisTest:
    """Two-sided Wilcoxon signed-rank test that the differences ``d`` centre on 0.

    Notes
    -----
    scipy.stats.wilcoxon with ``zero_method="wilcox"`` (zero differences dropped) and
    ``method="auto"`` (exact for n <= 50 without ties or zeros, else normal
    approximation with tie correction). NaN p-value with a warning when every
    difference is zero or fewer than 2 remain.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (step 5).
       https://github.com/imazen/zenbench
    .. [2] Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics
       Bulletin 1(6), 80–83. https://doi.org/10.2307/3001968
    """
    x = as_series_array(d, "d", min_size=1)
    nz = x[x != 0]
    if nz.size < 2:
        f = Finding("too-few-differences", f"{nz.size} non-zero difference(s); no test", "warning")
        return HypothesisTest("wilcoxon", math.nan, math.nan, x.size, x.size, warnings=(f,))
    res = stats.wilcoxon(nz)
    method = "exact" if nz.size <= 50 and np.unique(np.abs(nz)).size == nz.size else "asymptotic"
    return HypothesisTest(
        "wilcoxon", float(res.statistic), float(res.pvalue), x.size, x.size, None, method
    )


def paired_t(d: ArrayLike, *, confidence_level: float = 0.95) -> HypothesisTest:
    """One-sample t test that the (block means of) differences ``d`` have mean 0.

    Notes
    -----
    scipy.stats.ttest_1samp; ``diff_ci_low``/``diff_ci_high`` are the t CI of the mean
    difference. Callers pass block means of the differences when they are
    autocorrelated (Li et al. 2016, §III-D) [2]_.

    References
    ----------
    .. [1] Student (1908). The probable error of a mean. Biometrika 6(1), 1–25.
       https://doi.org/10.1093/biomet/6.1.1
    .. [2] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-D. https://doi.org/10.1109/MASCOTS.2016.31
    """
    x = as_series_array(d, "d", min_size=1)
    confidence_level = check_confidence_level(confidence_level)
    if x.size < 2 or np.ptp(x) == 0:
        f = Finding("no-variance", f"paired t needs >= 2 varying differences (got {x.size})")
        return HypothesisTest("paired-t", math.nan, math.nan, x.size, x.size, warnings=(f,))
    res = stats.ttest_1samp(x, 0.0)
    ci = res.confidence_interval(confidence_level)
    return HypothesisTest(
        "paired-t", float(res.statistic), float(res.pvalue), x.size, x.size, float(res.df), "t",
        diff_ci_low=float(ci.low), diff_ci_high=float(ci.high),
        confidence_level=confidence_level,
    )  # fmt: skip


def spearman_drift(d: ArrayLike) -> Drift:
    """Spearman rank correlation of ``d`` against its index (0, 1, ..., n−1).

    Notes
    -----
    A large |r| (zenbench flags > 0.5) means the difference drifts over the run:
    thermal throttling (r > 0) or warm-up (r < 0). Constant input gives NaN without
    a warning.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (step 6, "Spearman drift").
       https://github.com/imazen/zenbench
    """
    x = as_series_array(d, "d", min_size=1)
    if x.size < 3 or np.ptp(x) == 0:
        return Drift(math.nan, math.nan, int(x.size))
    res = stats.spearmanr(np.arange(x.size), x)
    return Drift(float(res.statistic), float(res.pvalue), int(x.size))
