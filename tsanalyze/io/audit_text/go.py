"""Go: benchstat v1 and v2 tables, and raw ``go test -bench`` lines.

* benchstat v1 (golang.org/x/perf/cmd/benchstat before 2023): ``name  old time/op  new
  time/op  delta`` tables; location = the mean of the samples left after outlier removal,
  ``± x%`` = the largest deviation from that mean; ``-benchmem`` adds ``alloc/op``
  (``1.89GB``) and ``allocs/op`` (``1.23M``) tables; ``speed`` (MB/s) is derived from
  the times and skipped.
* benchstat v2: ``│``-ruled tables; location = the median, ``± x%`` = the wider side of a
  95% distribution-free CI of the median; units ``sec/op`` (SI-prefixed seconds:
  ``46.55n``), ``B/op`` (binary prefixes: ``307.3Mi``), ``allocs/op``; ``B/s`` is derived
  and skipped. Deltas ``-4.62% (p=0.008 n=10)`` (Mann–Whitney U) or ``~`` (none found).
* ``go test -bench`` lines ``BenchmarkX-8  1000000  1234 ns/op  48 B/op  1 allocs/op``:
  every line is one sample of b.N iterations timed with one clock-read pair; the
  samples of one name in one block are summarised (mean, sd, min, max, n).

``go test -count=N`` runs every sample in one process: the spreads leave out
between-process variation (``scope`` one-process).
"""

from __future__ import annotations

import math
import re
import statistics
from typing import Any

from tsanalyze._units import QUANTITY_UNITS, SCALE_PREFIXES
from tsanalyze.io.audit_text._scan import FOOTNOTES, NUM, Scan, Table, clean_number

__all__ = ["read_benchstat", "read_go_test"]

_SPREAD_MARK = r"(?:±|\+-|\+/-)"
_MEAS = re.compile(
    rf"\s*(?P<v>{NUM})\s*(?P<u>[A-Za-zµμ/]*)\s*{_SPREAD_MARK}\s*(?P<s>{NUM}|∞)\s*(?P<su>%|[A-Za-zµμ]+)?"
    rf"[\s{FOOTNOTES}]*"
)
_DELTA = re.compile(
    rf"\s*(?P<d>~|[-+−]?\d+(?:\.\d*)?%)[\s{FOOTNOTES}]*(?:\((?P<ann>[^)]*)\))?[\s{FOOTNOTES}]*"
)
_ANN_N = re.compile(r"\bn\s*=\s*(\d+)(?:\s*\+\s*(\d+))?")
_ANN_P = re.compile(rf"\bp\s*=\s*({NUM})")
_V1_HEADER = re.compile(r"^name\s+(?:old\s+)?(?P<unit>[^\s\\]+)(?:\s+new\s+\S+\s+delta)?\s*$")
#: benchstat v1 with more than two files: ``name \ time/op  new.txt  old.txt  x386.txt``
_V1_MULTI = re.compile(r"^name\s+\\\s+(?P<unit>\S+)\s+(?P<labels>.+?)\s*$")
_NAME_COUNT = re.compile(r"^(?P<name>\S+)\s+(?:(?P<count>\d+)\s+)?(?=[-+−]?[\d.])")
_GO_LINE = re.compile(r"^Benchmark(?P<name>\S+)\s+(?P<iters>\d+)\s+(?P<rest>\S.*)$")
_GO_HEADER = re.compile(r"^(goos|goarch|pkg|cpu):\s")

#: benchstat table units -> (quantity, how the values carry their scale)
_V1_UNITS = {"time/op": "time", "alloc/op": "bytes", "allocs/op": "count"}
_V2_UNITS = {"sec/op": "time", "B/op": "bytes", "allocs/op": "count"}
_DERIVED = ("speed", "B/s", "MB/s")


def _scaled(value: str, prefix: str, base: str) -> tuple[str, str] | None:
    """``value`` with an SI or binary ``prefix`` of ``base``, keeping the printed digits:
    decimal prefixes become an exponent (``12.30k`` -> ``12.30e3``), binary ones a unit
    (``1.802Mi`` B -> ``1.802`` MiB)."""
    scale = SCALE_PREFIXES.get(prefix)
    if scale is None:
        return None
    if prefix.endswith("i"):
        return (value, f"{prefix}{base}") if f"{prefix}{base}" in QUANTITY_UNITS else None
    shift = round(math.log10(scale))
    return (f"{value}e{shift}" if shift else value), base


def _value_unit(value: str, suffix: str, quantity: str, v2: bool) -> tuple[str, str] | None:
    """The printed value and a unit the audit knows, keeping the printed digits."""
    value = clean_number(value)
    if quantity == "time":
        if v2 and suffix in ("", "n", "µ", "μ", "m", "p"):
            return value, suffix or "s"
        return (value, suffix) if suffix else None
    if quantity == "bytes":
        if suffix in QUANTITY_UNITS and QUANTITY_UNITS[suffix][0] == "bytes":
            return value, suffix
        return _scaled(value, suffix, "B")
    return _scaled(value, suffix, "allocs")


def read_benchstat(scan: Scan, spread_kind: str | None) -> list[Table]:
    """Every benchstat v1 or v2 table of the text (see the module docstring)."""
    tables: list[Table] = []
    table: Table | None = None
    quantity: str | None = "time"
    labels = ["base", "new"]
    v2 = False
    pending_labels: list[str] | None = None
    for lineno, line in scan.numbered():
        stripped = line.strip()
        if not stripped:
            continue
        if "│" in line:
            cells = [c.strip() for c in line.split("│")[1:-1] if c.strip()] or [
                c.strip() for c in line.split("│") if c.strip()
            ]
            units = [c.split()[0] for c in cells if c]
            # the second header row gives the unit (a custom one, ``a-bytes``, too: its
            # row says "vs base"); the first gives the labels
            if units and (
                any(u in _V2_UNITS or u in _DERIVED or "/" in u for u in units[:1])
                or any(c.endswith("vs base") for c in cells)
            ):
                unit = units[0]
                v2 = True
                quantity = _V2_UNITS.get(unit)
                labels = pending_labels or ["base", "new"]
                scan.take(lineno)
                table = _start(scan, tables, lineno, unit, quantity, "benchstat v2")
            else:
                pending_labels = [c.split()[0] for c in cells] + ["new"]
                scan.take(lineno)
            continue
        header = _V1_HEADER.match(stripped) or _V1_MULTI.match(stripped)
        if header is not None and not any(s in stripped for s in ("±", "+-")):
            unit = header.group("unit")
            v2 = False
            quantity = _V1_UNITS.get(unit)
            multi = header.groupdict().get("labels")
            labels = multi.split() if multi else ["base", "new"]
            scan.take(lineno)
            table = _start(scan, tables, lineno, unit, quantity, "benchstat v1")
            continue
        if not any(s in stripped for s in ("±", "+-", "+/-")):
            if table is not None and stripped.startswith("geomean"):
                scan.take(lineno)
            continue
        if table is None:
            # bare "name  value ± spread" lines without a header: benchstat v1 style
            table = _start(scan, tables, lineno, "time/op", "time", "benchstat v1")
            quantity, v2 = "time", False
        if quantity is None:
            scan.take(lineno)  # a table of a unit the audit does not read (noted once)
            continue
        _row(scan, table, lineno, line, quantity, v2, labels, spread_kind)
    return [t for t in tables if t.rows]


def _start(scan: Scan, tables: list[Table], lineno: int, unit: str, quantity: str | None,
           tool: str) -> Table:  # fmt: skip
    table = Table(tool, unit)
    tables.append(table)
    scan.found(tool)
    if quantity is None:
        why = "derived from the times" if unit in _DERIVED else "not a time, B/op or allocs/op"
        scan.note("table-skipped", "info", f"{scan.where(lineno)}: {unit} table skipped ({why})")
    return table


def _row(scan: Scan, table: Table, lineno: int, line: str, quantity: str, v2: bool,
         labels: list[str], spread_kind: str | None) -> None:  # fmt: skip
    head = _NAME_COUNT.match(line.strip())
    if head is None:
        scan.skip(lineno, "not 'name  value ± spread'")
        return
    name = head.group("name")
    rest = line.strip()[head.end() :]
    columns: list[dict[str, Any]] = []
    pos = 0
    while True:
        m = _MEAS.match(rest, pos)
        if m is None:
            break
        vu = _value_unit(m.group("v"), m.group("u"), quantity, v2)
        if vu is None:
            scan.skip(lineno, f"unit {m.group('u')!r} does not fit a {quantity} table")
            return
        col: dict[str, Any] = {"location": vu[0], "unit": vu[1]}
        spread, sunit = m.group("s"), m.group("su") or ""
        if spread == "∞":
            pass  # "± ∞": too few samples for a CI, so no spread
        else:
            col["spread"] = clean_number(spread)
            if sunit == "%":
                col["spread_unit"] = "%"
            elif sunit:
                svu = _value_unit(spread, sunit, quantity, v2)
                if svu is None:
                    scan.skip(lineno, f"spread unit {sunit!r} does not fit")
                    return
                col["spread"], col["spread_unit"] = svu
            else:
                col["spread_unit"] = vu[1]
        pos = m.end()
        d = _DELTA.match(rest, pos)
        if d is not None and d.group(0).strip():
            col["delta"], col["ann"] = d.group("d"), d.group("ann") or ""
            pos = d.end()
        columns.append(col)
    tail = rest[pos:].strip()
    if not columns or (tail and not tail.startswith(("n=", "n ="))):
        scan.skip(lineno, "cannot read it as 'name  value ± spread[%]'")
        return
    if 1 < len(columns) < len(labels) and not any("delta" in c for c in columns):
        scan.skip(lineno, "fewer values than files: cannot tell which file each belongs to")
        return
    scan.take(lineno)
    kind = spread_kind or ("ci" if v2 else "range")
    rows: list[dict[str, Any]] = []
    for i, col in enumerate(columns):
        label = labels[i] if i < len(labels) else f"column {i + 1}"
        row: dict[str, Any] = {
            "name": name if len(columns) == 1 else f"{name} [{label}]",
            "location": col["location"],
            "unit": col["unit"],
            "location_kind": "median" if v2 else "mean",
            "scope": "one-process",
            "tool": table.tool,
            "source": scan.where(lineno),
        }
        if "spread" in col:
            row.update(spread=col["spread"], spread_unit=col["spread_unit"], spread_kind=kind)
        if quantity == "time":
            row["batched"] = True
        delta = col.get("delta")
        if i > 0 and delta is not None:
            row["compare_to"] = rows[0]["name"]
            if delta is not None:
                row["claim"] = "same" if delta == "~" else "different"
                if delta != "~":
                    row["claimed_change"] = clean_number(delta)
        ann = col.get("ann") or (tail if i == 0 else "")
        n = _ANN_N.search(ann)
        if n is not None:
            if i > 0:
                rows[0].setdefault("n", int(n.group(1)))
                row["n"] = int(n.group(2) or n.group(1))
            else:
                row["n"] = int(n.group(1))
        p = _ANN_P.search(ann)
        if p is not None and i > 0:
            row["claimed_pvalue"] = p.group(1)
        rows.append(row)
    if head.group("count") is not None and "n" not in rows[0]:
        rows[0]["n"] = int(head.group("count"))
    table.rows.extend(rows)


def read_go_test(scan: Scan) -> list[Table]:
    """Raw ``go test -bench`` output: one table per block of lines (a block ends at a
    ``PASS``/``ok`` line or a new ``goos:``/``pkg:`` header after benchmark lines)."""
    blocks: list[dict[tuple[str, str], list[tuple[int, int, float]]]] = []
    current: dict[tuple[str, str], list[tuple[int, int, float]]] = {}
    for lineno, line in scan.numbered():
        stripped = line.strip()
        m = _GO_LINE.match(stripped)
        if m is None:
            if current and (
                stripped.startswith(("PASS", "ok ", "ok\t")) or _GO_HEADER.match(stripped)
            ):
                blocks.append(current)
                current = {}
            if _GO_HEADER.match(stripped) or stripped.startswith(("PASS", "ok ", "ok\t")):
                scan.take(lineno)
            continue
        tokens = m.group("rest").split()
        if len(tokens) < 2 or len(tokens) % 2:
            scan.skip(lineno, "expected '<value> <unit>' pairs after the iteration count")
            continue
        pairs = list(zip(tokens[::2], tokens[1::2], strict=True))
        try:
            values = [(float(v), u) for v, u in pairs]
        except ValueError:
            scan.skip(lineno, "a measure is not a number")
            continue
        if not any(u in ("ns/op", "sec/op") for _, u in values):
            scan.skip(lineno, "no ns/op measure")
            continue
        scan.take(lineno)
        iters = int(m.group("iters"))
        for v, u in values:
            if u in ("ns/op", "sec/op", "B/op", "allocs/op") and math.isfinite(v):
                current.setdefault((m.group("name"), u), []).append((lineno, iters, v))
    if current:
        blocks.append(current)
    tables = []
    for k, block in enumerate(blocks, start=1):
        table = Table("go test", f"run {k}" if len(blocks) > 1 else None)
        for (name, unit), samples in block.items():
            row = _summarise(scan, name, unit, samples)
            if row is not None:
                table.rows.append(row)
        tables.append(table)
    if blocks:
        scan.found("go test -bench")
    return tables


def _summarise(
    scan: Scan, name: str, unit: str, samples: list[tuple[int, int, float]]
) -> dict[str, Any] | None:
    values = [v for _, _, v in samples]
    if max(values) <= 0:
        return None  # 0 B/op: nothing to audit
    base = {"ns/op": "ns", "sec/op": "s", "B/op": "B", "allocs/op": "allocs"}[unit]
    row: dict[str, Any] = {
        "name": name if unit in ("ns/op", "sec/op") else f"{name} [{unit}]",
        "location": statistics.fmean(values),
        "location_kind": "mean",
        "unit": base,
        "n": len(values),
        "scope": "one-process",
        "tool": "go test",
        "source": scan.where(samples[0][0]),
    }
    if min(values) > 0:
        row.update(min=min(values), max=max(values))
    if len(values) >= 2:
        row.update(spread=statistics.stdev(values), spread_kind="sd", spread_unit=base)
    if base in ("ns", "s"):
        row["evals"] = min(i for _, i, _ in samples)
    return row
