"""Claims: a row that says it differs from (or matches, or is N× faster than) another row,
and a change a tool printed against a baseline it did not print (criterion).

Each comparison is tested in two steps. First the test itself (:func:`test_claim`):
Welch's t from the standard errors, once at the printed values and once at the worst
reading of the printed digits (the smallest difference and the largest spreads they
allow), the difference estimated from the tool's own printed change or ratio where that is
more precise than the rounded locations. Then, with every p-value of the audit at hand,
the verdicts (:func:`claim_findings`) use Holm-adjusted p-values of the worst reading.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from tsanalyze._result import Severity
from tsanalyze._units import format_time
from tsanalyze.analysis.audit._printed import Printed
from tsanalyze.analysis.audit._results import AuditFinding
from tsanalyze.analysis.audit._rows import AuditRow
from tsanalyze.analysis.audit._spread import t_quantile, t_sf
from tsanalyze.errors import AuditInputError
from tsanalyze.stats.summary_tests import ci_overlap

__all__ = ["ClaimTest", "change_findings", "claim_findings", "test_claim", "welch_from_se"]

#: a significant difference smaller than this, between rows whose spread comes from one
#: process each, is within typical run-to-run variation (Kalibera & Jones 2013)
BETWEEN_PROCESS_SHARE = 0.05
#: a claimed ratio off by more than this factor is serious, not just a mismatch
RATIO_SERIOUS_FACTOR = 2.0


def welch_from_se(
    diff: float, se1: float, df1: float, se2: float, df2: float
) -> tuple[float, float, float]:
    """Welch's t-test from a difference and the two standard errors.

    ``t = diff / sqrt(se1² + se2²)`` with Welch–Satterthwaite degrees of freedom
    ``(se1² + se2²)² / (se1⁴/df1 + se2⁴/df2)`` (infinite ``df`` -- a standard error read
    from a CI without n -- gives the normal test). Equals
    ``scipy.stats.ttest_ind_from_stats(..., equal_var=False)`` for ``se = sd/√n``,
    ``df = n − 1``. Returns ``(t, df, two-sided p)``; both standard errors 0 give
    ``t = ±inf, p = 0`` for a non-zero difference and ``p = 1`` for none.

    References
    ----------
    Welch, B. L. (1947). The generalization of 'Student's' problem when several different
    population variances are involved. Biometrika 34(1-2):28–35.
    doi:10.1093/biomet/34.1-2.28
    """
    v1, v2 = se1 * se1, se2 * se2
    v = v1 + v2
    if v <= 0 or not math.isfinite(v):
        if diff == 0:
            return 0.0, math.inf, 1.0
        return math.copysign(math.inf, diff), math.inf, 0.0
    t = diff / math.sqrt(v)
    denom = (v1 * v1 / df1 if math.isfinite(df1) else 0.0) + (
        v2 * v2 / df2 if math.isfinite(df2) else 0.0
    )
    df = v * v / denom if denom > 0 else math.inf
    p = 2.0 * t_sf(abs(t), df)
    return t, df, min(1.0, p)


def _faster_sign(r: AuditRow) -> int:
    """-1 when smaller is faster (times, bytes, counts), +1 for rates."""
    return 1 if r.quantity == "rate" else -1


def _intersect(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float] | None:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else None


def _ratio_interval(r: AuditRow, ratio: Printed) -> tuple[float, float]:
    """The relative change (a/b − 1) that a ratio claim of row ``r`` implies."""
    faster = r.claim == "faster"
    smaller = faster != (r.quantity == "rate")  # faster time = smaller; faster rate = larger
    if smaller:
        return 1.0 / ratio.high - 1.0, 1.0 / ratio.low - 1.0
    return ratio.low - 1.0, ratio.high - 1.0


@dataclasses.dataclass(slots=True)
class ClaimTest:
    """One comparison before the multiple-comparison adjustment."""

    a: AuditRow
    b: AuditRow
    row: dict[str, Any]
    findings: list[AuditFinding]
    testable: bool = False
    estimated: bool = False
    pvalue: float = math.nan
    pvalue_bound: float = math.nan
    se_diff: float = math.nan
    se_diff_high: float = math.nan
    rel_interval: tuple[float, float] = (math.nan, math.nan)


def test_claim(a: AuditRow, b: AuditRow, clock_overhead_ns: float, alpha: float) -> ClaimTest:
    """Row ``a`` makes a claim about itself versus ``b``; the difference is ``a − b``."""
    if a.quantity != b.quantity or a.unit != b.unit:
        raise AuditInputError(
            f"{a.label}, field 'compare_to': {b.name!r:.80} is in {b.unit}, this row in {a.unit}"
        )
    found: list[AuditFinding] = []

    def add(code: str, sev: Severity, msg: str, **numbers: Any) -> None:
        found.append(AuditFinding(a.name, b.name, code, sev, msg, numbers))

    la, lb = a.location, b.location
    rel_interval = (la.low / lb.high - 1.0, la.high / lb.low - 1.0)
    rel = la.value / lb.value - 1.0
    # the tool's own printed change / ratio: more precise than the rounded locations
    if a.claimed_change is not None:
        c = a.claimed_change
        both = _intersect(rel_interval, (c.low, c.high))
        if both is None:
            add(
                "claimed-change-mismatch",
                "warning",
                f"printed change {100 * c.value:+.3g}% but the printed locations allow only "
                f"{100 * rel_interval[0]:+.3g}% to {100 * rel_interval[1]:+.3g}%",
                claimed_change=c.value,
                relative=rel,
            )
        else:
            rel_interval, rel = both, c.value
    if a.claim_ratio is not None:
        rel_interval, rel = _check_ratio(a, b, rel_interval, rel, add)
    diff = rel * lb.value
    sign = _faster_sign(a)
    row: dict[str, Any] = {
        "name": a.name,
        "other": b.name,
        "claim": a.claim,
        "estimator": a.claim_estimator or a.location_kind,
        "estimate": diff,
        "relative": rel,
        "relative_low": rel_interval[0],
        "relative_high": rel_interval[1],
        "statistic": math.nan,
        "pvalue": math.nan,
        "pvalue_bound": math.nan,
        "pvalue_adjusted": math.nan,
        "df": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "confidence_level": 1.0 - alpha,
        "significant": None,
        "claimed_change": None if a.claimed_change is None else a.claimed_change.value,
        "claimed_ratio": None if a.claim_ratio is None else a.claim_ratio.value,
        "claimed_pvalue": None if a.claimed_pvalue is None else a.claimed_pvalue.value,
    }
    # a stated direction the printed numbers contradict, whatever the test says
    signed = [sign * x for x in rel_interval]  # > 0 means faster
    wrong = (a.claim == "faster" and max(signed) <= 0) or (a.claim == "slower" and min(signed) >= 0)
    if wrong:
        add(
            "claim-contradicted",
            "serious",
            f"claimed {a.claim}, but the locations differ by {_pct(a, diff, rel)}",
            estimate=diff,
            relative=rel,
        )
    test = ClaimTest(a, b, row, found, rel_interval=rel_interval)
    sa, sb = a.spread, b.spread
    if sa.se is None or sb.se is None:
        _untestable(test, add)
    else:
        t, df, p = welch_from_se(diff, sa.se, sa.df, sb.se, sb.df)
        low_abs = (
            0.0 if rel_interval[0] <= 0 <= rel_interval[1] else min(abs(x) for x in rel_interval)
        )
        _, _, p_bound = welch_from_se(
            low_abs * lb.value, sa.se_high or sa.se, sa.df, sb.se_high or sb.se, sb.df
        )
        se_diff = math.sqrt(sa.se**2 + sb.se**2)
        crit = float(t_quantile(1 - alpha / 2, df))
        row.update(
            statistic=t, pvalue=p, pvalue_bound=max(p, p_bound), df=df,
            ci_low=diff - crit * se_diff, ci_high=diff + crit * se_diff,
        )  # fmt: skip
        test.testable = True
        test.pvalue, test.pvalue_bound, test.se_diff = p, max(p, p_bound), se_diff
        test.se_diff_high = math.hypot(sa.se_high or sa.se, sb.se_high or sb.se)
        test.estimated = (
            sa.bounded
            or sb.bounded
            or "ci" in (sa.source, sb.source)
            or (p < alpha <= test.pvalue_bound)
        )
    _overlap_and_timer(a, b, diff, clock_overhead_ns, add)
    return test


def _pct(r: AuditRow, diff: float, rel: float) -> str:
    amount = format_time(diff, trim=True) if r.quantity == "time" else f"{diff:.4g} {r.unit}"
    return f"{amount} ({100 * rel:+.3g}%)"


def _check_ratio(
    a: AuditRow,
    b: AuditRow,
    rel_interval: tuple[float, float],
    rel: float,
    add: Callable[..., None],
) -> tuple[tuple[float, float], float]:
    """A ratio claim ("27× faster") against the estimator it rests on."""
    assert a.claim_ratio is not None
    ratio = a.claim_ratio
    est = a.claim_estimator or a.location_kind
    claimed = _ratio_interval(a, ratio)
    ea, eb = a.estimators.get(est), b.estimators.get(est)
    if ea is None or eb is None:
        add(
            "claimed-ratio-unchecked",
            "warning",
            f"the claim '{ratio.value:g}× {a.claim}' rests on the {est}, which the rows do not "
            "both print",
            claimed_ratio=ratio.value,
        )
        return rel_interval, rel
    observed = (ea.low / eb.high - 1.0, ea.high / eb.low - 1.0)
    obs_ratio = ea.value / eb.value
    shown = 1.0 / obs_ratio if (a.claim == "faster") != (a.quantity == "rate") else obs_ratio
    if _intersect(observed, claimed) is None:
        off = max(ratio.value / shown, shown / ratio.value) if shown > 0 else math.inf
        about = "about " if a.claim_about else ""
        add(
            "claimed-ratio-mismatch",
            "serious" if off > RATIO_SERIOUS_FACTOR else "warning",
            f"claimed {about}{ratio.value:g}× {a.claim} on the {est}, but the printed {est}s "
            f"give {shown:.3g}×",
            claimed_ratio=ratio.value,
            observed_ratio=shown,
        )
        return rel_interval, rel
    if est == a.location_kind and not a.claim_about:
        both = _intersect(rel_interval, claimed)
        if both is not None:
            mid = _ratio_interval(a, Printed.exact(ratio.value))[0]
            return both, min(max(mid, both[0]), both[1])
    return rel_interval, rel


def _untestable(test: ClaimTest, add: Callable[..., None]) -> None:
    a, b = test.a, test.b
    claims_difference = a.claim != "same"
    sds = a.sd is not None and b.sd is not None
    needed = ""
    if sds and (a.n is None or b.n is None):
        n = _n_needed(test.rel_interval, a, b)
        if n is not None:
            needed = f"; with the printed spreads it would be significant from n >= {n} per side"
    add(
        "comparison-untestable",
        ("warning" if sds else "serious") if claims_difference else "warning",
        f"the claim ({a.claim}) cannot be tested: both rows need a spread and n{needed}",
        relative=test.row["relative"],
    )


def _n_needed(rel_interval: tuple[float, float], a: AuditRow, b: AuditRow) -> int | None:
    """The smallest n per side at which the smallest printed difference is significant."""
    d = 0.0 if rel_interval[0] <= 0 <= rel_interval[1] else min(abs(x) for x in rel_interval)
    if d == 0 or a.sd_high is None or b.sd_high is None:
        return None
    d *= b.location.value
    v = a.sd_high**2 + b.sd_high**2
    for n in (2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, 200, 500, 1000, 10000, 100000):
        if (
            welch_from_se(d, a.sd_high / math.sqrt(n), n - 1, b.sd_high / math.sqrt(n), n - 1)[2]
            < 0.05
        ):
            return n
    return None if v > 0 else 2


def _overlap_and_timer(
    a: AuditRow, b: AuditRow, diff: float, clock_overhead_ns: float, add: Callable[..., None]
) -> None:
    ca, cb = _interval(a), _interval(b)
    if a.claim != "same" and ca is not None and cb is not None and ci_overlap(*ca, *cb):
        add(
            "ci-overlap",
            "warning",
            f"the CIs overlap: [{_fmt(a, ca[0])}, {_fmt(a, ca[1])}] and "
            f"[{_fmt(b, cb[0])}, {_fmt(b, cb[1])}] (Pilot's first check)",
            ci_low=ca[0],
            ci_high=ca[1],
            other_ci_low=cb[0],
            other_ci_high=cb[1],
        )
    if clock_overhead_ns <= 0 or a.quantity != "time":
        return
    # Ou: a difference the size of a clock read may be the clock itself
    rows = [r for r in (a, b) if not (r.batched and r.evals is None)]
    if len(rows) < 2:
        return
    per_eval = [clock_overhead_ns / (r.evals if r.evals is not None else 1) for r in rows]
    share = max(p / r.location.value for p, r in zip(per_eval, rows, strict=True))
    if share > 0.01 and abs(diff) <= 3.0 * max(per_eval):
        add(
            "difference-timer-artifact",
            "warning",
            f"the difference {format_time(abs(diff), trim=True)} is within 3 clock reads "
            f"({format_time(max(per_eval), trim=True)} each per evaluation): it may be the timer, "
            "not the code",
            estimate=diff,
            clock_overhead_per_eval=max(per_eval),
        )


def _interval(r: AuditRow) -> tuple[float, float] | None:
    """The claimed CI, else the t-interval of the location from its standard error."""
    if r.ci is not None:
        return r.ci
    se = r.spread.se
    if se is None:
        return None
    df = r.spread.df
    q = t_quantile(0.5 + r.ci_level / 2, df)
    return r.location.value - q * se, r.location.value + q * se


def _fmt(r: AuditRow, v: float) -> str:
    return format_time(v, trim=True) if r.quantity == "time" else f"{v:.4g} {r.unit}"


def claim_findings(
    test: ClaimTest,
    p_adjusted: float,
    claimed_adjusted: float | None,
    family: tuple[int, int],
    alpha: float,
    power: float,
    adjust: str,
) -> list[AuditFinding]:
    """The verdicts on one comparison, once every p-value of the audit is adjusted."""
    a, b, row = test.a, test.b, test.row
    out = list(test.findings)

    def add(code: str, sev: Severity, msg: str, **numbers: Any) -> None:
        out.append(AuditFinding(a.name, b.name, code, sev, msg, numbers))

    claims_difference = a.claim != "same"
    claimed_p = a.claimed_pvalue
    ours, theirs = family
    corr = f"{adjust} over {ours} comparisons" if ours > 1 and adjust != "none" else ""
    if claimed_p is not None and claimed_adjusted is not None and theirs > 1 and adjust != "none":
        if claimed_p.high < alpha <= claimed_adjusted:
            add(
                "claimed-significance-uncorrected",
                "warning",
                f"the source's p = {claimed_p.value:.3g} is one of {theirs} in this table; after "
                f"{adjust}'s correction it is {claimed_adjusted:.3g}, not significant at α={alpha:g}",
                claimed_pvalue=claimed_p.value,
                claimed_pvalue_adjusted=claimed_adjusted,
            )
    if not test.testable:
        return out
    row["pvalue_adjusted"] = p_adjusted
    sig = p_adjusted < alpha
    row["significant"] = sig
    rel = row["relative"]
    nums = {
        "estimate": row["estimate"],
        "relative": rel,
        "statistic": row["statistic"],
        "df": row["df"],
        "pvalue": test.pvalue,
        "pvalue_bound": test.pvalue_bound,
        "pvalue_adjusted": p_adjusted,
        "alpha": alpha,
    }
    p_txt = f"p={test.pvalue:.3g}"
    if test.pvalue_bound > test.pvalue * 1.0001 + 1e-12:
        p_txt += f" (≤ {test.pvalue_bound:.3g} for every reading of the printed digits)"
    if corr:
        p_txt += f", {corr}: {p_adjusted:.3g}"
    t = row["statistic"]
    what = f"Welch t={t:.3g}, {p_txt}" if math.isfinite(t) else f"Welch {p_txt}"
    pct = _pct(a, row["estimate"], rel)
    if claims_difference and sig:
        add("difference-significant", "info", f"difference {pct} is significant: {what}", **nums)
    elif claims_difference and test.pvalue_bound < alpha:
        add(
            "significant-before-correction",
            "warning",
            f"difference {pct} is significant alone but not after {corr}: {what}",
            **nums,
        )
    elif claims_difference and test.estimated:
        add(
            "difference-unconfirmed",
            "warning",
            f"claimed difference {pct} cannot be confirmed from the summary (the spread or n is "
            f"itself estimated from it): {what}",
            **nums,
        )
    elif claims_difference:
        add("difference-not-significant", "serious",
            f"claimed difference {pct} is not significant: {what}", **nums)  # fmt: skip
    elif sig:
        add("claimed-same-but-different", "warning",
            f"claimed no difference, but {pct} is significant: {what}", **nums)  # fmt: skip
    else:
        z = t_quantile(1 - alpha / 2, math.inf) + t_quantile(power, math.inf)
        mde = z * test.se_diff_high
        add(
            "no-difference-found",
            "info",
            f"no significant difference ({what}); differences below {_fmt(a, mde)} "
            f"({100 * mde / b.location.value:.3g}%) could go unseen at {100 * power:g}% power",
            mde=mde,
            **nums,
        )
    if claimed_p is not None and (claimed_p.value < alpha) != (test.pvalue < alpha):
        add(
            "pvalue-disagrees",
            "info" if test.estimated else "warning",
            f"the source's p={claimed_p.value:.3g} and Welch's p={test.pvalue:.3g} from the "
            f"summary statistics disagree at α={alpha:g} (different test or spread)",
            claimed_pvalue=claimed_p.value,
            pvalue=test.pvalue,
        )
    timing = a.quantity in ("time", "rate")
    if sig and timing and abs(rel) < BETWEEN_PROCESS_SHARE and "one-process" in (a.scope, b.scope):
        add(
            "between-process-variance-ignored",
            "warning",
            f"a {100 * abs(rel):.2g}% difference between two processes is within typical "
            "run-to-run variation, which spreads from one process each do not contain: rerun "
            "both sides several times before believing it",
            relative=rel,
        )
    return out


def change_findings(r: AuditRow, claimed_adjusted: float | None, family: int, alpha: float,
                    adjust: str) -> list[AuditFinding]:  # fmt: skip
    """A change printed against a baseline that is not in the table (criterion's
    ``change: [lo est hi] (p = ...)``)."""
    assert r.claimed_change is not None
    c = r.claimed_change
    lo, hi = r.claimed_change_ci if r.claimed_change_ci is not None else (c.low, c.high)
    out: list[AuditFinding] = []
    p = r.claimed_pvalue
    if p is not None and claimed_adjusted is not None and family > 1 and adjust != "none":
        if p.high < alpha <= claimed_adjusted:
            out.append(AuditFinding(
                r.name, None, "claimed-significance-uncorrected", "warning",
                f"the source's p = {p.value:.3g} is one of {family} in this table; after "
                f"{adjust}'s correction it is {claimed_adjusted:.3g}, not significant at α={alpha:g}",
                {"claimed_pvalue": p.value, "claimed_pvalue_adjusted": claimed_adjusted},
            ))  # fmt: skip
    if lo > 0 or hi < 0:
        small = max(abs(lo), abs(hi)) < BETWEEN_PROCESS_SHARE
        out.append(
            AuditFinding(
                r.name,
                None,
                "change-within-run",
                "warning" if small else "info",
                f"the printed change {100 * c.value:+.3g}% [{100 * lo:+.3g}%, {100 * hi:+.3g}%] "
                "compares this run with a saved baseline from another run, each run's samples "
                "taken as the whole story"
                + (": identical code re-run often moves this much; re-run the baseline before "
                   "believing it" if small else ""),
                {"claimed_change": c.value, "claimed_change_low": lo, "claimed_change_high": hi},
            )
        )  # fmt: skip
    return out
