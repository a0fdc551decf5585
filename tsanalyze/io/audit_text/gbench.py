"""Google Benchmark's console table: ``Benchmark  Time  CPU  Iterations``.

``Time`` and ``CPU`` are per-iteration means over ``Iterations`` iterations timed as one
batch (one clock read). With ``--benchmark_repetitions=N`` every repetition is a line,
followed by aggregates ``name_mean``, ``name_median``, ``name_stddev`` and ``name_cv``
(``1.22 %``) whose Iterations column is N. All repetitions run in one process.
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from tsanalyze.io.audit_text._scan import NUM, Scan, Table, clean_number

__all__ = ["read_gbench"]

_HEADER = re.compile(r"^\s*Benchmark\s+Time\s+CPU\s+Iterations\b")
_ROW = re.compile(
    rf"^(?P<name>\S+)\s+(?P<t>{NUM})\s*(?P<tu>ns|us|µs|ms|s|%)\s+(?P<c>{NUM})\s*(?P<cu>ns|us|µs|ms|s|%)\s+(?P<it>\d+)\b"
)
_AGG = ("_mean", "_median", "_stddev", "_cv")


def read_gbench(scan: Scan) -> list[Table]:
    """Every Google Benchmark console table of the text."""
    tables: list[Table] = []
    groups: dict[str, dict[str, Any]] | None = None
    for lineno, line in scan.numbered():
        stripped = line.strip()
        if _HEADER.match(line):
            groups = {}
            tables.append(Table("Google Benchmark", f"table {len(tables) + 1}"))
            scan.take(lineno)
            scan.found("Google Benchmark")
            continue
        if groups is None:
            if stripped.startswith(
                ("Run on (", "CPU Caches:", "L1 ", "L2 ", "L3 ", "Load Average:")
            ):
                scan.take(lineno)
            continue
        if set(stripped) <= {"-"}:
            scan.take(lineno)
            continue
        m = _ROW.match(stripped)
        if m is None:
            if stripped and " ERROR OCCURRED" not in stripped:
                scan.skip(lineno, "not 'name  time unit  cpu unit  iterations'")
            continue
        scan.take(lineno)
        name = m.group("name")
        agg = next((a for a in _AGG if name.endswith(a)), None)
        base = name[: -len(agg)] if agg else name
        g = groups.setdefault(base, {"reps": [], "line": lineno})
        if agg:
            g[agg] = (clean_number(m.group("t")), m.group("tu"), int(m.group("it")))
        else:
            g["reps"].append(
                (
                    float(clean_number(m.group("t"))),
                    m.group("tu"),
                    int(m.group("it")),
                    clean_number(m.group("t")),
                )
            )
        tables[-1].rows = [r for r in (_summary(scan, b, gg) for b, gg in groups.items()) if r]
    return [t for t in tables if t.rows]


def _summary(scan: Scan, name: str, g: dict[str, Any]) -> dict[str, Any] | None:
    row: dict[str, Any] = {"name": name, "location_kind": "mean", "scope": "one-process",
                           "tool": "Google Benchmark", "source": scan.where(g["line"])}  # fmt: skip
    reps = g["reps"]
    if reps:
        row["evals"] = min(r[2] for r in reps)
    else:
        row["batched"] = True
    if "_mean" in g:
        value, unit, n = g["_mean"]
        row.update(location=value, unit=unit, n=n)
        if "_stddev" in g and g["_stddev"][1] == unit:
            row.update(spread=g["_stddev"][0], spread_kind="sd")
        if "_median" in g and g["_median"][1] == unit:
            row["median"] = g["_median"][0]
        return row
    if not reps or len({r[1] for r in reps}) != 1:
        return None
    unit = reps[0][1]
    if len(reps) == 1:
        row.update(location=reps[0][3], unit=unit, n=1)
        return row
    values = [r[0] for r in reps]
    row.update(location=statistics.fmean(values), unit=unit, n=len(values),
               spread=statistics.stdev(values), spread_kind="sd",
               min=min(values), max=max(values))  # fmt: skip
    return row
