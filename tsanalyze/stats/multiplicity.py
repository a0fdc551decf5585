"""Many comparisons at once: p-value adjustment and the geometric mean of ratios.

Peers print one p-value per benchmark and call each one below 0.05 "significant",
so a suite of 200 unchanged benchmarks shows about ten "changes" on every run. Here the
p-values of a family are adjusted first (Holm by default, which controls the
family-wise error rate; Benjamini–Hochberg controls the false discovery rate), and the
verdicts use the adjusted values.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from scipy import special, stats

from tsanalyze._result import Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import check_confidence_level
from tsanalyze.errors import InvalidArgumentError

__all__ = ["ADJUSTMENTS", "Adjustment", "GeometricMean", "adjust_pvalues", "geometric_mean_ratio"]

Adjustment = Literal["holm", "bh", "bonferroni", "none"]
#: Our adjustment names -> the equivalent ``statsmodels`` ``multipletests`` method.
ADJUSTMENTS: dict[str, str | None] = {
    "holm": "holm",
    "bh": "fdr_bh",
    "bonferroni": "bonferroni",
    "none": None,
}


@result
class GeometricMean(Result):
    """Geometric mean of ratios with a CI.

    Attributes
    ----------
    estimate : float
        exp(mean(log r_i)).
    ci_low, ci_high : float
        CI of the geometric mean (NaN when it cannot be computed).
    confidence_level : float
    n : int
        Number of ratios.
    method : str
        ``"propagate"`` (uncertainty of each ratio, suite fixed) or ``"between"``
        (spread across benchmarks, suite seen as a sample of benchmarks).
    """

    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    n: int
    method: str


def _adjust_rows(p: Float64Array, method: str) -> Float64Array:
    """Adjust each row of a 2-d array of finite p-values (one family per row)."""
    k = p.shape[-1]
    if method == "none" or k == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * k, 1.0)
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, axis=-1)
    i = np.arange(1, k + 1, dtype=np.float64)
    if method == "holm":
        adj_sorted = np.minimum(np.maximum.accumulate(ps * (k - i + 1), axis=-1), 1.0)
    else:  # bh
        adj_sorted = np.minimum.accumulate((ps * k / i)[..., ::-1], axis=-1)[..., ::-1]
        adj_sorted = np.minimum(adj_sorted, 1.0)
    out = np.empty_like(p)
    np.put_along_axis(out, order, adj_sorted, axis=-1)
    return out


def adjust_pvalues(pvalues: ArrayLike, method: Adjustment = "holm") -> Float64Array:
    """Adjust a family of p-values for multiplicity.

    Parameters
    ----------
    pvalues : array_like
        Raw p-values in [0, 1]. 1-d: one family; NaN entries (tests that could not run)
        stay NaN and do not count towards the family size. 2-d: one family per row (all
        finite), for Monte-Carlo work.
    method : {"holm", "bh", "bonferroni", "none"}
        Holm's step-down (family-wise error rate), Benjamini–Hochberg (false discovery
        rate), Bonferroni, or no adjustment.

    Returns
    -------
    ndarray
        Adjusted p-values, same shape and order as the input.

    Notes
    -----
    Holm: sort p_(1) <= ... <= p_(k); adjusted p_(i) = max_{j<=i} min(1, (k − j + 1) p_(j)).
    BH: adjusted p_(i) = min_{j>=i} min(1, k p_(j) / j). These are the formulas of
    ``statsmodels.stats.multitest.multipletests`` (methods ``holm``, ``fdr_bh``,
    ``bonferroni``), applied here in vectorised numpy because multipletests runs
    ``gc.collect()`` on every call (about 0.1 s), which makes suites and Monte-Carlo
    checks slow; the tests check agreement with statsmodels.

    References
    ----------
    Holm (1979), Scand. J. Statist. 6(2):65–70. Benjamini & Hochberg (1995),
    J. R. Statist. Soc. B 57(1):289–300.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim not in (1, 2):
        raise InvalidArgumentError(f"pvalues: expected a 1-d or 2-d array, got shape {p.shape}")
    if method not in ADJUSTMENTS:
        raise InvalidArgumentError(f"method: expected one of {sorted(ADJUSTMENTS)}, got {method!r}")
    if np.isinf(p).any():
        raise InvalidArgumentError("pvalues: infinite p-value")
    ok = np.isfinite(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise InvalidArgumentError("pvalues: every p-value must lie in [0, 1]")
    if p.ndim == 2:
        if not ok.all():
            raise InvalidArgumentError("pvalues: a 2-d array of families must not hold NaN")
        return _adjust_rows(p, method)
    out = np.full(p.shape, np.nan)
    out[ok] = _adjust_rows(p[ok], method)
    return out


def geometric_mean_ratio(
    ratios: ArrayLike,
    *,
    se_log: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> GeometricMean:
    """Geometric mean of per-benchmark ratios, with a CI.

    Parameters
    ----------
    ratios : array_like
        Positive ratios (candidate / baseline), one per benchmark.
    se_log : array_like, optional
        Standard errors of ``log(ratio)`` per benchmark (e.g. from the bootstrap). When
        given, the CI propagates them with the suite held fixed:
        se = sqrt(Σ se_i²) / k and CI = exp(mean log r ± z se). When omitted, the CI
        treats the benchmarks as a sample: a t interval of the log ratios (needs k >= 2).
    confidence_level : float

    Returns
    -------
    GeometricMean

    Notes
    -----
    The two CIs answer different questions: "how sure are we of the average change
    over exactly these benchmarks" (propagate) versus "what is the average change over
    benchmarks like these" (between). benchstat and pyperf print the point geomean only.

    References
    ----------
    Fleming & Wallace (1986), "How not to lie with statistics: the correct way to
    summarize benchmark results", CACM 29(3):218–221.
    """
    r = np.asarray(ratios, dtype=np.float64)
    confidence_level = check_confidence_level(confidence_level)
    if r.ndim != 1 or r.size == 0:
        raise InvalidArgumentError("ratios: expected a non-empty 1-d array")
    if not np.isfinite(r).all() or (r <= 0).any():
        raise InvalidArgumentError("ratios: every ratio must be finite and > 0")
    logs = np.log(r)
    k = r.size
    est = float(np.exp(logs.mean()))
    alpha = 1.0 - confidence_level
    if se_log is not None:
        se = np.asarray(se_log, dtype=np.float64)
        if se.shape != r.shape:
            raise InvalidArgumentError(f"se_log: expected shape {r.shape}, got {se.shape}")
        if not np.isfinite(se).all() or (se < 0).any():
            raise InvalidArgumentError("se_log: every standard error must be finite and >= 0")
        half = float(special.ndtri(1 - alpha / 2)) * math.sqrt(float((se**2).sum())) / k
        method = "propagate"
    elif k >= 2:
        half = float(stats.t.ppf(1 - alpha / 2, k - 1)) * float(logs.std(ddof=1)) / math.sqrt(k)
        method = "between"
    else:
        return GeometricMean(est, math.nan, math.nan, confidence_level, k, "between")
    m = float(logs.mean())
    return GeometricMean(est, math.exp(m - half), math.exp(m + half), confidence_level, k, method)
