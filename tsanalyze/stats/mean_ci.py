"""The mean's confidence interval: Student t on subsession means, corrected for skewness.

Timings are right-skewed, so the studentised mean is left-skewed; Hall's (1992)
transformation corrects the t quantiles for it. When a few rare, large values dominate,
no interval for a mean can be trusted (Bahadur & Savage 1956), and the result says so.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from tsanalyze._result import Finding
from tsanalyze._typing import Float64Array
from tsanalyze.stats.autocorrelation import block_means, residual_inflation

__all__ = [
    "TAIL_SHARE_LIMIT",
    "hall_t_quantiles",
    "rare_events_finding",
    "subsession_mean_variance",
]

#: fewest subsession means Pilot's rule needs (``subsession_size(min_blocks=...)``)
MIN_BLOCKS = 10


#: share of the total absolute deviation from the median held by the largest 1% of
#: deviations above which the mean is flagged as driven by rare events (about 3% for
#: Gaussian data, 10-15% for Student-t(3), over 50% for delay data with rare large delays)
TAIL_SHARE_LIMIT = 0.3


def rare_events_finding(a: Float64Array) -> Finding | None:
    """Flag a mean dominated by a few rare, large values (Bahadur–Savage territory)."""
    n = a.size
    k = max(1, n // 100)
    if n < 100:
        return None
    dev = np.abs(a - np.median(a))
    total = float(dev.sum())
    if total == 0.0:
        return None
    top = float(np.partition(dev, n - k)[n - k :].sum())
    share = top / total
    if share <= TAIL_SHARE_LIMIT:
        return None
    return Finding(
        "mean-rare-events",
        f"the largest 1% of samples hold {share:.0%} of the total deviation from the median: "
        "the mean is driven by rare large values. The interval's lower end still holds, but "
        "rare delays that these samples happen to lack can put the true mean above its upper "
        "end, and no interval computed from the samples can prevent that; prefer the median "
        "or the trimmed mean",
        "warning",
    )


#: fewer subsession means than this: no skewness correction (the sample skewness of a
#: handful of values is too noisy to correct with)
_HALL_MIN_K = 10


def hall_t_quantiles(values: Float64Array, confidence_level: float) -> tuple[float, float]:
    """Quantiles (low, high) of the studentised mean T = (mean - mu) / se of ``values``,
    corrected for skewness by Hall's (1992) transformation.

    With g the sample skewness of the k values, a = g / (3 sqrt(k)) and b = g / (6 sqrt(k)),
    Hall's transformation ``T + a T^2 + a^2 T^3 / 3 + b`` is close to Student t_{k-1}
    (its n^-1/2 skewness term removed); it is monotone, so the quantiles of T are its
    inverse at the t quantiles: ``((1 + 3a (q - b))^(1/3) - 1) / a``. The interval for mu
    is then ``[mean - T_high se, mean - T_low se]``: for right-skewed values (delays) it
    reaches further above the mean than below. Without skewness (g = 0) or with fewer than
    ``_HALL_MIN_K`` values it is the symmetric Student t interval.

    References
    ----------
    Hall, P. (1992). On the removal of skewness by transformation. Journal of the Royal
    Statistical Society B 54(1), 221-228.
    Zhou, X.-H., Dinh, P. (2005). Nonparametric confidence intervals for the one- and
    two-sample problems. Biostatistics 6(2), 187-200.
    """
    k = values.size
    q = float(_st.t.ppf(0.5 + confidence_level / 2, k - 1))
    g = float(_st.skew(values)) if k >= _HALL_MIN_K else 0.0
    if not math.isfinite(g) or g == 0.0:
        return -q, q
    a = g / (3.0 * math.sqrt(k))
    b = g / (6.0 * math.sqrt(k))

    def inverse(z: float) -> float:
        u = 3.0 * a * (z - b)
        # (1 + u)^(1/3) - 1 without cancellation when the skewness is tiny
        d = math.expm1(math.log1p(u) / 3.0) if u > -1.0 else float(np.cbrt(1.0 + u)) - 1.0
        return d / a

    return inverse(-q), inverse(q)


def subsession_mean_variance(a: Float64Array, m: int) -> float | None:
    """var(mean) from subsession means, with the residual lag-1 factor (as t-subsession)."""
    means = block_means(a, m)
    k = means.size
    if k < MIN_BLOCKS:
        return None
    return float(np.var(means, ddof=1)) / k * residual_inflation(means)
