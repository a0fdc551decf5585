"""How noisy is a benchmark's history from commit to commit? The commit-level noise model.

A history's level at commit *i* is estimated from the runs made there (their medians of
log time, averaged over the runs). Around the true, piecewise-constant level it moves by

* a **wander** ``a_i``: a stationary AR(1) process (sd ``sd_wander``, coefficient ``phi``)
  shared by the runs of one commit: the slow drift of a CI machine's speed from one
  benchmarking session to the next;
* a **white** part ``e_i`` with variance ``(sd_run² + w_i) / r_i``: the run-to-run
  variance beyond the samples (``sd_run²``) plus the sampling variance ``w_i`` of a run's
  median (the within-run level, from its samples), averaged over the ``r_i`` runs (trials)
  of the commit.

The three parameters are fitted to the **robust variogram** of the commit-level series,
γ(k) = ½ Var(x_{i+k} − x_i) = sd_wander² (1 − phi^k) + mean over pairs of the white
variances, read at lags k = 1..K from the MAD of the k-differences (Genton 1998): a
difference straddles a step only at the few change points and a spike only twice per
lag, so the fit sees the noise and not the changes it has to judge. For each phi on a
grid the two variances follow from non-negative least squares.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, signal

from tsanalyze._result import Result, result
from tsanalyze._typing import Float64Array
from tsanalyze.stats.robust_scale import robust_sd

__all__ = [
    "NoiseModel", "fit_noise", "fit_noise_whittle", "segment_mean_variance", "simulate_noise",
    "whittle_loglik", "whittle_logliks",
]  # fmt: skip

_PHI_GRID = np.round(np.arange(0.0, 0.91, 0.025), 3)
#: the Whittle fit's grids: the wander's coefficient, and the ratio of its variance to
#: the white variance (0: no wander)
_WHITTLE_PHI = np.round(np.arange(0.0, 0.976, 0.025), 3)
_WHITTLE_Q = np.concatenate([[0.0], np.exp(np.linspace(np.log(0.01), np.log(100.0), 33))])


@result
class NoiseModel(Result):
    """The fitted commit-level noise of one history series (log scale).

    Attributes
    ----------
    sd_wander : float
        Marginal sd of the AR(1) wander shared by the runs of a commit.
    phi : float
        Its lag-1 autocorrelation from one benchmarked commit to the next.
    sd_run : float
        Run-to-run sd beyond a run's own sampling noise (white).
    white_var : numpy.ndarray
        Per commit, the white variance ``(sd_run² + w_i) / r_i``.
    n_lags : int
        Variogram lags used in the fit.
    """

    sd_wander: float
    phi: float
    sd_run: float
    white_var: Float64Array
    n_lags: int

    @property
    def marginal_var(self) -> Float64Array:
        """Per commit, the variance of the commit-level value around its true level."""
        out: Float64Array = self.sd_wander**2 + self.white_var
        return out

    @property
    def long_run_ratio(self) -> float:
        """How much the wander's dependence widens a long average: (1 + phi) / (1 − phi)
        for the wander's share of the variance (1 without wander)."""
        total = self.sd_wander**2 + float(np.median(self.white_var))
        if total <= 0:
            return 1.0
        share = self.sd_wander**2 / total
        return 1.0 - share + share * (1.0 + self.phi) / (1.0 - self.phi)


def _robust_half_var(d: Float64Array) -> float:
    return 0.5 * robust_sd(d) ** 2


def fit_noise(
    x: Float64Array,
    runs: Float64Array,
    within_var: Float64Array,
    *,
    max_lag: int = 8,
) -> NoiseModel:
    """Fit the commit-level noise model to one series.

    Parameters
    ----------
    x : numpy.ndarray
        Commit-level values (mean log time of the commit's runs), in commit order.
    runs : numpy.ndarray
        Runs (trials) per commit, ``r_i`` ≥ 1.
    within_var : numpy.ndarray
        Per commit, the mean sampling variance of its runs' medians (``w_i``); 0 where
        runs have one sample (then the run-to-run sd takes all the white noise).
    max_lag : int
        Largest variogram lag; at most a fifth of the series is used.

    Returns
    -------
    NoiseModel

    Notes
    -----
    With fewer than 8 commits only the lag-1 variogram is used and the wander is taken
    as white (phi = 0). Lags whose differences are all equal (a constant series) give a
    zero model; callers treat that series as having no noise to calibrate against.

    References
    ----------
    Genton, M. G. (1998). Highly robust variogram estimation. *Mathematical Geology*
    30(2), 213–221. doi:10.1023/A:1021728614555.
    Cressie, N. (1993). *Statistics for Spatial Data*, §2.4 (variogram fitting by
    weighted least squares). Wiley. doi:10.1002/9781119115151.
    """
    n = x.size
    r = np.maximum(runs, 1.0)
    w = np.maximum(within_var, 0.0)
    if n < 3:
        v = float(np.var(x)) if n > 1 else 0.0
        return NoiseModel(0.0, 0.0, math.sqrt(v), np.full(n, v), 0)
    k_max = int(max(1, min(max_lag, n // 5))) if n >= 8 else 1
    lags = np.arange(1, k_max + 1)
    gamma = np.array([_robust_half_var(x[k:] - x[:-k]) for k in lags])
    inv_r = 1.0 / r
    w_r = w / r
    a_k = np.array([0.5 * np.mean(inv_r[k:] + inv_r[:-k]) for k in lags])
    b_k = np.array([0.5 * np.mean(w_r[k:] + w_r[:-k]) for k in lags])
    target = gamma - b_k
    # relative errors: a variogram value estimated from m pairs has sd ~ gamma sqrt(2/m)
    wt = np.sqrt((n - lags) / np.maximum(gamma, 1e-300) ** 2)
    best: tuple[float, float, float, float] | None = None
    grid = _PHI_GRID if k_max >= 3 else np.array([0.0])
    for phi in grid:
        design = np.column_stack([1.0 - phi**lags, a_k]) if phi > 0 else a_k[:, None]
        coef, resid = optimize.nnls(design * wt[:, None], target * wt)
        if phi == 0:
            coef = np.array([0.0, coef[0]])
        if best is None or resid < best[0] - 1e-12:
            best = (float(resid), float(phi), float(coef[0]), float(coef[1]))
    assert best is not None
    _, phi, var_a, var_b = best
    if var_a <= 0:
        phi = 0.0
    white = (var_b + w) / r
    if not np.any(white > 0) and var_a <= 0:
        white = np.zeros(n)
    return NoiseModel(math.sqrt(max(var_a, 0.0)), phi, math.sqrt(max(var_b, 0.0)), white, k_max)


def fit_noise_whittle(x: Float64Array, runs: Float64Array, within_var: Float64Array) -> NoiseModel:
    """Fit the commit-level noise model by Whittle's frequency-domain likelihood.

    The periodogram of the series at the Fourier frequencies 0 < ω_j < π is compared
    with the spectral density of the AR(1) wander plus white noise,

        f(ω) = c [q (1 − φ²) / |1 − φ e^{iω}|² + 1] / (2π),

    with ``c`` the white variance of a commit (at the series' mean 1/r) and ``q`` the
    wander's variance over it; ``c`` is profiled out and (φ, q) maximise the likelihood
    over a grid (φ up to 0.975). It uses every pair of commits, where the variogram at a
    few lags (:func:`fit_noise`) reads the dependence from the MADs of short differences
    and often lands on its bound: on 150 commits of wander φ = 0.7 the Whittle φ has
    (10%, 90%) quantiles (0.38, 0.88) against the variogram's (0.18, 0.90, its bound, in
    37% of the series). Not robust: the caller bounds spikes and takes suspected steps
    out first (:func:`.scan.despike`, :meth:`.detect.SeriesDetector.without_steps`).
    The white variance is split as in :func:`fit_noise`: ``(sd_run² + w_i) / r_i``, the
    run-to-run part ``sd_run²`` being what the within-run variance ``w_i`` leaves.

    References
    ----------
    Whittle, P. (1953). Estimation and information in stationary time series. *Arkiv
    för Matematik* 2(5), 423–434. doi:10.1007/BF02590998.
    """
    n = x.size
    grid = _whittle_grid(x)
    if grid is None:
        return fit_noise(x, runs, within_var)
    loglik, c = grid
    r = np.maximum(runs, 1.0)
    w = np.maximum(within_var, 0.0)
    i, j = np.unravel_index(int(np.argmax(loglik)), loglik.shape)
    c0 = float(c[i, j])
    q = float(_WHITTLE_Q[j])
    mean_inv_r = float(np.mean(1.0 / r))
    var_b = max(c0 / mean_inv_r - float(np.mean(w)), 0.0)
    white = (var_b + w) / r
    if not np.any(white > 0):
        white = np.full(n, c0)
    sd_a = math.sqrt(q * c0)
    return NoiseModel(sd_a, float(_WHITTLE_PHI[i]) if q > 0 else 0.0, math.sqrt(var_b), white, 0)


def _spectral_shapes(n: int) -> Float64Array:
    """The model's spectral density over its white part, q (1 − φ²) / |1 − φ e^{iω}|² + 1,
    on the (φ, q) grid at the Fourier frequencies 0 < ω_j < π of ``n`` commits: shape
    (P, Q, m)."""
    m = (n - 1) // 2
    omega = 2.0 * math.pi * np.arange(1, m + 1) / n
    phi = _WHITTLE_PHI[:, None]
    shape = (1.0 - phi**2) / np.abs(1.0 - phi * np.exp(1j * omega)[None, :]) ** 2  # (P, m)
    out: Float64Array = _WHITTLE_Q[None, :, None] * shape[:, None, :] + 1.0
    return out


def _whittle_grid(x: Float64Array) -> tuple[Float64Array, Float64Array] | None:
    """Whittle's profile log-likelihood over the (φ, q) grid and the profiled ``c``
    (None for fewer than 8 commits or a periodogram with a zero)."""
    n = x.size
    if n < 8:
        return None
    m = (n - 1) // 2
    per = np.abs(np.fft.rfft(x - np.mean(x))[1 : m + 1]) ** 2 / n  # 2π times the periodogram
    g = _spectral_shapes(n)
    c = np.mean(per / g, axis=-1)
    if not np.all(c > 0):
        return None
    loglik: Float64Array = -np.sum(np.log(g), axis=-1) - m * np.log(c) - m
    return loglik, c


def whittle_loglik(x: Float64Array) -> float:
    """The maximised Whittle log-likelihood of the noise model for ``x`` (−inf when it
    cannot be computed): the quantity :func:`fit_noise_whittle` maximises, for comparing
    a series with and without a suspected step (Whittle 1953)."""
    grid = _whittle_grid(x)
    return -math.inf if grid is None else float(np.max(grid[0]))


def whittle_logliks(rows: Float64Array, chunk: int = 16) -> Float64Array:
    """:func:`whittle_loglik` of each row of ``rows`` (shape (m, n)), the grid's
    frequency terms computed once for all rows."""
    n = rows.shape[-1]
    out = np.full(rows.shape[0], -math.inf)
    if n < 8:
        return out
    m = (n - 1) // 2
    g = _spectral_shapes(n)
    inv_g = 1.0 / g
    log_g = np.sum(np.log(g), axis=-1)
    spec = np.fft.rfft(rows - np.mean(rows, axis=-1, keepdims=True), axis=-1)[:, 1 : m + 1]
    per = np.abs(spec) ** 2 / n
    for a in range(0, rows.shape[0], chunk):
        c = np.einsum("bm,pqm->bpq", per[a : a + chunk], inv_g) / m
        with np.errstate(divide="ignore"):
            ll = -log_g[None] - m * np.log(c) - m
        ok = np.all(c > 0, axis=(1, 2))
        out[a : a + chunk] = np.where(ok, np.max(ll, axis=(1, 2)), -math.inf)
    return out


def simulate_noise(model: NoiseModel, n_sims: int, rng: np.random.Generator) -> Float64Array:
    """Draw ``n_sims`` null series (no change) of the model's length, one per row.

    The wander starts from its stationary distribution; the white part is Gaussian with
    each commit's variance.
    """
    n = model.white_var.size
    out: Float64Array = rng.standard_normal((n_sims, n)) * np.sqrt(model.white_var)
    if model.sd_wander > 0 and n > 0:
        phi = model.phi
        innov = rng.standard_normal((n_sims, n)) * model.sd_wander
        innov[:, 1:] *= math.sqrt(1.0 - phi * phi)
        out += signal.lfilter([1.0], [1.0, -phi], innov, axis=1)
    return out


def segment_mean_variance(model: NoiseModel, lo: int, hi: int) -> float:
    """Variance of the plain mean of the commit-level noise over commits [lo, hi)."""
    m = hi - lo
    if m <= 0:
        return math.inf
    phi = model.phi
    lags = np.arange(1, m)
    pair_sum = m + 2.0 * float(np.sum((m - lags) * phi**lags)) if phi > 0 else float(m)
    return (model.sd_wander**2 * pair_sum + float(np.sum(model.white_var[lo:hi]))) / (m * m)
