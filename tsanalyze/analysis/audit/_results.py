"""The audit's result types: :class:`AuditFinding` and :class:`Audit`."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from tsanalyze._result import Result, Severity, result, to_builtin

__all__ = ["SEVERITY_RANK", "Audit", "AuditFinding"]

SEVERITY_RANK = {"info": 0, "warning": 1, "serious": 2}


@dataclasses.dataclass(frozen=True, slots=True)
class AuditFinding:
    """One finding of the audit.

    Attributes
    ----------
    name : str
        The row the finding is about (for a note on the input, the file).
    other : str or None
        The other row, for findings about a comparison.
    code : str
        Stable identifier (``"sd-blowup"``, ``"few-samples"``, ``"no-dispersion"``,
        ``"timer-overhead"``, ``"difference-not-significant"``, ...).
    severity : {"info", "warning", "serious"}
    message : str
        One line in plain words.
    numbers : dict
        The numbers behind the finding (identifier-safe keys, plain floats).
    """

    name: str
    other: str | None
    code: str
    severity: Severity
    message: str
    numbers: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """Every field, by name, as JSON-ready builtins."""
        return to_builtin(self)


@result
class Audit(Result):
    """The audit of a table of published numbers.

    Attributes
    ----------
    findings : tuple of AuditFinding
        Worst first, then in row order (notes on the input first among equals).
    rows : pandas.DataFrame
        The rows as understood, in base units (``unit``: ns for times, B, allocs, B/s):
        ``name``, ``quantity``, ``unit``, ``location``, ``location_low``,
        ``location_high`` (the interval the printed digits allow), ``location_kind``,
        ``min``, ``max``, ``sd`` (derived sd, NaN when unknown), ``sd_high`` (its upper
        end), ``sd_source``, ``se``, ``n``, ``n_source``, ``evals``, ``batched``,
        ``ci_low``, ``ci_high``, ``ci_level``, ``gc_share``, ``scope``, ``tool``,
        ``compare_to``, ``source``.
    comparisons : pandas.DataFrame
        One row per claimed comparison: ``name``, ``other``, ``claim``, ``estimator``,
        ``estimate`` (difference of locations, base unit), ``relative`` with
        ``relative_low``/``relative_high`` (what the printed numbers allow),
        ``statistic``, ``pvalue`` (Welch at the printed values), ``pvalue_bound`` (the
        largest p the printed digits allow), ``pvalue_adjusted`` (Holm over the audit),
        ``df``, ``ci_low``, ``ci_high``, ``confidence_level``, ``significant``,
        ``claimed_change``, ``claimed_ratio``, ``claimed_pvalue``.
    clock_overhead_ns : float
        The clock-read overhead assumed.
    alpha : float
        Significance level of the comparisons.
    adjust : str
        The multiple-comparison adjustment (``"holm"``, ``"bh"``, ``"bonferroni"`` or
        ``"none"``).
    """

    findings: tuple[AuditFinding, ...]
    rows: pd.DataFrame
    comparisons: pd.DataFrame
    clock_overhead_ns: float
    alpha: float
    adjust: str = "holm"

    @property
    def serious(self) -> bool:
        """True when any finding is serious (the CLI then exits 1)."""
        return any(f.severity == "serious" for f in self.findings)

    @property
    def worst(self) -> Severity | None:
        """The worst severity found, or None when there is no finding."""
        if not self.findings:
            return None
        return max(self.findings, key=lambda f: SEVERITY_RANK[f.severity]).severity

    def to_frame(self) -> pd.DataFrame:
        """One row per finding: ``name``, ``other``, ``code``, ``severity``, ``message``,
        ``numbers`` (a dict)."""
        cols = ["name", "other", "code", "severity", "message", "numbers"]
        return pd.DataFrame([f.to_dict() for f in self.findings], columns=cols)

    def to_dict(self) -> dict[str, Any]:
        return {
            "serious": self.serious,
            "worst": self.worst,
            "clock_overhead_ns": self.clock_overhead_ns,
            "alpha": self.alpha,
            "adjust": self.adjust,
            "findings": [f.to_dict() for f in self.findings],
            "rows": to_builtin(self.rows),
            "comparisons": to_builtin(self.comparisons),
        }
