"""Serial dependence of a series: ACF/PACF, Ljung–Box, effective sample size and the
subsession (batch) size of Pilot.

Benchmark samples taken back to back are rarely independent: a slow sample is often
followed by another slow one (frequency scaling, cache state, background load). Every
confidence interval that assumes independence is then too narrow. This module measures
the dependence and gives the remedy Pilot uses: average consecutive samples into
*subsessions* long enough that their means are (nearly) uncorrelated, and compute
independence-assuming statistics on those means.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array, check_confidence_level, check_positive_int
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.acf import acf_fft, geyer_tau, levinson_durbin_pacf, ljung_box

__all__ = [
    "Autocorrelation",
    "BlockSize",
    "autocorrelation",
    "block_means",
    "lag1",
    "residual_inflation",
    "subsession_block_size",
    "subsession_size",
]


#: cap on the residual lag-1 autocorrelation used by :func:`residual_inflation`
_MAX_RESIDUAL_R = 0.9


def residual_inflation(means: ArrayLike) -> float:
    """Variance factor for the residual correlation of subsession (block) means.

    ``max(1, (1 + r) / (1 - r))`` with r the lag-1 autocorrelation of the k ``means``
    (:func:`lag1`) corrected for its small-sample bias E r̂ = r - (1 + 4 r) / k (Marriott
    & Pope 1954, AR(1), for this estimator with denominator k): r = (k r̂ + 1) / (k - 4)
    for k > 8 (r̂ + (1 + 4 r̂) / k below), capped at 0.9; 1.0 for fewer than 3 means.

    The subsession size makes |r̂| <= 0.1, but r̂ from k block means is biased low by
    about (1 + 4 r) / k, so the raw factor under-corrects exactly when k is small.

    References
    ----------
    Marriott, F. H. C., Pope, J. A. (1954). Bias in the estimation of autocorrelations.
    Biometrika 41(3/4), 390-402.
    """
    a = np.asarray(means, dtype=np.float64)
    k = a.size
    if k < 3:
        return 1.0
    r = lag1(a)
    if not math.isfinite(r):
        return 1.0
    r = (k * r + 1.0) / (k - 4.0) if k > 8 else r + (1.0 + 4.0 * r) / k
    r = min(r, _MAX_RESIDUAL_R)
    return max(1.0, (1.0 + r) / (1.0 - r))


def lag1(x: ArrayLike) -> float:
    """Lag-1 sample autocorrelation of ``x``.

    Parameters
    ----------
    x : array_like
        1-d series in time order.

    Returns
    -------
    float
        r1 = sum((x_t - xbar)(x_{t+1} - xbar)) / sum((x_t - xbar)^2), the estimator
        statsmodels' ``acf`` uses (denominator n, not n - 1). NaN for fewer than 2
        values; 0.0 for a constant series (no variation, so no measurable dependence).

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-D. https://doi.org/10.1109/MASCOTS.2016.31
    """
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise InvalidArgumentError(f"x: expected a 1-d series, got an array of shape {a.shape}")
    if a.size < 2:
        return math.nan
    d = a - a.mean()
    den = float(np.dot(d, d))
    if den == 0.0 or not math.isfinite(den):
        return 0.0 if den == 0.0 else math.nan
    return float(np.dot(d[:-1], d[1:]) / den)


def block_means(x: ArrayLike, m: int) -> Float64Array:
    """Means of consecutive non-overlapping blocks of ``m`` samples.

    An incomplete tail block (the last ``len(x) % m`` samples) is dropped.

    Parameters
    ----------
    x : array_like
        1-d series in time order.
    m : int
        Block (subsession) length, >= 1.

    Returns
    -------
    numpy.ndarray
        float64 array of length ``len(x) // m``.
    """
    m = check_positive_int(m, "m")
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise InvalidArgumentError(f"x: expected a 1-d series, got an array of shape {a.shape}")
    k = a.size // m
    return a[: k * m].reshape(k, m).mean(axis=1)


def _lag1_rows(b: Float64Array) -> float:
    d = b - b.mean()
    den = float(np.dot(d, d))
    if den == 0.0:
        return 0.0
    return float(np.dot(d[:-1], d[1:]) / den)


def subsession_size(
    x: ArrayLike,
    threshold: float = 0.1,
    *,
    max_m: int | None = None,
    min_blocks: int = 10,
) -> int | None:
    """Pilot's subsession size: the smallest m whose block means look uncorrelated.

    Parameters
    ----------
    x : array_like
        1-d series in time order.
    threshold : float, default 0.1
        Largest accepted absolute lag-1 autocorrelation of the block means.
    max_m : int, optional
        Largest block length tried (default: ``len(x) // min_blocks``).
    min_blocks : int, default 10
        Fewest blocks a block length must leave; lag-1 of fewer means is meaningless.

    Returns
    -------
    int or None
        The smallest m in 1..max_m with |lag1(block_means(x, m))| <= threshold, or None
        when no such m leaves at least ``min_blocks`` blocks.

    Notes
    -----
    Block means for every m come from one cumulative sum of the centred series, so the
    whole search costs O(n log n) (the harmonic sum of n/m). A constant series gives 1.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-D, "subsession analysis". https://doi.org/10.1109/MASCOTS.2016.31
    """
    if not (isinstance(threshold, (int, float)) and 0.0 <= float(threshold) < 1.0):
        raise InvalidArgumentError(f"threshold: must be in [0, 1), got {threshold!r}")
    min_blocks = check_positive_int(min_blocks, "min_blocks", minimum=3)
    a = as_series_array(x, "x", min_size=0)
    n = a.size
    limit = n // min_blocks
    if max_m is not None:
        limit = min(limit, check_positive_int(max_m, "max_m"))
    if limit < 1:
        return None
    d = a - a.mean()
    cs = np.concatenate(([0.0], np.cumsum(d)))
    for m in range(1, limit + 1):
        k = n // m
        sums = cs[m : k * m + 1 : m] - cs[0 : (k - 1) * m + 1 : m]
        if abs(_lag1_rows(sums)) <= threshold:
            return m
    return None


@result
class BlockSize(Result):
    """The block size a test on block (subsession) means should use.

    Attributes
    ----------
    block_size : int
        Block length for the test (1 = the values as they are).
    subsession_size : int or None
        Pilot's subsession size m behind it (None when the dependence was not checked or
        no size was found; ``warnings`` say which).
    warnings : tuple of Finding
    """

    block_size: int
    subsession_size: int | None
    warnings: tuple[Finding, ...] = ()


#: with ``widen``, the doubled block size is used only if it leaves this many block means
_MIN_BLOCKS_WIDENED = 8


def subsession_block_size(
    x: ArrayLike,
    threshold: float = 0.1,
    *,
    min_n: int = 20,
    ranks: bool = True,
    widen: bool = True,
    fallback_blocks: int | None = 10,
    label: str = "",
) -> BlockSize:
    """Block size for a test on block means of a dependent series (Pilot's subsessions).

    The defaults are the rule of :func:`tsanalyze.compare`; the parameters let a caller
    use Pilot's plain rule instead (``min_n=4, ranks=False, widen=False,
    fallback_blocks=None``, what :func:`tsanalyze.stats.two_sample.welch_subsession` does
    when no block size is given).

    Parameters
    ----------
    x : array_like
        1-d series in time order.
    threshold : float, default 0.1
        Largest accepted |lag-1 autocorrelation| of the block means.
    min_n : int, default 20
        Fewest values for which the dependence is checked; shorter series are treated as
        independent (block size 1, with an ``independence-unchecked`` note).
    ranks : bool, default True
        Also size the ranks of ``x`` and take the larger size: heavy tails can hide
        dependence from the values (a few huge delays swamp the autocovariance) while the
        ranks show it.
    widen : bool, default True
        Use blocks of 2m instead of the subsession size m > 1 when that leaves at least 8
        block means.
    fallback_blocks : int or None, default 10
        When no subsession size is found: blocks that leave this many means (a warning
        says so). None: block size 1 (the test treats the values as independent, with a
        warning that it may be too liberal).
    label : str
        Prefix of the findings' messages (``"a"``, ``"b"``, ``"differences"``).

    Returns
    -------
    BlockSize

    Notes
    -----
    m is the smallest block length whose block means have |lag-1| <= ``threshold``
    (:func:`subsession_size`). The first m to pass is picked partly by luck and leaves
    dependence beyond lag 1: doubling it (``widen``) brought the A/A rejection rate of
    :func:`tsanalyze.compare` on AR(1) phi = 0.7 data from 7% to 5.5% (n = 400, 400
    replications). A constant series gives 1 without a finding.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-D, "subsession analysis". https://doi.org/10.1109/MASCOTS.2016.31
    """
    a = as_series_array(x, "x", min_size=0)
    n = int(a.size)
    prefix = f"{label}: " if label else ""
    if n == 0 or float(np.ptp(a)) == 0.0:
        return BlockSize(1, None)
    if n < min_n:
        note = Finding(
            "independence-unchecked",
            f"{prefix}{n} values are too few to check autocorrelation; treated as independent",
            "info",
        )
        return BlockSize(1, None, (note,))
    m = subsession_size(a, threshold)
    if ranks and m is not None:
        from tsanalyze.stats._ranks import midranks  # scipy's rankdata, to the bit

        m_ranks = subsession_size(midranks(a)[0], threshold)
        m = None if m_ranks is None else max(m, m_ranks)
    if m is None:
        if fallback_blocks is None:
            size, text = (
                1,
                (
                    f"{prefix}no block size brings the lag-1 autocorrelation of {n} samples within "
                    f"±{threshold}; the test treats them as independent and may be too liberal"
                ),
            )
        else:
            size = max(1, n // fallback_blocks)
            text = (
                f"{prefix}no subsession size brings the lag-1 autocorrelation within "
                f"±{threshold}; using blocks of {size} ({fallback_blocks} block means)"
            )
        return BlockSize(size, None, (Finding("subsession-not-found", text, "warning"),))
    if m == 1:
        return BlockSize(1, 1)
    size = 2 * m if widen and n // (2 * m) >= _MIN_BLOCKS_WIDENED else m
    note = Finding(
        "autocorrelated",
        f"{prefix}samples are autocorrelated (subsession size {m}); tests use means of "
        f"blocks of {size}",
        "info",
    )
    return BlockSize(size, m, (note,))


@result
class Autocorrelation(Result):
    """Serial dependence of one series.

    Attributes
    ----------
    n : int
        Number of samples.
    lag1 : float
        Lag-1 autocorrelation of the samples.
    threshold : float
        The |lag-1| threshold used for the subsession size.
    subsession_size : int or None
        Smallest block length whose block means have |lag-1| <= threshold; None when
        none leaves ``min_blocks`` blocks.
    n_subsessions : int or None
        ``n // subsession_size``.
    subsession_lag1 : float
        Lag-1 autocorrelation of the subsession means (NaN when no size works).
    integrated_time : float
        tau = 1 + 2 sum rho_k (Geyer), the long-run variance factor.
    effective_sample_size : float
        n / tau.
    ljungbox_statistic, ljungbox_pvalue : float
        Ljung–Box Q at ``ljungbox_lags`` and its chi-square p-value.
    ljungbox_lags : int
    acf, pacf : numpy.ndarray
        ACF (FFT) and PACF (Yule–Walker, adjusted) for lags 0..nlags.
    acf_confint, pacf_confint : numpy.ndarray
        (nlags+1, 2) bands at ``confidence_level`` (Bartlett's formula for the ACF,
        1/sqrt(n) for the PACF), as statsmodels returns them.
    confidence_level : float
    independent : bool
        True when |lag1| <= threshold (subsession size 1): i.i.d. methods are fine.
    warnings : tuple of Finding
    """

    n: int
    lag1: float
    threshold: float
    subsession_size: int | None
    n_subsessions: int | None
    subsession_lag1: float
    integrated_time: float
    effective_sample_size: float
    ljungbox_statistic: float
    ljungbox_pvalue: float
    ljungbox_lags: int
    acf: Float64Array
    pacf: Float64Array
    acf_confint: Float64Array
    pacf_confint: Float64Array
    confidence_level: float
    independent: bool
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per lag: ``lag``, ``acf``, ``acf_ci_low``, ``acf_ci_high``, ``pacf``,
        ``pacf_ci_low``, ``pacf_ci_high``."""
        lags = np.arange(self.acf.size)
        pacf = np.full(self.acf.size, np.nan)
        pl = np.full(self.acf.size, np.nan)
        ph = np.full(self.acf.size, np.nan)
        k = min(self.pacf.size, self.acf.size)
        pacf[:k] = self.pacf[:k]
        if self.pacf_confint.size:
            pl[:k] = self.pacf_confint[:k, 0]
            ph[:k] = self.pacf_confint[:k, 1]
        return pd.DataFrame(
            {
                "lag": lags,
                "acf": self.acf,
                "acf_ci_low": self.acf_confint[:, 0] if self.acf_confint.size else np.nan,
                "acf_ci_high": self.acf_confint[:, 1] if self.acf_confint.size else np.nan,
                "pacf": pacf,
                "pacf_ci_low": pl,
                "pacf_ci_high": ph,
            }
        )

    def summary_frame(self) -> pd.DataFrame:
        """The scalar fields as one row (what ``Result.to_frame`` would give)."""
        return Result.to_frame(self)


def _autocorrelation_iv(
    x: ArrayLike,
    nlags: int | None,
    threshold: float,
    confidence_level: float,
    ljungbox_lags: int | None,
    min_blocks: int,
) -> tuple[Float64Array, int, float, int, int]:
    a = as_series_array(x, "x", min_size=4, positive=True)
    n = a.size
    if nlags is None:
        nlags = int(min(10 * math.log10(n), n // 2 - 1))
    nlags = check_positive_int(nlags, "nlags")
    if nlags >= n // 2:
        raise InvalidArgumentError(f"nlags: must be < n/2 = {n // 2} for the PACF, got {nlags}")
    if not (isinstance(threshold, (int, float)) and 0.0 <= float(threshold) < 1.0):
        raise InvalidArgumentError(f"threshold: must be in [0, 1), got {threshold!r}")
    check_confidence_level(confidence_level)
    if ljungbox_lags is None:
        ljungbox_lags = max(1, min(10, n // 5))
    ljungbox_lags = check_positive_int(ljungbox_lags, "ljungbox_lags")
    if ljungbox_lags >= n:
        raise InvalidArgumentError(f"ljungbox_lags: must be < n = {n}, got {ljungbox_lags}")
    check_positive_int(min_blocks, "min_blocks", minimum=3)
    return a, nlags, float(threshold), ljungbox_lags, min_blocks


def autocorrelation(
    x: ArrayLike,
    *,
    nlags: int | None = None,
    threshold: float = 0.1,
    confidence_level: float = 0.95,
    ljungbox_lags: int | None = None,
    max_m: int | None = None,
    min_blocks: int = 10,
) -> Autocorrelation:
    """Measure the serial dependence of a series and size Pilot's subsessions.

    Parameters
    ----------
    x : array_like
        1-d series of sample times in time order (at least 4 values).
    nlags : int, optional
        Lags of the ACF/PACF (default ``min(10 log10 n, n/2 - 1)``, statsmodels' rule).
    threshold : float, default 0.1
        |lag-1| threshold of the subsession rule and of ``independent``.
    confidence_level : float, default 0.95
        Level of the ACF/PACF bands.
    ljungbox_lags : int, optional
        Lag of the Ljung–Box test (default ``min(10, n // 5)``).
    max_m, min_blocks :
        Passed to :func:`subsession_size`.

    Returns
    -------
    Autocorrelation

    Notes
    -----
    ACF by FFT and PACF by adjusted Yule–Walker (statsmodels ``acf``/``pacf``), Ljung–Box
    by ``acorr_ljungbox``. Subsession size: smallest m with
    |lag1(block_means(x, m))| <= threshold (Pilot). Effective sample size n / tau with
    Geyer's initial monotone sequence estimate of tau = 1 + 2 sum rho_k. A constant
    series has no measurable dependence: ACF 0 beyond lag 0, tau = 1, Ljung–Box p = 1.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-D. https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Ljung, G. M., & Box, G. E. P. (1978). On a measure of lack of fit in time series
       models. Biometrika 65(2), 297–303. https://doi.org/10.1093/biomet/65.2.297
    """
    a, nlags, threshold, lb_lags, min_blocks = _autocorrelation_iv(
        x, nlags, threshold, confidence_level, ljungbox_lags, min_blocks
    )
    n = a.size
    alpha = 1.0 - confidence_level
    found: list[Finding] = []
    constant = float(np.ptp(a)) == 0.0
    if constant:
        acf_v = np.zeros(nlags + 1)
        acf_v[0] = 1.0
        pacf_v = acf_v.copy()
        hc = float(_norm_ppf(1 - alpha / 2) / math.sqrt(n))
        acf_ci = np.column_stack([acf_v - hc, acf_v + hc])
        acf_ci[0] = 1.0
        pacf_ci = acf_ci.copy()
        lb_stat, lb_p = 0.0, 1.0
        found.append(
            Finding("constant", "the series is constant: no dependence measurable", "info")
        )
    else:
        z = _norm_ppf(1 - alpha / 2)
        lmax = min(n - 1, max(1000, n // 10, nlags, lb_lags))
        rho_all = acf_fft(a, lmax)
        acf_v = rho_all[: nlags + 1]
        # Bartlett's formula, as statsmodels acf(alpha=...) computes the bands
        varacf = np.ones(nlags + 1) / n
        varacf[0] = 0.0
        varacf[2:] *= 1.0 + 2.0 * np.cumsum(acf_v[1:-1] ** 2)
        half = z * np.sqrt(varacf)
        acf_ci = np.column_stack([acf_v - half, acf_v + half])
        # PACF by Yule-Walker on the adjusted autocovariances (statsmodels "ywadjusted")
        rho_adj = acf_fft(a, nlags, adjusted=True)
        pacf_v = levinson_durbin_pacf(rho_adj, nlags)
        ph = z / math.sqrt(n)
        pacf_ci = np.column_stack([pacf_v - ph, pacf_v + ph])
        pacf_ci[0] = 1.0
        lb_stat, lb_p = ljung_box(rho_all, n, lb_lags)
        tau_all = geyer_tau(rho_all, n)
    r1 = lag1(a)
    m = subsession_size(a, threshold, max_m=max_m, min_blocks=min_blocks)
    k = None if m is None else n // m
    sub_r1 = math.nan if m is None else lag1(block_means(a, m))
    tau = 1.0 if constant else tau_all
    ess = n / tau
    if m is None:
        found.append(
            Finding(
                "no-subsession-size",
                f"no block length up to {n // min_blocks} brings the lag-1 autocorrelation of "
                f"block means within ±{threshold:g} (lag-1 = {r1:.2f}); the series may not be "
                "stationary or is too short",
                "serious",
            )
        )
    elif m > 1:
        found.append(
            Finding(
                "autocorrelated",
                f"samples are autocorrelated (lag-1 = {r1:.2f}); subsessions of {m} samples "
                f"give {k} roughly independent means (effective sample size ~{ess:.0f} of {n})",
                "warning",
            )
        )
    return Autocorrelation(
        n=n,
        lag1=r1,
        threshold=threshold,
        subsession_size=m,
        n_subsessions=k,
        subsession_lag1=sub_r1,
        integrated_time=float(tau),
        effective_sample_size=float(ess),
        ljungbox_statistic=float(lb_stat),
        ljungbox_pvalue=float(lb_p),
        ljungbox_lags=lb_lags,
        acf=np.asarray(acf_v, dtype=np.float64),
        pacf=np.asarray(pacf_v, dtype=np.float64),
        acf_confint=np.asarray(acf_ci, dtype=np.float64),
        pacf_confint=np.asarray(pacf_ci, dtype=np.float64),
        confidence_level=float(confidence_level),
        independent=bool(m == 1),
        warnings=tuple(found),
    )


def _norm_ppf(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))
