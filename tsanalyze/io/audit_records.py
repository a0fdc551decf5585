"""Audit rows from structured records: CSV, YAML and JSON tables of published numbers.

Field names are those of :data:`tsanalyze.analysis.audit.COLUMNS`. Column names other
tools export are understood (case and spacing ignored): pytest-benchmark's ``Min Max
Mean StdDev Median Rounds Iterations``, JMH's CSV ``Benchmark Samples Score "Score Error
(99.9%)" Unit``, and ``samples``/``count``/``runs`` = n, ``iterations``/``loops`` =
evals, ``sd``/``stddev`` = a spread of kind sd. Informational columns of those tools are
ignored quietly; any other column is ignored with a warning. Values may carry their unit
(``"4.65µs"``, ``"± 7%"``); the printed digits are kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tsanalyze._result import Finding
from tsanalyze._units import parse_quantity_unit
from tsanalyze.errors import AuditInputError
from tsanalyze.io.audit_text._scan import NUM, clean_number, one_line

__all__ = ["FIELDS", "rows_from_records"]

#: the audit's input fields (kept in step with tsanalyze.analysis.audit.COLUMNS by a test)
FIELDS = frozenset(
    {
        "name", "location", "location_kind", "mean", "median", "min", "max", "spread",
        "spread_unit", "spread_kind", "unit", "n", "n_min", "evals", "batched", "ci_low",
        "ci_high", "ci_level", "gc_share", "gc_max", "rounding", "scope", "tool",
        "compare_to", "claim", "claim_estimator", "claimed_change", "claimed_change_low",
        "claimed_change_high", "claimed_pvalue", "source",
    }
)  # fmt: skip
_ALIASES = {
    "benchmark": "name",
    "command": "name",
    "test": "name",
    "samples": "n",
    "count": "n",
    "rounds": "n",
    "runs": "n",
    "cnt": "n",
    "evaluations": "evals",
    "iterations": "evals",
    "iters": "evals",
    "loops": "evals",
    "minimum": "min",
    "maximum": "max",
    "average": "mean",
    "avg": "mean",
    "score": "location",
    "units": "unit",
    "p": "claimed_pvalue",
    "pvalue": "claimed_pvalue",
    "p_value": "claimed_pvalue",
    "delta": "claimed_change",
    "change": "claimed_change",
}
#: spellings of an sd column
_SD = ("sd", "stddev", "std", "std_dev", "std dev", "sigma", "standard deviation", "σ")
#: columns other tools export that the audit does not need (ignored without a warning)
_QUIET = frozenset(
    {
        "q1", "q3", "iqr", "ld15iqr", "hd15iqr", "ops", "total", "iqr_outliers",
        "stddev_outliers", "outliers", "group", "datetime", "fullname", "param", "params",
        "mode", "threads", "relative", "user", "system", "extra_info", "options", "cpu",
        "time", "parameters", "exit_codes",
    }
)  # fmt: skip
_QUANTITY = re.compile(rf"^\s*(?:±|\+-|\+/-)?\s*(?P<value>{NUM})\s*(?P<unit>[^\s\d±]*)\s*$")
_JMH_ERROR = re.compile(r"^score error \((?P<level>[\d.]+)%\)$")


def _key(raw: Any) -> str:
    k = re.sub(r"\s+", " ", str(raw).strip().lower())
    return k


def _split(text: str, where: str, field: str) -> tuple[str, str]:
    """``"4.65µs"`` -> ``("4.65", "µs")``, keeping the printed digits."""
    m = _QUANTITY.match(text)
    if m is None:
        raise AuditInputError(
            f"{where}, field '{field}': cannot read {one_line(text, 40)!r} as a number"
        )
    unit = m.group("unit")
    if unit not in ("", "%"):
        try:
            parse_quantity_unit(unit)
        except ValueError:
            raise AuditInputError(
                f"{where}, field '{field}': unknown unit {one_line(unit, 20)!r} in {one_line(text, 40)!r}"
            ) from None
    return clean_number(m.group("value")), unit


def _in_unit(value: str, unit: str, target: str) -> str:
    """``value`` given in ``unit``, written in ``target``; a power-of-ten shift keeps the
    printed digits (``"1.5"`` ms in µs -> ``"1.5e3"``)."""
    q1, _, s1 = parse_quantity_unit(unit)
    q2, _, s2 = parse_quantity_unit(target)
    if q1 != q2:
        raise ValueError(f"{unit!r} is not a unit of the same quantity as {target!r}")
    ratio = s1 / s2
    shift = round(math.log10(ratio))
    if math.isclose(10.0**shift, ratio, rel_tol=1e-12):
        return f"{value}e{shift}" if shift else value
    return repr(float(value) * ratio)


def rows_from_records(
    records: Sequence[Mapping[str, Any]], source: str, notes: list[Finding] | None = None
) -> list[dict[str, Any]]:
    """Normalise raw records (strings with units, other tools' column names) into rows.

    Parameters
    ----------
    records : list of mappings
        As read from CSV, YAML or JSON.
    source : str
        File name (or other label) for the ``source`` field and messages.
    notes : list of Finding, optional
        Receives one warning per unknown column.

    Returns
    -------
    list of dict
        Rows with the fields of :data:`~tsanalyze.analysis.audit.COLUMNS`; units split
        off into ``unit`` / ``spread_unit``; printed digits kept.
    """
    rows: list[dict[str, Any]] = []
    warned: set[str] = set()
    for i, rec in enumerate(records):
        where = f"{source} row {i + 1}"
        if not isinstance(rec, Mapping):
            raise AuditInputError(
                f"{where}: expected a mapping of fields, got {one_line(repr(rec), 60)}"
            )
        row = _fields(rec, where, source, notes, warned)
        if row.get("name") is not None:
            where = f"{source} row {i + 1} ({one_line(str(row['name']))})"
        _units_of(row, where)
        row.setdefault("source", f"{source} row {i + 1}")
        rows.append(row)
    return rows


def _fields(rec: Mapping[str, Any], where: str, source: str, notes: list[Finding] | None,
            warned: set[str]) -> dict[str, Any]:  # fmt: skip
    keys = {_key(k) for k in rec}
    row: dict[str, Any] = {}
    for raw, value in rec.items():
        k = _key(raw)
        if (m := _JMH_ERROR.match(k)) is not None:
            if "spread" not in keys:
                row.update(spread=value, spread_kind="ci", ci_level=float(m.group("level")) / 100)
            continue
        if k in _SD:
            if "spread" not in keys:
                row["spread"] = value
                row.setdefault("spread_kind", "sd")
            continue
        canon = _ALIASES.get(k, k)
        if canon in FIELDS:
            if canon != k and canon in keys:
                continue  # the field itself is given: the alias is only a copy
            row[canon] = value
        elif k not in _QUIET and k not in warned:
            warned.add(k)
            if notes is not None:
                notes.append(Finding(
                    "unknown-column", f"{source}: column {one_line(str(raw), 40)!r} is not an "
                    "audit field; ignored (see the audit input reference)", "warning"))  # fmt: skip
    return row


def _units_of(row: dict[str, Any], where: str) -> None:
    """Split units off the values and put every time of the row in one unit."""
    unit = row.get("unit")
    unit = (
        None
        if unit is None or (isinstance(unit, float) and math.isnan(unit))
        else str(unit).strip() or None
    )
    found: dict[str, tuple[str, str]] = {}
    for field in ("location", "mean", "median", "min", "max", "ci_low", "ci_high"):
        v = row.get(field)
        if isinstance(v, str) and v.strip():
            value, u = _split(v, where, field)
            if u == "%":
                raise AuditInputError(f"{where}, field '{field}': a percentage is not a time")
            found[field] = (value, u)
    given = [u for _, u in found.values() if u]
    if unit is None and given:
        unit = given[0]
    elif unit is not None and "location" in found and found["location"][1] not in ("", unit):
        raise AuditInputError(f"{where}, field 'unit': {unit!r} disagrees with {row['location']!r}")
    if unit is not None:
        row["unit"] = unit
    for field, (value, u) in found.items():
        try:
            row[field] = _in_unit(value, u, unit) if u and unit and u != unit else value
        except ValueError as exc:
            raise AuditInputError(f"{where}, field '{field}': {exc}") from None
    v = row.get("spread")
    if isinstance(v, str) and v.strip():
        value, u = _split(v, where, "spread")
        row["spread"] = value
        if u:
            row["spread_unit"] = u
    for field in (
        "ci_level",
        "claimed_change",
        "claimed_change_low",
        "claimed_change_high",
        "gc_share",
        "gc_max",
    ):
        v = row.get(field)
        if isinstance(v, str) and v.strip().endswith("%"):
            row[field] = clean_number(v.strip())
