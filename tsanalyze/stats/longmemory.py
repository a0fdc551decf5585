"""Slowly decaying dependence: a test for long memory, and the intervals it needs.

Under long-range dependence (correlations decaying like a power k^(2H - 2), Hurst
exponent H > 1/2) no block length makes block means independent (see
:mod:`tsanalyze.stats.variance_time`). This module tests for it: :func:`long_memory` (a Whittle-likelihood test of long memory
against a flexible short-memory alternative, and its Hurst exponent), and gives what an
interval from block means needs under it (:func:`lrd_variance_factor`,
:func:`batch_means_dof`). The variance of block means against the block length (the
aggregated-variance plot) is :mod:`tsanalyze.stats.variance_time`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import chdtrc, stdtrit

from tsanalyze._result import Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array, check_confidence_level, check_positive_int
from tsanalyze.stats._numba import HAVE_NUMBA, jit

__all__ = [
    "LONG_MEMORY_ALPHA",
    "MIN_N_LONG_MEMORY",
    "LongMemory",
    "batch_means_dof",
    "fgn_block_correlation",
    "long_memory",
    "lrd_variance_factor",
    "student_quantile",
]


@result
class LongMemory(Result):
    """Whittle-likelihood test of long memory against short memory.

    Attributes
    ----------
    n : int
        Samples (before aggregation).
    aggregation : int
        The fitted series takes every ``aggregation``-th sample (1 up to 131,072 samples).
    d : float
        Memory parameter of the long-memory fit (H = d + 1/2).
    hurst : float
        d + 1/2.
    phi : float
        AR(1) coefficient of the long-memory fit's short-range part.
    rho : float
        AR(1) coefficient of the short-memory fit (its correlation time is 1 / (1 - rho)).
    noise_share : float
        Share of the variance that the short-memory fit gives to white noise.
    statistic : float
        Likelihood-ratio statistic 2 (l_long - l_short) (>= 0).
    pvalue : float
        One-sided p-value of d = 0 against d > 0 (chi-square(1) / 2; 1 when d <= 0).
    """

    n: int
    aggregation: int
    d: float
    hurst: float
    phi: float
    rho: float
    noise_share: float
    statistic: float
    pvalue: float


#: fewest samples the assessment asks the test of (below, its power is too low), and the
#: level at which it declares long memory (tsanalyze.stats.dependence)
MIN_N_LONG_MEMORY = 1000
LONG_MEMORY_ALPHA = 0.01
#: at most this many points enter the Whittle fit (of longer series, every agg-th sample)
_MAX_POINTS = 131_072
#: Fourier frequencies kept one by one before geometric pooling
_SINGLE_FREQUENCIES = 64
#: growth of the pooling bins
_BIN_RATIO = 1.03


def _pooled_periodogram(a: Float64Array) -> tuple[Float64Array, Float64Array, Float64Array, int]:
    """(frequencies, pooled periodogram / variance, ordinates per bin, aggregation).

    Beyond ``_MAX_POINTS`` samples the periodogram is that of every ``agg``-th sample.
    Thinning keeps both models exact (white noise stays white, an AR(1) with coefficient
    phi becomes one with phi^agg, long memory keeps its exponent). Block means, used
    before, turn an AR(1) into an ARMA(1, 1) that neither model holds: with the limit
    at 8,192 the test declared long memory on every AR(1) with phi = 0.9 of 8,500
    samples or more. Thinning weakens long memory's share of the variance by
    agg^(2H - 2), hence the limit's height; averaging the periodograms of several
    starting points would hide that from the test's chi-square only by making it take
    averaged ordinates for single ones.
    """
    n = a.size
    agg = max(1, -(-n // _MAX_POINTS))
    if agg > 1:
        a = a[::agg]
        n = a.size
    d = a - a.mean()
    ss = float(np.dot(d, d))
    if ss == 0.0:  # a thinned quantised series can be constant
        ss = 1.0
    f = np.fft.rfft(d)[1 : (n - 1) // 2 + 1]
    per = (f.real**2 + f.imag**2) / ss  # E per_j = 2 pi f(lambda_j) / var
    m = per.size
    edges = list(range(min(_SINGLE_FREQUENCIES, m) + 1))
    width = 1.0
    while edges[-1] < m:
        width *= _BIN_RATIO
        edges.append(min(m, edges[-1] + max(1, int(width))))
    e = np.asarray(edges)
    cs = np.concatenate(([0.0], np.cumsum(per)))
    count = np.diff(e).astype(np.float64)
    pooled = (cs[e[1:]] - cs[e[:-1]]) / count
    lam = 2.0 * math.pi * ((e[1:] + e[:-1] - 1) / 2.0 + 1.0) / n
    return lam, pooled, count, agg


#: iterations of the projected Newton search, and its stopping rules
_MAX_ITER = 100
_GTOL = 1e-7
_FTOL = 1e-12


def _profile_py(
    cl: np.ndarray,
    l2s: np.ndarray,
    per: np.ndarray,
    count: np.ndarray,
    x: np.ndarray,
    k: int,
    grad: np.ndarray,
    hess: np.ndarray,
    order: int,
) -> float:
    """Whittle's profile negative log-likelihood at x = (w, atanh phi[, d]) (k = 2 or 3
    parameters); with ``order`` 1 or 2 also its gradient and Hessian into ``grad`` and
    ``hess`` (the source of the compiled kernel: one pass over the frequencies).

    f = c h, h = 1 - w + w G, G = (1 - phi^2) |2 sin(l/2)|^(-2d) / |1 - phi e^(-il)|^2;
    with A = sum n I / h, N = sum n the profile is N log(A / N) + sum n log h + N, and
    with h_i, h_ij the derivatives of h, A_i = -sum n I h_i / h^2 and A_ij = sum n I
    (2 h_i h_j / h^3 - h_ij / h^2): L_i = N A_i / A + sum n h_i / h and L_ij =
    N (A_ij / A - A_i A_j / A^2) + sum n (h_ij / h - h_i h_j / h^2).
    """
    w = x[0]
    phi = math.tanh(x[1])
    d = x[2] if k == 3 else 0.0
    v = 1.0 - phi * phi
    a = 0.0
    slog = 0.0
    total = 0.0
    ai = np.zeros(3)
    bi = np.zeros(3)
    aij = np.zeros((3, 3))
    bij = np.zeros((3, 3))
    h1 = np.zeros(3)
    h2 = np.zeros((3, 3))
    for j in range(cl.size):
        c = count[j]
        den = 1.0 - 2.0 * phi * cl[j] + phi * phi
        g = v / den
        if d != 0.0:
            g = g * math.exp(-2.0 * d * l2s[j])
        h = 1.0 - w + w * g
        ci = c * per[j]
        total += c
        a += ci / h
        slog += c * math.log(h)
        if order == 0:
            continue
        # r = d log G / d t: -2 phi from 1 - phi^2, q from the AR(1) denominator
        q = (2.0 * cl[j] - 2.0 * phi) * v / den
        r = q - 2.0 * phi
        gt = g * r
        h1[0] = g - 1.0
        h1[1] = w * gt
        if k == 3:
            h1[2] = -2.0 * w * l2s[j] * g
        for i in range(k):
            ai[i] -= ci * h1[i] / (h * h)
            bi[i] += c * h1[i] / h
        if order == 1:
            continue
        dr = (-2.0 * v * v - 2.0 * phi * v * (2.0 * cl[j] - 2.0 * phi)) / den + q * q - 2.0 * v
        h2[0, 0] = 0.0
        h2[0, 1] = gt
        h2[1, 1] = w * g * (r * r + dr)
        if k == 3:
            gd = -2.0 * l2s[j] * g
            h2[0, 2] = gd
            h2[1, 2] = w * gd * r
            h2[2, 2] = -2.0 * l2s[j] * h1[2]
        for i in range(k):
            for m in range(i, k):
                aij[i, m] += ci * (2.0 * h1[i] * h1[m] / (h * h * h) - h2[i, m] / (h * h))
                bij[i, m] += c * (h2[i, m] / h - h1[i] * h1[m] / (h * h))
    value = total * math.log(a / total) + slog + total
    if order >= 1:
        for i in range(k):
            grad[i] = total * ai[i] / a + bi[i]
    if order == 2:
        for i in range(k):
            for m in range(i, k):
                hess[i, m] = total * (aij[i, m] / a - ai[i] * ai[m] / (a * a)) + bij[i, m]
                hess[m, i] = hess[i, m]
    return value


#: the profile likelihood the Newton search calls (compiled when numba is installed)
_profile = jit(_profile_py)


def _newton_py(
    cl: np.ndarray,
    l2s: np.ndarray,
    per: np.ndarray,
    count: np.ndarray,
    x0: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
) -> tuple[np.ndarray, float]:
    """Minimise the profile likelihood (:func:`_profile_py`, compiled when numba is
    installed) within [lower, upper] from x0 by projected Newton steps (the source of the
    compiled kernel).

    Bertsekas' projected Newton method: parameters at a bound whose gradient pushes
    outwards are held there; the Newton step is taken in the others, with a ridge added
    to the Hessian until it is positive definite (a descent direction also where the
    likelihood is not convex), and backtracked along the projected path until the Armijo
    condition holds. It stops when the projected gradient or the decrease vanishes
    (relative decrease 1e-12; scipy's L-BFGS-B stops at 2.2e-9).
    """
    k = x0.size
    x = np.empty(k)
    for i in range(k):
        x[i] = min(max(x0[i], lower[i]), upper[i])
    grad = np.zeros(3)
    hess = np.zeros((3, 3))
    m = np.zeros((3, 3))
    low = np.zeros((3, 3))
    step = np.zeros(3)
    y = np.zeros(3)
    xn = np.empty(k)
    fx = _profile(cl, l2s, per, count, x, k, grad, hess, 2)
    for _ in range(_MAX_ITER):
        free = np.ones(k, np.bool_)
        largest = 0.0
        scale = 0.0
        for i in range(k):
            if (x[i] <= lower[i] and grad[i] > 0.0) or (x[i] >= upper[i] and grad[i] < 0.0):
                free[i] = False
            else:
                largest = max(largest, abs(grad[i]))
                scale = max(scale, abs(hess[i, i]))
        if largest < _GTOL:
            break
        if scale == 0.0:
            scale = 1.0
        ridge = 0.0
        while True:  # Cholesky of the free block (+ ridge); held rows are the identity
            for i in range(k):
                for j in range(k):
                    if free[i] and free[j]:
                        m[i, j] = hess[i, j]
                    else:
                        m[i, j] = 0.0
                m[i, i] = m[i, i] + ridge if free[i] else 1.0
            ok = True
            for i in range(k):
                for j in range(i + 1):
                    s = m[i, j]
                    for p in range(j):
                        s -= low[i, p] * low[j, p]
                    if i == j:
                        if s <= 0.0:
                            ok = False
                            break
                        low[i, i] = math.sqrt(s)
                    else:
                        low[i, j] = s / low[j, j]
                if not ok:
                    break
            if ok:
                break
            ridge = max(4.0 * ridge, 1e-10 * scale)
        for i in range(k):  # solve L L' step = -grad (free part)
            s = -grad[i] if free[i] else 0.0
            for p in range(i):
                s -= low[i, p] * y[p]
            y[i] = s / low[i, i]
        for i in range(k - 1, -1, -1):
            s = y[i]
            for p in range(i + 1, k):
                s -= low[p, i] * step[p]
            step[i] = s / low[i, i]
        t = 1.0
        fn = fx
        moved = False
        while t >= 1e-10:
            slope = 0.0
            for i in range(k):
                xn[i] = min(max(x[i] + t * step[i], lower[i]), upper[i])
                slope += grad[i] * (xn[i] - x[i])
            fn = _profile(cl, l2s, per, count, xn, k, grad, hess, 0)
            if fn <= fx + 1e-4 * slope:
                moved = True
                break
            t *= 0.5
        if not moved:
            break
        done = fx - fn <= _FTOL * max(1.0, abs(fx))
        for i in range(k):
            x[i] = xn[i]
        fx = _profile(cl, l2s, per, count, x, k, grad, hess, 2)
        if done:
            break
    return x, fx


_newton_nb = jit(_newton_py)


class _Whittle:
    """The pooled periodogram and the bounds of one of the two fits of :func:`long_memory`
    (with the memory parameter d when ``with_d``)."""

    def __init__(
        self, lam: Float64Array, per: Float64Array, count: Float64Array, with_d: bool
    ) -> None:
        self.cl = np.cos(lam)
        self.l2s = np.log(2.0 * np.sin(lam / 2.0))
        self.per, self.count, self.with_d = per, count, with_d
        self.lower = np.array([0.0, -4.0] + ([-0.45] if with_d else []))
        self.upper = np.array([1.0, 5.0] + ([0.99] if with_d else []))

    def fit(self, starts: list[Float64Array]) -> tuple[Float64Array, float]:
        """The best of the projected Newton searches from ``starts``: (parameters, value)."""
        newton = _newton_nb if HAVE_NUMBA else _newton_py
        best: tuple[Float64Array, float] | None = None
        for p0 in starts:
            x, fx = newton(
                self.cl, self.l2s, self.per, self.count,
                np.asarray(p0, dtype=np.float64), self.lower, self.upper,
            )  # fmt: skip
            if best is None or fx < best[1]:
                best = (x, float(fx))
        assert best is not None
        return best

    def grid_starts(self, most: int = 4) -> list[Float64Array]:
        """The model's local minima on a grid of (w, atanh phi[, d]), best first (at most
        ``most``): its likelihood often has several basins (a fast AR(1) part, a slow
        one, white noise, long memory standing in for a slow AR(1)), and a search from
        each finds the best. 31 x 13 points without d, 10 x 6 x 5 with it."""
        if self.with_d:
            ts, ws, ds = _GRID_T[::3], _GRID_W[2::2], _GRID_D
        else:
            ts, ws, ds = _GRID_T, _GRID_W, np.zeros(1)
        phi = np.tanh(ts)[:, None]
        ar = (1.0 - phi * phi) / (1.0 - 2.0 * phi * self.cl + phi * phi)  # (t, bins)
        g = ar[:, None, :] * np.exp(-2.0 * ds[:, None] * self.l2s)[None, :, :]  # (t, d, bins)
        h = (1.0 - ws)[None, :, None, None] + ws[None, :, None, None] * g[:, None, :, :]
        n = float(self.count.sum())
        prof = n * np.log((self.per / h) @ self.count) + np.log(h) @ self.count  # (t, w, d)
        pad = np.pad(prof, 1, constant_values=np.inf)
        least = np.ones(prof.shape, dtype=bool)
        for shift in np.ndindex(3, 3, 3):
            if shift != (1, 1, 1):
                at = tuple(slice(k, k + m) for k, m in zip(shift, prof.shape, strict=True))
                least &= prof <= pad[at]
        idx = np.flatnonzero(least)
        idx = idx[np.argsort(prof.ravel()[idx], kind="stable")][:most]
        out = []
        for i, j, m in zip(*np.unravel_index(idx, prof.shape), strict=True):
            p = [float(ws[j]), float(ts[i])] + ([float(ds[m])] if self.with_d else [])
            out.append(np.array(p))
        return out


#: grid of the short-memory fit's starts: atanh phi, and the AR(1) share of the variance
#: (w = 0, white noise, is the same at every phi: its neighbourhood is searched from 0.003)
_GRID_T = np.linspace(-4.0, 5.0, 31)
_GRID_W = np.array([0.003, 0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 0.98, 1.0])
#: the long-memory fit's fixed starts (w, atanh phi, d), besides the short-memory optimum
#: (d = 0) and the best two local minima of a grid
_LONG_STARTS = (np.array([0.7, 0.1, 0.3]), np.array([0.997, 0.1, 0.4]))
#: and its grid: d (with every third phi and every other w from 0.03)
_GRID_D = np.array([-0.3, 0.15, 0.35, 0.6, 0.85])


def long_memory(x: ArrayLike) -> LongMemory:
    """Test for long memory: short memory plus noise against long memory plus noise.

    Parameters
    ----------
    x : array_like
        1-d series in time order (at least 32 values).

    Returns
    -------
    LongMemory

    Notes
    -----
    Two spectral densities are fitted by Whittle's likelihood to the periodogram
    I(lambda_j) of the (variance-normalised) series:

    - short memory: white noise plus an AR(1) process,
      f = c0 + c1 / |1 - rho e^(-i lambda)|^2;
    - long memory: white noise plus an ARFIMA(1, d, 0) process,
      f = c0 + c1 |2 sin(lambda / 2)|^(-2d) / |1 - phi e^(-i lambda)|^2,

    which nests the first (d = 0). The white-noise term keeps a slowly wandering level
    plus measurement noise (AR plus noise, regime switching) from passing for long memory,
    and the AR term keeps a single fast correlation time from doing so (an ARFIMA(0, d, 0)
    fit calls AR(1) with phi = 0.97 "long memory" with d ~ 0.96). The statistic is
    2 (l_long - l_short), compared with chi-square(1) one-sided (d > 0).

    The Whittle likelihood sum_j [log f_j + I_j / f_j] is evaluated exactly on the first
    64 Fourier frequencies and on geometrically widening bins of the averaged periodogram
    above (bins grow by 3%), so the fit costs the same for any n; beyond 131,072
    samples the periodogram is that of every agg-th sample (agg = ceil(n / 131072)):
    both models stay exact under such thinning (long memory keeps its exponent, an AR(1)
    coefficient phi becomes phi^agg; thinning weakens long memory's share of the variance
    by agg^(2H - 2), hence the high limit), and 10^7 samples cost one FFT of 131,072
    points (15-20 ms in all).

    The fits: writing f = c ((1 - w) + w G), G the AR(1) (or ARFIMA) part scaled to unit
    variance and w its share, the best scale c for given (w, phi, d) is explicit, which
    leaves a likelihood in 2 (short memory) or 3 (long memory) bounded parameters, w in
    [0, 1] (pure noise and pure AR(1) included), atanh phi in [-4, 5], d in
    [-0.45, 0.99]. It often has several local minima (a fast and a slow AR(1) part, white
    noise), so the short-memory fit starts from each local minimum of a 31 x 13 grid of
    (phi, w) (at most 4), the long-memory one from the short-memory optimum with d = 0
    (so l_long >= l_short), two fixed points and the best two local minima of a
    10 x 6 x 5 grid; from each, projected Newton steps with the exact Hessian (compiled
    with numba when installed) converge to a relative change of 1e-12. Against scipy's
    L-BFGS-B from three starts (before) this finds the best optimum an exhaustive search
    finds far more often (white-noise-like series of 1000 samples: the short-memory fit
    missed it 2 times in 100 against 52; the statistic was off by up to 0.7 against 7.6)
    at a quarter of the cost.

    Misspecification cuts both ways: two or more short correlation times can make the
    long-memory fit win (with d < 0 or small d), so callers should require d to be
    material, not only the test to reject.

    References
    ----------
    Whittle, P. (1953). Estimation and information in stationary time series. Arkiv för
    Matematik 2, 423-434, doi:10.1007/BF02590998.
    Beran, J. (1994). Statistics for Long-Memory Processes. Chapman & Hall, ch. 5-6.
    Granger, C. W. J., Joyeux, R. (1980). An introduction to long-memory time series
    models and fractional differencing. J. Time Series Analysis 1(1), 15-29,
    doi:10.1111/j.1467-9892.1980.tb00297.x.
    Bertsekas, D. P. (1982). Projected Newton methods for optimization problems with
    simple constraints. SIAM J. Control and Optimization 20(2), 221-246,
    doi:10.1137/0320018.
    """
    a = as_series_array(x, "x", min_size=32)
    n = a.size
    if float(np.ptp(a)) == 0.0:
        return LongMemory(n, 1, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 1.0)
    lam, per, count, agg = _pooled_periodogram(a)
    if not np.any(per > 0.0):  # the thinned series of a coarse timer can be constant
        return LongMemory(n, agg, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 1.0)
    short = _Whittle(lam, per, count, with_d=False)
    short_x, short_fun = short.fit(short.grid_starts())
    long = _Whittle(lam, per, count, with_d=True)
    long_x, long_fun = long.fit([np.array([*short_x, 0.0]), *_LONG_STARTS, *long.grid_starts(2)])
    stat = max(0.0, 2.0 * (short_fun - long_fun))
    d = float(long_x[2])
    p = 0.5 * float(chdtrc(1, stat)) if d > 0 else 1.0
    return LongMemory(
        n=n,
        aggregation=agg,
        d=d,
        hurst=d + 0.5,
        phi=math.tanh(float(long_x[1])),
        rho=math.tanh(float(short_x[1])),
        noise_share=1.0 - float(short_x[0]),  # w is the AR(1) share of the variance
        statistic=stat,
        pvalue=p,
    )


def fgn_block_correlation(k: int, hurst: float) -> Float64Array:
    """Correlation matrix of k consecutive block means of fractional Gaussian noise.

    Means of non-overlapping blocks of fractional Gaussian noise are again fractional
    Gaussian noise (self-similarity), whatever the block length: corr(k) =
    (|k + 1|^(2H) - 2 |k|^(2H) + |k - 1|^(2H)) / 2.

    Parameters
    ----------
    k : int
        Number of blocks.
    hurst : float
        Hurst exponent in (0, 1).

    Returns
    -------
    numpy.ndarray
        (k, k) correlation matrix.

    References
    ----------
    Mandelbrot, B. B., Van Ness, J. W. (1968). SIAM Review 10(4), doi:10.1137/1010093.
    """
    lag = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(np.float64)
    h2 = 2.0 * hurst
    return np.asarray(0.5 * (np.abs(lag + 1) ** h2 - 2 * lag**h2 + np.abs(lag - 1) ** h2))


def lrd_variance_factor(k: int, hurst: float) -> float:
    """g(k, H) with var(grand mean) = E[s^2] / k * g for k block means of fGn.

    For k block means with sample variance s^2 (ddof 1) of a process whose block-mean
    variance scales as b^(2H - 2), E[s^2] = k / (k - 1) (V_b - V_kb) and
    V_kb = V_b k^(2H - 2), so g = (k - 1) k^(2H - 2) / (1 - k^(2H - 2)); g = 1 at H = 1/2.

    Parameters
    ----------
    k : int
        Number of blocks (>= 2).
    hurst : float
        Hurst exponent in [1/2, 1).

    Returns
    -------
    float

    References
    ----------
    Beran, J. (1994). Statistics for Long-Memory Processes, §8.1 (the variance of the
    mean under long memory).
    """
    u = float(k) ** (2.0 * hurst - 2.0)
    return (k - 1) * u / (1.0 - u)


def batch_means_dof(k: int, hurst: float) -> float:
    """Satterthwaite degrees of freedom of the sample variance of k fGn block means.

    nu = tr(A R)^2 / tr((A R)^2) with A the centring matrix and R
    :func:`fgn_block_correlation`; k - 1 for independent blocks (H = 1/2), fewer when the
    block means are positively correlated.

    Parameters
    ----------
    k : int
        Number of blocks (>= 2).
    hurst : float
        Hurst exponent in (0, 1).

    Returns
    -------
    float

    References
    ----------
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
    components. Biometrics Bulletin 2(6), 110-114, doi:10.2307/3002019.
    """
    k = check_positive_int(k, "k", minimum=2)
    r = fgn_block_correlation(k, hurst)
    ar = r - r.mean(axis=0, keepdims=True)  # A R with A = I - J / k
    tr1 = float(np.trace(ar))
    tr2 = float(np.sum(ar * ar.T))
    return tr1 * tr1 / tr2 if tr2 > 0 else float(k - 1)


def student_quantile(dof: float, confidence_level: float) -> float:
    """Two-sided Student t quantile t_{dof, (1 + level) / 2} (any real dof > 0)."""
    cl = check_confidence_level(confidence_level)
    return float(stdtrit(max(dof, 0.5), 0.5 + cl / 2.0))
