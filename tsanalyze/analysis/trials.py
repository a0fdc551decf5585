"""Estimates across trials (several runs of one benchmark).

One run's confidence interval only describes that process: its memory layout, its JIT
decisions, its CPU frequency. Repeating the run (a *trial*) often moves the estimate by
more than the within-run interval admits (Chen et al. 2016, Figs. 3–4) [1]_. With trials,
the run is the experimental unit: resample runs, then samples within the runs (Kalibera &
Jones 2013) [2]_, and compare the between-trial spread with the within-trial intervals.

References
----------
.. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
   environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), Figs. 3–4.
   arXiv:1608.04295.
.. [2] Kalibera, T., & Jones, R. (2013). Rigorous benchmarking in reasonable time. ISMM '13,
   63–74. https://doi.org/10.1145/2464157.2464160
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as _st

from tsanalyze._result import Finding, result
from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze._units import quote_pvalue, quote_time
from tsanalyze._validation import (
    as_series_array,
    check_confidence_level,
    check_positive_int,
    check_rng,
)
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.bootstrap import apply_statistic, optimal_block_length, resample_indices
from tsanalyze.stats.estimators import (
    ESTIMATORS,
    EstimatorName,
    IntervalEstimate,
    estimate,
    trimmed_mean,
)

__all__ = ["TrialsEstimate", "estimate_trials", "findings_once"]

#: inner resamples of a trial longer than this are m-out-of-n (rescaled), like estimate()
_MAX_INNER = 20_000
#: inner replicates per trial: at least this many, and enough that the T pools together
#: hold 10 × ``n_resamples`` replicates (see :func:`inner_pool_size`)
_MIN_INNER_POOL = 200
#: level of Cochran's Q test below which trials are said to disagree
DISAGREE_ALPHA = 0.01

Trials = pd.DataFrame | Mapping[str, ArrayLike] | Sequence[ArrayLike]


@result
class TrialsEstimate(IntervalEstimate):
    """An estimate from several trials (runs) of one benchmark.

    Attributes
    ----------
    estimator : str
    estimate : float
        Mean over trials of the per-trial estimates (``statistic`` says so in words).
    ci_low, ci_high : float
        Two-level (run, then sample) bootstrap interval, expanded for few trials.
    confidence_level : float
    method : str
        ``"two-level-bootstrap"`` (or ``"single-trial: <method>"`` with one trial).
    n_trials : int
    n_samples : int
        Samples over all trials.
    between_sd : float
        Standard deviation of the per-trial estimates.
    within_se : float
        Root mean square of the per-trial standard errors (from their CIs).
    between_share : float
        Share of the variance of one trial's estimate that lies between trials,
        max(0, between_sd² − within_se²) / between_sd² (0 when trials agree).
    heterogeneity_statistic, heterogeneity_pvalue : float
        Cochran's Q of the per-trial estimates with their standard errors, and its
        chi-square p-value (small: trials disagree beyond their CIs).
    disagree : bool
        ``heterogeneity_pvalue < 0.01``.
    per_trial : pandas.DataFrame
        One row per trial: ``trial``, ``n``, ``estimate``, ``ci_low``, ``ci_high``,
        ``method``, ``standard_error``.
    n_resamples : int
    seed : int or None
    statistic : str
        What ``estimate`` is, in words: "mean of the 20 runs' medians" (for one trial,
        the estimator itself). It is not the median of the pooled samples, which weights
        the runs by their sizes and mixes their levels.
    warnings : tuple of Finding
    """

    n_trials: int
    n_samples: int
    between_sd: float
    within_se: float
    between_share: float
    heterogeneity_statistic: float
    heterogeneity_pvalue: float
    disagree: bool
    per_trial: pd.DataFrame
    n_resamples: int
    seed: int | None
    statistic: str = ""
    warnings: tuple[Finding, ...] = ()


_WORDS = {"median": "medians", "min": "minima", "mean": "means", "trimmed_mean": "trimmed means"}


def inner_pool_size(n_trials: int, n_resamples: int) -> int:
    """Inner replicates drawn per trial for a two-level bootstrap of ``n_resamples`` outer
    replicates over ``n_trials`` trials.

    Each outer replicate pairs every drawn trial with one replicate of that trial's pool,
    so a pool of B replicates is reused about ``n_resamples / B`` times; that reuse leaves
    the distribution of an outer replicate unchanged and only adds Monte-Carlo error to
    the within-trial part of its variance, ``(1/T²) Σ v_j``, whose relative error is about
    ``√(2 / (B·T))`` when the T pools are independent. ``B·T ≥ 10·n_resamples`` keeps it
    near 1% at the default 2000 outer replicates (below the ``√(2/2000) ≈ 3%`` of the
    outer bootstrap itself), with at least 200 per trial; with up to 10 trials every pool
    has ``n_resamples`` replicates, as before. 100 trials of 1000 samples draw 2·10⁷
    inner indices instead of 2·10⁸ (issue 24).
    """
    need = -(-10 * n_resamples // max(n_trials, 1))
    return int(min(n_resamples, max(_MIN_INNER_POOL, need)))


def _split_trials(trials: Trials, column: str) -> dict[str, Float64Array]:
    if isinstance(trials, pd.DataFrame):
        for col in ("run", column):
            if col not in trials.columns:
                raise InvalidArgumentError(f"trials: the DataFrame has no {col!r} column")
        if "benchmark" in trials.columns and trials["benchmark"].nunique() > 1:
            raise InvalidArgumentError(
                "trials: holds several benchmarks "
                f"({', '.join(map(str, trials['benchmark'].unique()[:5]))}); pass one"
            )
        df = trials.sort_values("sample", kind="stable") if "sample" in trials.columns else trials
        out = {}
        for run, g in df.groupby("run", sort=True, observed=True):
            out[str(run)] = as_series_array(g[column].to_numpy(), f"trials[{run!s}]")
        return out
    if isinstance(trials, Mapping):
        return {str(k): as_series_array(v, f"trials[{k!r}]") for k, v in trials.items()}
    if isinstance(trials, (str, bytes)) or not isinstance(trials, Sequence):
        raise InvalidArgumentError(
            "trials: expected a DataFrame, a mapping or a sequence of series"
        )
    return {str(i): as_series_array(v, f"trials[{i}]") for i, v in enumerate(trials)}


def estimate_trials(
    trials: Trials,
    estimator: EstimatorName = "median",
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: RNGType = None,
    column: str = "time_ns",
    trim: float = 0.05,
    threshold: float = 0.1,
    unit: str | None = "ns",
) -> TrialsEstimate:
    """Estimate from several trials with a two-level bootstrap CI (Kalibera & Jones).

    Parameters
    ----------
    trials : DataFrame, mapping or sequence
        A run-format DataFrame of one benchmark (grouped by ``run``, values from
        ``column``, in ``sample`` order), a mapping trial name -> series, or a sequence
        of series. Each series is one trial in time order.
    estimator : str, default "median"
        Key of :data:`tsanalyze.stats.estimators.ESTIMATORS`.
    confidence_level : float, default 0.95
    n_resamples : int, default 2000
        Outer (run-level) resamples; each trial gets as many inner resamples.
    rng : int, Generator or None
    column : str, default "time_ns"
        Column of per-evaluation times when ``trials`` is a DataFrame.
    trim, threshold :
        Passed to :func:`tsanalyze.estimate` for the per-trial estimates.
    unit : str or None, default "ns"
        Unit of the times (the run format's ns; a name :func:`tsanalyze._units.parse_unit`
        reads), for the times the findings quote; None quotes them as bare numbers.

    Returns
    -------
    TrialsEstimate

    Notes
    -----
    Per trial j: theta_j = estimator(x_j), with the interval of
    :func:`tsanalyze.estimate` (dependence-aware) and se_j = (ci_high − ci_low) / (2 z).
    The overall estimate is the mean of the theta_j.

    Two-level bootstrap (Kalibera & Jones 2013, §"hierarchical random resampling"):
    draw T trials with replacement, then resample each drawn trial's samples (i.i.d.
    or, when the trial is autocorrelated, stationary blocks with Politis–White length),
    compute the estimator per drawn trial and average. Implemented by precomputing B
    inner replicates per trial (a T × B table, B from :func:`inner_pool_size`) and, for each outer replicate, pairing
    every drawn trial with an independent inner replicate — the same distribution as
    resampling afresh, at a fraction of the cost. Trials longer than 20,000 samples use
    m-out-of-n inner resamples, rescaled. Each trial's inner replicates are centred on its
    estimate (their mean moved to theta_j; Davison & Hinkley 1997, §2.2.1, the bootstrap
    bias estimate): the inner step adds the within-trial spread, not the bootstrap's bias,
    which for the median of a few skewed samples is many standard errors of a mean over
    thousands of trials (5,000 runs of 5 samples: the interval lay wholly above the
    estimate).

    Few trials make any bootstrap too narrow; the percentiles are therefore taken at
    the "expanded" levels Phi(± sqrt(T / (T − 1)) t_{T−1, 1−alpha/2}) (Hesterberg 2015) [3]_.

    Disagreement: Cochran's Q = sum (theta_j − theta_w)² / se_j², theta_w the
    inverse-variance weighted mean, ~ chi-square(T − 1) when all trials estimate the same
    value; p < 0.01 raises the ``trials-disagree`` warning (Chen et al. 2016, Figs. 3–4
    [1]_: the estimate of one run is not the estimate of the benchmark).

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), Figs.
       3–4. arXiv:1608.04295.
    .. [2] Kalibera, T., & Jones, R. (2013). Rigorous benchmarking in reasonable time. ISMM
       '13, 63–74. https://doi.org/10.1145/2464157.2464160
    .. [3] Hesterberg, T. C. (2015). What teachers should know about the bootstrap. The
       American Statistician 69(4). https://doi.org/10.1080/00031305.2015.1089789
    .. [4] Davison, A. C., & Hinkley, D. V. (1997). Bootstrap Methods and their
       Application. Cambridge University Press, §2.2.1 (bias) and §3.8 (hierarchical data).
    """
    if estimator not in ESTIMATORS:
        raise InvalidArgumentError(
            f"estimator: must be one of {sorted(ESTIMATORS)}, got {estimator!r}"
        )
    cl = check_confidence_level(confidence_level)
    nres = check_positive_int(n_resamples, "n_resamples", minimum=10)
    data = _split_trials(trials, column)
    if not data:
        raise InvalidArgumentError("trials: no trial given")
    gen, seed = check_rng(rng)
    names = list(data)
    per = [
        estimate(
            data[k], estimator, confidence_level=cl, rng=gen, trim=trim, threshold=threshold,
            unit=unit,
        )
        for k in names
    ]
    z = float(_st.norm.ppf(0.5 + cl / 2))
    se = np.array([(e.ci_high - e.ci_low) / (2 * z) for e in per])
    theta = np.array([e.estimate for e in per])
    per_trial = pd.DataFrame(
        {
            "trial": names,
            "n": [e.n for e in per],
            "estimate": theta,
            "ci_low": [e.ci_low for e in per],
            "ci_high": [e.ci_high for e in per],
            "method": [e.method for e in per],
            "standard_error": se,
        }
    )
    t = len(names)
    n_samples = int(sum(e.n for e in per))
    found: list[Finding] = []
    if t == 1:
        e = per[0]
        found.append(
            Finding(
                "single-trial",
                "only one trial (run): the interval describes this process only; repeat the "
                "run to learn how much the estimate moves between runs",
                "info",
            )
        )
        found.extend(e.warnings)
        return TrialsEstimate(
            estimator=estimator,
            estimate=e.estimate,
            ci_low=e.ci_low,
            ci_high=e.ci_high,
            confidence_level=cl,
            method=f"single-trial: {e.method}",
            n_trials=1,
            n_samples=n_samples,
            between_sd=math.nan,
            within_se=float(se[0]),
            between_share=math.nan,
            heterogeneity_statistic=math.nan,
            heterogeneity_pvalue=math.nan,
            disagree=False,
            per_trial=per_trial,
            n_resamples=0,
            seed=seed,
            statistic=estimator.replace("_", " "),
            warnings=tuple(found),
        )

    func = ESTIMATORS[estimator]
    if estimator == "trimmed_mean":

        def func(a: Any, axis: int = -1) -> Any:
            return trimmed_mean(a, axis=axis, trim=trim)

    # inner replicates: T x B table of the estimator on resampled trials
    pool = inner_pool_size(t, nres)
    inner = np.empty((t, pool))
    for j, k in enumerate(names):
        x = data[k]
        n = x.size
        if n < 2:
            inner[j] = theta[j]
            continue
        size = min(n, _MAX_INNER) if estimator != "min" else n
        dependent = per[j].subsession_size != 1
        if dependent and n >= 4:
            bl = optimal_block_length(x)
            idx = resample_indices(n, pool, kind="stationary", block_length=bl, rng=gen, size=size)
        else:
            idx = resample_indices(n, pool, kind="iid", rng=gen, size=size)
        reps = apply_statistic(x, idx, func)
        if size < n:
            reps = theta[j] + (reps - theta[j]) * math.sqrt(size / n)
        # centred on the trial's estimate: the bootstrap's own bias (the median of a few
        # resampled samples sits above the sample median on skewed data) would otherwise
        # add up over many trials and move the interval off the estimate
        inner[j] = reps - (reps.mean() - theta[j])
    # outer: draw trials with replacement, pair each with a fresh inner replicate
    pick = gen.integers(0, t, (nres, t))
    col = gen.integers(0, pool, (nres, t))
    boot = inner[pick, col].mean(axis=1)
    est = float(theta.mean())
    tq = float(_st.t.ppf(0.5 + cl / 2, t - 1)) * math.sqrt(t / (t - 1))
    lo_p, hi_p = float(_st.norm.cdf(-tq)), float(_st.norm.cdf(tq))
    lo, hi = (float(v) for v in np.quantile(boot, [lo_p, hi_p]))

    between_sd = float(np.std(theta, ddof=1))
    finite = np.isfinite(se) & (se > 0)
    within_se = float(np.sqrt(np.mean(se[finite] ** 2))) if finite.any() else math.nan
    share = (
        max(0.0, between_sd**2 - within_se**2) / between_sd**2
        if between_sd > 0 and math.isfinite(within_se)
        else 0.0
    )
    if finite.sum() >= 2:
        w = 1.0 / se[finite] ** 2
        tw = float(np.sum(w * theta[finite]) / np.sum(w))
        q = float(np.sum(w * (theta[finite] - tw) ** 2))
        qp = float(_st.chi2.sf(q, int(finite.sum()) - 1))
    else:
        q, qp = math.nan, math.nan
    disagree = bool(qp < DISAGREE_ALPHA) if math.isfinite(qp) else False
    if disagree:
        found.append(
            Finding(
                "trials-disagree",
                f"the {t} trials disagree beyond their own intervals (Cochran's Q = {q:.1f}, "
                f"{quote_pvalue(qp)}): between-trial sd {quote_time(between_sd, unit)} vs "
                f"within-trial se {quote_time(within_se, unit)}; one run's interval "
                "understates the uncertainty, the two-level interval does not",
                "warning",
            )
        )
    if t < 5:
        found.append(
            Finding(
                "few-trials",
                f"{t} trials: the between-trial spread is poorly known and the interval is wide",
                "info",
            )
        )
    return TrialsEstimate(
        estimator=estimator,
        estimate=est,
        ci_low=lo,
        ci_high=hi,
        confidence_level=cl,
        method="two-level-bootstrap",
        n_trials=t,
        n_samples=n_samples,
        between_sd=between_sd,
        within_se=within_se,
        between_share=float(share),
        heterogeneity_statistic=q,
        heterogeneity_pvalue=qp,
        disagree=disagree,
        per_trial=per_trial,
        n_resamples=nres,
        seed=seed,
        statistic=f"mean of the {t} runs' {_WORDS.get(estimator, estimator)}",
        warnings=tuple(found),
    )


#: findings about one run's own interval, which a summary of trials does not show (its
#: interval is the two-level one)
_PER_RUN_INTERVAL = frozenset(
    {"ci-unbounded", "too-few-samples", "too-few-subsessions", "halves-disagree"}
)


def findings_once(per_run: Sequence[Sequence[Finding]]) -> tuple[Finding, ...]:
    """The findings of several trials said once: one per code, with the message of the run
    where it is worst, how many of the runs have it, and that worst severity.

    Parameters
    ----------
    per_run : sequence of sequences of Finding
        Each trial's findings (e.g. ``SeriesAnalysis.warnings`` of each run).

    Returns
    -------
    tuple of Finding
        In order of first appearance. Findings about one run's own interval
        (``ci-unbounded``, ``too-few-samples``, ``too-few-subsessions``,
        ``halves-disagree``) are left out: the trials' interval is the two-level one.
    """
    total = len(per_run)
    by_code: dict[str, list[Finding]] = {}
    for findings in per_run:
        worst_here: dict[str, Finding] = {}
        for f in findings:
            if f.code in _PER_RUN_INTERVAL:
                continue
            if f.code not in worst_here or f.rank > worst_here[f.code].rank:
                worst_here[f.code] = f
        for code, f in worst_here.items():
            by_code.setdefault(code, []).append(f)
    out = []
    for code, group in by_code.items():
        worst = max(group, key=lambda f: f.rank)
        where = "in the only run" if total == 1 else f"in {len(group)} of {total} runs"
        out.append(Finding(code, f"{worst.message} ({where})", worst.severity))
    return tuple(out)
