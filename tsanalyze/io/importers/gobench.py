"""Go benchmark text: ``go test -bench`` output, the input format of benchstat.

Format (golang.org/x/perf ``benchfmt``, the Go benchmark data format proposal 14313):

* a *configuration line* ``key: value`` (the key starts with a lower-case letter and has
  no spaces or upper-case letters) sets a key for the lines that follow (``goos``,
  ``goarch``, ``pkg``, ``cpu``, ``note`` ...); an empty value removes the key;
* a *benchmark line* ``Benchmark<Name>-<P>  <N>  <value> <unit>  [<value> <unit> ...]``:
  ``N`` iterations, then value/unit pairs (``ns/op``, ``B/op``, ``allocs/op``,
  ``MB/s``, custom units);
* ``Unit <unit> <key>=<value>`` lines annotate units; every other line (``PASS``,
  ``ok``, logs, blank lines) is ignored.

Mapping to the run format
-------------------------
* one tsanalyze run per distinct configuration (so ``note: before`` / ``note: after``
  blocks, or several ``pkg`` blocks, become separate runs), in order of appearance;
* benchmark = the name without the ``Benchmark`` prefix, keeping the ``-P``
  (GOMAXPROCS) suffix, as benchstat shows it;
* ``evals = N``; ``ns/op`` (or ``sec/op``) is the per-evaluation time, so ``ns`` is
  ``value * N``;
* every other unit becomes a float column: ``B/op`` -> ``bytes_per_op``,
  ``allocs/op`` -> ``allocs_per_op``, ``MB/s`` -> ``mb_per_s``, other units their
  name made identifier-safe (``text-bytes`` -> ``text_bytes``); a unit named like a
  run-format column (``ns``, ``evals``, ``run``, ``kind``...) gets a ``unit_`` prefix,
  and two units with the same identifier a numeric suffix, so no measure replaces a
  column or another measure;
* lines without a time unit are skipped (their measures are not timings); a file with
  no timed line at all is an error. A time <= 0 is an error (the run format needs
  times > 0);
* ``go test -bench -json`` output (test2json: one JSON event a line) is read as the text
  its ``output`` events hold, concatenated per package (a result line may be split over
  two events);
* a benchmark ``go test`` reports as failed (``--- FAIL: BenchmarkName-P`` followed by
  its indented log lines; it prints no result line) is named, with the first log line,
  in a note (a warning of ``tsanalyze import``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze._units import name_some, parse_unit
from tsanalyze.io.importers._builder import RunBuilder, extra_columns, identifier
from tsanalyze.io.importers._files import fail, file_mtime_utc, open_text
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import MAX_COUNT

__all__ = ["GoBenchImporter", "unit_column", "unit_columns"]

_CONFIG = re.compile(r"^([a-z][^\sA-Z:]*):(?:[ \t]+(.*?))?\s*$")
_BENCH = re.compile(r"^Benchmark(?:$|[^a-z])")
_FAIL = re.compile(r"^\s*--- FAIL: (Benchmark\S*)")
_FAIL_LINE = re.compile(r"^\s*--- FAIL: Benchmark", re.MULTILINE)
_BENCH_LINE = re.compile(
    r"^Benchmark(?:[^a-z\s]\S*)?\s+\d+\s+[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s+\S",
    re.MULTILINE,
)
#: the only time units Go prints (``sec/op`` from benchstat); other units are measures
_TIME_UNITS = {u: parse_unit(u) for u in ("ns/op", "sec/op")}
_KNOWN = {"B/op": "bytes_per_op", "allocs/op": "allocs_per_op", "MB/s": "mb_per_s"}


def _is_test2json(text: str) -> bool:
    """Whether ``text`` is ``go test -json`` output: its first line a test2json event."""
    first = text.lstrip().split("\n", 1)[0]
    if not first.startswith("{"):
        return False
    try:
        event = json.loads(first)
    except ValueError:
        return False
    return isinstance(event, dict) and isinstance(event.get("Action"), str)


def _test2json_text(text: str) -> str:
    """The text of the ``output`` events of ``go test -json`` output, concatenated per
    package in order of appearance (lines that are not events, such as a truncated last
    line, are left out)."""
    parts: dict[str, list[str]] = {}
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("Action") == "output":
            out = event.get("Output")
            if isinstance(out, str):
                parts.setdefault(str(event.get("Package", "")), []).append(out)
    return "".join("".join(p) if not p or p[-1].endswith("\n") else "".join(p) + "\n"
                   for p in parts.values())  # fmt: skip


def unit_column(unit: str) -> str:
    """Identifier-safe column name of a Go benchmark unit (``B/op`` -> ``bytes_per_op``).

    Names that would be a run-format column are resolved by
    :func:`~tsanalyze.io.importers._builder.extra_columns` (``ns`` -> ``unit_ns``).
    """
    if unit in _KNOWN:
        return _KNOWN[unit]
    return identifier(unit.replace("/", "_per_"))


def unit_columns(units: list[str]) -> dict[str, str]:
    """Distinct column names of the units of a file: a unit named like a run-format column
    (``ns``, ``evals``, ``run``, ...) or two units with one identifier (``a/b``,
    ``a_per_b``) never share or replace a column."""
    return extra_columns(units, clash_prefix="unit_", to_identifier=unit_column)


class GoBenchImporter:
    """Importer of Go benchmark text (see the module docstring).

    References
    ----------
    Go proposal 14313, "Go benchmark data format" (golang.org/design/14313-benchmark-format); golang.org/x/perf ``benchfmt``.
    """

    name = "gobench"
    tool = "go"
    description = "Go benchmark text (go test -bench output, benchstat input)"

    def sniff(self, path: Path, head: str) -> bool:
        if _is_test2json(head):
            return _BENCH_LINE.search(_test2json_text(head)) is not None
        if head.lstrip().startswith(("{", "[")):
            return False
        # a run whose every benchmark failed has only '--- FAIL: Benchmark...' lines
        return _BENCH_LINE.search(head) is not None or _FAIL_LINE.search(head) is not None

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("gobench", options)
        text = open_text(path)
        if _is_test2json(text):
            text = _test2json_text(text)
        config: dict[str, str] = {}
        # configuration (as a tuple) -> list of (lineno, name, iters, {unit: value})
        groups: dict[tuple[tuple[str, str], ...], list[tuple[int, str, int, dict[str, float]]]] = {}
        shown: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}  # in file order
        units_seen: set[str] = set()
        unit_notes: dict[str, str] = {}
        failed: dict[str, str] = {}  # benchmark -> first log line of its failure
        failing: str | None = None  # the failure whose log lines follow
        for lineno, line in enumerate(text.splitlines(), start=1):
            if failing is not None:
                if line.startswith("    ") and line.strip():
                    failed[failing] = failed[failing] or line.strip()
                    continue
                failing = None
            fm = _FAIL.match(line)
            if fm:
                failing = fm.group(1)[len("Benchmark") :] or fm.group(1)
                failed.setdefault(failing, "")
                continue
            if _BENCH.match(line):
                fields = line.split()
                if len(fields) == 1:
                    continue  # a name printed before the benchmark's own log output
                # benchstat drops the prefix; a function named just "Benchmark" keeps it
                name = fields[0][len("Benchmark") :] or fields[0]
                if not (fields[1].isascii() and fields[1].isdigit()):
                    raise fail(
                        path,
                        f"line {lineno}",
                        f"expected the iteration count (an integer) after {fields[0]!r}, got {fields[1]!r}",
                    )
                iters = int(fields[1]) if len(fields[1]) <= 19 else MAX_COUNT + 1
                if not 1 <= iters <= MAX_COUNT:
                    raise fail(
                        path,
                        f"line {lineno}",
                        f"expected an iteration count from 1 to {MAX_COUNT}, got {fields[1][:30]}",
                    )
                rest = fields[2:]
                if not rest or len(rest) % 2:
                    raise fail(
                        path,
                        f"line {lineno}",
                        "expected '<value> <unit>' pairs after the iteration count (line truncated?)",
                    )
                measures: dict[str, float] = {}
                for i in range(0, len(rest), 2):
                    try:
                        value = float(rest[i])
                    except ValueError:
                        raise fail(
                            path,
                            f"line {lineno}",
                            f"expected a number before unit {rest[i + 1]!r}, got {rest[i]!r}",
                        ) from None
                    if not np.isfinite(value):
                        raise fail(
                            path, f"line {lineno}", f"expected a finite number, got {rest[i]!r}"
                        )
                    if rest[i + 1] in measures:  # which of the two is the sample's?
                        raise fail(path, f"line {lineno}", f"unit {rest[i + 1]!r} given twice")
                    measures[rest[i + 1]] = value
                key = tuple(sorted(config.items()))
                shown.setdefault(key, dict(config))
                groups.setdefault(key, []).append((lineno, name, iters, measures))
                units_seen.update(measures)
                continue
            if line.startswith("Unit "):
                parts = line.split()
                if len(parts) >= 2:
                    unit_notes[parts[1]] = " ".join(parts[2:])
                continue
            m = _CONFIG.match(line)
            if m:
                key_, value_ = m.group(1), (m.group(2) or "")
                if value_:
                    config.pop(key_, None)
                    config[key_] = value_
                else:
                    config.pop(key_, None)
        if not groups:
            raise fail(
                path,
                "",
                "expected Go benchmark lines ('BenchmarkName  N  value unit ...'), found none"
                + (
                    f"; go test reports {len(failed)} failed benchmark(s): {name_some(failed)}"
                    if failed
                    else ""
                ),
            )
        time_units = [u for u in _TIME_UNITS if u in units_seen]
        if not time_units:
            raise fail(
                path,
                "",
                f"expected a time unit (ns/op or sec/op) on benchmark lines, found only {sorted(units_seen)}",
            )
        extra_units = sorted(u for u in units_seen if u not in _TIME_UNITS)
        columns = unit_columns(extra_units)
        builder = RunBuilder(path, extra=list(columns.values()))
        created = file_mtime_utc(path)
        n_runs = 0
        for key, rows in groups.items():
            cfg = shown[key]
            # one chunk per benchmark (its samples in file order): far fewer, larger arrays
            series: dict[str, tuple[list[float], list[int], dict[str, list[float]]]] = {}
            for lineno, name, iters, measures in rows:
                unit = next((u for u in _TIME_UNITS if u in measures), None)
                if unit is None:
                    continue
                per_eval = measures[unit] * _TIME_UNITS[unit]
                if per_eval <= 0:
                    raise fail(
                        path,
                        f"line {lineno}",
                        f"expected a time > 0 {unit}, got {measures[unit]!r}",
                    )
                times, counts, extra = series.setdefault(name, ([], [], {}))
                for u, col in columns.items():
                    extra.setdefault(col, [np.nan] * len(times)).append(measures.get(u, np.nan))
                times.append(per_eval)
                counts.append(iters)
            for name, (times, counts, extra) in series.items():
                builder.add(
                    name,
                    np.asarray(times),
                    np.asarray(counts, dtype=np.int64),
                    **{col: np.asarray(v) for col, v in extra.items()},
                )
            names = list(series)
            if not names:
                continue
            builder.finish_imported(
                n_runs,
                tool="go",
                created_utc=created,
                spec=names,
                version=cfg.get("go"),
                host={"cpu_model": cfg.get("cpu")},
                tool_metadata={"configuration": cfg, "units": unit_notes}
                if unit_notes
                else {"configuration": cfg},
            )
            n_runs += 1
        notes = [
            f"{path}: benchmark {name!r} failed (go test '--- FAIL'"
            + (f": {why[:200]}" if why else "")
            + "); no result to import"
            for name, why in failed.items()
        ]
        runs = builder.build(notes)
        if not runs.metadata:
            raise fail(
                path, "", "expected at least one benchmark line with a time (ns/op or sec/op)"
            )
        return runs
