"""Google Benchmark JSON (``--benchmark_format=json`` / ``--benchmark_out=FILE``) and CSV
(``--benchmark_out_format=csv``).

Layout (google/benchmark ``JSONReporter``): ``{"context": {"date", "host_name",
"executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches",
"library_build_type", ...}, "benchmarks": [{"name", "run_name", "run_type":
"iteration"|"aggregate", "repetitions", "repetition_index", "threads", "iterations",
"real_time", "cpu_time", "time_unit": "ns"|"us"|"ms"|"s", ...}]}``. ``real_time`` and
``cpu_time`` are per-iteration times in ``time_unit``.

Mapping to the run format
-------------------------
* one tsanalyze run per file (one benchmark binary run); benchmark = ``run_name``
  (``name`` for files written before ``run_name`` existed);
* one sample per repetition (``run_type == "iteration"``), ``evals = iterations``,
  per-evaluation time = ``real_time`` (wall clock), so ``ns = real_time * iterations``
  converted to ns; ``cpu_time`` is kept as the extra column ``cpu_ns`` (per evaluation);
* user counters (``bytes_per_second``, ``items_per_second``, custom ``state.counters``)
  become float columns under their (identifier-safe) names, and ``threads`` a column
  when a benchmark ran on several threads;
* aggregates (``run_type == "aggregate"``: mean, median, stddev, cv, BigO, RMS) are not
  samples: they are kept apart in ``source.metadata.aggregates``; entries with
  ``error_occurred`` (``state.SkipWithError``) or ``skipped`` (``state.SkipWithMessage``,
  version 1.8) are not samples: they are listed in ``source.metadata.errors`` and named in
  a note (a warning of ``tsanalyze import``) with their message.

The CSV output (google/benchmark ``CSVReporter``) has the header ``name,iterations,
real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,
error_message`` and one quoted column per user counter; aggregates are the rows named
``<name>_mean`` etc., the context goes to stderr. Its rows are read as the JSON entries
(without ``run_type``, so aggregates are known by their suffix); messages name the line
and the column.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze._units import parse_unit
from tsanalyze.io.importers._builder import RunBuilder, extra_columns
from tsanalyze.io.importers._files import fail, file_mtime_utc, open_text
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json
from tsanalyze.io.importers._metadata import count_field, parse_timestamp, text_field
from tsanalyze.io.importers.gobench import unit_column

__all__ = ["GoogleBenchmarkImporter"]

#: the ``time_unit`` values Google Benchmark writes (converted by the one unit table)
_TIME_UNIT_NAMES = ("ns", "us", "ms", "s")
_AGG_SUFFIXES = ("_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS")
#: the first columns of Google Benchmark's CSV output
_CSV_HEADER = "name,iterations,real_time,cpu_time,time_unit"
#: keys of a benchmark entry that are not user counters
_KNOWN_KEYS = frozenset(
    {
        "name",
        "family_index",
        "per_family_instance_index",
        "run_name",
        "run_type",
        "repetitions",
        "repetition_index",
        "threads",
        "iterations",
        "real_time",
        "cpu_time",
        "time_unit",
        "aggregate_name",
        "aggregate_unit",
        "error_occurred",
        "error_message",
        "skipped",
        "skip_message",
        "label",
        "function_name",
        "arguments",
        "big_o",
        "complexity_n",
        "rms",
    }
)


class GoogleBenchmarkImporter:
    """Importer of Google Benchmark JSON output (see the module docstring).

    References
    ----------
    Google Benchmark user guide, "Output Formats" and ``src/json_reporter.cc`` (github.com/google/benchmark).
    """

    name = "gbench"
    tool = "google-benchmark"
    description = "Google Benchmark JSON or CSV (--benchmark_out_format=json|csv)"

    def sniff(self, path: Path, head: str) -> bool:
        if head.lstrip("\ufeff").startswith(_CSV_HEADER):
            return True
        return looks_like_json(
            head, "{", "benchmarks", any_of=("real_time", "time_unit", "num_cpus")
        )

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("gbench", options)
        text = open_text(path)
        if text.startswith(_CSV_HEADER):
            context: dict[str, Any] = {}
            entries = _csv_entries(path, text)
        else:
            root = JsonPath(path, read_json(path))
            ctx_p = root.key("context", required=False)
            context = ctx_p.obj() if ctx_p.value is not None else {}
            entries = root.key("benchmarks").items()
        rows: list[tuple[str, float, int, float, dict[str, float]]] = []
        aggregates: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        names: list[str] = []
        for entry in entries:
            obj = entry.obj()
            name = entry.key("name").str()
            run_type = obj.get("run_type")
            if run_type == "aggregate" or (
                run_type is None and ("aggregate_name" in obj or name.endswith(_AGG_SUFFIXES))
            ):
                aggregates.append(
                    {k: v for k, v in obj.items() if isinstance(v, (str, int, float, bool))}
                )
                continue
            if run_type not in (None, "iteration"):
                raise entry.key("run_type").error(
                    f"expected 'iteration' or 'aggregate', got {run_type!r}"
                )
            if obj.get("error_occurred") or obj.get("skipped") is True:
                failed = bool(obj.get("error_occurred"))
                message = obj.get("error_message" if failed else "skip_message")
                errors.append(
                    {"name": name, "message": message if isinstance(message, str) else None}
                    | ({} if failed else {"skipped": True})
                )
                continue
            unit = entry.key("time_unit", required=False).str(default="ns")
            try:
                scale = parse_unit(unit)
            except (TypeError, ValueError):
                raise entry.key("time_unit").error(
                    f"expected one of {list(_TIME_UNIT_NAMES)}, got {unit!r}"
                ) from None
            run_name = obj.get("run_name")
            bench = run_name if isinstance(run_name, str) and run_name else name
            iters = entry.key("iterations").integer(minimum=1)
            real = entry.key("real_time").number(positive=True)
            cpu_p = entry.key("cpu_time", required=False)
            cpu = cpu_p.number(non_negative=True) * scale if cpu_p.value is not None else np.nan
            counters = {
                k: _counter(v)
                for k, v in obj.items()
                if k not in _KNOWN_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool)
            }
            threads = obj.get("threads", 1)
            if isinstance(threads, int) and not isinstance(threads, bool) and threads != 1:
                counters["threads"] = float(threads)
            rows.append((bench, real * scale, iters, cpu, counters))
            if bench not in names:
                names.append(bench)
        if not names and errors and not aggregates:
            shown = "; ".join(_what_happened(e) for e in errors[:3])
            raise fail(
                path,
                "$.benchmarks",
                f"expected at least one timed benchmark; every one of the {len(errors)} was "
                f"skipped or failed: {shown}" + ("; ..." if len(errors) > 3 else ""),
            )
        if not names:
            raise fail(
                path,
                "$.benchmarks",
                "expected at least one entry with run_type 'iteration' (found only aggregates or "
                "errors); a file written with --benchmark_report_aggregates_only holds summaries: "
                f"audit them with `tsanalyze audit {path}`, or re-run without that option",
            )
        # one column per counter: a counter named like a run-format column, cpu_ns or
        # another counter (B/s and B_per_s) gets a counter_ prefix (or a suffix)
        columns = extra_columns(
            dict.fromkeys(k for *_, counters in rows for k in counters),
            clash_prefix="counter_",
            taken=("cpu_ns",),
            to_identifier=unit_column,
        )
        builder = RunBuilder(path, extra=["cpu_ns", *columns.values()])
        for bench, real_ns, iters, cpu, counters in rows:
            extra = {columns[k]: np.asarray([v]) for k, v in counters.items()}
            builder.add(bench, np.asarray([real_ns]), iters, cpu_ns=np.asarray([cpu]), **extra)
        created = parse_timestamp(context.get("date")) or file_mtime_utc(path)
        tool_meta: dict[str, Any] = {"context": context}
        if aggregates:
            tool_meta["aggregates"] = aggregates
        if errors:
            tool_meta["errors"] = errors
        builder.finish_imported(
            0,
            tool="google-benchmark",
            created_utc=created,
            spec=names,
            version=text_field(context, "library_version"),
            host={"logical_cores": count_field(context, "num_cpus")},
            tool_metadata=tool_meta,
        )
        notes = [f"{path}: benchmark {_what_happened(e)}; not imported" for e in errors]
        return builder.build(notes)


def _what_happened(error: dict[str, Any]) -> str:
    """``'name' skipped (message)`` or ``'name' failed (message)`` of an entry that is not
    a sample."""
    how = "skipped" if error.get("skipped") else "failed"
    return f"{error['name']!r} {how} ({error['message'] or 'no message'})"


class _CsvRow(JsonPath):
    """A row of the CSV output as a JSON entry; messages name the line and column."""

    __slots__ = ()

    def key(self, name: str, required: bool = True) -> JsonPath:
        got = super().key(name, required)
        return JsonPath(self.file, got.value, f"{self.path}, column {name!r}")


def _csv_entries(path: Path, text: str) -> list[JsonPath]:
    """The rows of Google Benchmark's CSV output, as JSON entries (numbers parsed, empty
    cells left out, ``error_occurred`` a bool)."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
        out: list[JsonPath] = []
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            where = f"line {reader.line_num}"
            if len(cells) > len(header):
                raise fail(path, where, f"expected {len(header)} fields, got {len(cells)}")
            obj: dict[str, Any] = {}
            for key, cell in zip(header, cells, strict=False):
                if cell == "":
                    continue
                if key in ("name", "time_unit", "label", "error_message"):
                    obj[key] = cell
                elif key == "error_occurred":
                    # CSVReporter writes true for SkipWithError, false for SkipWithMessage
                    obj[key] = cell.strip().lower() == "true"
                    obj["skipped"] = not obj[key]
                else:
                    obj[key] = _csv_number(cell)
            if obj.get("skipped") and "error_message" in obj:
                obj["skip_message"] = obj.pop("error_message")
            out.append(_CsvRow(path, obj, where))
    except csv.Error as exc:
        raise fail(path, f"line {reader.line_num}", f"expected CSV ({exc})") from None
    return out


def _csv_number(cell: str) -> Any:
    """A CSV cell as int or float; the text itself when it is not a number (the entry's
    checks then name it)."""
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return cell


def _counter(v: int | float) -> float:
    """A counter as float (an integer beyond the float range becomes ±inf, not an error:
    counters are kept as they are, they are not timings)."""
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")
