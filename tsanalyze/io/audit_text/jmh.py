"""JMH's console table: ``Benchmark  (param)  Mode  Cnt  Score  Error  Units``.

``Score`` is the mean of ``Cnt`` measurement iterations pooled over all forks (Cnt =
forks × iterations, 25 by default: 5 × 5); ``Error`` is the half-width of a **99.9%**
Student-t CI of that mean, ``t(0.9995, Cnt − 1) · sd / √Cnt`` (blank when Cnt <= 2).
In ``avgt``/``thrpt`` an iteration times as many operations as fit in its time budget
(one clock read per iteration); ``ss`` times one operation per sample and ``sample``
single operations. Secondary results (``name:gc.alloc.rate``, ``name:p0.99``) are
skipped with one note.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tsanalyze._units import parse_unit
from tsanalyze.io.audit_text._scan import NUM, Scan, Table, clean_number

__all__ = ["read_jmh"]

_HEADER = re.compile(
    r"^\s*Benchmark\s+(?P<params>(?:\(\S+\)\s+)*)Mode\s+Cnt\s+Score\s+Error\s+Units\s*$"
)
_MODES = ("thrpt", "avgt", "sample", "ss")
_TIME_PER_OP = re.compile(r"^(ns|us|µs|ms|s)/op$")
_OPS_PER_TIME = re.compile(r"^ops/(ns|us|µs|ms|s)$")


def read_jmh(scan: Scan) -> list[Table]:
    """Every JMH result table of the text."""
    tables: list[Table] = []
    params = 0
    in_table = False
    secondary = 0
    for lineno, line in scan.numbered():
        stripped = line.strip()
        if (h := _HEADER.match(line)) is not None:
            params = len(h.group("params").split())
            tables.append(Table("JMH", f"table {len(tables) + 1}"))
            in_table = True
            scan.take(lineno)
            scan.found("JMH")
            continue
        if not in_table:
            if stripped.startswith(("# ", "Iteration ", 'Result "', "Benchmark result")):
                scan.take(lineno)  # the run log before the table
            continue
        if not stripped:
            continue
        tokens = stripped.split()
        if len(tokens) < 3 + params or tokens[1 + params] not in _MODES:
            in_table = False
            continue
        name, mode = tokens[0], tokens[1 + params]
        if ":" in name:
            secondary += 1
            scan.take(lineno)
            continue
        row = _row(scan, lineno, name, tokens[1 : 1 + params], mode, tokens[2 + params :])
        if row is not None:
            tables[-1].rows.append(row)
            scan.take(lineno)
    if secondary:
        scan.note("table-skipped", "info", f"{scan.source}: {secondary} JMH secondary result "
                  "row(s) (name:label, e.g. gc.alloc.rate, percentiles) skipped")  # fmt: skip
    return [t for t in tables if t.rows]


def _row(scan: Scan, lineno: int, name: str, values: list[str], mode: str,
         rest: list[str]) -> dict[str, Any] | None:  # fmt: skip
    if "≈" in rest:
        scan.skip(lineno, "JMH printed an approximate score (≈ 10⁻ⁿ): too small for its unit")
        return None
    unit = rest[-1]
    nums = rest[:-1]
    cnt = None
    if len(nums) in (2, 4) or (len(nums) == 2 and "±" not in nums):
        cnt, nums = nums[0], nums[1:]
    if len(nums) == 3 and nums[1] == "±":
        score, error = nums[0], nums[2]
    elif len(nums) == 1:
        score, error = nums[0], None
    else:
        scan.skip(lineno, "expected 'Cnt Score ± Error Units'")
        return None
    if not re.fullmatch(NUM, score) or (error is not None and not re.fullmatch(NUM, error)):
        scan.skip(lineno, "Score or Error is not a number")
        return None
    if (t := _TIME_PER_OP.match(unit)) is not None:
        out_unit, value, err = t.group(1), clean_number(score), error
    elif (r := _OPS_PER_TIME.match(unit)) is not None:
        # ops per ms/us/ns as ops per second: a power-of-ten shift keeps the printed digits
        shift = round(math.log10(parse_unit("s") / parse_unit(r.group(1))))
        out_unit = "ops/s"
        value = f"{clean_number(score)}e{shift}" if shift else clean_number(score)
        err = None if error is None else (f"{clean_number(error)}e{shift}" if shift else error)
    else:
        scan.skip(lineno, f"unit {unit!r} is neither a time per operation nor operations per time")
        return None
    # JMH prints N/A in a parameter column for a benchmark without that parameter
    shown = values if any(v != "N/A" for v in values) else []
    label = f"{name}({','.join(shown)})" if shown else name
    row: dict[str, Any] = {
        "name": label,
        "location": value,
        "unit": out_unit,
        "location_kind": "mean",
        "scope": "pooled-processes",
        "tool": "JMH",
        "source": scan.where(lineno),
    }
    if cnt is not None and cnt.isdigit():
        row["n"] = int(cnt)
    if err is not None and math.isfinite(float(clean_number(err))):
        row.update(spread=clean_number(err), spread_kind="ci", ci_level=0.999, spread_unit=out_unit)
    if mode in ("avgt", "thrpt"):
        row["batched"] = True
    elif mode == "ss":
        row["evals"] = 1
    return row
