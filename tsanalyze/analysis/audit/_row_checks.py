"""The checks on one published row, and the notes said once per table.

Per row: dispersion and n (Li et al. 2016), the clock-read overhead (Ou), how variable the
samples are (CV, max/min, GC share) and Boyer's σ-blowup model, the minimum detectable
effect, and a claimed CI against sd and n. Per table: what the source tool's conventions
imply for every row (batched clock reads, spreads from one process), and the rule that
no row is quieter than a less variable row of the same kind.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tsanalyze._result import Severity
from tsanalyze._units import format_time
from tsanalyze.analysis.audit._results import SEVERITY_RANK, AuditFinding
from tsanalyze.analysis.audit._rows import AuditRow
from tsanalyze.analysis.audit._spread import t_quantile
from tsanalyze.stats.outliers import outlier_variance
from tsanalyze.stats.summary_tests import ci_consistency, minimum_detectable_effect

__all__ = ["VARIATION_CODES", "row_findings", "table_findings"]

#: a sample at least this long (ns) averages over scheduler ticks: variation between such
#: samples is drift or interference between samples, not outliers inside them
DRIFT_SAMPLE_NS = 1e6
#: from this n on the minimum detectable effect uses the normal approximation
NORMAL_N = 10**6
#: drift between long samples worth a warning (below it the note is informational)
DRIFT_WARNING = 0.05
#: coefficient of variation (sd / location) that is a warning / serious
CV_WARNING, CV_SERIOUS = 0.10, 0.50
#: share of the location spent in garbage collection that is a warning / serious
GC_WARNING, GC_SERIOUS = 0.10, 0.50
#: slowest / fastest sample that is worth a note / a warning
MAXMIN_INFO, MAXMIN_WARNING = 3.0, 10.0
#: the codes that grade how variable a row's samples are (the "never quieter" rule)
VARIATION_CODES = frozenset({"high-variation", "sd-blowup", "sample-drift", "as-variable-as"})
_BLOWUP: dict[str, Severity] = {
    "slight": "info",
    "moderate": "warning",
    "severe": "serious",
    "beyond": "serious",
}


def _fmt(r: AuditRow, value: float) -> str:
    if r.quantity == "time":
        return format_time(value, trim=True)
    return f"{value:.4g} {r.unit}"


def _cap(sev: Severity, cap: Severity) -> Severity:
    return sev if SEVERITY_RANK[sev] <= SEVERITY_RANK[cap] else cap


def row_findings(
    r: AuditRow, clock_overhead_ns: float, alpha: float, power: float
) -> list[AuditFinding]:
    """Every check on row ``r`` alone (see :func:`tsanalyze.audit`, Notes)."""
    out: list[AuditFinding] = []

    def add(code: str, sev: Severity, msg: str, **numbers: Any) -> None:
        out.append(AuditFinding(r.name, None, code, sev, msg, numbers))

    _dispersion_and_n(r, add)
    if clock_overhead_ns > 0 and r.quantity == "time":
        _timer(r, clock_overhead_ns, add)
    _variation(r, add)
    _mde_and_ci(r, alpha, power, add)
    return out


def _dispersion_and_n(r: AuditRow, add: Callable[..., None]) -> None:
    # Li et al. (2016): no dispersion, fewer than 20 samples
    if r.sd is None and r.spread.se is None and r.ci is None:
        tail = (
            " (a minimum alone says nothing about the spread)" if r.location_kind == "min" else ""
        )
        add(
            "no-dispersion",
            "serious",
            f"no sd, spread or CI reported: the number cannot be judged{tail}",
        )
    if r.n is None:
        add("n-unknown", "warning", "number of samples not reported (Pilot asks for >= 20)")
    elif r.n_source == "bound":
        add(
            "n-bounded",
            "info",
            f"n not printed; the printed min, max and spread need n >= {r.n}, used for the tests",
            n_lower_bound=r.n,
        )
    elif r.n < 20:
        add(
            "few-samples",
            "serious" if r.n < 2 else "warning",
            f"only {r.n} sample(s); published numbers need at least 20 (Pilot)",
            n=r.n,
        )
    _sd_against_range(r, add)
    if r.spread.zero_rounded and r.sd_high is not None:
        add(
            "spread-rounded",
            "info",
            f"the printed spread 0 means an sd below {_fmt(r, r.sd_high)} (what its digits "
            "allow), not zero; the tests use that bound",
            sd_high=r.sd_high,
        )


def _sd_against_range(r: AuditRow, add: Callable[..., None]) -> None:
    """A printed sd below what the printed min, max and n allow: the two extremes alone
    give ``sum (x - mean)^2 >= R^2 / 2``, so ``sd >= R / sqrt(2 n)`` whichever divisor
    (n or n - 1) the tool used; the worst reading of the printed digits is taken."""
    lo, hi = r.estimators.get("min"), r.estimators.get("max")
    if (
        r.sd_source != "sd" or r.sd_high is None or r.n is None or r.n_source != "given"
        or r.n < 2 or lo is None or hi is None
    ):  # fmt: skip
        return
    bound = (hi.low - lo.high) / math.sqrt(2.0 * r.n)
    if bound > 0 and r.sd_high < bound * (1 - 1e-9):
        add(
            "sd-impossible",
            "serious",
            f"the sd {_fmt(r, r.sd or 0.0)} is impossible: {r.n} samples from "
            f"{_fmt(r, lo.value)} to {_fmt(r, hi.value)} have an sd of at least "
            f"{_fmt(r, bound)} (range / sqrt(2n)); the sd, n, min or max is wrong",
            sd=r.sd,
            sd_lower_bound=bound,
        )


def _timer(r: AuditRow, clock_overhead_ns: float, add: Callable[..., None]) -> None:
    # Ou: a clock-read pair is part of every timed sample
    if r.evals is None and r.batched:
        return  # the tool reads the clock once per batch: said once per table
    evals = r.evals if r.evals is not None else 1
    share = clock_overhead_ns / (evals * r.location.value)
    if share <= 0.01:
        return
    known = r.evals is not None
    sev: Severity = "serious" if share >= 0.10 and known else "warning"
    dominated = "dominated" if share >= 0.10 else "affected"
    note = "" if known else " (evals per sample unknown; assumed 1)"
    add(
        "timer-overhead",
        sev,
        f"a clock-read pair ({format_time(clock_overhead_ns, trim=True)}) is {100 * share:.3g}% of "
        f"the {format_time(evals * r.location.value, trim=True)} timed per sample: {dominated} by "
        f"timer overhead{note}",
        share=share,
        clock_overhead_ns=clock_overhead_ns,
        evals=evals,
        location_ns=r.location.value,
    )


def _variation(r: AuditRow, add: Callable[..., None]) -> None:
    cv = r.cv
    bound = r.spread.source.endswith("-bound")
    le = "≤ " if bound else ""
    if cv is not None and cv >= CV_WARNING:
        sev: Severity = "serious" if cv >= CV_SERIOUS else "warning"
        if bound:
            sev = _cap(sev, "warning")
        if cv < CV_SERIOUS:
            what = "noisy: small differences cannot be seen at this n"
        elif r.location_kind == "mean":
            what = "the mean is no typical value: report the median and the distribution"
        else:
            what = f"the spread dwarfs the {r.location_kind}: report the distribution"
        add(
            "high-variation",
            sev,
            f"sd {le}{100 * cv:.3g}% of the {r.location_kind} ({_fmt(r, r.sd or 0.0)}): {what}",
            cv=cv,
            sd=r.sd,
            location=r.location.value,
        )
    if r.quantity == "time" and r.sd and r.evals is not None and r.evals >= 2:
        _blowup(r, cv or 0.0, bound, add)
    if r.gc_share is not None and r.gc_share >= GC_WARNING:
        sev = "serious" if r.gc_share >= GC_SERIOUS else "warning"
        add(
            "gc-share",
            sev,
            f"{100 * r.gc_share:.3g}% of the {r.location_kind} is garbage collection: the number "
            "measures the collector and heap state as much as the code",
            gc_share=r.gc_share,
        )
    elif r.gc_max is not None and r.gc_max >= GC_SERIOUS:
        add(
            "gc-share",
            "info",
            f"the slowest sample is {100 * r.gc_max:.3g}% garbage collection: the tail is GC",
            gc_max=r.gc_max,
        )
    lo, hi = r.estimators.get("min"), r.estimators.get("max")
    if lo is not None and hi is not None and lo.value > 0:
        ratio = hi.value / lo.value
        if ratio >= MAXMIN_INFO:
            nudge = ""
            if r.location_kind == "mean" and r.n is not None:
                shift = (hi.value - lo.value) / r.n / r.location.value
                nudge = f"; that one sample moves the mean by up to {100 * shift:.2g}%"
            add(
                "max-over-min",
                "warning" if ratio >= MAXMIN_WARNING else "info",
                f"the slowest sample ({_fmt(r, hi.value)}) is {ratio:.3g}× the fastest "
                f"({_fmt(r, lo.value)}){nudge}",
                ratio=ratio,
            )


def _blowup(r: AuditRow, cv: float, bound: bool, add: Callable[..., None]) -> None:
    """Boyer's model on the sample statistics (mean only), and its limits."""
    if r.location_kind != "mean":
        add(
            "sd-blowup-skipped",
            "info",
            f"σ-blowup model needs a mean; the location is a {r.location_kind}",
        )
        return
    assert r.evals is not None and r.sd is not None
    ov = outlier_variance(r.location.value * r.evals, r.sd * r.evals, r.evals)
    effect: str = ov.effect
    no_fit = ov.c_max is not None and ov.c_max < 1
    if effect == "not-applicable" and no_fit and ov.sd_eval > ov.mean_eval:
        effect = "beyond"  # so wide that no outlier count fits: worse than severe
    if effect not in _BLOWUP:
        return
    sample_ns = r.location.value * r.evals
    nums = dict(
        fraction=ov.fraction, effect=effect, c_max=ov.c_max, sd_eval_ns=ov.sd_eval, cv=cv
    )  # fmt: skip
    if sample_ns >= DRIFT_SAMPLE_NS and cv < CV_WARNING:
        add(
            "sample-drift",
            "warning" if cv >= DRIFT_WARNING and effect != "slight" else "info",
            f"samples of {r.evals} evaluations ({format_time(sample_ns, trim=True)} each) vary by "
            f"{100 * cv:.2g}%: at this length that is drift or interference between samples, "
            "not outliers inside them; the mean holds, the sd is not the code's per-call spread",
            sample_ns=sample_ns,
            **nums,
        )
        return
    sev = _BLOWUP[effect]
    caps = []
    if cv < CV_WARNING:
        sev = _cap(sev, "warning")
        caps.append(f"tight samples (sd {100 * cv:.2g}% of the mean): the mean holds")
    if bound:
        sev = _cap(sev, "warning")
        caps.append("the sd is only an upper bound")
    what = (
        "no outlier count fits Boyer's model (c_max = 0): worse than severe"
        if effect == "beyond"
        else f"{effect} sd blow-up: outliers must explain >= {100 * ov.fraction:.3g}% of the variance"
    )
    tail = f" ({'; '.join(caps)})" if caps else ""
    add(
        "sd-blowup",
        sev,
        f"{what}; the sd is not credible as the code's own variation{tail}",
        **nums,
    )


def _mde_and_ci(r: AuditRow, alpha: float, power: float, add: Callable[..., None]) -> None:
    if r.sd is not None and r.sd > 0 and r.n is not None and r.n >= 2:
        if r.n > NORMAL_N:
            # the noncentral-t power integral does not converge for such n; the normal
            # MDE agrees with it to 6 digits from n = 10^6 on
            z = t_quantile(1 - alpha / 2, math.inf) + t_quantile(power, math.inf)
            mde_est = z * r.sd * math.sqrt(2.0 / r.n)
            rel = mde_est / r.location.value
        else:
            mde = minimum_detectable_effect(
                r.sd, r.n, mean=r.location.value, alpha=alpha, power=power
            )
            mde_est = mde.estimate
            rel = mde.relative if mde.relative is not None else math.nan
        add(
            "min-detectable-effect",
            "warning" if rel > 0.05 else "info",
            f"with n={r.n} and sd {_fmt(r, r.sd)}, only differences above "
            f"{_fmt(r, mde_est)} ({100 * rel:.3g}%) are detected with "
            f"{100 * power:g}% power at α={alpha:g}",
            estimate=mde_est,
            relative=rel,
            n=r.n,
            power=power,
            alpha=alpha,
        )
    # a claimed CI against sd and n
    if (
        r.ci is not None
        and r.sd is not None
        and r.sd_source in ("sd", "range-bound")
        and r.n is not None
        and r.n >= 2
    ):
        cc = ci_consistency(
            r.location.value, r.sd, r.n, r.ci[0], r.ci[1], confidence_level=r.ci_level,
            unit="ns" if r.quantity == "time" else None,
        )  # fmt: skip
        ws = list(cc.warnings)
        if r.sd_source == "range-bound":
            # the sd is only an upper bound: a narrower CI is not evidence of a problem
            ws = [w for w in ws if w.code != "ci-too-narrow"]
        for w in ws:
            add(
                "ci-inconsistent" if w.code != "ci-too-wide" else "ci-wide",
                w.severity,
                w.message,
                ratio=cc.ratio,
                expected_half_width=cc.expected_half_width,
                claimed_half_width=cc.claimed_half_width,
                implied_sd=cc.implied_sd,
            )


_SCOPE_NOTES = {
    "one-process": "the spreads come from one process each: run-to-run variation between "
    "processes (layout, JIT, frequency) is not in them, so a CI or p-value between two "
    "runs can be far too confident",
    "pooled-processes": "values of several processes are pooled and counted as independent "
    "(n counts values, not processes): between-process variance is not separated",
}


def table_findings(rows: list[AuditRow], findings: list[AuditFinding]) -> list[AuditFinding]:
    """Notes said once per tool, and the rule that no row is quieter than a less variable
    row with the same quantity and evals."""
    out: list[AuditFinding] = []
    said: set[tuple[str, str]] = set()
    for r in rows:
        tool = r.tool or "the source tool"
        if r.quantity == "time" and r.batched and r.evals is None and ("batched", tool) not in said:
            said.add(("batched", tool))
            out.append(
                AuditFinding(
                    r.name,
                    None,
                    "timer-batched",
                    "info",
                    f"{tool} reads the clock once per batch of many iterations: the clock-overhead "
                    "checks are satisfied for its rows; if the benchmark stops and restarts the "
                    "timer inside its loop (Go's b.StopTimer), give evals 1",
                    {},
                )
            )
        if r.scope in _SCOPE_NOTES and (r.scope, tool) not in said:
            said.add((r.scope, tool))
            out.append(
                AuditFinding(
                    r.name, None, f"scope-{r.scope}", "info", f"{tool}: {_SCOPE_NOTES[r.scope]}", {}
                )
            )
    out.extend(_never_quieter(rows, findings))
    return out


def _never_quieter(rows: list[AuditRow], findings: list[AuditFinding]) -> list[AuditFinding]:
    """A row more variable than a flagged row of the same kind gets at least that flag."""
    worst: dict[str, int] = {}
    for f in findings:
        if f.code in VARIATION_CODES and f.other is None and f.severity != "info":
            worst[f.name] = max(worst.get(f.name, -1), SEVERITY_RANK[f.severity])
    groups: dict[tuple[str, int | None], list[AuditRow]] = {}
    for r in rows:
        if r.cv is not None:
            groups.setdefault((r.quantity, r.evals), []).append(r)
    out: list[AuditFinding] = []
    names = {v: k for k, v in SEVERITY_RANK.items()}
    for members in groups.values():
        members.sort(key=lambda r: r.cv or 0.0)
        best: tuple[int, AuditRow] | None = None
        for r in members:
            own = worst.get(r.name, -1)
            if best is not None and best[0] > own and (r.cv or 0.0) > (best[1].cv or 0.0):
                q = best[1]
                out.append(
                    AuditFinding(
                        r.name,
                        None,
                        "as-variable-as",
                        names[best[0]],  # type: ignore[arg-type]
                        f"sd {100 * (r.cv or 0):.3g}% of the {r.location_kind}, more variable than "
                        f"{q.name} ({100 * (q.cv or 0):.3g}%), which is flagged {names[best[0]]}",
                        {"cv": r.cv, "other_cv": q.cv},
                    )
                )
                own = best[0]
            if best is None or own > best[0]:
                best = (own, r)
    return out
