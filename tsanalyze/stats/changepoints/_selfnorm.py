"""Self-normalised statistics for a change in level and for a linear trend.

A CUSUM needs the variance of a sum of L samples to say whether a shift is large; under
slowly decaying dependence that variance grows like L^{2H} and no short-window estimate
gets it right. Self-normalisation (Shao & Zhang 2010) divides the CUSUM by partial sums
of the same data *within* each side of the candidate split, so the unknown scale cancels
and the null distribution is free of it. What remains depends only on how the dependence
decays (the Hurst exponent H, 1/2 for short-range dependence), so the critical values
here are tabulated by H from Monte-Carlo runs on fractional Gaussian noise
(``benchmarks/calibrate_selfnorm.py`` recomputes them) and looked up with an upper bound
of H.

All functions take the series after spike masking and return plain arrays; the search
(binary segmentation) lives in :mod:`.edm`.
"""

from __future__ import annotations

import math

import numpy as np

from tsanalyze._typing import Float64Array
from tsanalyze.errors import InvalidArgumentError

__all__ = [
    "change_critical_value",
    "change_pvalue",
    "sn_change_scan",
    "sn_trend_statistic",
    "trend_critical_value",
]


def _left_norm(p: Float64Array) -> Float64Array:
    """For prefix sums p (…, L+1) with p[…, 0] = 0, the sums
    Σ_{t=1..k} (P_t − (t/k) P_k)² for k = 1..L (last axis), via cumulative sums:
    A1 − 2 r A2 + r² A3 with A1 = Σ P_t², A2 = Σ t P_t, A3 = Σ t², r = P_k / k. The
    arithmetic is done in place, in the same order as the formula (the same floats), so a
    series of 10^7 samples needs about six arrays of its length here, not ten."""
    length = p.shape[-1] - 1
    t = np.arange(1, length + 1, dtype=np.float64)
    pt = p[..., 1:]
    a1 = np.multiply(pt, pt)
    np.cumsum(a1, axis=-1, out=a1)
    a2 = np.multiply(t, pt)
    np.cumsum(a2, axis=-1, out=a2)
    r = np.divide(pt, t)
    a3 = t + 1.0  # t (t + 1) (2 t + 1) / 6
    np.multiply(t, a3, out=a3)
    t *= 2.0
    t += 1.0
    a3 *= t
    a3 /= 6.0
    del t
    tmp = np.multiply(2.0, r)
    tmp *= a2
    del a2
    a1 -= tmp
    np.multiply(r, r, out=tmp)
    tmp *= a3
    a1 += tmp
    out: Float64Array = np.maximum(a1, 0.0, out=a1)
    return out


def sn_change_scan(y: Float64Array) -> Float64Array:
    """Standardised self-normalised CUSUM at every split of ``y`` (last axis).

    Element k − 1 (k = 1..L−1) is the statistic for a change between y[k−1] and y[k]:
    G(k) / (λ(1 − λ)) with λ = k/L,

        G(k) = T(k)² / V(k),   T(k) = (S_k − (k/L) S_L) / √L,
        V(k) = L⁻² [Σ_{t≤k} (S_t − (t/k) S_k)² + Σ_{t>k} (R_t − ((L−t+1)/(L−k)) R_{k+1})²],

    S the partial sums from the start and R those from the end (Shao & Zhang 2010,
    eq. 2.1, one-dimensional). The division by λ(1 − λ) gives changes near the ends of
    the series (a warm-up) the same weight as central ones.

    Parameters
    ----------
    y : numpy.ndarray
        One series (1-d) or several (2-d, one per row), each of length L ≥ 2.

    Returns
    -------
    numpy.ndarray
        Shape ``y.shape[:-1] + (L − 1,)``.
    """
    return scan_and_cusum(y)[0]


def scan_and_cusum(y: Float64Array) -> tuple[Float64Array, Float64Array]:
    """:func:`sn_change_scan` and the CUSUM S_k − (k/L) S_L, k = 1..L−1, it is built on
    (in place where the formula allows: the same floats with fewer arrays alive)."""
    yc = y - y.mean(axis=-1, keepdims=True)
    length = yc.shape[-1]
    p = np.zeros((*yc.shape[:-1], length + 1))
    np.cumsum(yc, axis=-1, out=p[..., 1:])
    pr = np.zeros_like(p)
    np.cumsum(yc[..., ::-1], axis=-1, out=pr[..., 1:])
    del yc
    v = _left_norm(p)[..., :-1]  # k = 1..L-1
    v += _left_norm(pr)[..., length - 2 :: -1]  # the reversed series' left part, j = L-k
    del pr
    v /= length
    k = np.arange(1, length, dtype=np.float64)
    lam = k / length
    cusum: Float64Array = p[..., 1:length] - lam * p[..., length : length + 1]
    del p
    bad = ~(v > 0)
    v[bad] = 1.0
    g = np.multiply(cusum, cusum)
    g /= v
    g[bad] = 0.0
    del v
    one_minus = 1.0 - lam
    lam *= one_minus
    g /= lam
    out: Float64Array = g
    return out, cusum


def sn_trend_statistic(y: Float64Array, t: Float64Array | None = None) -> float:
    """Self-normalised statistic for a linear trend in ``y`` observed at times ``t``.

    With b̂ the least-squares slope of y on t, e the residuals of that fit and S their
    partial sums, W = b̂² Σ(t − t̄)² / (n⁻² Σ S_j²). Under a stationary series the
    denominator estimates the long-run variance times a pivotal factor, so W has a
    distribution free of the scale (the self-normalised trend test of Vogelsang 1998 and
    Bunzel & Vogelsang 2005 in its simplest form); its quantiles depend on H only.
    """
    n = y.size
    tt = np.arange(n, dtype=np.float64) if t is None else np.asarray(t, dtype=np.float64)
    tc = tt - tt.mean()
    yc = y - y.mean()
    stt = float(tc @ tc)
    if n < 3 or not stt > 0:
        return 0.0
    b = float(yc @ tc) / stt
    s = np.cumsum(yc - b * tc)
    v = float(s @ s) / (n * n)
    if not v > 0:
        return math.inf if b != 0.0 else 0.0
    return b * b * stt / v


# --- critical values ------------------------------------------------------------------
# Monte-Carlo quantiles under fractional Gaussian noise, L = 1024, 20 000 series per H
# (benchmarks/calibrate_selfnorm.py, seed 20240601). The standardised change statistic
# is maximised over λ ∈ [ε, 1 − ε]; below ε = 0.05 its quantiles no longer change (the
# maximum of a self-normalised scan is never attained at the very ends). Within the
# tables, log(critical value) is linear in H to within the Monte-Carlo error, so each
# column is stored as that fitted line: c = exp(a + b (H − 1/2)); the line is within
# 6% of the Monte-Carlo quantiles for alpha >= 0.025 and within 9% (15% for the trend)
# at the smaller levels, where 20 000 series leave the quantiles themselves that noisy.

#: significance levels tabulated
_ALPHAS = np.array([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2])
#: trimming fractions tabulated (ε below the first is treated as the first)
_EPS = np.array([0.05, 0.1, 0.2, 0.3, 0.4])
#: change statistic: the line (a, b) of log c in H − 1/2, per [alpha, eps]
_CHANGE_LINE = np.array(
    [
        [(6.460, 2.605), (6.448, 2.637), (6.410, 2.729), (6.334, 2.852), (6.173, 2.877)],
        [(6.121, 2.340), (6.111, 2.365), (6.055, 2.489), (5.955, 2.618), (5.773, 2.590)],
        [(5.939, 2.216), (5.918, 2.266), (5.843, 2.427), (5.743, 2.517), (5.554, 2.504)],
        [(5.656, 2.090), (5.627, 2.161), (5.553, 2.294), (5.422, 2.423), (5.214, 2.428)],
        [(5.418, 1.963), (5.377, 2.063), (5.286, 2.218), (5.136, 2.351), (4.902, 2.331)],
        [(5.131, 1.801), (5.080, 1.923), (4.955, 2.147), (4.774, 2.291), (4.496, 2.248)],
        [(4.772, 1.572), (4.696, 1.743), (4.522, 2.028), (4.297, 2.180), (3.996, 2.045)],
    ]
)
#: trend statistic: the line (a, b) of log c in H − 1/2, per alpha
_TREND_LINE = np.array(
    [
        (5.835, 3.138),
        (5.368, 3.023),
        (5.139, 2.871),
        (4.777, 2.714),
        (4.429, 2.605),
        (4.002, 2.466),
        (3.427, 2.332),
    ]
)
#: H beyond which the tables are not extrapolated
HURST_MAX = 0.99


def _alpha_iv(alpha: float) -> float:
    if not _ALPHAS[0] <= alpha <= _ALPHAS[-1]:
        raise InvalidArgumentError(
            f"alpha: the self-normalised tests are calibrated for {_ALPHAS[0]} <= alpha <= "
            f"{_ALPHAS[-1]}, got {alpha!r}"
        )
    return float(alpha)


def _interp_alpha(alpha: float, values: Float64Array) -> float:
    """Linear interpolation of ``values`` (one per tabulated alpha) in log(alpha)."""
    return float(np.interp(math.log(alpha), np.log(_ALPHAS), values))


def _lines_at(e: float) -> tuple[Float64Array, Float64Array]:
    """``np.interp(e, _EPS, column)`` for every column of :data:`_CHANGE_LINE` at once
    (``e`` within the tabulated range): the same operations as numpy's, so the same bits
    (tested), without 14 calls (issue 24: 2 500 critical values in a 100-run report)."""
    j = int(np.searchsorted(_EPS, e, side="right")) - 1
    if j >= _EPS.size - 1 or _EPS[j] == e:
        at = _CHANGE_LINE[:, j, :]
    else:
        lo, hi = _CHANGE_LINE[:, j, :], _CHANGE_LINE[:, j + 1, :]
        at = (hi - lo) / (_EPS[j + 1] - _EPS[j]) * (e - _EPS[j]) + lo
    return at[:, 0], at[:, 1]


def change_critical_value(hurst: float, eps: float, alpha: float = 0.05) -> float:
    """Critical value of max_{ε ≤ λ ≤ 1−ε} of :func:`sn_change_scan` at level ``alpha``
    for a stationary series with Hurst exponent ``hurst`` (clipped to [1/2, 0.99])."""
    alpha = _alpha_iv(alpha)
    h = min(max(float(hurst), 0.5), HURST_MAX)
    e = min(max(float(eps), float(_EPS[0])), float(_EPS[-1]))
    # each alpha's line at this eps: a and b interpolated between the tabulated eps
    a, b = _lines_at(e)
    return math.exp(_interp_alpha(alpha, a) + _interp_alpha(alpha, b) * (h - 0.5))


def trend_critical_value(hurst: float, alpha: float = 0.01) -> float:
    """Critical value of :func:`sn_trend_statistic` at level ``alpha`` for a stationary
    series with Hurst exponent ``hurst`` (clipped to [1/2, 0.99])."""
    alpha = _alpha_iv(alpha)
    h = min(max(float(hurst), 0.5), HURST_MAX)
    a, b = _TREND_LINE.T
    return math.exp(_interp_alpha(alpha, a) + _interp_alpha(alpha, b) * (h - 0.5))


def change_pvalue(statistic: float, hurst: float, eps: float) -> float:
    """Approximate p-value of a change statistic: the level at which it would be the
    critical value, interpolated in log-log between the tabulated levels and clipped to
    [0.001, 0.2]."""
    crit = np.array([change_critical_value(hurst, eps, float(a)) for a in _ALPHAS])
    if not statistic > 0:
        return float(_ALPHAS[-1])
    # critical values decrease with alpha: interpolate log alpha against log c (ascending)
    la = np.interp(math.log(statistic), np.log(crit[::-1]), np.log(_ALPHAS[::-1]))
    return float(math.exp(la))
