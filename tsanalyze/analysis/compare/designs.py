"""The three designs of a comparison, each returning a typed :class:`Outcome`.

- :func:`unpaired` (Li et al. 2016, §III-F): two independent series; tests on subsession means,
  a bootstrap (or combined, or t) CI of the estimator ratio, Pilot's CI-overlap check,
  Cohen's d and the Hodges–Lehmann shift.
- :func:`paired` (zenbench's methodology): matched rounds; Tukey filter of the differences, a test on
  their block means, a joint bootstrap of the ratio, Spearman drift.
- :func:`run_level` (Kalibera & Jones 2013): several runs per side; the run is the
  replicate.

The verdict is not made here: :mod:`.verdicts` makes it from the outcome's CI and p-value.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special, stats

from tsanalyze._result import Finding
from tsanalyze._typing import Float64Array
from tsanalyze.analysis.compare import dependent
from tsanalyze.analysis.compare.sides import Matched, Side
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats import paired as sp
from tsanalyze.stats import two_sample as ts
from tsanalyze.stats._memo import ContentMemo
from tsanalyze.stats.autocorrelation import (
    BlockSize,
    block_means,
    residual_inflation,
    subsession_block_size,
)
from tsanalyze.stats.estimators import ESTIMATORS, estimate
from tsanalyze.stats.outliers import tukey_filter
from tsanalyze.stats.ratio import bootstrap_ratio_ci
from tsanalyze.stats.summary_tests import ci_overlap

__all__ = ["Options", "Outcome", "paired", "run_level", "unpaired"]

Unit = Literal["sample", "round", "run"]

_DRIFT_LIMIT = 0.5
#: Above this many samples per side, ci_method="auto" combines per-side CIs (unpaired).
_BOOTSTRAP_MAX_N = 5000


@dataclass(frozen=True, slots=True)
class Options:
    """The settings of :func:`tsanalyze.compare` a design uses (checked there)."""

    estimator: str
    test: str
    confidence_level: float
    ci_method: str
    n_resamples: int
    subsession_threshold: float
    tukey_k: float | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one design found, before the verdict (fields as in :class:`Comparison`)."""

    # the replicates: what one is, how many per side, how they were blocked or filtered
    paired: bool
    unit: Unit
    n_a: int
    n_b: int
    block_size_a: int
    block_size_b: int
    n_removed: int
    # the estimate: per side, their ratio and its CI
    estimate_a: float
    estimate_b: float
    ratio: float
    ci_low: float
    ci_high: float
    se_log: float
    ci_method: str
    # the test
    test: str
    statistic: float
    pvalue: float
    # effect sizes and checks
    effect_size: float
    shift: float
    ci_overlap: bool | None
    drift: float | None
    findings: tuple[Finding, ...]


def _ratio(est_a: float, est_b: float) -> float:
    return est_b / est_a if est_a > 0 else math.nan


def _mean_t_ci(blocks: Float64Array, level: float) -> tuple[float, float]:
    if blocks.size < 2:
        return math.nan, math.nan
    half = float(special.stdtrit(blocks.size - 1, 0.5 + level / 2)) * float(
        blocks.std(ddof=1) / math.sqrt(blocks.size)
    )
    m = float(blocks.mean())
    return m - half, m + half


def _se_mean(blocks: Float64Array) -> float:
    """Standard error of the mean from block means, inflated by the residual lag-1 factor."""
    if blocks.size < 2:
        return math.nan
    v = float(blocks.var(ddof=1)) / blocks.size * residual_inflation(blocks)
    return math.sqrt(v)


def _log_ratio_t_ci(
    mean_a: float, se_a: float, mean_b: float, se_b: float, df: float, level: float
) -> tuple[float, float, float]:
    """CI of mean_b/mean_a by the delta method on the log scale; returns (low, high, se_log)."""
    if not (mean_a > 0 and mean_b > 0) or not math.isfinite(df) or df <= 0:
        return math.nan, math.nan, math.nan
    se_log = math.sqrt((se_a / mean_a) ** 2 + (se_b / mean_b) ** 2)
    q = float(special.stdtrit(df, 0.5 + level / 2))
    r = math.log(mean_b / mean_a)
    return math.exp(r - q * se_log), math.exp(r + q * se_log), se_log


def _combined_ci(
    x: Float64Array, y: Float64Array, estimator: str, level: float, gen: np.random.Generator
) -> tuple[float, float, float, list[Finding]]:
    """Ratio CI from the two per-side CIs of :func:`tsanalyze.stats.estimators.estimate`.

    se_i = (log hi_i − log lo_i) / (2 z); CI = exp(log(θ_b/θ_a) ± z sqrt(se_a² + se_b²)).
    The sides are independent (unpaired), so their log-scale variances add.
    """
    z = float(special.ndtri(0.5 + level / 2))
    ses, ests, findings = [], [], []
    for v in (x, y):
        # tick=None: the ratio's interval is widened for the tick once, in .edges
        e = estimate(v, estimator, confidence_level=level, rng=gen, tick=None, unit="ns")  # type: ignore[arg-type]
        findings += list(e.warnings)
        ests.append(e.estimate)
        ok = e.ci_low > 0 and e.ci_high > 0 and math.isfinite(e.ci_low + e.ci_high)
        ses.append((math.log(e.ci_high) - math.log(e.ci_low)) / (2 * z) if ok else math.nan)
    if not (ests[0] > 0 and ests[1] > 0) or not all(math.isfinite(v) for v in ses):
        return math.nan, math.nan, math.nan, findings
    se_log = math.hypot(ses[0], ses[1])
    r = math.log(ests[1] / ests[0])
    return math.exp(r - z * se_log), math.exp(r + z * se_log), se_log, findings


def _from_side_intervals(
    x: Float64Array, y: Float64Array, deps: tuple[dependent.Dependence, dependent.Dependence],
    opts: Options, gen: np.random.Generator, paired: bool,
) -> Outcome:  # fmt: skip
    """Issue 20: the ratio from each side's own honest interval (see :mod:`.dependent`)."""
    f = dependent.side_intervals(x, y, deps, opts.estimator, opts.confidence_level, gen)
    findings = list(f.pop("findings"))  # type: ignore[call-overload]
    shift = float(np.median(y - x)) if paired else ts.hodges_lehmann(x, y)
    return Outcome(
        paired=paired, unit="round" if paired else "sample", n_a=int(x.size), n_b=int(y.size),
        block_size_a=int(deps[0].block_size), block_size_b=int(deps[1].block_size),
        n_removed=0, shift=shift, ci_overlap=None, drift=None, findings=tuple(findings),
        **f,  # type: ignore[arg-type]
    )  # fmt: skip


def _drift_findings(r: float) -> list[Finding]:
    """The ``drift`` warning for a Spearman correlation r of the differences with rounds."""
    if not (math.isfinite(r) and abs(r) > _DRIFT_LIMIT):
        return []
    kind = "grows (throttling?)" if r > 0 else "shrinks (warm-up?)"
    msg = f"the paired difference {kind} over the rounds: Spearman r = {r:.2f}"
    return [Finding("drift", msg, "warning")]


#: subsession block sizes of comparisons' sides, by content (the baseline side is the
#: same in every comparison of a report: issue 24)
_BLOCK_SIZES: ContentMemo[BlockSize] = ContentMemo()


def _block_size(x: Float64Array, threshold: float, label: str) -> BlockSize:
    """:func:`subsession_block_size` of one side (kept for an equal side)."""
    return _BLOCK_SIZES.get(
        x, (threshold, label), lambda: subsession_block_size(x, threshold, label=label)
    )


def unpaired(x: Float64Array, y: Float64Array, opts: Options, gen: np.random.Generator) -> Outcome:
    """Two independent series: tests on subsession means, CI of the estimator ratio."""
    estimator, test, confidence_level = opts.estimator, opts.test, opts.confidence_level
    deps = dependent.assess_sides(x, y, opts.subsession_threshold)
    if not all(dependent.handled_by_blocks(d) for d in deps):
        return _from_side_intervals(x, y, deps, opts, gen, paired=False)
    bsa = _block_size(x, opts.subsession_threshold, "a")
    bsb = _block_size(y, opts.subsession_threshold, "b")
    findings: list[Finding] = [*bsa.warnings, *bsb.warnings]
    ma, mb = bsa.block_size, bsb.block_size
    rank_test = test == "mann-whitney" or (test == "auto" and estimator != "mean")
    if rank_test and ma != mb:
        # a rank test compares distributions: means of blocks of different sizes differ
        # in shape (skewed timings), which alone made it reject 26% of A/A pairs
        ma = mb = min(max(ma, mb), max(1, min(x.size, y.size) // 2))
    ba, bb = block_means(x, ma), block_means(y, mb)
    if rank_test:
        res = ts.mann_whitney(ba, bb)
    else:
        res = ts.welch_subsession(
            x, y, block_size_a=ma, block_size_b=mb, confidence_level=confidence_level,
            inflate=True,
        )  # fmt: skip
    findings += list(res.warnings)
    fn = ESTIMATORS[estimator]
    est_a, est_b = float(fn(x)), float(fn(y))
    ci_method = opts.ci_method
    if ci_method == "auto":
        ci_method = "bootstrap" if max(x.size, y.size) <= _BOOTSTRAP_MAX_N else "combine"
    if ci_method == "combine":
        lo, hi, se_log, fc = _combined_ci(x, y, estimator, confidence_level, gen)
        findings += fc
    elif ci_method == "t":
        w = (
            res
            if res.test == "welch"
            else ts.welch_subsession(x, y, block_size_a=ma, block_size_b=mb, inflate=True)
        )
        lo, hi, se_log = _log_ratio_t_ci(
            float(x.mean()), _se_mean(ba), float(y.mean()), _se_mean(bb), w.df or math.nan,
            confidence_level,
        )  # fmt: skip
    else:
        rc = bootstrap_ratio_ci(
            x, y, estimator=estimator, confidence_level=confidence_level,
            n_resamples=opts.n_resamples, rng=gen,
        )  # fmt: skip
        lo, hi, se_log = rc.ci_low, rc.ci_high, rc.se_log
        findings += list(rc.warnings)
    ca, cb = _mean_t_ci(ba, confidence_level), _mean_t_ci(bb, confidence_level)
    overlap = ci_overlap(*ca, *cb) if all(math.isfinite(v) for v in (*ca, *cb)) else None
    return Outcome(
        estimate_a=est_a, estimate_b=est_b, ratio=_ratio(est_a, est_b), ci_low=float(lo),
        ci_high=float(hi), se_log=float(se_log), ci_method=ci_method, test=res.test,
        statistic=float(res.statistic), pvalue=float(res.pvalue), paired=False,
        unit="sample", n_a=int(x.size), n_b=int(y.size), effect_size=ts.cohens_d(x, y),
        shift=ts.hodges_lehmann(x, y), ci_overlap=None if overlap is None else bool(overlap),
        n_removed=0, drift=None, block_size_a=int(ma), block_size_b=int(mb),
        findings=tuple(findings),
    )  # fmt: skip


def paired(x: Float64Array, y: Float64Array, opts: Options, gen: np.random.Generator) -> Outcome:
    """Matched rounds: Tukey filter of d = b − a, a test on its block means, joint CI."""
    estimator, confidence_level, tukey_k = opts.estimator, opts.confidence_level, opts.tukey_k
    findings: list[Finding] = []
    d = y - x
    n_removed = 0
    if tukey_k is not None and d.size >= 4:
        tf = tukey_filter(d, mild=tukey_k)
        n_removed = tf.n_removed
        if n_removed:
            share = n_removed / d.size
            findings.append(
                Finding(
                    "tukey-removed",
                    f"Tukey filter (k={tukey_k}) removed {n_removed} of {d.size} rounds "
                    f"({share:.1%}); this can hide a bimodal slow path of one benchmark",
                    "warning" if share > 0.05 else "info",
                )
            )
        x, y, d = x[tf.keep], y[tf.keep], d[tf.keep]
    if not dependent.handled_by_blocks(
        dependent.assess_dependence(d, threshold=opts.subsession_threshold)
    ):
        deps = dependent.assess_sides(x, y, opts.subsession_threshold)
        out = _from_side_intervals(x, y, deps, opts, gen, paired=True)
        r = sp.spearman_drift(d).statistic
        return dataclasses.replace(
            out, n_removed=int(n_removed), drift=float(r) if math.isfinite(r) else None,
            effect_size=ts.cohens_d(x, y, paired=True),
            findings=(*findings, *out.findings, *_drift_findings(r)),
        )  # fmt: skip
    bs = subsession_block_size(d, opts.subsession_threshold, label="differences")
    findings += bs.warnings
    m = bs.block_size
    dblocks = block_means(d, m)
    res = (
        sp.paired_t(dblocks, confidence_level=confidence_level)
        if opts.test == "paired-t"
        else sp.wilcoxon_signed_rank(dblocks)
    )
    findings += list(res.warnings)
    fn = ESTIMATORS[estimator]
    est_a, est_b = float(fn(x)), float(fn(y))
    ci_method = "bootstrap" if opts.ci_method == "auto" else opts.ci_method
    if ci_method == "combine":
        raise InvalidArgumentError(
            "ci_method: 'combine' needs independent sides; paired data use 'bootstrap' or 't'"
        )
    if ci_method == "t":
        pt = (
            res
            if res.test == "paired-t"
            else sp.paired_t(dblocks, confidence_level=confidence_level)
        )
        mean_a = float(x.mean())
        if pt.diff_ci_low is not None and pt.diff_ci_high is not None and mean_a > 0:
            lo = 1.0 + pt.diff_ci_low / mean_a
            hi = 1.0 + pt.diff_ci_high / mean_a
            se_log = float(dblocks.std(ddof=1) / math.sqrt(dblocks.size)) / mean_a
        else:
            lo = hi = se_log = math.nan
    else:
        rc = bootstrap_ratio_ci(
            x, y, estimator=estimator, paired=True, confidence_level=confidence_level,
            n_resamples=opts.n_resamples, rng=gen,
        )  # fmt: skip
        lo, hi, se_log = rc.ci_low, rc.ci_high, rc.se_log
        findings += list(rc.warnings)
    dr = sp.spearman_drift(d)
    findings += _drift_findings(dr.statistic)
    return Outcome(
        estimate_a=est_a, estimate_b=est_b, ratio=_ratio(est_a, est_b), ci_low=float(lo),
        ci_high=float(hi), se_log=float(se_log), ci_method=ci_method, test=res.test,
        statistic=float(res.statistic), pvalue=float(res.pvalue), paired=True, unit="round",
        n_a=int(x.size), n_b=int(y.size), effect_size=ts.cohens_d(x, y, paired=True),
        shift=float(np.median(d)), ci_overlap=None, n_removed=int(n_removed),
        drift=dr.statistic if math.isfinite(dr.statistic) else None, block_size_a=int(m),
        block_size_b=int(m), findings=tuple(findings),
    )  # fmt: skip


def _run_outcome(
    est_a: float, est_b: float, ratio: float, ci: tuple[float, float, float], test: str,
    statistic: float, pvalue: float, paired: bool, n: tuple[int, int], effect_size: float,
    findings: list[Finding],
) -> Outcome:  # fmt: skip
    return Outcome(
        estimate_a=est_a, estimate_b=est_b, ratio=float(ratio), ci_low=float(ci[0]),
        ci_high=float(ci[1]), se_log=float(ci[2]), ci_method="t", test=test,
        statistic=float(statistic), pvalue=float(pvalue), paired=paired, unit="run",
        n_a=int(n[0]), n_b=int(n[1]), effect_size=float(effect_size), shift=est_b - est_a,
        ci_overlap=None, n_removed=0, drift=None, block_size_a=1, block_size_b=1,
        findings=tuple(findings),
    )  # fmt: skip


def run_level(sa: Side, sb: Side, matched: Matched | None, opts: Options) -> Outcome:
    """Trials: the run is the replicate. Paired runs: t on per-run log ratios; unpaired:
    Welch's t on per-run estimates (a prediction t when one side has a single run)."""
    fn = ESTIMATORS[opts.estimator]
    findings = [
        Finding(
            "run-level",
            f"several runs per side ({len(sa.values)} vs {len(sb.values)}): the run is the "
            "replicate; samples from different processes are not pooled",
            "info",
        )
    ]
    level = opts.confidence_level
    if matched is not None:
        ea = np.array([float(fn(a)) for a, _ in matched])
        eb = np.array([float(fn(b)) for _, b in matched])
        logs = np.log(eb / ea)
        k = logs.size
        est_a, est_b = float(ea.mean()), float(eb.mean())
        if k >= 2 and np.ptp(logs) > 0:
            res = stats.ttest_1samp(logs, 0.0)
            ci = res.confidence_interval(level)
            lo, hi = math.exp(float(ci.low)), math.exp(float(ci.high))
            stat, p = float(res.statistic), float(res.pvalue)
            se_log = float(logs.std(ddof=1) / math.sqrt(k))
        else:
            lo = hi = stat = p = se_log = math.nan
            findings.append(
                Finding("too-few-runs", f"{k} paired run(s): no run-level test", "warning")
            )
        d = float(logs.mean() / logs.std(ddof=1)) if k > 1 and np.ptp(logs) > 0 else math.nan
        return _run_outcome(
            est_a, est_b, float(np.exp(logs.mean())), (lo, hi, se_log), "run-t", stat, p,
            True, (k, k), d, findings,
        )  # fmt: skip
    ea = np.array([float(fn(v)) for v in sa.values])
    eb = np.array([float(fn(v)) for v in sb.values])
    est_a, est_b = float(ea.mean()), float(eb.mean())
    ka, kb = ea.size, eb.size
    va = float(ea.var(ddof=1)) if ka > 1 else math.nan
    vb = float(eb.var(ddof=1)) if kb > 1 else math.nan
    if ka >= 2 and kb >= 2 and (va > 0 or vb > 0):
        if va == 0 or vb == 0:
            findings.append(
                Finding(
                    "run-spread-zero",
                    "every run of one side gave the same estimate (a timer grid or a "
                    "constant time): that side's run-to-run spread is taken as zero",
                    "info",
                )
            )
        with warnings.catch_warnings():
            # scipy warns of precision loss when one side's values are all equal; the
            # variances are exact then (zero), and so is Welch's statistic
            warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
            res = stats.ttest_ind(eb, ea, equal_var=False)
        stat, p, df = float(res.statistic), float(res.pvalue), float(res.df)
        se_a, se_b = math.sqrt(va / ka), math.sqrt(vb / kb)
        test = "run-welch"
    elif (ka >= 2) != (kb >= 2) and (va > 0 or vb > 0):
        # one side has a single run: predict it from the other side's run-to-run spread
        v = va if ka >= 2 else vb
        k_many = ka if ka >= 2 else kb
        se = math.sqrt(v * (1 + 1 / k_many))
        stat = (est_b - est_a) / se
        df = float(k_many - 1)
        p = float(2 * stats.t.sf(abs(stat), df))
        se_a = math.sqrt(v / ka) if ka >= 2 else math.sqrt(v)
        se_b = math.sqrt(v / kb) if kb >= 2 else math.sqrt(v)
        test = "run-prediction-t"
        findings.append(
            Finding(
                "single-run-side",
                "one side has a single run; its run-to-run spread is assumed equal to the other side's",
                "warning",
            )
        )
    else:
        stat = p = df = se_a = se_b = math.nan
        test = "run-welch"
        findings.append(
            Finding("too-few-runs", "no run-to-run spread available: no test", "warning")
        )
    ci3 = _log_ratio_t_ci(est_a, se_a, est_b, se_b, df, level)
    pooled = math.sqrt(
        ((ka - 1) * (va if ka > 1 else 0) + (kb - 1) * (vb if kb > 1 else 0)) / max(ka + kb - 2, 1)
    )
    d = (est_b - est_a) / pooled if pooled > 0 else math.nan
    return _run_outcome(
        est_a, est_b, est_b / est_a, ci3, test, stat, p, False, (ka, kb), d, findings
    )
