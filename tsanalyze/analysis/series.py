"""Everything tsanalyze says about one series: steady state, dependence, location with an
honest CI, outliers and multimodality, composed from the primitives in ``stats/``.

:func:`analyze_series` is the per-series step of :func:`tsanalyze.analyze`; it is a pure
function (array in, frozen :class:`SeriesAnalysis` out) so that a run set can be analysed
in parallel, one series per worker.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result, result, to_builtin
from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze._validation import (
    as_series_array,
    check_confidence_level,
    check_positive_int,
    check_rng,
)
from tsanalyze.analysis._series_findings import series_findings
from tsanalyze.analysis.steady_state import steady_state
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.autocorrelation import autocorrelation
from tsanalyze.stats.changepoints import Drift, ModeSwitching
from tsanalyze.stats.estimators import ESTIMATORS, LocationEstimatorName, estimate
from tsanalyze.stats.halves import halves
from tsanalyze.stats.multimodality import multimodality
from tsanalyze.stats.outliers import outlier_variance, tukey_fences
from tsanalyze.stats.ticks import TickArg
from tsanalyze.stats.time_order import in_sorted_order, sorted_finding, unsorted
from tsanalyze.stats.timer import timer_check

__all__ = [
    "SeriesAnalysis",
    "analysed_segment",
    "analyze_series",
    "series_inputs",
    "stable_rows",
]

#: the steady-state search needs this many samples; shorter series are analysed whole
_MIN_STEADY_STATE = 8
#: fewer samples than this and the dependence is not measured: the subsession search needs
#: at least 10 blocks of at least 2 samples (the estimate treats shorter series as
#: independent and says so, tsanalyze.stats.estimators)
_MIN_AUTOCORRELATION = 20
#: ACF lags kept on the result (for the plot and the JSON document)
_ACF_LAGS = 40
@result
class SeriesAnalysis(Result):
    """What one series says, on its stable segment.

    Attributes
    ----------
    benchmark, run : str
        Which series this is (empty strings for a bare array).
    n : int
        Samples in the whole series.
    start, stop : int
        The analysed segment is ``x[start:stop]``: the stable segment (Pilot's rule), or
        the whole series when ``raw=True`` or no stable segment exists.
    n_stable : int
        ``stop - start``.
    stable_share : float
        ``n_stable / n``.
    stable : bool
        Whether a stable segment was found (``False`` also when ``raw=True``).
    classification : str
        flat / warm-up / slowdown / no steady state (Barrett et al. 2017), or "raw" when the
        steady-state search was not run.
    changepoints : tuple of int
        Change-point locations after merging segments closer than the tolerance (0-based
        index of the first sample of each new segment).
    warmup_samples, cooldown_samples : int
        Samples before ``start`` and after ``stop``.
    warmup_seconds : float or None
        Wall time of the removed warm-up, when sample durations were given.
    estimator, estimate, ci_low, ci_high, confidence_level, ci_method :
        The location estimate on the analysed segment and its confidence interval, with
        the CI method actually used (``Estimate.method``).
    minimum, median, mean, trimmed_mean, sd :
        Descriptive statistics of the analysed segment (per-evaluation ns).
    lag1, subsession_size, n_subsessions, independent :
        Dependence (Li et al. 2016, §III-D) [1]_: lag-1 autocorrelation, the subsession size m that
        makes block means nearly independent (None if none works) and the block count.
    acf, acf_band : tuple of float
        Autocorrelation at lags 0.., and the half-width of its confidence band around 0
        (Bartlett's formula, as statsmodels' ``plot_acf`` draws it), for the ACF plot.
    ljungbox_pvalue, effective_sample_size : float or None
        Ljung–Box test of no autocorrelation (up to 10 lags) and n / τ with Geyer's
        integrated autocorrelation time τ, from :func:`tsanalyze.autocorrelation`.
    outliers_low, outliers_high, outliers_severe : int
        Tukey-fence counts (outside 1.5 IQR low/high; outside 3 IQR, either side).
    outlier_variance, outlier_effect :
        Boyer's σ-blowup fraction and class (None / "not-applicable" when evals == 1).
    evals : int
        Evaluations per sample.
    modes : tuple of (location, mass)
        Modes of the distribution (one entry when unimodal).
    seed : int or None
        Seed of the random generator used (bootstrap), for replay.
    drift : Drift or None
        The drift of the level when the series drifts instead of settling (the figure
        draws it as a line).
    mode_switching : ModeSwitching or None
        The modes the level alternates between, and every visit (the figure marks them).
    warnings : tuple of Finding
        The components' warnings plus this analysis' own.
    samples : ndarray
        The whole series (per-evaluation ns), for plots; left out of ``to_dict()``.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-D. https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Barrett, E., Bolz-Tereick, C. F., Killick, R., Mount, S., & Tratt, L. (2017).
       Virtual machine warmup blows hot and cold. Proceedings of the ACM on Programming
       Languages 1(OOPSLA), 52. https://doi.org/10.1145/3133876
    """

    benchmark: str
    run: str
    n: int
    start: int
    stop: int
    n_stable: int
    stable_share: float
    stable: bool
    classification: str
    changepoints: tuple[int, ...]
    warmup_samples: int
    cooldown_samples: int
    warmup_seconds: float | None
    estimator: str
    estimate: float
    ci_low: float
    ci_high: float
    confidence_level: float
    ci_method: str
    minimum: float
    median: float
    mean: float
    trimmed_mean: float
    sd: float
    lag1: float | None
    subsession_size: int | None
    n_subsessions: int | None
    independent: bool | None
    acf: tuple[float, ...]
    acf_band: tuple[float, ...]
    ljungbox_pvalue: float | None
    effective_sample_size: float | None
    outliers_low: int
    outliers_high: int
    outliers_severe: int
    outlier_variance: float | None
    outlier_effect: str
    evals: int
    modes: tuple[tuple[float, float], ...]
    seed: int | None
    drift: Drift | None = None
    mode_switching: ModeSwitching | None = None
    warnings: tuple[Finding, ...] = ()
    samples: Float64Array = dataclasses.field(default_factory=lambda: np.empty(0), repr=False)

    def to_dict(self) -> dict[str, Any]:
        """All fields except the raw ``samples``, as plain Python objects."""
        return {
            f.name: to_builtin(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name != "samples"
        }

    @property
    def segment(self) -> Float64Array:
        """The analysed samples, ``samples[start:stop]``."""
        return self.samples[self.start : self.stop]


def _analyze_series_iv(
    x: ArrayLike, estimator: str, confidence_level: float, evals: int, sample_ns: ArrayLike | None
) -> tuple[Float64Array, Float64Array | None]:
    arr = as_series_array(x, "x", min_size=1, positive=True)
    if estimator not in ESTIMATORS or estimator in ("sd", "mad"):
        raise InvalidArgumentError(
            f"estimator: expected one of median, min, mean, trimmed_mean, got {estimator!r}"
        )
    check_confidence_level(confidence_level)
    check_positive_int(evals, "evals")
    durations = None
    if sample_ns is not None:
        durations = as_series_array(sample_ns, "sample_ns")
        if durations.size != arr.size:
            raise InvalidArgumentError(f"sample_ns: has {durations.size} values, x has {arr.size}")
    return arr, durations


def _dedupe(findings: list[Finding]) -> tuple[Finding, ...]:
    seen: set[tuple[str, str]] = set()
    out: list[Finding] = []
    for f in findings:
        key = (f.code, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return tuple(out)


def series_inputs(
    evals: ArrayLike | None = None,
    ns: ArrayLike | None = None,
    run_meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a run-format frame tells :func:`analyze_series` about one series besides its times.

    Parameters
    ----------
    evals : array_like, optional
        The series' ``evals`` column (evaluations per sample).
    ns : array_like, optional
        The series' ``ns`` column (elapsed ns of each whole sample).
    run_meta : mapping, optional
        The metadata of the series' run (``df.attrs["runs"][run]``).

    Returns
    -------
    dict
        Keyword arguments of :func:`analyze_series`: ``evals`` (the median of the column,
        at least 1), ``sample_ns`` and ``timer`` (the run's ``timer`` metadata), each only
        when the frame has it.
    """
    out: dict[str, Any] = {}
    per_sample = None if evals is None else np.asarray(evals, dtype=np.float64)
    if per_sample is not None and per_sample.size:
        out["evals"] = max(1, int(np.median(per_sample)))
    if ns is not None:
        out["sample_ns"] = np.asarray(ns, dtype=np.float64)
    timer = run_meta.get("timer") if isinstance(run_meta, Mapping) else None
    if isinstance(timer, Mapping):
        out["timer"] = dict(timer)
    return out


def analysed_segment(x: ArrayLike, *, evals: int = 1, raw: bool = False) -> tuple[int, int]:
    """The segment ``[start, stop)`` of ``x`` that :func:`analyze_series` analyses: the
    stable segment (:func:`tsanalyze.steady_state`), or the whole series when ``raw``,
    when it is too short to search, or when it has no stable segment."""
    arr = as_series_array(x, "x", min_size=1)
    n = int(arr.size)
    if raw or n < _MIN_STEADY_STATE or in_sorted_order(arr):
        return 0, n
    ss = steady_state(arr, evals=evals)
    if ss.start is None or ss.stop is None:
        return 0, n
    return int(ss.start), int(ss.stop)


def stable_rows(df: pd.DataFrame, *, raw: bool = False, column: str = "time_ns") -> pd.DataFrame:
    """The rows of a run-format frame that the report analyses: each (run, benchmark)
    series, in ``sample`` order, cut to :func:`analysed_segment` (all rows when ``raw``).

    This is what :func:`tsanalyze.compare_runs` and ``df.tsa.compare`` compare by default,
    so that they give the numbers ``tsanalyze report`` and ``tsanalyze compare`` give.
    """
    if raw or df.empty:
        return df
    keys = [k for k in ("run", "benchmark") if k in df.columns]
    order = df.sort_values("sample", kind="stable") if "sample" in df.columns else df
    keep: list[np.ndarray] = []
    groups = order.groupby(keys, sort=False, observed=True) if keys else [((), order)]
    for _, g in groups:
        evals = g["evals"].to_numpy() if "evals" in g.columns else None
        e = max(1, int(np.median(evals))) if evals is not None and evals.size else 1
        a, b = analysed_segment(g[column].to_numpy(np.float64), evals=e)
        keep.append(g.index.to_numpy()[a:b])
    return df.loc[np.concatenate(keep)] if keep else df


def analyze_series(
    x: ArrayLike,
    *,
    benchmark: str = "",
    run: str = "",
    estimator: LocationEstimatorName = "median",
    confidence_level: float = 0.95,
    raw: bool = False,
    evals: int = 1,
    sample_ns: ArrayLike | None = None,
    timer: Mapping[str, Any] | None = None,
    rng: RNGType = None,
) -> SeriesAnalysis:
    """Analyse one series: steady state, dependence, estimate with CI, outliers, modes.

    Parameters
    ----------
    x : array_like
        Per-evaluation times in ns, in time order (finite, > 0).
    benchmark, run : str
        Labels carried onto the result.
    estimator : {"median", "min", "mean", "trimmed_mean"}
        Location estimator for ``estimate`` and its CI.
    confidence_level : float
        Of the CI.
    raw : bool
        Analyse the whole series instead of its stable segment.
    evals : int
        Evaluations per sample (for Boyer's σ-blowup model, which needs ``evals > 1``).
    sample_ns : array_like, optional
        Elapsed ns of each whole sample (the ``ns`` column, before overhead correction):
        expresses the removed warm-up in seconds and feeds the timer checks.
    timer : mapping, optional
        The run's ``timer`` metadata (``overhead_ns``, ``precision_ns``, ``accuracy_ns``)
        for the timer checks (clock-read overhead [4]_, accuracy and precision [2]_,
        quantisation [3]_); ``precision_ns / evals`` is
        the tick the estimate's interval accounts for.
    rng : int, Generator or None
        Randomness for the bootstrap; the seed is recorded on the result.

    Returns
    -------
    SeriesAnalysis

    Notes
    -----
    Order of work: (1) stable segment by :func:`tsanalyze.steady_state` (change points,
    Pilot's > 50% rule, Barrett's classification) unless ``raw``; when there is no stable
    segment the whole series is analysed and says so; (2) on the segment: lag-1
    autocorrelation and Pilot's subsession size (``tsanalyze.stats.autocorrelation``), the
    ACF with its band (statsmodels, FFT; Ljung–Box is left out because statsmodels computes
    it with an O(n²) ACF), the location estimate with a CI chosen from the dependence found
    (:func:`tsanalyze.estimate`), descriptive statistics, Tukey fences, Boyer's σ-blowup
    fraction on the block statistics (block mean = evals × per-evaluation mean, block sd =
    evals × per-evaluation sd), timer checks on the raw sample times, and modes. Each
    component's own warnings are kept. No statistic is computed here; this only composes.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016, §III-A
       (stable segment) and §III-D (subsessions). https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §IV-B,
       the minimum as a lower-bound estimator. arXiv:1608.04295.
    .. [3] Boyer, B. (2008). Robust Java benchmarking: article supplement (the σ-blowup
       outlier model). http://www.ellipticgroup.com/misc/article_supplement.pdf
    .. [4] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (the
       clock-read overhead).
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    .. [5] Barrett, E., Bolz-Tereick, C. F., Killick, R., Mount, S., & Tratt, L. (2017).
       Virtual machine warmup blows hot and cold. Proceedings of the ACM on Programming
       Languages 1(OOPSLA), 52. https://doi.org/10.1145/3133876
    """
    arr, durations = _analyze_series_iv(x, estimator, confidence_level, evals, sample_ns)
    gen, seed = check_rng(rng)
    n = int(arr.size)
    findings: list[Finding] = []
    if in_sorted_order(arr):
        # the order carries nothing: analyse the samples as exchangeable, in a fixed
        # shuffled order (sorted, they would read as a drift or a ramp of steps)
        perm = unsorted(n)
        arr = arr[perm]
        durations = None if durations is None else durations[perm]
        findings.append(sorted_finding(n))
        raw = True

    start, stop, stable = 0, n, False
    classification = "raw"
    cps: tuple[int, ...] = ()
    ss_warmup_seconds: float | None = None
    drift: Drift | None = None
    mode_switching: ModeSwitching | None = None
    if not raw and n >= _MIN_STEADY_STATE:
        ss = steady_state(arr, evals=evals)
        cps = tuple(int(c) for c in ss.locations)
        classification = str(ss.classification)
        findings.extend(ss.warnings)
        drift, mode_switching = ss.drift, ss.modes
        if ss.start is not None and ss.stop is not None:
            start, stop, stable = int(ss.start), int(ss.stop), True
            ss_warmup_seconds = ss.warmup_seconds
    elif not raw:
        findings.append(
            Finding(
                "too-short-for-steady-state",
                f"only {n} samples: no warm-up can be detected, none was removed",
                "info",
            )
        )

    seg = arr[start:stop]
    if durations is not None:
        t = dict(timer or {})
        chk = timer_check(
            durations[start:stop],
            overhead_ns=t.get("overhead_ns"),
            precision_ns=t.get("precision_ns"),
            accuracy_ns=t.get("accuracy_ns"),
            clock_overhead_ns=t.get("clock_overhead_ns"),
        )
        findings.extend(chk.warnings)
    warmup_seconds = (
        float(durations[:start].sum() / 1e9) if durations is not None else ss_warmup_seconds
    )

    lag1: float | None = None
    m: int | None = None
    k: int | None = None
    independent: bool | None = None
    acf: tuple[float, ...] = ()
    band: tuple[float, ...] = ()
    ljungbox_pvalue: float | None = None
    ess: float | None = None
    if seg.size >= _MIN_AUTOCORRELATION:
        ac = autocorrelation(
            seg, nlags=min(_ACF_LAGS, seg.size // 2 - 1), confidence_level=confidence_level
        )
        lag1, m, k = float(ac.lag1), ac.subsession_size, ac.n_subsessions
        independent = m == 1
        acf = tuple(float(v) for v in ac.acf)
        band = tuple(float(v) for v in ac.acf_confint[:, 1] - ac.acf)
        ljungbox_pvalue = float(ac.ljungbox_pvalue)
        ess = float(ac.effective_sample_size)
        findings.extend(ac.warnings)
    short = seg.size < _MIN_AUTOCORRELATION

    # issue 23: the timer's resolution per evaluation (the grid of the values is added)
    precision = (timer or {}).get("precision_ns")
    tick: TickArg = "auto"
    if isinstance(precision, (int, float)) and math.isfinite(precision) and precision > 0:
        tick = float(precision) / evals
    est = estimate(
        seg, estimator, confidence_level=confidence_level, rng=gen, tick=tick, unit="ns"
    )
    findings.extend(est.warnings)
    if (
        estimator == "median"
        and seg.size >= 2 * _MIN_AUTOCORRELATION
        and math.isfinite(est.ci_high - est.ci_low)
    ):
        # a level that moves within the segment by less than the change points resolve:
        # the interval holds for these samples, not for the next stretch of them (the
        # halves' medians against the median's interval: the median's estimate only)
        hv = halves(seg, est.ci_low, est.ci_high, confidence_level=confidence_level, unit="ns")
        findings.extend(hv.warnings)
    if short and not any(w.code == "dependence-unchecked" for w in est.warnings):
        findings.append(
            Finding(
                "dependence-unchecked",
                f"{seg.size} samples are too few to measure serial dependence",
                "info",
            )
        )

    srt = np.sort(seg)  # one sort, shared by the descriptive statistics and the modes
    desc = {
        "min": float(srt[0]),
        "median": float(ESTIMATORS["median"](srt)),  # the same two middle values
        "mean": float(ESTIMATORS["mean"](seg)),
        "trimmed_mean": float(ESTIMATORS["trimmed_mean"](seg)),
    }
    sd = float(np.std(seg, ddof=1)) if seg.size > 1 else float("nan")

    fences = tukey_fences(seg)
    ov_fraction: float | None = None
    ov_effect = "not-applicable"
    if evals > 1 and seg.size > 1 and sd > 0:
        ov = outlier_variance(desc["mean"] * evals, sd * evals, evals)
        ov_effect = str(ov.effect)
        if ov.effect != "not-applicable":  # (its reason is not worth a finding)
            ov_fraction = float(ov.fraction)
            findings.extend(ov.warnings)

    md = multimodality(seg, unit="ns", sorted_x=srt)
    findings.extend(md.warnings)
    mode_list = tuple(
        (float(loc), float(mass)) for loc, mass in zip(md.locations, md.masses, strict=True)
    )

    result = SeriesAnalysis(
        benchmark=str(benchmark),
        run=str(run),
        n=n,
        start=start,
        stop=stop,
        n_stable=stop - start,
        stable_share=(stop - start) / n,
        stable=stable,
        classification=classification,
        changepoints=cps,
        warmup_samples=start,
        cooldown_samples=n - stop,
        warmup_seconds=warmup_seconds,
        estimator=estimator,
        estimate=float(est.estimate),
        ci_low=float(est.ci_low),
        ci_high=float(est.ci_high),
        confidence_level=float(confidence_level),
        ci_method=str(est.method),
        minimum=desc["min"],
        median=desc["median"],
        mean=desc["mean"],
        trimmed_mean=desc["trimmed_mean"],
        sd=sd,
        lag1=lag1,
        subsession_size=m,
        n_subsessions=k,
        independent=independent,
        acf=acf,
        acf_band=band,
        ljungbox_pvalue=ljungbox_pvalue,
        effective_sample_size=ess,
        outliers_low=fences.low_mild + fences.low_severe,
        outliers_high=fences.high_mild + fences.high_severe,
        outliers_severe=fences.low_severe + fences.high_severe,
        outlier_variance=ov_fraction,
        outlier_effect=ov_effect,
        evals=evals,
        modes=mode_list,
        seed=seed,
        drift=drift,
        mode_switching=mode_switching,
        samples=arr,
    )
    return dataclasses.replace(result, warnings=series_findings(result, _dedupe(findings)))
