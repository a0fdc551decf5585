"""Python: ``%timeit`` / ``python -m timeit``, pyperf's text, pytest-benchmark's table.

* IPython ``%timeit``: ``144 ns ± 0.379 ns per loop (mean ± std. dev. of 7 runs,
  10,000,000 loops each)`` -- n = runs, evals = loops, ± = sd of the run means, all in
  one process; the older ``100000 loops, best of 3: 2.82 µs per loop`` and
  ``python -m timeit``'s ``200000 loops, best of 5: 1.17 usec per loop`` print the
  minimum of the runs only. "The slowest run took 8.67 times longer than the fastest"
  gives max/min.
* pyperf ``compare_to``: ``Mean +- std dev: [ref] 709 ms +- 62 ms -> [new] 674 ms +-
  59 ms: 1.05x faster`` (the ratio of the unrounded means), optionally after a name,
  ``- name:`` (``--group-by-speed``) or a ``### name ###`` title; ``pyperf show``:
  ``Mean +- std dev: 22.5 ms +- 0.2 ms``. The sd is over all values of all worker
  processes (20 × 3 by default) pooled; n is not printed.
* pytest-benchmark's terminal table: ``Name (time in us)  Min  Max  Mean  StdDev  Median
  IQR  Outliers  OPS  Rounds  Iterations``; each statistic followed by its ratio to the
  best row in parentheses; Rounds = n, Iterations = evaluations per round.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from tsanalyze.io.audit_text._scan import NUM, Scan, Table, clean_number

__all__ = ["read_pyperf", "read_pytest_benchmark", "read_timeit"]

_TU = r"(?:ns|nsec|µs|μs|us|usec|ms|msec|s|sec)"
_TIMEIT = re.compile(
    rf"(?P<loc>{NUM})\s*(?P<u>{_TU})\s*±\s*(?P<sd>{NUM})\s*(?P<su>{_TU})\s+per loop\s*"
    r"\(mean\s*±\s*std\.?\s*dev\.?\s*of\s*(?P<runs>[\d,]+)\s*runs?,\s*(?P<loops>[\d,]+)\s*loops?\s*each\)"
)
_BEST = re.compile(
    rf"(?P<loops>[\d,]+)\s*loops?,\s*best of\s*(?P<runs>\d+):\s*(?P<loc>{NUM})\s*(?P<u>{_TU})\s*per loop"
)
_SLOWEST = re.compile(rf"slowest run took\s*(?P<x>{NUM})\s*times longer than the fastest")
_TIMEIT_NAME = re.compile(r"(?:%%?timeit|-m\s+timeit)\s+(?P<expr>.+?)\s*$")
#: options of %timeit / python -m timeit that take a value
_TIMEIT_OPTS = frozenset({"-n", "-r", "-s", "-u", "--number", "--repeat", "--setup", "--unit"})

_PV = rf"(?P<{{0}}>{NUM})\s*(?P<{{0}}u>{_TU})\s*\+-\s*(?P<{{0}}sd>{NUM})\s*(?P<{{0}}su>{_TU})"
_PYPERF = re.compile(
    r"^\s*(?:-\s+)?(?:(?P<name>.+?):\s+)??(?:(?P<what>Mean|Median) \+- (?:std dev|MAD):\s*)?"
    r"(?:\[(?P<refname>[^\]]+)\]\s*)?" + _PV.format("a")
    + r"(?:\s*->\s*(?:\[(?P<newname>[^\]]+)\]\s*)?" + _PV.format("b")
    + rf":\s*(?:(?P<ratio>{NUM})x (?P<dir>faster|slower)|(?P<nochange>no change)))?"
    + r"(?:\s*\(\s*[-+]?\d+%\))?\s*$"
)  # fmt: skip
_TITLE = re.compile(r"^\s*#{2,}\s*(?P<name>.+?)\s*#{2,}\s*$")

_PB_HEADER = re.compile(r"^\s*Name \(time in (?P<unit>\w*?)s\)\s+(?P<cols>.+?)\s*$")
_PB_GROUP = re.compile(r"^-*\s*benchmark(?: '(?P<group>.*)')?: \d+ tests?\s*-*$")
_PB_RATIO = re.compile(r"\((?:[\d.,]+|>1000\.0|inf)\)")
_PB_COLUMNS = {"Min": "min", "Max": "max", "Mean": "mean", "StdDev": "stddev",
               "Median": "median", "Rounds": "n", "Iterations": "evals"}  # fmt: skip


def read_timeit(scan: Scan) -> list[Table]:
    """``%timeit`` and ``python -m timeit`` result lines."""
    table = Table("timeit", None)
    name: str | None = None
    last: dict[str, Any] | None = None
    for lineno, line in scan.numbered():
        nm = _TIMEIT_NAME.search(line)
        if nm is not None and "per loop" not in line:
            name = _timeit_statement(nm.group(0))
            scan.take(lineno)
            continue
        row: dict[str, Any] | None = None
        if (m := _TIMEIT.search(line)) is not None:
            row = {"location": clean_number(m.group("loc")), "unit": m.group("u"),
                   "location_kind": "mean", "spread": clean_number(m.group("sd")),
                   "spread_unit": m.group("su"), "spread_kind": "sd"}  # fmt: skip
        elif (m := _BEST.search(line)) is not None:
            row = {"location": clean_number(m.group("loc")), "unit": m.group("u"),
                   "location_kind": "min"}  # fmt: skip
        elif (s := _SLOWEST.search(line)) is not None:
            scan.take(lineno)
            if last is not None and last["location_kind"] == "min":
                last["max"] = f"{float(last['location']) * float(s.group('x')):.6g}"
                last["min"] = last["location"]
            continue
        if row is None or m is None:
            continue
        row.update(
            n=int(clean_number(m.group("runs"))),
            evals=int(clean_number(m.group("loops"))),
            scope="one-process",
            tool="timeit",
            source=scan.where(lineno),
            name=name or f"timeit {len(table.rows) + 1}",
        )
        if any(r["name"] == row["name"] for r in table.rows):
            row["name"] = f"{row['name']} #{len(table.rows) + 1}"
        table.rows.append(row)
        last, name = row, None
        scan.take(lineno)
        scan.found("timeit")
    return [table] if table.rows else []


def _timeit_statement(command: str) -> str:
    """The timed statement of a ``%timeit ...`` / ``python -m timeit ...`` command."""
    text = re.sub(r"^.*?(?:%%?timeit|-m\s+timeit)\s+", "", command)
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    out: list[str] = []
    skip = False
    for tok in tokens:
        if skip:
            skip = False
        elif tok in _TIMEIT_OPTS:
            skip = True
        elif re.fullmatch(r"-[nrsu]\S+|-[pvoqc]|--\w+(=\S*)?", tok) is None:
            out.append(tok)
    return " ".join(out) or text


def read_pyperf(scan: Scan) -> list[Table]:
    """pyperf ``compare_to`` / ``show`` lines (see the module docstring)."""
    table = Table("pyperf", None)
    title: str | None = None
    previous: dict[str, Any] | None = None
    unnamed = 0
    for lineno, line in scan.numbered():
        stripped = line.strip()
        if (t := _TITLE.match(line)) is not None:
            title = t.group("name")
            scan.take(lineno)
            continue
        if stripped in ("Not significant!", "Significant") or stripped.startswith(
            "Significant (t="
        ):
            scan.take(lineno)
            if previous is not None and stripped == "Not significant!":
                previous["claim"] = "same"
            continue
        if stripped.startswith("Benchmark hidden because not significant"):
            scan.take(lineno)
            scan.note("not-shown", "info", f"{scan.where(lineno)}: pyperf hid benchmarks it found "
                      f"not significant (no numbers printed): {stripped.split(':', 1)[-1].strip()}")  # fmt: skip
            continue
        if stripped.rstrip(":").split(" (")[0] in ("Slower", "Faster", "Same speed"):
            scan.take(lineno)
            continue
        if "+-" not in line:
            continue
        m = _PYPERF.match(line)
        if m is None or (m.group("what") is None and m.group("b") is None):
            continue
        if m.group("what") == "Median":
            scan.note("line-skipped", "info", f"{scan.where(lineno)}: 'Median +- MAD' skipped "
                      "(the audit reads pyperf's mean and sd)")  # fmt: skip
            scan.take(lineno)
            continue
        name = m.group("name") or title
        if name is None:
            unnamed += 1
            name = f"benchmark {unnamed}"
        title = None
        scan.take(lineno)
        scan.found("pyperf")
        base = _pyperf_row(m, "a", scan.where(lineno))
        if m.group("b") is None:
            base["name"] = name
            table.rows.append(base)
            continue
        ref, new = m.group("refname") or "ref", m.group("newname") or "changed"
        base["name"] = f"{name} [{ref}]"
        changed = _pyperf_row(m, "b", scan.where(lineno))
        changed.update(name=f"{name} [{new}]", compare_to=base["name"], claim_estimator="mean")
        if m.group("nochange"):
            changed["claim"] = "same"
        else:
            changed["claim"] = f"{clean_number(m.group('ratio'))}x {m.group('dir')}"
        table.rows.extend([base, changed])
        previous = changed
    return [table] if table.rows else []


def _pyperf_row(m: re.Match[str], side: str, source: str) -> dict[str, Any]:
    return {
        "location": clean_number(m.group(side)),
        "unit": m.group(side + "u"),
        "location_kind": "mean",
        "spread": clean_number(m.group(side + "sd")),
        "spread_unit": m.group(side + "su"),
        "spread_kind": "sd",
        "scope": "pooled-processes",
        "batched": True,
        "tool": "pyperf",
        "source": source,
    }


def read_pytest_benchmark(scan: Scan) -> list[Table]:
    """pytest-benchmark's terminal tables (one per group)."""
    tables: list[Table] = []
    columns: list[str] | None = None
    unit = "s"
    group: str | None = None
    for lineno, line in scan.numbered():
        stripped = line.strip()
        if (g := _PB_GROUP.match(stripped)) is not None:
            group = g.group("group")
            columns = None
            scan.take(lineno)
            continue
        if (h := _PB_HEADER.match(line)) is not None:
            unit = (h.group("unit") or "") + "s"
            columns = re.split(r"\s{2,}", h.group("cols").strip())
            columns = [c.split(" (")[0].strip() for c in columns]
            tables.append(Table("pytest-benchmark", group or f"table {len(tables) + 1}"))
            scan.take(lineno)
            scan.found("pytest-benchmark")
            continue
        if columns is None or not stripped:
            continue
        if set(stripped) <= {"-"} or stripped.startswith(("Legend:", "Outliers:", "OPS:")):
            scan.take(lineno)
            if stripped.startswith("Legend"):
                columns = None
            continue
        tokens = _PB_RATIO.sub(" ", stripped).split()
        if len(tokens) <= len(columns):
            scan.skip(lineno, f"expected a name and {len(columns)} columns")
            continue
        values = dict(zip(columns, tokens[-len(columns) :], strict=True))
        row: dict[str, Any] = {
            "name": " ".join(tokens[: -len(columns)]),
            "unit": unit,
            "scope": "one-process",
            "tool": "pytest-benchmark",
            "source": scan.where(lineno),
        }
        for col, value in values.items():
            key = _PB_COLUMNS.get(col)
            if key == "stddev":
                row.update(spread=clean_number(value), spread_kind="sd", spread_unit=unit)
            elif key in ("n", "evals"):
                row[key] = clean_number(value)
            elif key is not None:
                row[key] = clean_number(value)
        if "mean" not in row and "median" not in row and "min" not in row:
            scan.skip(lineno, "no Mean, Median or Min column")
            continue
        row["location_kind"] = "mean" if "mean" in row else ("median" if "median" in row else "min")
        scan.take(lineno)
        tables[-1].rows.append(row)
    return [t for t in tables if t.rows]
