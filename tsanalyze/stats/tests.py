"""Two-sample and paired test primitives for comparisons.

Arrays in, frozen results out. The unpaired primitives are Welch's t on subsession
means (seed 001 §III-F), the Mann–Whitney U test with benchstat-compatible p-values
(exact distribution conditional on ties), the Hodges–Lehmann shift and Cohen's d. The
paired primitives follow the zenbench pipeline (seed 002): a Tukey-fence filter of the
per-round differences, the Wilcoxon signed-rank test and the Spearman drift of the
difference against the round index. :func:`bootstrap_ratio_ci` gives a bootstrap CI of
the ratio of an estimator between two series (independent or paired), and
:func:`ci_overlap` the check Pilot runs before its t-test.

Sign convention everywhere: ``a`` is the baseline, ``b`` the candidate; differences
are ``b - a`` and ratios ``b / a``, so a ratio below 1 means ``b`` is faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special, stats

from tsanalyze._result import Finding, Result
from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze._validation import (
    as_series_array,
    check_confidence_level,
    check_positive_int,
    check_rng,
)
from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.autocorrelation import (
    block_means,
    residual_inflation,
    subsession_size,
)
from tsanalyze.stats.bootstrap import (
    apply_statistic,
    apply_with_mean,
    calibration_factor,
    calibration_finding,
    optimal_block_length,
    resample_indices,
)
from tsanalyze.stats.estimators import ESTIMATORS, subsession_mean_variance
from tsanalyze.stats.outliers import tukey_fences
from tsanalyze.stats.summary_tests import ci_overlap

__all__ = [
    "MANN_WHITNEY_EXACT_LIMIT",
    "MANN_WHITNEY_TIES_EXACT_LIMIT",
    "Drift",
    "HypothesisTest",
    "RatioCI",
    "TukeyFilter",
    "bootstrap_ratio_ci",
    "ci_overlap",
    "cohens_d",
    "hodges_lehmann",
    "mann_whitney",
    "paired_t",
    "spearman_drift",
    "tukey_filter",
    "welch_subsession",
    "wilcoxon_signed_rank",
]

#: Largest sample size (each side) for the exact U distribution without ties (benchstat).
MANN_WHITNEY_EXACT_LIMIT = 50
#: Largest sample size (each side) for the exact U distribution with ties (benchstat).
MANN_WHITNEY_TIES_EXACT_LIMIT = 25
#: Above this many pairs the Hodges–Lehmann shift is computed on quantile summaries.
_HL_MAX_PAIRS = 4_000_000
_HL_GRID = 2000


@dataclass(frozen=True, slots=True)
class HypothesisTest(Result):
    """The outcome of one hypothesis test.

    Attributes
    ----------
    test : str
        Name of the test (``"welch"``, ``"mann-whitney"``, ``"wilcoxon"``, ``"paired-t"``).
    statistic : float
        The test statistic (t, U of ``a``, or the signed-rank statistic).
    pvalue : float
        Two-sided p-value (NaN when the test cannot be computed; see ``warnings``).
    n_a, n_b : int
        Number of values each side entered the test (block means for Welch; for paired
        tests both equal the number of differences).
    df : float or None
        Degrees of freedom for t tests.
    method : str
        How the p-value was obtained (``"exact"``, ``"asymptotic"``, ``"t"``, ...).
    block_size_a, block_size_b : int
        Subsession (block) sizes used to make the values nearly independent (1 = raw).
    diff_ci_low, diff_ci_high : float or None
        CI of the difference of means (``b - a``), for t tests.
    confidence_level : float or None
        Level of that CI.
    warnings : tuple of Finding
    """

    test: str
    statistic: float
    pvalue: float
    n_a: int
    n_b: int
    df: float | None = None
    method: str = ""
    block_size_a: int = 1
    block_size_b: int = 1
    diff_ci_low: float | None = None
    diff_ci_high: float | None = None
    confidence_level: float | None = None
    warnings: tuple[Finding, ...] = ()


@dataclass(frozen=True, slots=True)
class TukeyFilter(Result):
    """Tukey-fence filter of (paired) differences.

    Attributes
    ----------
    keep : ndarray of bool
        True for values inside the fences.
    low, high : float
        The fences ``Q1 - k IQR`` and ``Q3 + k IQR``.
    k : float
        The fence multiplier (1.5 = mild, 3 = severe).
    n_removed : int
        Number of values outside the fences.
    """

    keep: np.ndarray
    low: float
    high: float
    k: float
    n_removed: int


@dataclass(frozen=True, slots=True)
class Drift(Result):
    """Spearman rank correlation of a series against its index (seed 002 drift check).

    Attributes
    ----------
    statistic : float
        Spearman's r (NaN for a constant series).
    pvalue : float
        Two-sided p-value of r = 0 (NaN for a constant series).
    n : int
    """

    statistic: float
    pvalue: float
    n: int


@dataclass(frozen=True, slots=True)
class RatioCI(Result):
    """Bootstrap CI of ``estimator(b) / estimator(a)``.

    Attributes
    ----------
    estimate : float
        The ratio on the data.
    ci_low, ci_high : float
        Percentile bootstrap interval.
    confidence_level : float
    estimator : str
    paired : bool
        Whether rounds were resampled jointly (paired) or each side on its own.
    n_resamples : int
    block_length_a, block_length_b : float
        Mean block lengths of the stationary bootstrap; 1 = i.i.d. resampling.
    se_log : float
        Bootstrap standard error of ``log(ratio)`` (used to combine ratios).
    seed : int or None
        The seed used (None when a Generator was passed).
    warnings : tuple of Finding
    """

    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    estimator: str
    paired: bool
    n_resamples: int
    block_length_a: float
    block_length_b: float
    se_log: float
    seed: int | None
    warnings: tuple[Finding, ...] = ()


# --------------------------------------------------------------------------- helpers


def _blocks(x: Float64Array, m: int) -> Float64Array:
    """Means of consecutive non-overlapping blocks of ``m`` values (a short tail dropped)."""
    if m <= 1:
        return x
    return np.asarray(block_means(x, m), dtype=np.float64)


def _subsession(x: Float64Array, threshold: float) -> tuple[int, Finding | None]:
    """Subsession size of ``x`` (Pilot §III-D), 1 with a finding when it cannot be found."""
    if x.size < 4 or np.ptp(x) == 0:
        return 1, None
    m = subsession_size(x, threshold)
    if m is None:
        return 1, Finding(
            "subsession-not-found",
            f"no block size brings the lag-1 autocorrelation of {x.size} samples within "
            f"±{threshold}; the test treats them as independent and may be too liberal",
            "warning",
        )
    return int(m), None


# --------------------------------------------------------------------------- unpaired


def _two_sample_iv(a: ArrayLike, b: ArrayLike, min_size: int) -> tuple[Float64Array, Float64Array]:
    return as_series_array(a, "a", min_size=min_size), as_series_array(b, "b", min_size=min_size)


def welch_subsession(
    a: ArrayLike,
    b: ArrayLike,
    *,
    block_size_a: int | None = None,
    block_size_b: int | None = None,
    threshold: float = 0.1,
    confidence_level: float = 0.95,
    inflate: bool = False,
) -> HypothesisTest:
    """Welch's unequal-variance t test on subsession means (seed 001 §III-F).

    Parameters
    ----------
    a, b : array_like
        Baseline and candidate samples, in time order.
    block_size_a, block_size_b : int, optional
        Subsession sizes. By default each is the smallest block size whose block means
        have |lag-1 autocorrelation| <= ``threshold`` (Pilot §III-D).
    threshold : float
        Autocorrelation threshold for the subsession size.
    confidence_level : float
        Level of the CI of the difference of means ``mean(b) - mean(a)``.
    inflate : bool
        Multiply each side's variance of the mean by f = max(1, (1 + r)/(1 − r)), r the
        lag-1 autocorrelation of its block means (the dependence the subsession rule
        leaves, up to ``threshold``). Off by default, as in Pilot.

    Returns
    -------
    HypothesisTest
        ``statistic`` is t for ``b - a``, ``df`` the Welch–Satterthwaite degrees of freedom.

    Notes
    -----
    t = (x̄_B − x̄_A) / sqrt(s²_A/n_A + s²_B/n_B) on the block means, with
    ν = (s²_A/n_A + s²_B/n_B)² / ((s²_A/n_A)²/(n_A−1) + (s²_B/n_B)²/(n_B−1)) and
    p = 2 P(T_ν > |t|) (scipy.stats.ttest_ind, equal_var=False). Block means are nearly
    independent when the raw samples are autocorrelated, which Welch's test assumes.
    With fewer than 2 block means on a side the p-value is NaN, with a warning.
    ``inflate=True`` deviates from Pilot: block means accepted at |r| <= 0.1 still
    understate the variance of the mean by up to (1 + r)/(1 − r) (the AR(1) long-run
    factor). On Gaussian AR(1) φ = 0.7 data (n = 400, 400 A/A pairs, α = 5%) Welch on
    subsession means rejected 7.8% without and 7.3% with the factor; with blocks of
    twice the subsession size and the factor (what :func:`tsanalyze.compare` does),
    5.5%.

    References
    ----------
    seed 001: Li et al., "Pilot" (MASCOTS 2016), §III-D and §III-F, Eqs. 7–8.
    """
    x, y = _two_sample_iv(a, b, 1)
    confidence_level = check_confidence_level(confidence_level)
    findings: list[Finding] = []
    if block_size_a is None:
        block_size_a, f = _subsession(x, threshold)
        findings += [f] if f else []
    if block_size_b is None:
        block_size_b, f = _subsession(y, threshold)
        findings += [f] if f else []
    block_size_a = check_positive_int(block_size_a, "block_size_a")
    block_size_b = check_positive_int(block_size_b, "block_size_b")
    ma, mb = _blocks(x, block_size_a), _blocks(y, block_size_b)
    if ma.size < 2 or mb.size < 2 or (np.ptp(ma) == 0 and np.ptp(mb) == 0):
        findings.append(
            Finding(
                "too-few-blocks" if min(ma.size, mb.size) < 2 else "no-variance",
                f"Welch's t needs >= 2 varying block means per side (got {ma.size} and {mb.size})",
                "warning",
            )
        )
        return HypothesisTest(
            "welch", math.nan, math.nan, int(ma.size), int(mb.size), None, "t",
            block_size_a, block_size_b, None, None, confidence_level, tuple(findings),
        )  # fmt: skip
    # scipy.stats.ttest_ind(mb, ma, equal_var=False) gives the same t, p and df; the
    # from-stats form avoids its per-call overhead (~1 ms), which matters in suites.
    va, vb = float(ma.var(ddof=1)) / ma.size, float(mb.var(ddof=1)) / mb.size
    if inflate:
        va *= residual_inflation(ma)
        vb *= residual_inflation(mb)
    res = stats.ttest_ind_from_stats(
        float(mb.mean()), math.sqrt(vb * mb.size), mb.size,
        float(ma.mean()), math.sqrt(va * ma.size), ma.size, equal_var=False,
    )  # fmt: skip
    se2 = va + vb
    df = se2**2 / (va**2 / (ma.size - 1) + vb**2 / (mb.size - 1))
    half = float(special.stdtrit(df, 0.5 + confidence_level / 2)) * math.sqrt(se2)
    diff = float(mb.mean() - ma.mean())
    return HypothesisTest(
        test="welch",
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        n_a=int(ma.size),
        n_b=int(mb.size),
        df=float(df),
        method="t",
        block_size_a=block_size_a,
        block_size_b=block_size_b,
        diff_ci_low=diff - half,
        diff_ci_high=diff + half,
        confidence_level=confidence_level,
        warnings=tuple(findings),
    )


def _exact_rank_sum_distribution(counts: np.ndarray, n1: int) -> tuple[np.ndarray, np.ndarray]:
    """Null distribution of twice the rank sum of ``n1`` values drawn without replacement
    from tie groups of sizes ``counts`` (midranks), as (support, probabilities)."""
    ends = np.cumsum(counts)
    mid2 = (2 * ends - counts + 1).astype(np.int64)  # twice the midrank of each group
    size = int(mid2[-1]) * n1 + 1
    ways = np.zeros((n1 + 1, size))
    ways[0, 0] = 1.0
    for t, m2 in zip(counts.tolist(), mid2.tolist(), strict=True):
        new = ways.copy()  # j = 0 taken from this group
        for j in range(1, min(t, n1) + 1):
            shift = j * m2
            if shift >= size:
                break
            new[j:, shift:] += math.comb(t, j) * ways[: n1 + 1 - j, : size - shift]
        ways = new
    dist = ways[n1]
    return np.arange(size), dist / math.comb(int(counts.sum()), n1)


def mann_whitney(
    a: ArrayLike,
    b: ArrayLike,
    *,
    method: Literal["auto", "exact", "asymptotic"] = "auto",
) -> HypothesisTest:
    """Two-sided Mann–Whitney U test with benchstat's p-value.

    Parameters
    ----------
    a, b : array_like
        The two samples (treated as independent draws).
    method : {"auto", "exact", "asymptotic"}
        ``"exact"``: the exact permutation distribution of U *conditional on the tie
        pattern* (midranks), which is what benchstat prints. ``"asymptotic"``: normal
        approximation with tie and continuity corrections (scipy). ``"auto"``: exact when
        both samples have at most 50 values (25 when there are ties), as benchstat does.

    Returns
    -------
    HypothesisTest
        ``statistic`` is U of ``a`` (pairs with a > b, ties counting ½), as in scipy.

    Notes
    -----
    The exact p-value is 2 min(P(U_a <= u_a), P(U_a >= u_a)), capped at 1, from the
    permutation distribution of the midrank sum computed by a dynamic programme over
    tie groups (Klotz 1966). benchstat doubles P(U_a <= min(u_a, u_b)) instead; the two
    agree without ties and on all 36 crc rows of its golden output, but with ties the
    midrank distribution is not symmetric and benchstat's form can give p = 0 (e.g.
    a = [1], b = [0, 0]), which this one does not. Without ties it equals scipy's exact
    p-value; with ties scipy's ``method="exact"`` ignores them, which is why scipy
    gives 0.009 where benchstat prints 0.008 on crc IEEE/size=15/align=0.

    References
    ----------
    Mann & Whitney (1947), Ann. Math. Stat. 18(1):50–60. Klotz (1966), JASA 61:772–787.
    golang.org/x/perf/benchmath and github.com/aclements/go-moremath stats.MannWhitneyUTest.
    """
    x, y = _two_sample_iv(a, b, 1)
    if method not in ("auto", "exact", "asymptotic"):
        raise ValueError(f"method: expected 'auto', 'exact' or 'asymptotic', got {method!r}")
    n1, n2 = x.size, y.size
    z = np.concatenate([x, y])
    ranks = stats.rankdata(z)
    u1 = float(ranks[:n1].sum() - n1 * (n1 + 1) / 2)
    _, counts = np.unique(z, return_counts=True)
    if counts.size == 1:
        f = Finding("no-variance", "all values are equal; the test is meaningless", "warning")
        return HypothesisTest("mann-whitney", u1, math.nan, n1, n2, None, method, warnings=(f,))
    ties = bool((counts > 1).any())
    limit = MANN_WHITNEY_TIES_EXACT_LIMIT if ties else MANN_WHITNEY_EXACT_LIMIT
    use_exact = method == "exact" or (method == "auto" and max(n1, n2) <= limit)
    if use_exact:
        support, prob = _exact_rank_sum_distribution(counts, n1)
        r2 = round(2 * float(ranks[:n1].sum()))
        lower, upper = float(prob[support <= r2].sum()), float(prob[support >= r2].sum())
        p = min(1.0, 2.0 * min(lower, upper))
        used = "exact"
    else:
        p = float(stats.mannwhitneyu(x, y, method="asymptotic", use_continuity=True).pvalue)
        used = "asymptotic"
    return HypothesisTest("mann-whitney", u1, p, n1, n2, None, used)


def hodges_lehmann(a: ArrayLike, b: ArrayLike) -> float:
    """Hodges–Lehmann shift: the median of all pairwise differences ``b_j - a_i``.

    Notes
    -----
    Exact for up to 4·10⁶ pairs; above that the median is taken over the differences
    of 2000 evenly spaced quantiles of each sample (a deterministic approximation whose
    error is below the quantile spacing).

    References
    ----------
    Hodges & Lehmann (1963), Ann. Math. Stat. 34(2):598–611.
    """
    x, y = _two_sample_iv(a, b, 1)
    if x.size * y.size > _HL_MAX_PAIRS:
        q = (np.arange(_HL_GRID) + 0.5) / _HL_GRID
        x, y = np.quantile(x, q), np.quantile(y, q)
    return float(np.median(np.subtract.outer(y, x)))


def cohens_d(a: ArrayLike, b: ArrayLike, *, paired: bool = False) -> float:
    """Cohen's d of ``b`` against ``a``: (mean(b) − mean(a)) / pooled sd.

    Parameters
    ----------
    a, b : array_like
    paired : bool
        If True, ``a`` and ``b`` are matched rounds; the numerator is the mean paired
        difference and the denominator the root mean square of the two sds (zenbench).

    Notes
    -----
    Unpaired: s_p² = ((n_a−1)s_a² + (n_b−1)s_b²)/(n_a+n_b−2). Paired (seed 002):
    d = mean(b−a) / sqrt((s_a² + s_b²)/2). NaN when the pooled sd is 0 or undefined.

    References
    ----------
    seed 002: zenbench methodology ("Cohen's d = mean_diff / pooled_sd").
    Cohen (1988), Statistical Power Analysis for the Behavioral Sciences.
    """
    x, y = _two_sample_iv(a, b, 1)
    if paired:
        if x.size != y.size:
            raise ValueError(f"b: paired data need equal lengths, got {x.size} and {y.size}")
        if x.size < 2:
            return math.nan
        sp = math.sqrt((x.var(ddof=1) + y.var(ddof=1)) / 2)
        num = float(np.mean(y - x))
    else:
        if x.size + y.size < 3:
            return math.nan
        ss = x.var() * x.size + y.var() * y.size
        sp = math.sqrt(ss / (x.size + y.size - 2))
        num = float(y.mean() - x.mean())
    return num / sp if sp > 0 else math.nan


# --------------------------------------------------------------------------- paired


def tukey_filter(d: ArrayLike, k: float = 1.5) -> TukeyFilter:
    """Tukey-fence filter: keep values inside [Q1 − k·IQR, Q3 + k·IQR].

    Parameters
    ----------
    d : array_like
        Typically the per-round paired differences ``b - a``.
    k : float
        Fence multiplier (1.5 by default, as zenbench).

    Returns
    -------
    TukeyFilter

    Notes
    -----
    Fences from :func:`tsanalyze.stats.outliers.tukey_fences` (quartiles by linear
    interpolation); values on a fence are kept. Removing outlying differences
    suppresses context-switch spikes but can also hide a genuine bimodal slow path
    of one benchmark; callers should report ``n_removed``.

    References
    ----------
    seed 002: zenbench methodology, step 1 ("IQR outlier removal").
    Tukey (1977), Exploratory Data Analysis.
    """
    if not (isinstance(k, (int, float)) and k > 0 and math.isfinite(k)):
        raise ValueError(f"k: must be a positive number, got {k!r}")
    tf = tukey_fences(d, mild=k, severe=max(float(k), 3.0))
    keep = np.ones(tf.n, dtype=bool)
    keep[tf.outlier_idx] = False
    low, high = tf.low_mild_fence, tf.high_mild_fence
    return TukeyFilter(keep, low, high, float(k), int((~keep).sum()))


def wilcoxon_signed_rank(d: ArrayLike) -> HypothesisTest:
    """Two-sided Wilcoxon signed-rank test that the differences ``d`` centre on 0.

    Notes
    -----
    scipy.stats.wilcoxon with ``zero_method="wilcox"`` (zero differences dropped) and
    ``method="auto"`` (exact for n <= 50 without ties or zeros, else normal
    approximation with tie correction). NaN p-value with a warning when every
    difference is zero or fewer than 2 remain.

    References
    ----------
    seed 002: zenbench methodology, step 5. Wilcoxon (1945), Biometrics Bull. 1(6):80–83.
    """
    x = as_series_array(d, "d", min_size=1)
    nz = x[x != 0]
    if nz.size < 2:
        f = Finding("too-few-differences", f"{nz.size} non-zero difference(s); no test", "warning")
        return HypothesisTest("wilcoxon", math.nan, math.nan, x.size, x.size, warnings=(f,))
    res = stats.wilcoxon(nz)
    method = "exact" if nz.size <= 50 and np.unique(np.abs(nz)).size == nz.size else "asymptotic"
    return HypothesisTest(
        "wilcoxon", float(res.statistic), float(res.pvalue), x.size, x.size, None, method
    )


def paired_t(d: ArrayLike, *, confidence_level: float = 0.95) -> HypothesisTest:
    """One-sample t test that the (block means of) differences ``d`` have mean 0.

    Notes
    -----
    scipy.stats.ttest_1samp; ``diff_ci_low``/``diff_ci_high`` are the t CI of the mean
    difference. Callers pass block means of the differences when they are
    autocorrelated (seed 001 §III-D).

    References
    ----------
    Student (1908), Biometrika 6(1):1–25.
    """
    x = as_series_array(d, "d", min_size=1)
    confidence_level = check_confidence_level(confidence_level)
    if x.size < 2 or np.ptp(x) == 0:
        f = Finding("no-variance", f"paired t needs >= 2 varying differences (got {x.size})")
        return HypothesisTest("paired-t", math.nan, math.nan, x.size, x.size, warnings=(f,))
    res = stats.ttest_1samp(x, 0.0)
    ci = res.confidence_interval(confidence_level)
    return HypothesisTest(
        "paired-t", float(res.statistic), float(res.pvalue), x.size, x.size, float(res.df), "t",
        diff_ci_low=float(ci.low), diff_ci_high=float(ci.high),
        confidence_level=confidence_level,
    )  # fmt: skip


def spearman_drift(d: ArrayLike) -> Drift:
    """Spearman rank correlation of ``d`` against its index (0, 1, ..., n−1).

    Notes
    -----
    A large |r| (zenbench flags > 0.5) means the difference drifts over the run:
    thermal throttling (r > 0) or warm-up (r < 0). Constant input gives NaN without
    a warning.

    References
    ----------
    seed 002: zenbench methodology, step 6 ("Spearman drift").
    """
    x = as_series_array(d, "d", min_size=1)
    if x.size < 3 or np.ptp(x) == 0:
        return Drift(math.nan, math.nan, int(x.size))
    res = stats.spearmanr(np.arange(x.size), x)
    return Drift(float(res.statistic), float(res.pvalue), int(x.size))


# --------------------------------------------------------------------------- bootstrap


def bootstrap_ratio_ci(
    a: ArrayLike,
    b: ArrayLike,
    *,
    estimator: str = "median",
    paired: bool = False,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    block_length_a: float | None = None,
    block_length_b: float | None = None,
    rng: RNGType = None,
) -> RatioCI:
    """Percentile bootstrap CI of ``estimator(b) / estimator(a)``.

    Parameters
    ----------
    a, b : array_like
        Baseline and candidate samples in time order (positive).
    estimator : str
        A key of :data:`tsanalyze.stats.estimators.ESTIMATORS` (``"median"``, ``"min"``,
        ``"mean"``, ``"trimmed_mean"``, ...).
    paired : bool
        If True, ``a`` and ``b`` are matched rounds of equal length and are resampled
        with the same indices, which keeps their correlation.
    confidence_level : float
    n_resamples : int
    block_length_a, block_length_b : float, optional
        Mean block lengths of the stationary bootstrap. By default the larger of the
        Politis–White optimal block lengths of each series and of its ranks (of the
        differences when paired); below 1.5 the resampling is i.i.d.
    rng : int, Generator or None

    Returns
    -------
    RatioCI

    Notes
    -----
    Unpaired: each side is resampled on its own; replicate r*_k = θ(b*_k)/θ(a*_k).
    Paired: one index set per replicate for both sides. The percentile interval of the
    r*_k is reported, and se_log = sd(log r*_k). Block resampling keeps the dependence
    of autocorrelated series (stationary bootstrap, Politis & Romano 1994); i.i.d.
    resampling would make the CI too narrow. Block resamples still cut the dependence at
    every join, so each side's replicates (the log ratio's when paired, judged on the
    differences) are widened to the subsession estimate of the variance of the mean as in
    :func:`tsanalyze.stats.bootstrap.bootstrap_ci` (``mean_variance``, with the
    bias-corrected residual correlation of
    :func:`~tsanalyze.stats.autocorrelation.residual_inflation`). On AR(1) phi = 0.7
    data with 200 samples per side this raised
    the coverage of the 95% interval of a ratio of medians from 89.75% to 94.75%
    (unpaired) and from 91.75% to 97.25% (paired: conservative); with phi = 0.85 and 400
    per side from 88.75% to 94.75%, and with 100 per side from 90.5% to 92.5%.

    References
    ----------
    seed 002: zenbench methodology, step 2 (bootstrap CI of the paired difference).
    Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13.
    Politis & White (2004), Econometric Reviews 23(1):53–70.
    """
    x = as_series_array(a, "a", min_size=1, positive=True)
    y = as_series_array(b, "b", min_size=1, positive=True)
    confidence_level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=10)
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator: expected one of {sorted(ESTIMATORS)}, got {estimator!r}")
    if paired and x.size != y.size:
        raise ValueError(f"b: paired data need equal lengths, got {x.size} and {y.size}")
    gen, seed = check_rng(rng)
    fn = ESTIMATORS[estimator]
    findings: list[Finding] = []

    def _block(series: Float64Array, given: float | None, name: str) -> float:
        if given is not None:
            if not (isinstance(given, (int, float)) and math.isfinite(given) and given >= 1):
                raise ValueError(f"{name}: must be a number >= 1, got {given!r}")
            return float(given)
        if series.size < 10 or np.ptp(series) == 0:
            return 1.0
        # dependence can hide from the values behind heavy tails (a few huge delays
        # swamp the autocovariance) yet show in the ranks; take the longer block
        bl = max(
            float(optimal_block_length(series)),
            float(optimal_block_length(stats.rankdata(series))),
        )
        return 1.0 if not math.isfinite(bl) or bl < 1.5 else min(bl, series.size / 2)

    def _resample(n: int, bl: float) -> np.ndarray:
        if bl < 1.5:
            return resample_indices(n, n_resamples, kind="iid", rng=gen)
        return resample_indices(n, n_resamples, kind="stationary", block_length=bl, rng=gen)

    def _calibration(series: Float64Array, bmeans: Float64Array) -> float:
        m = subsession_size(series)
        mv = None if m is None else subsession_mean_variance(series, m)
        return 1.0 if mv is None else calibration_factor(bmeans, mv)

    def _side(series: Float64Array, bl: float) -> tuple[Float64Array, float]:
        idx = _resample(series.size, bl)
        if bl < 1.5:
            return np.asarray(apply_statistic(series, idx, fn), dtype=np.float64), 1.0
        boot, bmeans = apply_with_mean(series, idx, fn)
        c = _calibration(series, bmeans)
        theta = float(fn(series))
        return theta + (boot - theta) * c, c

    est = float(fn(y) / fn(x))
    if min(x.size, y.size) < 2:
        f = Finding("too-few-samples", "a bootstrap CI needs >= 2 samples per side", "warning")
        return RatioCI(
            est, math.nan, math.nan, confidence_level, estimator, paired, n_resamples,
            1.0, 1.0, math.nan, seed, (f,),
        )  # fmt: skip
    if paired:
        given = block_length_a if block_length_a is not None else block_length_b
        bla = blb = _block(y - x, given, "block_length_a")
        idx = _resample(x.size, bla)
        num, den = apply_statistic(y, idx, fn), apply_statistic(x, idx, fn)
        calib = 1.0
        if bla >= 1.5:
            d = y - x
            dmeans = np.asarray(apply_statistic(d, idx, ESTIMATORS["mean"]), dtype=np.float64)
            calib = _calibration(d, dmeans)
    else:
        bla = _block(x, block_length_a, "block_length_a")
        blb = _block(y, block_length_b, "block_length_b")
        den, calib_a = _side(x, bla)
        num, calib_b = _side(y, blb)
        calib = max(calib_a, calib_b)
    reps = np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)
    reps = reps[np.isfinite(reps) & (reps > 0)]
    if reps.size < n_resamples // 2:
        raise NotEnoughData("bootstrap_ratio_ci: too many undefined bootstrap replicates")
    if paired and calib > 1.0:
        reps = est * (reps / est) ** calib  # widen log(ratio*) about log(ratio)
    if calib > 1.0:
        findings.append(calibration_finding(calib))
    alpha = 1.0 - confidence_level
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    if min(x.size, y.size) < 10:
        findings.append(
            Finding(
                "few-samples",
                f"bootstrap CI from {min(x.size, y.size)} samples per side is unreliable",
                "warning",
            )
        )
    if estimator == "min":
        findings.append(
            Finding(
                "min-degenerate",
                "the bootstrap distribution of the minimum is degenerate; its CI is optimistic",
                "info",
            )
        )
    return RatioCI(
        estimate=est,
        ci_low=float(lo),
        ci_high=float(hi),
        confidence_level=confidence_level,
        estimator=estimator,
        paired=paired,
        n_resamples=n_resamples,
        block_length_a=bla,
        block_length_b=blb,
        se_log=float(np.std(np.log(reps), ddof=1)),
        seed=seed,
        warnings=tuple(findings),
    )
