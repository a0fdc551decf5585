"""The tsanalyze run format: columns, metadata keys and version history.

Standard library only, so that the collector can depend on it and nothing else.

A *run* is one collector session or one process of another tool, one row per sample,
tidy. A Parquet file holds one run, or all the runs of one import (the worker processes
of a pyperf file, the forks of a JMH file: the trials of one side). Its file metadata
holds one key, ``tsanalyze``, whose value is a JSON object: the run's metadata described
by :data:`METADATA`, or for several runs ``{"schema_version": 2, "runs": [<run metadata>,
...]}`` (:func:`file_runs` gives the list either way).

Version history
---------------
1 (2026-11)
    First version: columns ``benchmark, run, round, position, sample, evals, ticks,
    start_ticks, ns, work``; metadata ``schema_version, run, created_utc, clock, timer,
    host, target, collector, source, user``. Optional history keys ``commit,
    commit_time, branch, machine, env`` (issue 25) were added within version 1: they are
    optional, so files without them stay valid and older readers ignore them.

Readers accept every version listed here; writers write :data:`SCHEMA_VERSION`. When
a version is added, add an upgrade step to :data:`UPGRADES` that turns a table and
metadata of the previous version into the next one.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from tsanalyze.errors import InvalidRunError

__all__ = [
    "CLOCK_SOURCES",
    "COLUMNS",
    "COLUMN_NAMES",
    "HISTORY_KEYS",
    "MAX_SAMPLE_NS",
    "METADATA",
    "METADATA_KEY",
    "MIN_SAMPLE_NS",
    "REQUIRED_COLUMNS",
    "ROW_KINDS",
    "SCHEMA_VERSION",
    "SUPPORTED_VERSIONS",
    "UPGRADES",
    "ClockSource",
    "Column",
    "MetaKey",
    "RunsAttr",
    "alternatives",
    "check_history",
    "decode_metadata",
    "encode_metadata",
    "file_runs",
    "interleaved",
    "new_metadata",
    "validate",
    "validate_metadata",
]

#: The version writers write.
SCHEMA_VERSION = 2
#: Every version a reader accepts.
SUPPORTED_VERSIONS = (1, 2)
#: Name of the Parquet file-metadata key that holds the JSON metadata.
METADATA_KEY = "tsanalyze"
#: Upgrade steps: ``UPGRADES[v](columns, metadata) -> (columns, metadata)`` of version v+1.
UPGRADES: dict[int, Callable[[dict[str, Any], dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]] = {}


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the run table.

    ``dtype`` names the logical type using pyarrow/pandas spelling (``string``,
    ``int64``, ``int16``, ``float64``); ``nullable`` says whether nulls are allowed.
    """

    name: str
    dtype: str
    nullable: bool
    unit: str
    doc: str
    required: bool = True


COLUMNS: tuple[Column, ...] = (
    Column("benchmark", "string", False, "", "benchmark name (stored as a dictionary)"),
    Column("run", "string", False, "", "run id (UUID4 unless given)"),
    Column("round", "int64", False, "", "round index (equals sample when not interleaved)"),
    Column("position", "int16", False, "", "position of this benchmark inside its round"),
    Column("sample", "int64", False, "", "index of the sample inside its series, from 0"),
    Column("evals", "int64", False, "evaluations", "evaluations in this sample (>= 1)"),
    Column("ticks", "int64", True, "ticks", "raw clock ticks elapsed (null for imports)"),
    Column("start_ticks", "int64", True, "ticks", "raw clock reading at sample start"),
    Column("ns", "float64", False, "ns", "elapsed ns for the sample, before overhead correction"),
    Column("work", "float64", True, "work units", "work amount of the sample (Pilot WPS)", required=False),
    Column("kind", "string", True, "", "imported rows: value, warmup or calibration (null = value)", required=False),
)
#: What an imported row is (column ``kind``); readers keep ``value`` rows unless asked.
ROW_KINDS = ("value", "warmup", "calibration")
#: Largest ``ns`` of one sample: 2**63 ns (292 years), the range of a signed 64-bit
#: nanosecond clock. No clock can have measured more, and sums and squares of times
#: below it stay finite in float64 arithmetic.
MAX_SAMPLE_NS = 2.0**63
#: Smallest time a sample may record: 1e-9 ns, an attosecond. No clock resolves less (a
#: tool's per-operation figure of a dead-code-eliminated loop is still far above it), and
#: times at or above it keep every statistic away from subnormal floats.
MIN_SAMPLE_NS = 1e-9
COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)
REQUIRED_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.required)

#: Clocks the collector reads (``tsanalyze collect --clock``).
ClockSource = Literal["rdtscp", "rdtsc", "cntvct", "clock_gettime", "perf_counter"]
#: Clock sources a run may record (plus ``imported:<tool>`` for imports).
CLOCK_SOURCES = (*get_args(ClockSource), "simulated")

_INT_KINDS = ("int64", "int32", "int16", "int8", "uint8", "uint16", "uint32")


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):  # exact comparison: a 400-digit integer is not converted
        return abs(v) <= sys.float_info.max
    return isinstance(v, float) and math.isfinite(v)


def _positive(v: Any) -> str | None:
    return None if _is_number(v) and v > 0 else "must be a finite number > 0"


def _non_negative(v: Any) -> str | None:
    return None if _is_number(v) and v >= 0 else "must be a finite number >= 0"


def _non_empty_str(v: Any) -> str | None:
    return None if isinstance(v, str) and v else "must be a non-empty string"


def _utc_timestamp(v: Any) -> str | None:
    if isinstance(v, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)", v):
        return None
    return "must be an ISO 8601 UTC timestamp such as 2026-11-22T10:00:00Z"


def _iso_timestamp(v: Any) -> str | None:
    if isinstance(v, str) and re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)", v
    ):
        return None
    return "must be an ISO 8601 timestamp with a zone, such as 2026-11-22T10:00:00+01:00"


def _clock_source(v: Any) -> str | None:
    if v in CLOCK_SOURCES:
        return None
    if isinstance(v, str) and v.startswith("imported:") and len(v) > len("imported:"):
        return None
    return "must be one of " + ", ".join(CLOCK_SOURCES) + " or imported:<tool>"


def _schema_version(v: Any) -> str | None:
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        return "must be a positive integer"
    if v > SCHEMA_VERSION:
        return f"is {v}, newer than this tsanalyze supports ({SCHEMA_VERSION}); upgrade tsanalyze"
    return None


@dataclass(frozen=True, slots=True)
class MetaKey:
    """One metadata key, declared once: dotted path, JSON type, unit, check, meaning."""

    path: str
    type: tuple[type, ...]
    unit: str
    doc: str
    required: bool = False
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)


_num = (int, float)
#: The registry of metadata keys (dotted paths inside the JSON object).
METADATA: tuple[MetaKey, ...] = (
    MetaKey("schema_version", (int,), "", "run-format version of the file", True, _schema_version),
    MetaKey("run", (str,), "", "run id; equals the run column", True, _non_empty_str),
    MetaKey("created_utc", (str,), "", "when the run started (ISO 8601, UTC)", True, _utc_timestamp),
    MetaKey("clock", (dict,), "", "the clock that produced ticks", True),
    MetaKey("clock.source", (str,), "", "rdtscp, rdtsc, cntvct, clock_gettime, perf_counter, simulated, imported:<tool>", True, _clock_source),
    MetaKey("clock.hz", _num, "Hz", "ticks per second (1e9 for ns clocks)", False, _positive),
    MetaKey("clock.calibration", (dict,), "", "how hz was measured: reference clock, window, relative error"),
    MetaKey("clock.invariant_tsc", (bool,), "", "CPU reports constant_tsc and nonstop_tsc"),
    MetaKey("clock.kernel_clocksource", (str,), "", "/sys/.../current_clocksource"),
    MetaKey("timer", (dict,), "", "timer overhead, precision and accuracy"),
    MetaKey("timer.overhead_ticks_min", _num, "ticks", "minimum of back-to-back clock read pairs", False, _non_negative),
    MetaKey("timer.overhead_ticks_median", _num, "ticks", "median of back-to-back clock read pairs", False, _non_negative),
    MetaKey("timer.overhead_ns", _num, "ns", "per-sample overhead subtracted from ns (Ou 2020)", False, _non_negative),
    MetaKey("timer.precision_ns", _num, "ns", "smallest non-zero observable difference", False, _positive),
    MetaKey("timer.accuracy_ns", _num, "ns", "estimated accuracy of one measurement", False, _non_negative),
    MetaKey("host", (dict,), "", "cpu model, logical cores, kernel, governor, python"),
    MetaKey("host.cpu_model", (str,), "", "CPU model name"),
    MetaKey("host.logical_cores", (int,), "cores", "logical CPU count", False, _positive),
    MetaKey("host.kernel", (str,), "", "kernel release"),
    MetaKey("host.governor", (str,), "", "cpufreq scaling governor"),
    MetaKey("host.python", (str,), "", "Python version"),
    MetaKey("target", (dict,), "", "what was timed: kind (python, command, imported) and spec"),
    MetaKey("target.kind", (str,), "", "python, command or imported"),
    MetaKey("target.spec", (dict, list, str), "", "callables, commands or names timed"),
    MetaKey("target.alternatives", (bool,), "", "the benchmarks are alternatives compared with each other by default (true for a collector run of several targets and hyperfine's commands; false: a suite of unrelated benchmarks)"),
    MetaKey("collector", (dict,), "", "collector version, evals method, oracle parameters"),
    MetaKey("collector.version", (str,), "", "tsanalyze version that recorded the run"),
    MetaKey("collector.evals_method", (str,), "", "auto (Algorithm 1 of Chen et al. 2016) or fixed"),
    MetaKey("collector.oracle", (dict,), "", "oracle parameters a, b, j, tau_acc, tau_prec"),
    MetaKey("source", (dict,), "", "for imports: tool, version, original file"),
    MetaKey("source.tool", (str,), "", "tool that wrote the original file"),
    MetaKey("source.version", (str,), "", "that tool's version, if known"),
    MetaKey("source.file", (str,), "", "path of the original file"),
    MetaKey("user", (dict,), "", "free user tags"),
    # history (issue 25): where in a project's history the run was made
    MetaKey("commit", (str,), "", "version-control commit measured (full hash when known)",
            False, _non_empty_str),
    MetaKey("commit_time", (str,), "", "the commit's time (ISO 8601 with a zone); orders a "
            "history, unlike created_utc", False, _iso_timestamp),
    MetaKey("branch", (str,), "", "branch the commit was measured on", False, _non_empty_str),
    MetaKey("machine", (str,), "", "the machine the run ran on (a name or fingerprint)",
            False, _non_empty_str),
    MetaKey("env", (str,), "", "the software environment (interpreter, dependencies)",
            False, _non_empty_str),
)
_BY_PATH = {k.path: k for k in METADATA}
#: the optional top-level keys that place a run in a project's history (issue 25)
HISTORY_KEYS = ("commit", "commit_time", "branch", "machine", "env")


def check_history(values: Mapping[str, Any]) -> list[str]:
    """Every problem with a mapping of history keys (:data:`HISTORY_KEYS`) to their values:
    an unknown key, a value that is not a non-empty string, a ``commit_time`` that is not
    an ISO 8601 timestamp with a zone. Each problem is ``"<key>: <what is wrong>"``."""
    problems = [f"{k}: unknown key (expected one of {', '.join(HISTORY_KEYS)})"
                for k in values if k not in HISTORY_KEYS]  # fmt: skip
    known = {k: v for k, v in values.items() if k in HISTORY_KEYS}
    for problem in validate_metadata(known):
        path, _, what = problem.removeprefix("metadata key ").partition(": ")
        if path in HISTORY_KEYS:
            problems.append(f"{path}: {what}")
    return problems



def _get_path(meta: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    cur: Any = meta
    for part in path.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return False, None
        cur = cur[part]
    return True, cur


def validate_metadata(meta: Any) -> list[str]:
    """Return every problem with a metadata object (an empty list when it is valid).

    Each problem is ``"metadata key <path>: <what is wrong>"``.
    """
    if not isinstance(meta, Mapping):
        return [f"metadata: expected a JSON object, got {type(meta).__name__}"]
    problems: list[str] = []
    for key in METADATA:
        present, value = _get_path(meta, key.path)
        parent = key.path.rpartition(".")[0]
        parent_present = not parent or _get_path(meta, parent)[0]
        if not present:
            if key.required and parent_present:
                problems.append(f"metadata key {key.path}: missing")
            continue
        if value is None and not key.required:
            continue
        if not isinstance(value, key.type) or (isinstance(value, bool) and bool not in key.type):
            want = " or ".join(t.__name__ for t in key.type)
            problems.append(f"metadata key {key.path}: expected {want}, got {type(value).__name__}")
            continue
        if key.check is not None:
            msg = key.check(value)
            if msg:
                problems.append(f"metadata key {key.path}: {msg} (got {value!r})")
    return problems


def _dtype_ok(spec: Column, dtype: str) -> bool:
    d = dtype.lower()
    if spec.dtype == "string":
        return d in ("string", "large_string", "object", "str", "utf8", "large_utf8") or d.startswith("dictionary<values=string") or d.startswith("dictionary<values=large_string") or d == "category"
    if spec.dtype in _INT_KINDS:
        return d.lstrip("u") in [k.lstrip("u") for k in _INT_KINDS] or d in _INT_KINDS
    if spec.dtype == "float64":
        return d in ("float64", "double", "float32", "float", "halffloat") or d in _INT_KINDS
    return d == spec.dtype


def validate(columns: Mapping[str, str], metadata: Any) -> list[str]:
    """Return every problem with a table's column types and its metadata.

    Parameters
    ----------
    columns : mapping of str to str
        Column name -> dtype name (pyarrow or numpy spelling) of the table.
    metadata : object
        The decoded ``tsanalyze`` metadata object.

    Returns
    -------
    list of str
        One message per problem: missing or mistyped columns, then metadata problems.
        Value-level checks (non-finite times, evals < 1, duplicates) need the data and
        are done by the reader, which reports them with file and row.
    """
    problems: list[str] = []
    for spec in COLUMNS:
        if spec.name not in columns:
            if spec.required:
                problems.append(f"column {spec.name}: missing (required, {spec.dtype})")
            continue
        if not _dtype_ok(spec, str(columns[spec.name])):
            problems.append(f"column {spec.name}: expected {spec.dtype}, got {columns[spec.name]}")
    try:
        runs = file_runs(metadata)
    except ValueError as exc:
        return [*problems, str(exc)]
    for i, meta in enumerate(runs):
        where = f"runs[{i}] " if len(runs) > 1 or _is_container(metadata) else ""
        problems.extend(where + p for p in validate_metadata(meta))
    return problems


def _is_container(metadata: Any) -> bool:
    return isinstance(metadata, Mapping) and "runs" in metadata and "run" not in metadata


class RunsAttr(dict):  # type: ignore[type-arg]
    """Run id -> run metadata, as ``df.attrs["runs"]`` of a run-format frame holds it.

    A dict that pandas' copies of a frame share instead of deep-copying: pandas deep-copies
    ``attrs`` on every operation, and with many runs that made ``df.groupby("run")`` over
    the frame :func:`tsanalyze.read_runs` returns quadratic (500 of 5,000 runs' groups took
    47 s; all 5,000 take 0.14 s shared). The metadata is only read by the analysis, so one
    object serves every copy; pickled (to a worker) it travels as what it holds.
    """

    def __deepcopy__(self, memo: dict[int, Any]) -> RunsAttr:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (RunsAttr, (dict(self),))


def file_runs(metadata: Any) -> list[Any]:
    """The metadata of every run a file holds, in file order.

    A file's metadata is one run's metadata, or (version 2) ``{"schema_version": 2,
    "runs": [<run metadata>, ...]}`` for a file of several runs.

    Raises
    ------
    InvalidRunError
        A container whose ``runs`` is not a non-empty list, or whose version is not 2 or
        newer than supported.
    """
    if not _is_container(metadata):
        return [metadata]
    version = metadata.get("schema_version")
    problem = _schema_version(version)
    if problem is None and version < 2:
        problem = "must be 2 or more for a file of several runs"
    if problem:
        raise InvalidRunError(f"metadata key schema_version: {problem} (got {version!r})")
    runs = metadata["runs"]
    if not isinstance(runs, list) or not runs:
        raise InvalidRunError("metadata key runs: expected a non-empty list of run metadata")
    extra = sorted(set(metadata) - {"schema_version", "runs"})
    if extra:
        raise InvalidRunError(f"metadata keys {extra}: unexpected beside 'runs' in a file of several runs")
    return list(runs)


def encode_metadata(meta: Mapping[str, Any]) -> bytes:
    """Serialise metadata to the UTF-8 JSON stored under :data:`METADATA_KEY`."""
    return json.dumps(meta, sort_keys=True, allow_nan=False).encode("utf-8")


def decode_metadata(raw: bytes | str) -> Any:
    """Parse the JSON stored under :data:`METADATA_KEY` (raises ``ValueError`` if invalid,
    nested too deeply included)."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8")
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError(
            f"JSON nested more than ~{sys.getrecursionlimit()} levels deep"
        ) from None


def new_metadata(run: str, created_utc: str, clock_source: str, **sections: Any) -> dict[str, Any]:
    """Build a minimal valid metadata object of the current version.

    Extra keyword arguments become top-level sections (``timer=...``, ``host=...``,
    ``source=...``); a ``clock`` section is merged with ``{"source": clock_source}``.
    """
    clock = {"source": clock_source, **sections.pop("clock", {})}
    meta: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "run": run,
        "created_utc": created_utc,
        "clock": clock,
    }
    meta.update(sections)
    return meta


#: tools whose files hold alternatives of one task (hyperfine: the commands of one call)
_ALTERNATIVE_TOOLS = frozenset({"hyperfine"})


def alternatives(meta: Any) -> bool:
    """Were the benchmarks of this run declared alternatives, to be compared with each other?

    ``target.alternatives`` says so when present. Without it: a run the collector (or the
    simulator) recorded times its targets side by side to compare them, so yes; an
    imported run only for tools whose one call times alternatives (hyperfine's
    commands); Go, Google Benchmark, JMH, pyperf, criterion, BenchmarkTools and CSV files
    hold suites of unrelated benchmarks, so no. A run without metadata: no.
    """
    if not isinstance(meta, Mapping):
        return False
    target = meta.get("target")
    declared = target.get("alternatives") if isinstance(target, Mapping) else None
    if isinstance(declared, bool):
        return declared
    clock = meta.get("clock")
    source = clock.get("source") if isinstance(clock, Mapping) else None
    if not isinstance(source, str):
        return False
    if source.startswith("imported:"):
        tool = meta.get("source")
        name = tool.get("tool") if isinstance(tool, Mapping) else None
        return str(name or source.partition(":")[2]).lower() in _ALTERNATIVE_TOOLS
    return True


def interleaved(meta: Any) -> bool:
    """Were the benchmarks of this run recorded in interleaved rounds (``collector.interleave``)?

    Only then does ``round`` pair their samples. Imported runs (hyperfine, Go, JMH, ...)
    and sequential collections ran one benchmark after another; their ``round`` is just
    the sample index.
    """
    if not isinstance(meta, Mapping):
        return False
    collector = meta.get("collector")
    return isinstance(collector, Mapping) and collector.get("interleave") is True
