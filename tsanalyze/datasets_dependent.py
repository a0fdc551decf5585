"""Seeded series with slowly decaying, multi-scale or regime-switching dependence.

Real benchmark series wander at many time scales (frequency scaling, thermal state, page
cache, garbage collection, co-tenants) and some alternate between two performance modes.
:mod:`tsanalyze.datasets` makes short-range dependence (AR(1)); this module makes the
classes that break short-range methods, each with its known truth:

- ``"fgn"``: fractional Gaussian noise with Hurst exponent H (long-range dependence,
  autocovariance ~ H(2H - 1) k^(2H - 2)), generated exactly by circulant embedding
  (Davies & Harte 1987);
- ``"ar-sum"``: a sum of independent AR(1) processes at several time scales (drift at
  many scales, e.g. phi = 0.6, 0.96, 0.996);
- ``"markov-modes"``: two performance modes whose switching follows a two-state Markov
  chain with long sojourns, plus Gaussian noise within each mode.

The generators are vectorised: ``size=`` draws many independent series at once as rows of
a 2-d array, which Monte-Carlo tests of coverage need.

References
----------
Davies, R. B., Harte, D. S. (1987). Tests for Hurst effect. Biometrika 74(1), 95-101,
doi:10.1093/biomet/74.1.95.
Dietrich, C. R., Newsam, G. N. (1997). Fast and exact simulation of stationary Gaussian
processes through circulant embedding of the covariance matrix. SIAM J. Sci. Comput.
18(4), 1088-1107, doi:10.1137/S1064827592240555.
Hamilton, J. D. (1989). A new approach to the economic analysis of nonstationary time
series and the business cycle. Econometrica 57(2), 357-384, doi:10.2307/1912559.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from scipy import integrate, optimize, signal
from scipy.stats import norm

# datasets first: it imports pandas before _validation does (importing pandas from inside
# _validation registers the .tsa accessor, which needs _validation complete)
from tsanalyze import datasets
from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze._validation import check_positive_int, check_rng
from tsanalyze.errors import InvalidArgumentError

SimulatedSeries = datasets.SimulatedSeries
Truth = datasets.Truth

__all__ = [
    "DependentProcess",
    "ar1_sum",
    "ar1_sum_autocovariance",
    "arfima",
    "arfima_autocovariance",
    "fgn",
    "fgn_autocovariance",
    "markov_modes",
    "markov_stationary",
    "simulate_dependent",
]

DependentProcess = Literal["fgn", "ar-sum", "markov-modes"]
_PROCESSES = ("fgn", "ar-sum", "markov-modes")


def _size_iv(size: int | None) -> int:
    return 1 if size is None else check_positive_int(size, "size")


def _shape(x: Float64Array, size: int | None) -> Float64Array:
    return x[0] if size is None else x


def fgn_autocovariance(lags: ArrayLike, hurst: float) -> Float64Array:
    """Autocovariance of unit-variance fractional Gaussian noise at ``lags``.

    gamma(k) = (|k + 1|^(2H) - 2 |k|^(2H) + |k - 1|^(2H)) / 2; gamma(0) = 1, and for
    H > 1/2 gamma(k) ~ H (2H - 1) k^(2H - 2): the sum of the autocorrelations diverges
    (long-range dependence) and var(sum of n) = n^(2H).

    Parameters
    ----------
    lags : array_like
        Integer lags (any sign).
    hurst : float
        Hurst exponent H in (0, 1).

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Mandelbrot, B. B., Van Ness, J. W. (1968). Fractional Brownian motions, fractional
    noises and applications. SIAM Review 10(4), 422-437, doi:10.1137/1010093.
    """
    k = np.abs(np.asarray(lags, dtype=np.float64))
    h2 = 2.0 * float(hurst)
    return np.asarray(0.5 * (np.abs(k + 1) ** h2 - 2 * k**h2 + np.abs(k - 1) ** h2))


def _hurst_iv(hurst: float) -> float:
    if not (isinstance(hurst, (int, float)) and 0.0 < float(hurst) < 1.0):
        raise InvalidArgumentError(f"hurst: must be in (0, 1), got {hurst!r}")
    return float(hurst)


def fgn(n: int, hurst: float, *, size: int | None = None, rng: RNGType = None) -> Float64Array:
    """Exact unit-variance fractional Gaussian noise (Davies–Harte circulant embedding).

    Parameters
    ----------
    n : int
        Length of each series.
    hurst : float
        Hurst exponent H in (0, 1); 0.5 gives i.i.d. N(0, 1).
    size : int, optional
        Number of independent series (rows); default one series, 1-d.
    rng : int, Generator or None

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)`` or ``(size, n)``.

    Notes
    -----
    The autocovariance gamma(0..M/2) (M >= 2(n - 1), a power of two) is embedded in a
    symmetric circulant of size M whose eigenvalues lambda = FFT(c) are non-negative for
    fractional Gaussian noise (Dietrich & Newsam 1997). With Z complex standard normal,
    Y = FFT(sqrt(lambda / M) Z) has real and imaginary parts that are two independent
    exact draws of the stationary series (first n values), so one FFT makes two series.

    References
    ----------
    Davies, R. B., Harte, D. S. (1987), Biometrika 74(1), doi:10.1093/biomet/74.1.95.
    Dietrich, C. R., Newsam, G. N. (1997), SIAM J. Sci. Comput. 18(4),
    doi:10.1137/S1064827592240555.
    """
    n = check_positive_int(n, "n")
    h = _hurst_iv(hurst)
    return _circulant(n, lambda lags: fgn_autocovariance(lags, h), size, rng, f"H = {h}")


def _circulant(
    n: int,
    acov: Callable[[Float64Array], Float64Array],
    size: int | None,
    rng: RNGType,
    what: str,
) -> Float64Array:
    """Davies–Harte draws of the stationary Gaussian series with autocovariance ``acov``
    (see :func:`fgn`)."""
    rows = _size_iv(size)
    gen, _ = check_rng(rng)
    if n == 1:
        return _shape(gen.standard_normal((rows, 1)) * math.sqrt(float(acov(np.zeros(1))[0])), size)
    m = 1 << math.ceil(math.log2(2 * (n - 1)))
    half = acov(np.arange(m // 2 + 1, dtype=np.float64))
    c = np.concatenate([half, half[-2:0:-1]])
    lam = np.fft.fft(c).real
    if lam.min() < -1e-8 * lam.max():  # pragma: no cover - not for fGn or ARFIMA(0, d, 0)
        raise ValueError(f"circulant embedding failed for {what}")
    scale = np.sqrt(np.maximum(lam, 0.0) / m)
    pairs = -(-rows // 2)
    z = gen.standard_normal((pairs, m)) + 1j * gen.standard_normal((pairs, m))
    y = np.fft.fft(scale * z, axis=1)[:, :n]
    out = np.concatenate([y.real, y.imag], axis=0)[:rows]
    return _shape(np.ascontiguousarray(out), size)


def arfima_autocovariance(lags: ArrayLike, d: float) -> Float64Array:
    """Autocorrelation of the fractionally integrated process ARFIMA(0, d, 0) at ``lags``
    (its autocovariance at unit variance).

    rho(k) = prod_{j=1..k} (j - 1 + d) / (j - d) = Gamma(k + d) Gamma(1 - d) /
    (Gamma(k - d + 1) Gamma(d)); rho(1) = d / (1 - d), and rho(k) ~ k^(2d - 1) Gamma(1 - d)
    / Gamma(d): long memory with Hurst exponent H = d + 1/2 for 0 < d < 1/2.

    Parameters
    ----------
    lags : array_like
        Integer lags (any sign).
    d : float
        Memory parameter in (-1/2, 1/2).

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Granger, C. W. J., Joyeux, R. (1980). An introduction to long-memory time series
    models and fractional differencing. J. Time Series Analysis 1(1), 15-29,
    doi:10.1111/j.1467-9892.1980.tb00297.x.
    Hosking, J. R. M. (1981). Fractional differencing. Biometrika 68(1), 165-176,
    doi:10.1093/biomet/68.1.165.
    """
    k = np.abs(np.asarray(lags, dtype=np.float64))
    if k.size and np.any(k != np.round(k)):
        raise InvalidArgumentError("lags: must be integers")
    top = int(k.max()) if k.size else 0
    j = np.arange(1, top + 1, dtype=np.float64)
    rho = np.concatenate(([1.0], np.cumprod((j - 1.0 + d) / (j - d))))
    return np.asarray(rho[k.astype(np.int64)])


def arfima(n: int, d: float, *, size: int | None = None, rng: RNGType = None) -> Float64Array:
    """Exact unit-variance ARFIMA(0, d, 0) series (Davies–Harte circulant embedding).

    The long-memory process of Granger & Joyeux (1980) and Hosking (1981), another
    shape of long-range dependence than fractional Gaussian noise at the same Hurst
    exponent H = d + 1/2: its short lags are less correlated (rho(1) = d / (1 - d),
    0.25 at d = 0.2 against 0.32 for fGn with H = 0.7), so tests tuned on fGn meet it
    less prepared.

    Parameters
    ----------
    n : int
        Length of each series.
    d : float
        Memory parameter in [0, 1/2); 0 gives i.i.d. N(0, 1).
    size, rng
        As :func:`fgn`.

    Returns
    -------
    numpy.ndarray
        As :func:`fgn`.

    Notes
    -----
    As :func:`fgn`, with :func:`arfima_autocovariance`; the circulant's eigenvalues are
    non-negative for 0 <= d < 1/2 (Craigmile 2003), and checked.

    References
    ----------
    Hosking, J. R. M. (1981). Fractional differencing. Biometrika 68(1), 165-176,
    doi:10.1093/biomet/68.1.165.
    Craigmile, P. F. (2003). Simulating a class of stationary Gaussian processes using the
    Davies-Harte algorithm, with application to long memory processes. J. Time Series
    Analysis 24(5), 505-511, doi:10.1111/1467-9892.00318.
    """
    n = check_positive_int(n, "n")
    if not (isinstance(d, (int, float)) and 0.0 <= float(d) < 0.5):
        raise InvalidArgumentError(f"d: must be in [0, 0.5), got {d!r}")
    dd = float(d)
    return _circulant(n, lambda lags: arfima_autocovariance(lags, dd), size, rng, f"d = {dd}")


def _ar_iv(
    phis: Sequence[float], variances: Sequence[float] | None
) -> tuple[Float64Array, Float64Array]:
    p = np.asarray(phis, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.all(np.abs(p) < 1.0):
        raise InvalidArgumentError(f"phis: must be one or more AR(1) coefficients in (-1, 1), got {phis!r}")
    v = np.full(p.size, 1.0 / p.size) if variances is None else np.asarray(variances, dtype=float)
    if v.shape != p.shape or not np.all(v >= 0) or not v.sum() > 0:
        raise InvalidArgumentError(f"variances: must be {p.size} values >= 0, not all 0, got {variances!r}")
    return p, v


def ar1_sum_autocovariance(
    lags: ArrayLike, phis: Sequence[float], variances: Sequence[float] | None = None
) -> Float64Array:
    """Autocovariance sum_j v_j phi_j^|k| of a sum of independent AR(1) components.

    Parameters
    ----------
    lags : array_like
        Integer lags.
    phis : sequence of float
        AR(1) coefficients.
    variances : sequence of float, optional
        Marginal variance of each component (default: equal shares of 1).

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Granger, C. W. J. (1980). Long memory relationships and the aggregation of dynamic
    models. Journal of Econometrics 14(2), 227-238, doi:10.1016/0304-4076(80)90092-5.
    """
    p, v = _ar_iv(phis, variances)
    k = np.abs(np.asarray(lags, dtype=np.float64))
    return np.asarray(np.sum(v[:, None] * p[:, None] ** k.ravel()[None, :], axis=0)).reshape(
        k.shape
    )


def ar1_sum(
    n: int,
    phis: Sequence[float] = (0.6, 0.96, 0.996),
    variances: Sequence[float] | None = None,
    *,
    size: int | None = None,
    rng: RNGType = None,
) -> Float64Array:
    """A sum of independent stationary AR(1) processes at several time scales.

    Parameters
    ----------
    n : int
        Length of each series.
    phis : sequence of float
        AR(1) coefficient of each component (time scales ~ 1 / (1 - phi)).
    variances : sequence of float, optional
        Marginal variance of each component (default equal shares, total variance 1).
    size : int, optional
        Number of independent series (rows).
    rng : int, Generator or None

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)`` or ``(size, n)``; autocovariance
        :func:`ar1_sum_autocovariance`.

    Notes
    -----
    Component j is y_t = phi_j y_{t-1} + sqrt(v_j (1 - phi_j^2)) e_t with y_0 ~ N(0, v_j)
    (started in stationarity), filtered for all rows at once. Sums of AR(1) at spread-out
    time scales mimic long memory over a finite range of lags (Granger 1980).

    References
    ----------
    Granger, C. W. J. (1980), Journal of Econometrics 14(2),
    doi:10.1016/0304-4076(80)90092-5.
    """
    n = check_positive_int(n, "n")
    p, v = _ar_iv(phis, variances)
    rows = _size_iv(size)
    gen, _ = check_rng(rng)
    out = np.zeros((rows, n))
    for phi, var in zip(p, v, strict=True):
        e = gen.standard_normal((rows, n))
        e[:, 1:] *= math.sqrt(1.0 - phi * phi)
        # y_0 = e_0 (stationary), then the recursion over the rest of the row
        y = signal.lfilter([1.0], [1.0, -phi], e[:, 1:], axis=1, zi=phi * e[:, :1])[0]
        out[:, :1] += math.sqrt(var) * e[:, :1]
        out[:, 1:] += math.sqrt(var) * y
    return _shape(out, size)


def markov_stationary(sojourns: Sequence[float]) -> Float64Array:
    """Stationary distribution of the two-state chain with mean sojourns (L0, L1).

    With switching probabilities p_s = 1 / L_s, pi = (p1, p0) / (p0 + p1) = (L0, L1) /
    (L0 + L1): the long-run share of time in each mode is proportional to its sojourn.

    Parameters
    ----------
    sojourns : sequence of two floats
        Mean sojourn (samples) in mode 0 and mode 1, each >= 1.

    Returns
    -------
    numpy.ndarray
        (pi_0, pi_1).

    References
    ----------
    Hamilton, J. D. (1989), Econometrica 57(2), doi:10.2307/1912559.
    """
    s = np.asarray(sojourns, dtype=np.float64)
    if s.shape != (2,) or not np.all(s >= 1.0):
        raise InvalidArgumentError(f"sojourns: must be two mean sojourns >= 1, got {sojourns!r}")
    return np.asarray(s / s.sum())


def markov_modes(
    n: int,
    sojourns: Sequence[float] = (100.0, 43.0),
    *,
    size: int | None = None,
    rng: RNGType = None,
) -> np.ndarray:
    """Mode (0/1) sequences of a stationary two-state Markov chain.

    Parameters
    ----------
    n : int
        Length of each sequence.
    sojourns : (float, float)
        Mean sojourn in mode 0 and mode 1 (samples); the chain leaves mode s with
        probability 1 / sojourns[s] at each step, so sojourns are geometric.
    size : int, optional
        Number of independent sequences (rows).
    rng : int, Generator or None

    Returns
    -------
    numpy.ndarray
        int8 array of shape ``(n,)`` or ``(size, n)``.

    Notes
    -----
    The first mode is drawn from the stationary distribution (:func:`markov_stationary`)
    and, by the memorylessness of geometric sojourns, the first (residual) sojourn has the
    same law as every other, so the sequence is stationary from its first sample. The
    lag-k autocorrelation of the mode indicator is (1 - 1/L0 - 1/L1)^k.

    References
    ----------
    Hamilton, J. D. (1989), Econometrica 57(2), doi:10.2307/1912559.
    """
    n = check_positive_int(n, "n")
    pi = markov_stationary(sojourns)
    rows = _size_iv(size)
    gen, _ = check_rng(rng)
    p = 1.0 / np.asarray(sojourns, dtype=np.float64)
    first = (gen.random(rows) < pi[1]).astype(np.int64)
    # sojourns alternate between the modes: draw enough for the shortest mean sojourn
    k = math.ceil(n * p.max() * 1.5) + 8
    while True:
        which = (first[:, None] + np.arange(k)) % 2
        lengths = gen.geometric(np.where(which == 0, p[0], p[1]))
        ends = np.cumsum(lengths, axis=1)
        if (ends[:, -1] >= n).all():
            break
        k *= 2  # pragma: no cover - astronomically rare
    flips = np.zeros((rows, n + 1), dtype=np.int64)
    r, c = np.nonzero(ends[:, :-1] < n)
    flips[r, ends[r, c]] = 1
    state = (first[:, None] + np.cumsum(flips[:, :n], axis=1)) % 2
    return _shape(state.astype(np.int8), size)


def _mixture_truth(
    levels: Float64Array, sd: float, pi: Float64Array, trim: float = 0.05
) -> tuple[float, float, float]:
    """Median, mean and trimmed mean of sum_s pi_s N(levels_s, sd^2) (relative units)."""
    mean = float(np.dot(pi, levels))
    if sd == 0.0:  # pragma: no cover - degenerate modes
        sd = 1e-12

    def cdf(x: float) -> float:
        return float(np.dot(pi, norm.cdf((x - levels) / sd)))

    lo, hi = float(levels.min() - 10 * sd), float(levels.max() + 10 * sd)
    med = float(optimize.brentq(lambda x: cdf(x) - 0.5, lo, hi, xtol=1e-14))
    a = float(optimize.brentq(lambda x: cdf(x) - trim, lo, hi, xtol=1e-14))
    b = float(optimize.brentq(lambda x: cdf(x) - 1.0 + trim, lo, hi, xtol=1e-14))

    def first_moment(x: float) -> float:  # integral of t dF(t) from -inf to x
        z = (x - levels) / sd
        return float(np.dot(pi, levels * norm.cdf(z) - sd * norm.pdf(z)))

    tmean = (first_moment(b) - first_moment(a)) / (1.0 - 2.0 * trim)
    # cross-check the closed form by quadrature (cheap, and keeps the formula honest)
    dens = lambda t: t * float(np.dot(pi, norm.pdf((t - levels) / sd))) / sd  # noqa: E731
    quad = integrate.quad(dens, a, b, epsabs=1e-13)[0] / (1.0 - 2.0 * trim)
    if not math.isclose(tmean, quad, rel_tol=1e-6, abs_tol=1e-9):  # pragma: no cover
        raise RuntimeError("trimmed mean of the mixture: closed form and quadrature disagree")
    return med, mean, tmean


def _simulate_dependent_iv(process: str, scale: float, t0: float) -> None:
    if process not in _PROCESSES:
        raise InvalidArgumentError(f"process: expected one of {', '.join(_PROCESSES)}, got {process!r}")
    if not (isinstance(scale, (int, float)) and scale >= 0):
        raise InvalidArgumentError(f"scale: must be >= 0, got {scale!r}")
    if not (isinstance(t0, (int, float)) and t0 > 0):
        raise InvalidArgumentError(f"t0: must be > 0, got {t0!r}")


def simulate_dependent(
    n: int,
    process: DependentProcess = "fgn",
    *,
    t0: float = 1000.0,
    scale: float = 0.01,
    hurst: float = 0.8,
    phis: Sequence[float] = (0.6, 0.96, 0.996),
    variances: Sequence[float] | None = None,
    levels: Sequence[float] = (0.0, 0.05),
    sojourns: Sequence[float] = (100.0, 43.0),
    size: int | None = None,
    rng: RNGType = None,
) -> SimulatedSeries:
    """Simulate per-evaluation times whose dependence short-range methods get wrong.

    Parameters
    ----------
    n : int
        Samples per series.
    process : {"fgn", "ar-sum", "markov-modes"}
        ``"fgn"``: ``t0 (1 + scale Z)``, Z unit fractional Gaussian noise with ``hurst``;
        ``"ar-sum"``: the same with Z a sum of AR(1) components (``phis``, ``variances``);
        ``"markov-modes"``: ``t0 (1 + levels[s_t] + scale e_t)``, s_t a two-state Markov
        chain with mean ``sojourns``, e_t i.i.d. N(0, 1).
    t0 : float
        Base time per evaluation (ns).
    scale : float
        Noise sd relative to ``t0``.
    hurst : float
        Hurst exponent of ``"fgn"``.
    phis, variances :
        Components of ``"ar-sum"`` (see :func:`ar1_sum`).
    levels, sojourns :
        Relative level and mean sojourn of each mode of ``"markov-modes"``.
    size : int, optional
        Number of independent series: ``x`` is then ``(size, n)``.
    rng : int, Generator or None

    Returns
    -------
    SimulatedSeries
        ``x`` and the population ``truth`` (median, mean, 5–95% trimmed mean of the
        stationary marginal; ``phi`` is the lag-1 autocorrelation of the process).

    Notes
    -----
    The marginals of ``"fgn"`` and ``"ar-sum"`` are N(t0, (scale t0)^2), so the median,
    mean and trimmed mean are t0. ``"markov-modes"`` has the stationary mixture marginal
    sum_s pi_s N(t0 (1 + levels_s), (scale t0)^2); its median and trimmed mean are found
    by root finding on the mixture's distribution function (closed forms, checked by
    quadrature).

    References
    ----------
    Davies, R. B., Harte, D. S. (1987), Biometrika 74(1), doi:10.1093/biomet/74.1.95.
    Granger, C. W. J. (1980), Journal of Econometrics 14(2),
    doi:10.1016/0304-4076(80)90092-5.
    Hamilton, J. D. (1989), Econometrica 57(2), doi:10.2307/1912559.

    Examples
    --------
    >>> sim = simulate_dependent(2000, "fgn", hurst=0.8, rng=1)
    >>> sim.x.shape, sim.truth.median, sim.truth.noise
    ((2000,), 1000.0, 'fgn(H=0.8)')
    """
    n = check_positive_int(n, "n")
    _simulate_dependent_iv(process, scale, t0)
    gen, _ = check_rng(rng)
    if process == "fgn":
        h = _hurst_iv(hurst)
        z = fgn(n, h, size=size, rng=gen)
        rel = (0.0, 0.0, 0.0)
        lag1 = float(fgn_autocovariance(1, h))
        name = f"fgn(H={h:g})"
    elif process == "ar-sum":
        z = ar1_sum(n, phis, variances, size=size, rng=gen)
        rel = (0.0, 0.0, 0.0)
        p, v = _ar_iv(phis, variances)
        lag1 = float(np.dot(v, p) / v.sum())
        z = z / math.sqrt(float(v.sum()))
        name = "ar-sum(" + ", ".join(f"{q:g}" for q in p) + ")"
    else:
        lv = np.asarray(levels, dtype=np.float64)
        if lv.shape != (2,) or not np.all(np.isfinite(lv)):
            raise InvalidArgumentError(f"levels: must be two finite relative levels, got {levels!r}")
        pi = markov_stationary(sojourns)
        s = markov_modes(n, sojourns, size=size, rng=gen)
        e = gen.standard_normal(s.shape)
        x = t0 * (1.0 + lv[s] + scale * e)
        rel = _mixture_truth(lv, float(scale), pi)
        rho_s = 1.0 - 1.0 / float(sojourns[0]) - 1.0 / float(sojourns[1])
        var_between = float(np.dot(pi, (lv - np.dot(pi, lv)) ** 2))
        lag1 = rho_s * var_between / (var_between + scale**2) if var_between + scale**2 else 0.0
        name = f"markov-modes(levels={lv[0]:g},{lv[1]:g}; sojourns={sojourns[0]:g},{sojourns[1]:g})"
    if process != "markov-modes":
        x = t0 * (1.0 + scale * z)
    med, mean, tmean = rel
    truth = Truth(
        t0=float(t0),
        changepoints=(),
        warmup_end=0,
        median=t0 * (1.0 + med),
        mean=t0 * (1.0 + mean),
        trimmed_mean=t0 * (1.0 + tmean),
        phi=lag1,
        noise=name,
        final_level=float(t0),
    )
    return SimulatedSeries(x=np.asarray(x, dtype=np.float64), truth=truth)
