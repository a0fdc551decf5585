"""The sample autocorrelation function and the integrated autocorrelation time.

:func:`acf_fft` (the autocorrelations by one FFT, statsmodels' estimator),
:func:`levinson_durbin_pacf` (the partial autocorrelations from them, by the
Durbin–Levinson recursion), :func:`integrated_autocorrelation_time` (Geyer's initial
monotone sequence estimate of the long-run variance factor, :func:`geyer_tau`) and
:func:`ljung_box` (the portmanteau test on the autocorrelations). The
summary of a series' serial dependence that uses them (Ljung–Box, subsession size) is
:func:`tsanalyze.stats.autocorrelation.autocorrelation`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import chdtrc

from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array

__all__ = [
    "acf_fft",
    "geyer_tau",
    "integrated_autocorrelation_time",
    "levinson_durbin_pacf",
    "ljung_box",
]


def acf_fft(x: Float64Array, nlags: int, *, adjusted: bool = False) -> Float64Array:
    """Sample ACF (denominator n, or n - k when ``adjusted``) for lags 0..nlags by FFT.

    Parameters
    ----------
    x : numpy.ndarray
        1-d float64 series in time order (not checked: callers validate).
    nlags : int
        Largest lag (capped at ``len(x) - 1``).
    adjusted : bool
        Divide the lag-k autocovariance by n - k instead of n.

    Returns
    -------
    numpy.ndarray
        rho_0..rho_nlags (rho_0 = 1; all zero beyond lag 0 for a constant series).

    Notes
    -----
    The same estimator as statsmodels ``acf(x, fft=True)``, computed once with numpy's
    real FFT (statsmodels' wrappers add seconds of overhead at 10^6 samples).
    """
    n = x.size
    nlags = min(nlags, n - 1)
    d = x - x.mean()
    c0 = float(np.dot(d, d))
    if c0 == 0.0:
        out = np.zeros(nlags + 1)
        out[0] = 1.0
        return out
    nfft = 1 << math.ceil(math.log2(2 * n - 1))
    f = np.fft.rfft(d, nfft)
    del d
    # |f|^2 as f conj(f) gives it (its imaginary part is exactly 0), without the complex
    # conjugate and product: two arrays of the transform's size fewer at the peak
    power = np.square(f.real)
    power += np.square(f.imag)
    del f
    acov = np.fft.irfft(power, nfft)[: nlags + 1]
    if adjusted:
        return np.asarray(acov / (n - np.arange(nlags + 1)) / (c0 / n), dtype=np.float64)
    return np.asarray(acov / c0, dtype=np.float64)


def levinson_durbin_pacf(acov: Float64Array, nlags: int) -> Float64Array:
    """Partial autocorrelations at lags 0..nlags from autocovariances (or correlations)
    by the Durbin–Levinson recursion (Yule–Walker).

    Parameters
    ----------
    acov : numpy.ndarray
        Autocovariances at lags 0..nlags (at least 2 values).
    nlags : int
        Largest lag (>= 1).

    Returns
    -------
    numpy.ndarray
        ``nlags + 1`` values; the first is 1.

    Notes
    -----
    phi_kk = (c_k - sum_j phi_{j,k-1} c_{k-j}) / s_{k-1}, phi_jk = phi_{j,k-1} -
    phi_kk phi_{k-j,k-1}, s_k = s_{k-1} (1 - phi_kk^2), from phi_11 = c_1 / c_0 and
    s_1 = c_0 - phi_11 c_1: the same operations, in the same order, as statsmodels'
    ``levinson_durbin`` (tests compare them to the last bit), without importing
    statsmodels (about 0.2 s of every report's start-up: issue 24).

    References
    ----------
    Durbin, J. (1960). The fitting of time-series models. Revue de l'Institut
    International de Statistique 28(3), 233–244, doi:10.2307/1401322.
    """
    order = int(nlags)
    phi = np.zeros((order + 1, order + 1), "d")
    sig = np.zeros(order + 1)
    phi[1, 1] = acov[1] / acov[0]
    sig[1] = acov[0] - phi[1, 1] * acov[1]
    for k in range(2, order + 1):
        phi[k, k] = (acov[k] - np.dot(phi[1:k, k - 1], acov[1:k][::-1])) / sig[k - 1]
        # j = 1..k-1 at once: the same product and difference per element (issue 24)
        phi[1:k, k] = phi[1:k, k - 1] - phi[k, k] * phi[k - 1 : 0 : -1, k - 1]
        sig[k] = sig[k - 1] * (1 - phi[k, k] ** 2)
    out = np.diag(phi).copy()
    out[0] = 1.0
    return out


def integrated_autocorrelation_time(x: ArrayLike, *, max_lag: int | None = None) -> float:
    """Integrated autocorrelation time tau = 1 + 2 sum_k rho_k (long-run variance factor).

    ``var(mean) ~= tau * var(x) / n``; the effective sample size is ``n / tau``.

    Parameters
    ----------
    x : array_like
        1-d series in time order (at least 4 values).
    max_lag : int, optional
        Largest lag used (default ``min(n - 1, max(1000, n // 10))``; Geyer's rule
        usually stops far earlier).

    Returns
    -------
    float
        tau >= 1/n; 1.0 for a constant series.

    Notes
    -----
    Geyer's initial monotone sequence estimator: with Gamma_k = rho_{2k} + rho_{2k+1},
    sum Gamma_k while they stay positive, forcing them non-increasing, and
    tau = 2 sum Gamma_k - 1. It handles negative lag-1 correlation (tau < 1) and needs no
    tuning constant.

    References
    ----------
    Geyer, C. J. (1992), "Practical Markov chain Monte Carlo", Statistical Science 7(4),
    doi:10.1214/ss/1177011137.
    """
    a = as_series_array(x, "x", min_size=4)
    n = a.size
    lmax = min(n - 1, max(1000, n // 10)) if max_lag is None else min(n - 1, max_lag)
    rho = acf_fft(a, lmax)
    return geyer_tau(rho, n)


def geyer_tau(rho: Float64Array, n: int) -> float:
    """Geyer's initial monotone sequence estimate of tau = 1 + 2 sum rho_k from an ACF.

    Parameters
    ----------
    rho : numpy.ndarray
        Sample autocorrelations rho_0, rho_1, ... (e.g. from :func:`acf_fft`).
    n : int
        Length of the series behind ``rho`` (tau is kept >= 1/n).

    Returns
    -------
    float
        tau; see :func:`integrated_autocorrelation_time`, which validates a series and
        calls this.

    References
    ----------
    Geyer, C. J. (1992), "Practical Markov chain Monte Carlo", Statistical Science 7(4),
    doi:10.1214/ss/1177011137.
    """
    npairs = (rho.size) // 2
    gam = rho[: 2 * npairs : 2] + rho[1 : 2 * npairs : 2]
    nonpos = np.flatnonzero(gam <= 0.0)
    stop = int(nonpos[0]) if nonpos.size else gam.size
    if stop == 0:
        return max(1.0 / n, float(2.0 * gam[0] - 1.0)) if gam.size else 1.0
    g = np.minimum.accumulate(gam[:stop])
    return float(max(1.0 / n, 2.0 * g.sum() - 1.0))


def ljung_box(rho: Float64Array, n: int, lags: int) -> tuple[float, float]:
    """Ljung–Box Q = n (n + 2) sum_{k <= h} rho_k^2 / (n - k) and its chi-square(h) p-value.

    Parameters
    ----------
    rho : numpy.ndarray
        Autocorrelations rho_0, rho_1, ... (:func:`acf_fft`), at least ``lags + 1`` of them.
    n : int
        Length of the series they are of.
    lags : int
        h, the number of lags tested.

    Returns
    -------
    (statistic, pvalue) : tuple of float
        As statsmodels' ``acorr_ljungbox`` gives them at lag h.

    References
    ----------
    .. [1] Ljung, G. M., & Box, G. E. P. (1978). On a measure of lack of fit in time series
       models. Biometrika 65(2), 297–303. https://doi.org/10.1093/biomet/65.2.297
    """
    ks = np.arange(1, lags + 1)
    q = float(n * (n + 2) * np.sum(rho[1 : lags + 1] ** 2 / (n - ks)))
    return q, float(chdtrc(lags, q))
