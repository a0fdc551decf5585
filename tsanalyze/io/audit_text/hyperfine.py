"""hyperfine: its Markdown export (``--export-markdown``) and its console report.

* Markdown: ``| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |`` with
  ``| `cmd` | 1.9 ± 0.1 | 1.7 | 2.6 | 1.02 ± 0.07 |``: mean ± sd of the runs (each run
  a fresh process), min, max, and the ratio of means to the reference row (the fastest
  unless ``--reference``), printed ``1.00`` without ± for the reference. Milliseconds
  are printed with one decimal. n is not printed: it is bounded from min, max, mean, sd.
* Console: ``Benchmark 1: cmd`` / ``Time (mean ± σ): 302.5 ms ± 0.3 ms`` /
  ``Range (min … max): 302.0 ms … 303.0 ms  10 runs``, and ``Summary`` /
  ``'a' ran`` / ``1.02 ± 0.07 times faster than 'b'``.
"""

from __future__ import annotations

import re
from typing import Any

from tsanalyze.io.audit_text._scan import NUM, Scan, Table, clean_number

__all__ = ["read_hyperfine"]

_MD_HEADER = re.compile(r"^\s*\|\s*Command\s*\|\s*Mean \[(?P<u>[^\]]+)\]\s*\|")
_MD_RULE = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")
_PM = re.compile(rf"^\s*(?P<v>{NUM})(?:\s*±\s*(?P<sd>{NUM}))?\s*$")
_BENCH = re.compile(r"^\s*Benchmark\s+#?\d+:\s*(?P<cmd>.+?)\s*$")
_TU = r"(?:s|ms|µs|μs|us|ns)"
_TIME = re.compile(
    rf"^\s*Time \(mean ± σ\):\s*(?P<v>{NUM})\s*(?P<u>{_TU})\s*±\s*(?P<sd>{NUM})\s*(?P<su>{_TU})"
)
_ABS = re.compile(rf"^\s*Time \(abs ≡\):\s*(?P<v>{NUM})\s*(?P<u>{_TU})")
_RANGE = re.compile(
    rf"^\s*Range \(min … max\):\s*(?P<lo>{NUM})\s*(?P<lu>{_TU})\s*…\s*(?P<hi>{NUM})\s*(?P<hu>{_TU})\s*(?:(?P<n>\d+) runs)?"
)
_RAN = re.compile(r"^\s*(?P<cmd>.+?)\s+ran\s*$")
_FASTER = re.compile(
    rf"^\s*(?P<r>{NUM})(?:\s*±\s*{NUM})?\s+times (?P<dir>faster|slower) than\s+(?P<cmd>.+?)\s*$"
)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        return text[1:-1]
    return text


def read_hyperfine(scan: Scan) -> list[Table]:
    """hyperfine Markdown tables and console reports."""
    tables = _markdown(scan)
    console = _console(scan)
    return tables + console


def _markdown(scan: Scan) -> list[Table]:
    tables: list[Table] = []
    unit: str | None = None
    cols: list[str] = []
    for lineno, line in scan.numbered():
        if (h := _MD_HEADER.match(line)) is not None:
            unit = h.group("u")
            cols = [c.strip().split(" [")[0] for c in line.strip().strip("|").split("|")]
            tables.append(Table("hyperfine", f"table {len(tables) + 1}"))
            scan.take(lineno)
            scan.found("hyperfine markdown")
            continue
        if unit is None:
            continue
        if _MD_RULE.match(line):
            scan.take(lineno)
            continue
        if not line.strip().startswith("|"):
            unit = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != len(cols):
            scan.skip(lineno, f"expected {len(cols)} cells")
            continue
        row = _md_row(scan, lineno, dict(zip(cols, cells, strict=True)), unit)
        if row is not None:
            tables[-1].rows.append(row)
            scan.take(lineno)
    for t in tables:
        _relative_claims(t)
    return [t for t in tables if t.rows]


def _md_row(scan: Scan, lineno: int, cells: dict[str, str], unit: str) -> dict[str, Any] | None:
    mean = _PM.match(cells.get("Mean", ""))
    if mean is None:
        scan.skip(lineno, "the Mean cell is not 'value ± sd'")
        return None
    row: dict[str, Any] = {
        "name": _unquote(cells.get("Command", "")).replace("\\|", "|"),
        "location": clean_number(mean.group("v")),
        "unit": unit,
        "location_kind": "mean",
        "evals": 1,
        "scope": "per-process",
        "tool": "hyperfine",
        "source": scan.where(lineno),
    }
    if mean.group("sd") is not None:
        row.update(spread=clean_number(mean.group("sd")), spread_kind="sd")
    for key, col in (("min", "Min"), ("max", "Max")):
        m = _PM.match(cells.get(col, ""))
        if m is not None:
            row[key] = clean_number(m.group("v"))
    rel = _PM.match(cells.get("Relative", ""))
    if rel is not None:
        row["_relative"] = (clean_number(rel.group("v")), rel.group("sd") is not None)
    return row


def _relative_claims(table: Table) -> None:
    """The Relative column: every row's ratio of means to the reference row."""
    rels = [r.pop("_relative", None) for r in table.rows]
    refs = [
        r
        for r, rel in zip(table.rows, rels, strict=True)
        if rel and float(rel[0]) == 1.0 and not rel[1]
    ]
    if len(refs) != 1:
        return
    ref = refs[0]
    for r, rel in zip(table.rows, rels, strict=True):
        if r is ref or rel is None:
            continue
        faster = float(r["location"]) < float(ref["location"])
        r.update(compare_to=ref["name"], claim=f"{rel[0]}x {'faster' if faster else 'slower'}",
                 claim_estimator="mean")  # fmt: skip


def _console(scan: Scan) -> list[Table]:
    table = Table("hyperfine", None)
    by_cmd: dict[str, dict[str, Any]] = {}
    row: dict[str, Any] | None = None
    ran: str | None = None
    for lineno, line in scan.numbered():
        if (b := _BENCH.match(line)) is not None:
            row = {"name": b.group("cmd"), "location_kind": "mean", "evals": 1,
                   "scope": "per-process", "tool": "hyperfine", "source": scan.where(lineno)}  # fmt: skip
            scan.take(lineno)
            continue
        if row is not None and (t := _TIME.match(line)) is not None:
            row.update(location=clean_number(t.group("v")), unit=t.group("u"),
                       spread=clean_number(t.group("sd")), spread_unit=t.group("su"),
                       spread_kind="sd")  # fmt: skip
            table.rows.append(row)
            by_cmd[row["name"]] = row
            scan.take(lineno)
            scan.found("hyperfine")
            continue
        if row is not None and (a := _ABS.match(line)) is not None:
            row.update(location=clean_number(a.group("v")), unit=a.group("u"), n=1)
            table.rows.append(row)
            by_cmd[row["name"]] = row
            scan.take(lineno)
            continue
        if row is not None and (r := _RANGE.match(line)) is not None and "unit" in row:
            if r.group("lu") == r.group("hu") == row["unit"]:
                row.update(min=clean_number(r.group("lo")), max=clean_number(r.group("hi")))
            if r.group("n"):
                row["n"] = int(r.group("n"))
            scan.take(lineno)
            continue
        if (m := _RAN.match(line)) is not None and _unquote(m.group("cmd")) in by_cmd:
            ran = _unquote(m.group("cmd"))
            scan.take(lineno)
            continue
        if ran is not None and (f := _FASTER.match(line)) is not None:
            other = by_cmd.get(_unquote(f.group("cmd")))
            if other is not None:
                # "ref ran 1.02 × faster than other": the other row is 1.02 × slower
                flip = "slower" if f.group("dir") == "faster" else "faster"
                other.update(compare_to=ran, claim=f"{clean_number(f.group('r'))}x {flip}",
                             claim_estimator="mean")  # fmt: skip
            scan.take(lineno)
            continue
        if line.strip().startswith(("Warning:", "Summary", "[User:")):
            scan.take(lineno)
    return [table] if table.rows else []
