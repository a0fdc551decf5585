"""Compare a baseline with a candidate: :func:`compare` and its result, :class:`Comparison`.

:func:`compare` reads the two sides (:mod:`.sides`), picks the design from the data
(paired, unpaired or run level), runs it (:mod:`.designs`) and gives the verdict
(:mod:`.verdicts`): the ratio of the chosen estimator (candidate / baseline), its CI, a
test, and a verdict that needs both the CI to clear the noise threshold and the test to
reject.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal, get_args

import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, RNGType
from tsanalyze._validation import check_confidence_level, check_positive_int, check_rng
from tsanalyze.analysis.compare import designs, edges
from tsanalyze.analysis.compare.sides import (
    PAIRED_TESTS,
    UNPAIRED_TESTS,
    as_side,
    choose_design,
    unsorted_side,
)
from tsanalyze.analysis.compare.verdicts import Verdict, decide
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.estimators import LocationEstimatorName
from tsanalyze.stats.ticks import TickArg

__all__ = [
    "LOCATION_ESTIMATORS",
    "CIMethod",
    "Comparison",
    "TestName",
    "check_location_estimator",
    "compare",
]

TestName = Literal["auto", "welch", "mann-whitney", "wilcoxon", "paired-t"]
CIMethod = Literal["auto", "bootstrap", "t", "combine"]
Unit = designs.Unit

#: Location estimators a comparison may use (keys of ``stats.estimators.ESTIMATORS``).
LOCATION_ESTIMATORS: tuple[str, ...] = get_args(LocationEstimatorName)


@result
class Comparison(Result):
    """The comparison of a baseline ``a`` with a candidate ``b``.

    Attributes
    ----------
    benchmark : str or None
    estimator : {"median", "min", "mean", "trimmed_mean"}
        Location estimator compared.
    estimate_a, estimate_b : float
        The estimator on each side (ns). At the run level: the mean of per-run estimates.
    ratio : float
        estimate_b / estimate_a; below 1 means the candidate is faster.
    ci_low, ci_high : float
        CI of the ratio (the relative change is ratio − 1).
    confidence_level : float
    change : float
        ratio − 1.
    test : str
        The test behind ``pvalue``: ``"welch"``, ``"mann-whitney"``, ``"wilcoxon"``,
        ``"paired-t"`` or, at the run level, ``"run-welch"`` / ``"run-t"``.
    statistic, pvalue : float
        The test's statistic and two-sided p-value.
    pvalue_adjusted : float or None
        The multiplicity-adjusted p-value when part of a :class:`ComparisonSet`.
    alpha, threshold : float
        Significance level and noise threshold (relative) used by the verdict.
    verdict : {"faster", "slower", "same", "inconclusive"}
        About the candidate ``b`` relative to the baseline ``a``.
    paired : bool
    unit : {"sample", "round", "run"}
        What one replicate is: a sample (unpaired), a round (paired) or a run (trials).
    n_a, n_b : int
        Replicates per side in that unit (after the Tukey filter for paired data).
    effect_size : float
        Cohen's d (paired: mean difference over the root mean square of the two sds).
    shift : float
        Hodges–Lehmann shift b − a (unpaired), median paired difference (paired) or the
        difference of the run-level estimates (ns).
    ci_overlap : bool or None
        Pilot's check: do the per-side t-CIs of the mean (on subsession means) overlap?
    n_removed : int
        Rounds removed by the Tukey filter of the paired differences.
    drift : float or None
        Spearman r of the paired difference against the round index.
    block_size_a, block_size_b : int
        Subsession sizes behind the test (1 = samples used as they are).
    samples_needed : int or None
        For an inconclusive verdict: replicates per side (in ``unit``) likely to resolve it.
    se_log : float
        Standard error of log(ratio), used for the geometric mean of a suite.
    ci_method : str
        ``"bootstrap"`` (percentile; block bootstrap when autocorrelated), ``"t"``,
        ``"combine"`` or ``"floor"`` (the ratio of two floor intervals, for the minimum).
    seed : int or None
    warnings : tuple of Finding
    """

    benchmark: str | None
    estimator: LocationEstimatorName
    estimate_a: float
    estimate_b: float
    ratio: float
    ci_low: float
    ci_high: float
    confidence_level: float
    change: float
    test: str
    statistic: float
    pvalue: float
    pvalue_adjusted: float | None
    alpha: float
    threshold: float
    verdict: Verdict
    paired: bool
    unit: Unit
    n_a: int
    n_b: int
    effect_size: float
    shift: float
    ci_overlap: bool | None
    n_removed: int
    drift: float | None
    block_size_a: int
    block_size_b: int
    samples_needed: int | None
    se_log: float
    ci_method: str
    seed: int | None
    warnings: tuple[Finding, ...] = ()


def check_location_estimator(estimator: object) -> LocationEstimatorName:
    """Check that ``estimator`` names a location estimator; raise ``ValueError`` naming it."""
    if estimator not in LOCATION_ESTIMATORS:
        raise InvalidArgumentError(
            f"estimator: expected one of {list(LOCATION_ESTIMATORS)}, got {estimator!r}"
        )
    return estimator  # type: ignore[return-value]


def _compare_iv(
    estimator: str, test: str, threshold: float, alpha: float, confidence_level: float,
    ci_method: str, n_resamples: int, tukey_k: float | None,
) -> None:  # fmt: skip
    check_location_estimator(estimator)
    if test not in ("auto", *UNPAIRED_TESTS, *PAIRED_TESTS):
        raise InvalidArgumentError(
            f"test: expected 'auto', 'welch', 'mann-whitney', 'wilcoxon' or 'paired-t', got {test!r}"
        )
    if not (isinstance(threshold, (int, float)) and 0 <= threshold < 1):
        raise InvalidArgumentError(
            f"threshold: must be a relative change in [0, 1), got {threshold!r}"
        )
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InvalidArgumentError(f"alpha: must be in (0, 1), got {alpha!r}")
    check_confidence_level(confidence_level)
    if ci_method not in get_args(CIMethod):
        raise InvalidArgumentError(
            f"ci_method: expected 'auto', 'bootstrap', 't' or 'combine', got {ci_method!r}"
        )
    if ci_method == "t" and estimator != "mean":
        raise InvalidArgumentError(
            "ci_method: 't' gives a CI of the ratio of means only; use estimator='mean'"
        )
    check_positive_int(n_resamples, "n_resamples", minimum=10)
    if tukey_k is not None and not (isinstance(tukey_k, (int, float)) and tukey_k > 0):
        raise InvalidArgumentError(f"tukey_k: must be a positive number or None, got {tukey_k!r}")


def _dedupe(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """The findings without repeats of the same code and message (first one kept)."""
    first: dict[tuple[str, str], Finding] = {}
    for f in findings:
        first.setdefault((f.code, f.message), f)
    return tuple(first.values())


def compare(
    a: ArrayLike | pd.Series | pd.DataFrame,
    b: ArrayLike | pd.Series | pd.DataFrame,
    *,
    estimator: LocationEstimatorName = "median",
    paired: bool | None = None,
    test: TestName = "auto",
    threshold: float = 0.01,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "auto",
    n_resamples: int = 1000,
    tukey_k: float | None = 1.5,
    subsession_threshold: float = 0.1,
    column: str = "time_ns",
    benchmark: str | None = None,
    rng: RNGType = None,
    tick: TickArg | tuple[TickArg, TickArg] = "auto",
) -> Comparison:
    """Compare a baseline ``a`` with a candidate ``b``.

    Parameters
    ----------
    a, b : array_like, Series or DataFrame
        Per-evaluation times (ns). A DataFrame in the run format (one benchmark; columns
        ``run``, ``round``, ``sample`` and ``column``) or a Series indexed by ``round``
        (or by a ``(run, round)`` MultiIndex) lets the design be detected; plain arrays
        are unpaired unless ``paired=True`` (then matched by position).
    estimator : {"median", "min", "mean", "trimmed_mean"}
        Location estimator whose ratio is reported (default the median).
    paired : bool, optional
        None (default): paired when both sides come from the same run(s) with shared
        rounds (interleaved collection), or are both Series indexed by ``round``. A run
        whose metadata (``df.attrs["runs"]``) does not say ``collector.interleave`` (an
        imported or sequential run) has no rounds to pair by.
    test : {"auto", "welch", "mann-whitney", "wilcoxon", "paired-t"}
        Unpaired tests run on subsession means. auto = Welch's t when the estimator is
        the mean (Li et al. 2016), else the Mann–Whitney U test, whose rank statistic suits
        robust location estimators and heavy-tailed timings (a few 10× context-switch
        delays leave a median unchanged but can hide a 10% shift from a t test on
        means). Paired: auto = Wilcoxon signed-rank on the (block means of the)
        differences (zenbench).
    threshold : float
        Noise threshold on the relative change for the verdict (default 1%).
    alpha : float
        Significance level of the test.
    confidence_level : float
        Level of the CI of the ratio.
    ci_method : {"auto", "bootstrap", "t", "combine"}
        ``"bootstrap"``: percentile bootstrap of the estimator ratio (stationary block
        bootstrap when autocorrelated). ``"t"``: t interval of the ratio of means on
        subsession means (``estimator="mean"`` only; fast, no resampling).
        ``"combine"`` (unpaired only): the per-side CIs of
        :func:`tsanalyze.estimate` (order-statistic CI for the median, with an
        effective n under dependence) combined on the log scale. ``"auto"``: bootstrap,
        except ``combine`` for unpaired sides of more than 5000 samples, where the
        bootstrap costs seconds.
    n_resamples : int
        Bootstrap resamples.
    tukey_k : float or None
        Tukey fence multiplier for the paired differences (None: no filter).
    subsession_threshold : float
        |lag-1 autocorrelation| accepted for subsession means (Li et al. 2016).
    column : str
        Time column of DataFrame inputs.
    benchmark : str, optional
        Name recorded on the result (taken from a DataFrame's ``benchmark`` column).
    rng : int, Generator or None
        Seed for the bootstrap (recorded on the result).
    tick : float, "auto", None, or a pair of them (a, b)
        Timer resolution per evaluation of each side. ``"auto"``: the run metadata's
        ``timer.precision_ns / evals`` of a run-format DataFrame, combined with the grid
        the values sit on; a number: that step (combined with the grid); None: the values
        are taken as exact.

    Returns
    -------
    Comparison

    Notes
    -----
    Unpaired (Li et al. 2016, §III-F): subsession size m per side (smallest block size whose
    block means have |lag-1 autocorrelation| <= 0.1, for the values and for their
    ranks, whichever needs larger blocks; the tests use blocks of 2m when m > 1, the
    same size on both sides for the rank test, and Welch's variances are inflated by
    the residual lag-1 factor), Welch's t (mean) or the
    Mann–Whitney U test (other estimators) on the block means,
    percentile bootstrap CI of θ(b)/θ(a) with Politis–White block lengths, Pilot's CI
    overlap check, Cohen's d and the Hodges–Lehmann shift. Paired (zenbench): d_i =
    b_i − a_i per round, Tukey fences on d (rounds outside are dropped from both sides),
    Wilcoxon signed-rank on block means of d, a joint (block) bootstrap of θ(b)/θ(a)
    over rounds, Cohen's d, Spearman drift of d against the round (warning above
    |r| = 0.5). Trials (several runs per side): the run is the replicate (Kalibera &
    Jones 2013); per-run estimates are compared with Welch's t (or, paired, a t test of
    the per-run log ratios) and a t interval on the log scale.

    Edges (issue 23): on a timer grid the ratio's CI is widened for the rounding of both
    sides (each location is within half a tick of the true one:
    :func:`tsanalyze.stats.ticks.widen_ratio_for_ticks`), so no CI of a change has zero
    width and *same* needs a CI that accounts for the tick. ``estimator="min"`` (one run
    per side) compares floors: the CI is that of the ratio of the two floor intervals
    (:func:`tsanalyze.stats.floor.floor_ratio_ci`), ``ci_method = "floor"``.

    Verdict: ``faster``/``slower`` when the CI of ratio − 1 lies wholly beyond
    ∓threshold and p < alpha; ``same`` when it lies wholly inside ±threshold;
    otherwise ``inconclusive`` with ``samples_needed`` = n (h/g)², h the CI half-width
    and g the distance from the CI centre to the nearest boundary (Li et al.'s
    CI-width rule), or a power rule when only the test failed to reject.

    References
    ----------
    Li, Y. et al. (2016), "Pilot", MASCOTS 2016, §III-D, §III-F, doi:10.1109/MASCOTS.2016.31.
    zenbench methodology (paired rounds, Tukey filter, Wilcoxon, Cohen's d,
    Spearman drift, noise threshold).
    Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013.

    Examples
    --------
    >>> from tsanalyze.datasets import simulate_run
    >>> run = simulate_run({"old": 1000.0, "new": 900.0}, n_rounds=200, rng=1).frame
    >>> c = compare(run[run["benchmark"] == "old"], run[run["benchmark"] == "new"], rng=0)
    >>> c.paired, c.unit, c.test, c.verdict
    (True, 'round', 'wilcoxon', 'faster')
    >>> round(c.ratio, 2)
    0.9
    """
    _compare_iv(
        estimator, test, threshold, alpha, confidence_level, ci_method, n_resamples, tukey_k
    )
    if (
        benchmark is None
        and isinstance(a, pd.DataFrame)
        and "benchmark" in a.columns
        and a["benchmark"].nunique() == 1
    ):
        benchmark = str(a["benchmark"].iloc[0])
    (sa, sorted_a), (sb, sorted_b) = (
        unsorted_side(as_side(a, "a", column), "a"),
        unsorted_side(as_side(b, "b", column), "b"),
    )
    design = choose_design(sa, sb, paired=paired, test=test)
    if sorted_a or sorted_b:
        design = dataclasses.replace(design, findings=(*sorted_a, *sorted_b, *design.findings))
    gen, seed = check_rng(rng)
    opts = designs.Options(
        estimator, test, confidence_level, ci_method, n_resamples, subsession_threshold, tukey_k
    )
    if design.kind == "run-level":
        out = designs.run_level(sa, sb, design.matched, opts)
        x = y = None
    elif design.kind == "paired":
        assert design.matched is not None
        x, y = design.matched[0]
        out = designs.paired(x, y, opts, gen)
    else:
        x, y = sa.values[0], sb.values[0]
        out = designs.unpaired(x, y, opts, gen)
    # issue 23: the timer's tick and the floor (.edges)
    ta, tb = tick if isinstance(tick, tuple) else (tick, tick)
    out = edges.at_the_edges(
        out, design.kind, x, y, estimator=estimator, tick_a=edges.side_tick(a, sa, ta),
        tick_b=edges.side_tick(b, sb, tb), confidence_level=confidence_level,
        threshold=threshold,
    )  # fmt: skip
    v, needed = decide(
        min(out.n_a, out.n_b), out.ratio, out.ci_low, out.ci_high, out.pvalue,
        threshold=threshold, alpha=alpha,
    )  # fmt: skip
    return Comparison(
        benchmark=benchmark, estimator=estimator, estimate_a=out.estimate_a,
        estimate_b=out.estimate_b, ratio=out.ratio, ci_low=out.ci_low, ci_high=out.ci_high,
        confidence_level=float(confidence_level), change=out.ratio - 1.0, test=out.test,
        statistic=out.statistic, pvalue=out.pvalue, pvalue_adjusted=None, alpha=float(alpha),
        threshold=float(threshold), verdict=v, paired=out.paired, unit=out.unit, n_a=out.n_a,
        n_b=out.n_b, effect_size=out.effect_size, shift=out.shift, ci_overlap=out.ci_overlap,
        n_removed=out.n_removed, drift=out.drift, block_size_a=out.block_size_a,
        block_size_b=out.block_size_b, samples_needed=needed, se_log=out.se_log,
        ci_method=out.ci_method, seed=seed, warnings=_dedupe([*design.findings, *out.findings]),
    )  # fmt: skip
