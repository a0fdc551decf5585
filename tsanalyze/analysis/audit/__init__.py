"""Audit of published benchmark numbers, from summary statistics alone.

A row is what a paper, a README or a CI log prints for one benchmark: a name, a location
(mean, median or minimum), a spread (an sd, "± x%", a CI, max − min), a unit, and -- if the
author said so -- the number of samples, the evaluations per sample, min and max, the GC
share, and which other row it claims to beat (or by how many times). :func:`audit` reads
every printed number as the interval its digits allow, applies the source tool's
conventions, checks each row and each claim, and returns findings, each with a severity,
a one-line explanation and the numbers behind it.

Modules: :mod:`._rows` (input fields and checks), :mod:`._printed` (printed numbers as
intervals), :mod:`._spread` (spread conventions, bounds on sd and n), :mod:`._row_checks`
(checks on one row and notes per table), :mod:`._claims` (comparisons and printed
changes), :mod:`._results` (the result types).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze._result import Finding
from tsanalyze.analysis.audit._claims import change_findings, claim_findings, test_claim
from tsanalyze.analysis.audit._results import SEVERITY_RANK, Audit, AuditFinding
from tsanalyze.analysis.audit._row_checks import row_findings, table_findings
from tsanalyze.analysis.audit._rows import COLUMNS, AuditRow, check_rows, records_of
from tsanalyze.analysis.audit._spread import median_ci_coverage
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.multiplicity import adjust_pvalues

__all__ = ["COLUMNS", "Audit", "AuditFinding", "audit", "median_ci_coverage"]

Adjust = Literal["holm", "bh", "bonferroni", "none"]


def _audit_iv(clock_overhead_ns: Any, alpha: Any, power: Any, adjust: Any) -> None:
    if not (
        isinstance(clock_overhead_ns, (int, float))
        and not isinstance(clock_overhead_ns, bool)
        and math.isfinite(clock_overhead_ns)
        and clock_overhead_ns >= 0
    ):
        raise InvalidArgumentError(
            f"clock_overhead_ns: must be a number >= 0, got {clock_overhead_ns!r}"
        )
    for name, v in (("alpha", alpha), ("power", power)):
        if not (isinstance(v, (int, float)) and 0 < v < 1):
            raise InvalidArgumentError(f"{name}: must be strictly between 0 and 1, got {v!r}")
    if adjust not in ("holm", "bh", "bonferroni", "none"):
        raise InvalidArgumentError(f"adjust: must be holm, bh, bonferroni or none, got {adjust!r}")


def _adjusted(values: list[float], adjust: str) -> list[float]:
    if not values:
        return []
    arr = np.asarray(values, dtype=np.float64)
    return [float(v) for v in adjust_pvalues(arr, adjust)]  # type: ignore[arg-type]


def _rows_frame(checked: list[AuditRow]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "name": r.name,
                "quantity": r.quantity,
                "unit": r.unit,
                "location": r.location.value,
                "location_low": r.location.low,
                "location_high": r.location.high,
                "location_kind": r.location_kind,
                "min": r.estimators["min"].value if "min" in r.estimators else math.nan,
                "max": r.estimators["max"].value if "max" in r.estimators else math.nan,
                "sd": math.nan if r.sd is None else r.sd,
                "sd_high": math.nan if r.sd_high is None else r.sd_high,
                "sd_source": r.sd_source,
                "se": math.nan if r.spread.se is None else r.spread.se,
                "n": r.n,
                "n_source": r.n_source,
                "evals": r.evals,
                "batched": r.batched,
                "ci_low": None if r.ci is None else r.ci[0],
                "ci_high": None if r.ci is None else r.ci[1],
                "ci_level": r.ci_level,
                "gc_share": r.gc_share,
                "scope": r.scope,
                "tool": r.tool,
                "compare_to": r.compare_to,
                "source": r.source,
            }
            for r in checked
        ]
    )


_COMPARISON_COLUMNS = [
    "name", "other", "claim", "estimator", "estimate", "relative", "relative_low",
    "relative_high", "statistic", "pvalue", "pvalue_bound", "pvalue_adjusted", "df",
    "ci_low", "ci_high", "confidence_level", "significant", "claimed_change",
    "claimed_ratio", "claimed_pvalue",
]  # fmt: skip


def audit(
    rows: pd.DataFrame | Iterable[Mapping[str, Any]],
    *,
    clock_overhead_ns: float = 16.0,
    alpha: float = 0.05,
    power: float = 0.8,
    adjust: Adjust = "holm",
    as_printed: bool = True,
    notes: Iterable[Finding] = (),
) -> Audit:
    """Audit published benchmark numbers from their summary statistics.

    Parameters
    ----------
    rows : DataFrame or iterable of mappings
        One row per benchmark, with the fields of :data:`COLUMNS` (``name`` and a location
        required; everything else optional). Read files and pasted tool output with
        :func:`tsanalyze.io.audit_input.read_audit_file`.
    clock_overhead_ns : float, default 16
        Typical cost of a clock-read pair; Ou measured 16 ns for two
        ``std::chrono::steady_clock::now()`` calls. Set 0 to skip the timer checks.
    alpha : float, default 0.05
        Significance level of the comparisons (and the MDE).
    power : float, default 0.8
        Power for the minimum detectable effect.
    adjust : {"holm", "bh", "bonferroni", "none"}, default "holm"
        Correction for the many comparisons of one audit (ours and the source's p-values).
    as_printed : bool, default True
        Read every number as the interval of its last printed digit (``1.9`` is
        [1.85, 1.95], ``± 0%`` is below 0.5%); a difference is significant only if it is
        for every reading. False takes numbers as exact.
    notes : iterable of Finding
        Notes of the reader on the input (skipped lines, unknown columns); they become
        findings named after the file.

    Returns
    -------
    Audit
        Findings (severity, one-line message, numbers), the rows as understood and one
        row per claimed comparison with its Welch p-values.

    Raises
    ------
    AuditInputError
        A row is malformed; the message names the row (file:line) and the field.
    InvalidArgumentError
        A parameter is out of range.

    Notes
    -----
    Rows are read by the source tool's conventions: the spread is an sd, a largest
    deviation from the mean (benchstat v1, ``spread_kind="range"``: ``sd <= maxdev
    √(n/(n−1))``), max − min (libtest, ``"span"``: ``sd <= span/2 · √(n/(n−1))``) or a CI
    half-width at ``ci_level`` (benchstat v2's median CI, JMH's 99.9% Error, criterion's
    CI of the mean): ``se = h/t`` (``h/z`` when n is unknown; for a median the actual
    coverage of the order-statistic interval, :func:`median_ci_coverage`). Without a
    spread, min, max and mean bound the sd (Bhatia & Davis 2000); without n, min, max,
    mean and sd bound n from below (``n >= R²/(2 sd²)``, ``n >= R/(mean − min)``).

    Checks per row:

    * *no-dispersion* (serious): neither spread nor CI; *few-samples*: n < 20 (warning;
      serious for n = 1), *n-unknown* (warning), *n-bounded* (info) (Li et al. 2016).
    * *sd-impossible* (serious): a printed sd below ``(max − min) / √(2n)``, the least
      any n samples spanning min to max have (the two extremes alone), whichever divisor.
    * *timer-overhead*: ``share = overhead / (evals · location)``; > 1% warning, >= 10%
      serious when evals is known; unknown evals is taken as 1 (warning at most) unless
      the tool times a batch of iterations per clock read (``batched``: Go, libtest,
      criterion, JMH), said once per table (*timer-batched*) (Ou 2020).
    * *high-variation*: sd >= 10% of the location warning, >= 50% serious; *max-over-min*
      (>= 3 info, >= 10 warning); *gc-share* (>= 10% warning, >= 50% serious).
    * *sd-blowup*: Boyer's model on ``μ_B = evals · location``, ``σ_B = evals · sd`` for a
      mean with evals >= 2; severe (or so wide that no outlier count fits) is serious
      only when the sd is >= 10% of the mean -- tight samples keep the mean trustworthy.
      Samples of 1 ms or more with sd < 10% are *sample-drift*: between long samples,
      drift and interference, not outliers inside them. No row is quieter than a less
      variable row with the same evals (*as-variable-as*).
    * *min-detectable-effect*, *ci-inconsistent* (a claimed CI against sd and n),
      *spread-rounded* (a printed 0 is a bound, not zero), and once per tool
      *scope-one-process* / *scope-pooled-processes* (what the spread leaves out).

    Per claimed comparison (``compare_to``; ``claim`` different by default, or faster,
    slower, same, or a ratio "2.5x faster" with ``claim_estimator``): Welch's t from the
    standard errors (:func:`._claims.welch_from_se`), at the printed values (``pvalue``)
    and at the worst reading of the printed digits (``pvalue_bound``); the difference is
    the tool's printed change or ratio where consistent with the locations (it is
    computed from unrounded numbers). Verdicts use ``pvalue_bound`` adjusted over every
    comparison of the audit (Holm 1979 by default): significant claims are info;
    significant only before the correction is a warning; not significant is serious
    unless the spread or n was itself estimated from the summary (bounds, CIs, rounding)
    -- then it "cannot be confirmed" (warning). A stated direction contradicted by every
    reading is serious; a ratio off by more than 2× serious, otherwise a warning;
    overlapping CIs, a difference within three clock reads, a printed p that is not
    significant after the correction, and a small significant difference between
    one-process spreads (*between-process-variance-ignored*, below 5%) are warnings.
    A change printed against an absent baseline (criterion) is a *change-within-run*.

    Examples
    --------
    Ou's published Go numbers (benchstat, count=20): the with-timer row times one
    evaluation per clock-read pair.

    >>> from tsanalyze import audit
    >>> a = audit([
    ...     {"name": "with-timer", "location": 34.8, "spread": 12, "spread_unit": "%",
    ...      "spread_kind": "range", "n": 20, "evals": 1, "compare_to": "w/o-timer"},
    ...     {"name": "w/o-timer", "location": 6.44, "spread": 1, "spread_unit": "%",
    ...      "spread_kind": "range", "n": 20, "evals": 1000},
    ... ])
    >>> a.serious, [f.code for f in a.findings if f.severity == "serious"]
    (True, ['timer-overhead'])
    >>> bool(a.comparisons["pvalue_bound"].iloc[0] < 1e-10)
    True

    References
    ----------
    .. [1] Li, Y. et al. (2016). Pilot: a framework that understands how to do
       performance benchmarks the right way. MASCOTS 2016.
    .. [2] Boyer, B. (2008). Robust Java benchmarking, part 2: statistics and solutions
       (the ``Benchmark`` class supplement). IBM developerWorks.
    .. [3] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
    .. [4] Welch, B. L. (1947). Biometrika 34(1-2):28–35. doi:10.1093/biomet/34.1-2.28
    .. [5] Holm, S. (1979). A simple sequentially rejective multiple test procedure.
       Scand. J. Statist. 6(2):65–70.
    .. [6] Bhatia, R. & Davis, C. (2000). A better bound on the variance. Amer. Math.
       Monthly 107(4):353–357. doi:10.2307/2589180
    .. [7] Kalibera, T. & Jones, R. (2013). Rigorous benchmarking in reasonable time.
       ISMM 2013. doi:10.1145/2464157.2464160
    """
    _audit_iv(clock_overhead_ns, alpha, power, adjust)
    checked = check_rows(records_of(rows), as_printed=bool(as_printed))
    by_name = {r.name: r for r in checked}
    clock = float(clock_overhead_ns)
    findings: list[AuditFinding] = []
    for r in checked:
        findings.extend(row_findings(r, clock, alpha, power))
    findings.extend(table_findings(checked, findings))
    tests = [
        test_claim(r, by_name[r.compare_to], clock, alpha)
        for r in checked
        if r.compare_to is not None
    ]
    changes = [r for r in checked if r.compare_to is None and r.claimed_change is not None]
    # one family: every test of the audit, and every p-value the source printed
    p_ours = _adjusted([t.pvalue_bound for t in tests if t.testable], adjust)
    claimed = [t.a.claimed_pvalue for t in tests] + [r.claimed_pvalue for r in changes]
    claimed_high = [p.high for p in claimed if p is not None]
    claimed_adj = iter(_adjusted(claimed_high, adjust))
    claimed_out = [None if p is None else next(claimed_adj) for p in claimed]
    ours = iter(p_ours)
    comparisons = []
    for i, t in enumerate(tests):
        p_adj = next(ours) if t.testable else math.nan
        findings.extend(
            claim_findings(
                t, p_adj, claimed_out[i], (len(p_ours), len(claimed_high)), alpha, power, adjust
            )
        )
        comparisons.append(t.row)
    for j, r in enumerate(changes):
        findings.extend(change_findings(r, claimed_out[len(tests) + j], len(claimed_high),
                                        alpha, adjust))  # fmt: skip
    order = {r.name: r.index for r in checked}
    for note in notes:
        where = note.message.split(":", 1)[0] if ":" in note.message else "input"
        findings.append(AuditFinding(where, None, note.code, note.severity, note.message, {}))
    findings.sort(key=lambda f: (-SEVERITY_RANK[f.severity], order.get(f.name, -1)))
    return Audit(
        findings=tuple(findings),
        rows=_rows_frame(checked),
        comparisons=pd.DataFrame(comparisons, columns=_COMPARISON_COLUMNS),
        clock_overhead_ns=clock,
        alpha=alpha,
        adjust=adjust,
    )
