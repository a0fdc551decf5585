"""The robust weighted CUSUM scan for one change in a commit-level series, and its
p-value calibrated on simulated null series.

For a stretch of commits with values x_i and noise sd s_i (from the fitted
:class:`~.noise.NoiseModel`), the scan standardises e_i = (x_i − median) / s_i, bounds
them with Huber's ψ_k(e) = clip(e, −k, k) (a spike moves the statistic by at most k,
whatever its size: one-run spikes cannot make a change), and computes at every split t
the weighted CUSUM

    C_t = Σ_{i<t} ω_i z_i − λ_t Σ_i ω_i z_i,   ω_i = 1 / s_i,   λ_t = Σ_{i<t} ω_i / Σ_i ω_i,

the score of a level shift between commits t − 1 and t in the weighted least-squares
model, divided by its null sd √V_t (V_t = (1 − λ_t)² W_t + λ_t² (W − W_t), W_t the
partial sums of ω_i²). Its maximum over t is the statistic; null series simulated from
the fitted noise, through the same steps, give its p-value.

:class:`GlsScan` is the likelihood-ratio scan of the same hypothesis under the fitted
AR(1)-plus-white noise, on series whose one-commit spikes :func:`despike` has bounded;
the detector uses it where that model describes the series (see :mod:`.detect`).

References
----------
Hušková, M. and Marušiaková, M. (2012). M-procedures for detection of changes for
dependent observations. *Communications in Statistics — Simulation and Computation*
41(7), 1032–1050. doi:10.1080/03610918.2012.625761.
Csörgő, M. and Horváth, L. (1997). *Limit Theorems in Change-Point Analysis*, ch. 1–2.
Wiley.
Knijnenburg, T. A., Wessels, L. F. A., Reinders, M. J. T. and Shmulevich, I. (2009).
Fewer permutations, more accurate P-values. *Bioinformatics* 25(12), i161–i168.
doi:10.1093/bioinformatics/btp211.
Davis, R. A., Huang, D. and Yao, Y.-C. (1995). Testing for a change in the parameter
values and order of an autoregressive model. *Annals of Statistics* 23(1), 282–304.
doi:10.1214/aos/1176324468.
Harvey, A. C. (1989). *Forecasting, Structural Time Series Models and the Kalman
Filter*, §3.2. Cambridge University Press. doi:10.1017/CBO9781107049994.
Tukey, J. W. (1977). *Exploratory Data Analysis*, ch. 7. Addison-Wesley.
Hampel, F. R., Ronchetti, E. M., Rousseeuw, P. J. and Stahel, W. A. (1986). *Robust
Statistics: The Approach Based on Influence Functions*. Wiley. doi:10.1002/9781118186435.
Hosking, J. R. M. and Wallis, J. R. (1987). Parameter and quantile estimation for the
generalized Pareto distribution. *Technometrics* 29(3), 339–349.
doi:10.1080/00401706.1987.10488243.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tsanalyze._typing import Float64Array
from tsanalyze.stats.robust_scale import robust_sd

__all__ = [
    "DESPIKE_K", "HUBER_K", "SPIKE_K", "GlsScan", "Scan", "despike", "median3", "scan", "spikes",
    "tail_pvalue",
]  # fmt: skip

#: Huber's tuning constant on the standardised scale.
HUBER_K = 1.5
#: local robust sds a value may lie from its neighbours' median (see :func:`despike`)
DESPIKE_K = 2.0
#: ... and beyond this many a run is a spike, missing to the GLS scan (see :func:`spikes`)
SPIKE_K = 4.0
#: at least this many simulated exceedances for the plain Monte-Carlo p-value
_MIN_EXCEED = 10
#: share of the simulated statistics whose excesses the generalized Pareto tail is fit to
_TAIL_SHARE = 0.1
#: smallest p-value reported
P_FLOOR = 1e-12


@dataclass(frozen=True, slots=True)
class Scan:
    """The scan of one or several stretches (rows): statistic per split, best split."""

    profile: Float64Array  # (..., L-1): |C_t| / sqrt(V_t), before the scale
    best: np.ndarray  # (...,): index t (1..L-1) of the best split, as position in the stretch
    scale: Float64Array  # (...,): 1 (the z are standardised by the noise model)
    statistic: Float64Array  # (...,): profile[best] / scale


def scan(x: Float64Array, s: Float64Array, k: float = HUBER_K, min_seg: int = 1) -> Scan:
    """Scan stretches ``x`` (last axis, length L ≥ 2 min_seg) whose noise sd is ``s``.

    Returns the profile at splits t = 1..L−1 (element t − 1), the best split among those
    leaving at least ``min_seg`` commits on each side, the scale and the statistic, each
    with the leading shape of ``x``.
    """
    length = x.shape[-1]
    omega = 1.0 / s
    w2 = omega * omega
    center = np.median(x, axis=-1, keepdims=True)
    z = np.clip((x - center) * omega, -k, k)
    u = z * omega
    cu = np.cumsum(u, axis=-1)
    total = cu[..., -1:]
    om = np.cumsum(omega)
    lam = om[:-1] / om[-1]
    wc = np.cumsum(w2)
    var = (1.0 - lam) ** 2 * wc[:-1] + lam**2 * (wc[-1] - wc[:-1])
    prof = np.abs(cu[..., :-1] - lam * total) / np.sqrt(var)
    if min_seg > 1:
        inner = prof[..., min_seg - 1 : length - min_seg]
        best = np.argmax(inner, axis=-1) + (min_seg - 1)
    else:
        best = np.argmax(prof, axis=-1)
    # the z are standardised by the fitted noise model: no data-based scale (a scale from
    # the residuals around one split is inflated by any second change, and would hide a
    # regression that recovered); the model's uncertainty is carried by the null instead
    scale = np.ones(prof.shape[:-1])
    stat = np.take_along_axis(prof, best[..., None], axis=-1)[..., 0] / scale
    return Scan(prof, best + 1, scale, stat)


def tail_pvalue(observed: float, null: Float64Array) -> float:
    """P(null ≥ observed) from simulated null statistics, with a generalized Pareto tail
    beyond the simulated range.

    The plain Monte-Carlo estimate (1 + #exceed) / (B + 1) is used when at least 10
    simulated statistics exceed ``observed``; otherwise the excesses of the largest 10%
    over their threshold are fitted with a generalized Pareto distribution by probability
    weighted moments (Hosking & Wallis 1987) and the tail probability is read from it
    (Knijnenburg et al. 2009), floored at ``P_FLOOR``.
    """
    b = null.size
    exceed = int(np.count_nonzero(null >= observed))
    if exceed >= _MIN_EXCEED or b < 50:
        return (1.0 + exceed) / (b + 1.0)
    srt = np.sort(null)
    m = max(round(_TAIL_SHARE * b), 20)
    thr = float(srt[b - m - 1])
    y = srt[b - m :] - thr
    a0 = float(np.mean(y))
    p = (np.arange(1, m + 1) - 0.35) / m
    a1 = float(np.mean((1.0 - p) * y))
    denom = a0 - 2.0 * a1
    share = m / (b + 1.0)
    if a0 <= 0 or denom <= 0:
        return max(P_FLOOR, 1.0 / (b + 1.0) * 0.5)
    kappa = a0 / denom - 2.0  # Hosking's k (shape = -k)
    sigma = 2.0 * a0 * a1 / denom
    excess = observed - thr
    if abs(kappa) < 1e-6:
        tail = math.exp(-excess / sigma)
    else:
        base = 1.0 - kappa * excess / sigma
        tail = base ** (1.0 / kappa) if base > 0 else 0.0
    return float(min(max(share * tail, P_FLOOR), (1.0 + exceed) / (b + 1.0)))


def median3(x: Float64Array) -> Float64Array:
    """Running median of three along the last axis (the ends kept): Tukey's smoother,
    which removes every one-commit excursion, however large, and keeps a clean step
    where it is (each commit next to the step has two of its three values on its own
    side; Tukey 1977, ch. 7)."""
    if x.shape[-1] < 3:
        return x
    out = x.copy()
    a, b, c = x[..., :-2], x[..., 1:-1], x[..., 2:]
    out[..., 1:-1] = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
    return out


def _neighbour_range(
    x: Float64Array, ref: Float64Array, missing: np.ndarray | None = None
) -> tuple[Float64Array, Float64Array, Float64Array]:
    """The range spanned by the level of each value's two previous commits and the level
    of its two next ones (the mean of each pair of ``ref``, its commits in ``missing``
    left out; one side where the other has none, as at the ends), and the robust sd of
    the values' deviations from its middle (per row)."""
    n = x.shape[-1]
    pad = [(0, 0)] * (x.ndim - 1) + [(2, 2)]
    have = np.ones(n) if missing is None else (~missing).astype(np.float64)
    xp = np.pad(ref * have, pad)
    cp = np.pad(have, (2, 2))
    n_left, n_right = cp[0:n] + cp[1 : n + 1], cp[3 : n + 3] + cp[4 : n + 4]
    left = (xp[..., 0:n] + xp[..., 1 : n + 1]) / np.maximum(n_left, 1.0)
    right = (xp[..., 3 : n + 3] + xp[..., 4 : n + 4]) / np.maximum(n_right, 1.0)
    left = np.where(n_left > 0, left, right)
    right = np.where(n_right > 0, right, left)
    d = x - 0.5 * (left + right)
    s = robust_sd(d, axis=-1, keepdims=True)
    return np.minimum(left, right), np.maximum(left, right), np.where(s > 0, s, np.inf)


def despike(
    x: Float64Array, k: float = DESPIKE_K, missing: np.ndarray | None = None
) -> Float64Array:
    """Bound one-commit excursions of each row of ``x`` (last axis).

    A value may lie at most ``k`` robust sds outside the range spanned by the level of
    its two previous commits and the level of its two next ones (the mean of each pair;
    one side at the ends); the sd is the MAD of the values' deviations from the middle of
    that range over the row. A spike keeps at most ``k`` sds beyond its neighbours,
    whatever its size; a step is left alone, since each commit next to it agrees with one
    of its two sides (a running median would erode the step's jump instead; cf. Tukey
    1977, ch. 7, Hampel et al. 1986, §8.1). The commits in ``missing`` (the series'
    :func:`spikes`, the same for every row) are nobody's neighbours: at the end of a
    stretch, a commit after a spike was otherwise bounded towards it.
    """
    if x.shape[-1] < 3:
        return x
    lo, hi, s = _neighbour_range(x, x, missing)
    out: Float64Array = np.clip(x, lo - k * s, hi + k * s)
    return out


def spikes(x: Float64Array, k: float = SPIKE_K) -> np.ndarray:
    """Commits of the 1-d series ``x`` that lie more than ``k`` robust sds outside the
    range of their neighbours' levels (as in :func:`despike`, the neighbours' values
    from the running median of three, so that a spike beside another is seen): one-run
    spikes, whose value says nothing of the level at their commit. The GLS scan treats
    them as missing."""
    if x.shape[-1] < 3:
        return np.zeros(x.shape, dtype=bool)
    lo, hi, s = _neighbour_range(x, median3(x))
    out: np.ndarray = (x < lo - k * s) | (x > hi + k * s)
    return out


class GlsScan:
    """Generalised-least-squares scan for one step in a stretch whose noise is an AR(1)
    wander (sd ``sd_wander``, coefficient ``phi``) plus white noise of variance
    ``white_var`` per commit.

    The Kalman filter of that model turns any vector into its standardised innovations
    (a whitening transform, L with L Σ Lᵀ = I; Harvey 1989 §3.2). Whitened, the data y,
    the intercept and the step regressors c_t (1 from commit t on) form an ordinary
    regression; the score of a step at t with the level profiled out is

        T_t = r_tᵀ y / ‖r_t‖,   r_t = L c_t projected orthogonally to L 1,

    N(0, 1) under no change, and T_t² is twice the log-likelihood ratio of the step at t
    (the likelihood-ratio scan of Davis, Huang & Yao 1995 with the AR(1) wander and the
    white noise together). A step is a pulse plus a (1 − phi)-scaled level in the
    innovations: the scan weighs the jump between neighbouring commits, which the
    wander barely moves, and so sees steps that the wander's long swings hide from a
    CUSUM of levels.
    """

    def __init__(self, sd_wander: float, phi: float, white_var: Float64Array) -> None:
        n = white_var.size
        self.n = n
        self.phi = phi
        gain = np.empty(n)
        inv_sd = np.empty(n)
        va = sd_wander**2
        p = va
        for i in range(n):
            f = p + float(white_var[i])
            gain[i] = p / f if f > 0 else 0.0
            inv_sd[i] = 1.0 / math.sqrt(f) if f > 0 else 0.0
            p = phi * phi * p * (1.0 - gain[i]) + va * (1.0 - phi * phi)
        self.gain = gain
        self.inv_sd = inv_sd
        one = self.whiten(np.ones((1, n)))[0]
        self._level = one / np.linalg.norm(one)
        steps = np.arange(n)[None, :] >= np.arange(1, n)[:, None]
        self.regressors: Float64Array = self.regressors_of(steps.astype(np.float64))

    def regressors_of(self, shapes: Float64Array) -> Float64Array:
        """Each row of ``shapes`` (a change of level over the commits, shape (m, n)) as
        its GLS regressor: whitened, the level profiled out, unit length (a zero row stays
        zero). ``|regressor @ whiten(x)|`` is the change's likelihood-ratio score."""
        zc = self.whiten(shapes)
        zc -= (zc @ self._level)[:, None] * self._level[None, :]
        norm = np.linalg.norm(zc, axis=1)
        out: Float64Array = zc / np.where(norm > 0, norm, 1.0)[:, None]
        return out

    def whiten(self, v: Float64Array) -> Float64Array:
        """Standardised Kalman innovations of each row of ``v`` (shape (m, n))."""
        out = np.empty_like(v, dtype=np.float64)
        state = np.zeros(v.shape[0])
        phi = self.phi
        for i in range(self.n):
            innov = v[:, i] - state
            out[:, i] = innov * self.inv_sd[i]
            state = phi * (state + self.gain[i] * innov)
        return out

    def scan(self, x: Float64Array, min_seg: int = 1) -> Scan:
        """The scan of the rows of ``x`` (shape (..., n)): |T_t| for t = 1..n−1."""
        lead = x.shape[:-1]
        y = self.whiten(x.reshape(-1, self.n))
        prof = np.abs(y @ self.regressors.T).reshape(*lead, self.n - 1)
        length = self.n
        inner = prof[..., min_seg - 1 : length - min_seg]
        best = np.argmax(inner, axis=-1) + (min_seg - 1)
        stat = np.take_along_axis(prof, best[..., None], axis=-1)[..., 0]
        return Scan(prof, best + 1, np.ones(lead), stat)
