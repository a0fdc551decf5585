"""Published benchmark results read from text pasted as the tools print it.

One reader per tool family, each taking the lines it recognises (:mod:`.go`: benchstat
v1/v2 and ``go test -bench``; :mod:`.julia`: BenchmarkTools displays and ``@btime``;
:mod:`.python`: ``%timeit``, pyperf, pytest-benchmark; :mod:`.rust`: libtest and
criterion; :mod:`.jmh`; :mod:`.hyperfine`; :mod:`.gbench`). Every row keeps the digits
the tool printed and says which conventions apply (what ± is, what n is, whether the
clock is read per batch, what the spread covers), so that
:func:`tsanalyze.audit` can apply them.

An unreadable line is skipped with a warning naming it; two pasted tables that use the
same benchmark names become two groups, the later one prefixed with its table label. A
benchmark the text reports as failed (Google Benchmark's ``ERROR OCCURRED``, ``go test``'s
``--- FAIL: BenchmarkX``, JMH's ``<failure>``, hyperfine's ``Ignoring non-zero exit
code``) is named in a warning (code ``benchmark-failed``): it has no row, or its row
timed a failing command.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from tsanalyze._result import Finding
from tsanalyze.errors import AuditInputError
from tsanalyze.io.audit_text._scan import Scan, Table, one_line
from tsanalyze.io.audit_text.gbench import read_gbench
from tsanalyze.io.audit_text.go import read_benchstat, read_go_test
from tsanalyze.io.audit_text.hyperfine import read_hyperfine
from tsanalyze.io.audit_text.jmh import read_jmh
from tsanalyze.io.audit_text.julia import read_benchmarktools
from tsanalyze.io.audit_text.python import read_pyperf, read_pytest_benchmark, read_timeit
from tsanalyze.io.audit_text.rust import read_criterion, read_libtest

__all__ = ["TextRows", "read_text"]

#: the readers, most specific first (benchstat's "name value ± spread" is the catch-all)
_READERS: tuple[Callable[[Scan], list[Table]], ...] = (
    read_benchmarktools,
    read_timeit,
    read_pyperf,
    read_pytest_benchmark,
    read_hyperfine,
    read_jmh,
    read_criterion,
    read_libtest,
    read_gbench,
    read_go_test,
)
_SPREAD_MARKS = ("±", "+-", "+/-")
_GBENCH_ERROR = re.compile(r"^\s*(?P<name>\S+)\s+ERROR OCCURRED:\s*(?P<why>.*?)\s*$")
_GO_FAIL = re.compile(r"^\s*--- FAIL: Benchmark(?P<name>\S*)")
_HYPERFINE_BENCH = re.compile(r"^Benchmark \d+: (?P<name>.+?)\s*$")
_JMH_BENCH = re.compile(r"^# Benchmark: (?P<name>\S+)")


@dataclasses.dataclass(frozen=True, slots=True)
class TextRows:
    """Rows read from a text, the notes on it, and the formats recognised."""

    rows: list[dict[str, Any]]
    notes: tuple[Finding, ...]
    formats: tuple[str, ...]


def read_text(text: str, source: str = "<text>", *, spread_kind: str | None = None) -> TextRows:
    """Read every benchmark result in a pasted text (see the module docstring).

    Parameters
    ----------
    text : str
        The text as printed (any mix of the supported tools' output).
    source : str
        File name (or other label) for ``source`` fields and messages.
    spread_kind : {"range", "sd", "ci"}, optional
        What benchstat's ``±`` means when the table does not say (default: ``ci`` for v2
        tables, ``range`` for v1).

    Returns
    -------
    TextRows

    Raises
    ------
    AuditInputError
        No result line of any known format was found.
    """
    scan = Scan(source, text.splitlines())
    tables: list[Table] = []
    for reader in _READERS:
        tables.extend(reader(scan))
    tables.extend(read_benchstat(scan, spread_kind))
    _failures(scan)
    for lineno, line in scan.numbered():
        if any(mark in line for mark in _SPREAD_MARKS):
            scan.skip(lineno, "not a result line of any known tool")
    rows = _merge(tables)
    for row in rows:
        _tidy(row)
    if not rows:
        skipped = sum(1 for n in scan.notes if n.code == "line-skipped")
        why = (
            f"; {skipped} line(s) could not be read, the first: {scan.notes[0].message}"
            if skipped
            else ""
        )
        raise AuditInputError(f"{source}: no benchmark result found in any known format{why}"[:400])
    return TextRows(rows, tuple(scan.notes), tuple(scan.formats))


def _failures(scan: Scan) -> None:
    """A warning for every benchmark the text reports as failed."""
    command: str | None = None  # the hyperfine benchmark being printed
    jmh: str | None = None  # the JMH benchmark being run
    jmh_failed: set[str] = set()
    for lineno, line in enumerate(scan.lines, start=1):
        if (m := _HYPERFINE_BENCH.match(line)) is not None:
            command = m.group("name")
            continue
        if (m := _JMH_BENCH.match(line)) is not None:
            jmh = m.group("name")
            continue
        what: str | None = None
        if (m := _GBENCH_ERROR.match(line)) is not None:
            what = f"benchmark {m.group('name')!r} failed ({m.group('why')}); it has no row"
        elif (m := _GO_FAIL.match(line)) is not None:
            name = m.group("name") or "Benchmark"
            what = f"benchmark {name!r} failed (go test '--- FAIL'); it has no row"
        elif line.rstrip().endswith("<failure>") and jmh is not None and jmh not in jmh_failed:
            jmh_failed.add(jmh)
            what = f"benchmark {jmh!r} failed (JMH '<failure>'); it has no row"
        elif "Ignoring non-zero exit code" in line and command is not None:
            what = (
                f"command {command!r} exited with a non-zero code (hyperfine -i): its times "
                "are of a failing run"
            )
        if what is not None:
            scan.take(lineno)
            scan.note("benchmark-failed", "warning", f"{scan.where(lineno)}: {one_line(what, 200)}")


def _merge(tables: list[Table]) -> list[dict[str, Any]]:
    """Rows of all tables; a table reusing names of an earlier one is prefixed."""
    labels = Counter(t.label for t in tables)
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for k, t in enumerate(tables, start=1):
        names = {r["name"] for r in t.rows}
        if names & seen:
            prefix = t.label if t.label and labels[t.label] == 1 else f"table {k}"
            rename = {n: f"{prefix}: {n}" for n in names}
            for r in t.rows:
                r["name"] = rename[r["name"]]
                if r.get("compare_to") in rename:
                    r["compare_to"] = rename[r["compare_to"]]
            names = set(rename.values())
        seen |= names
        out.extend(t.rows)
    return out


def _tidy(row: dict[str, Any]) -> None:
    """Drop optional estimators a tool printed as 0 (below its display precision)."""
    for key in ("min", "max", "median"):
        v = row.get(key)
        if v is None:
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if not math.isfinite(f) or f <= 0:
            row.pop(key)
