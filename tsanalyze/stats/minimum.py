"""The minimum: a lower bound of the run time, with the exact i.i.d. bootstrap interval.

The minimum estimates a lower bound of the time of one evaluation (Chen, Revels & Edelman
2016), not a location; its sampling distribution is degenerate (the lower end of any
interval is the sample minimum), so it is reported with a finding that says so.
"""

from __future__ import annotations

import math

import numpy as np

from tsanalyze._result import Finding
from tsanalyze._typing import Float64Array

__all__ = ["min_exact_percentile", "min_finding"]


def min_exact_percentile(a: Float64Array, cl: float) -> tuple[float, float]:
    """Percentile interval of the i.i.d. bootstrap distribution of the minimum, exactly.

    With distinct values, P(min* > x_(j)) = ((n - j) / n)^n, so the alpha/2 and
    1 - alpha/2 quantiles of min* are order statistics found without resampling.
    """
    n = a.size
    k = min(n, 64)
    low = np.sort(np.partition(a, k - 1)[:k]) if k < n else np.sort(a)
    j = np.arange(1, k + 1)
    cdf = 1.0 - ((n - j) / n) ** n  # P(min* <= x_(j))
    alpha = 1.0 - cl
    i_lo = int(np.searchsorted(cdf, alpha / 2))
    i_hi = int(np.searchsorted(cdf, 1 - alpha / 2))
    return float(low[min(i_lo, k - 1)]), float(low[min(i_hi, k - 1)])


def min_finding(a: Float64Array) -> Finding:
    h = a.size // 2
    m1, m2 = float(a[:h].min()), float(a[h:].min())
    lo = min(m1, m2)
    rel = abs(m1 - m2) / abs(lo) if lo != 0 else math.nan
    return Finding(
        "min-lower-bound",
        "the minimum estimates a lower bound of the run time, not a typical time; its "
        "sampling distribution is degenerate (the interval's lower end is always the "
        f"sample minimum); the two halves of the series give minima {rel:.2%} apart",
        "info",
    )
