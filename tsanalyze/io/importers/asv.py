"""asv (airspeed velocity) results: a ``results`` directory, one machine's directory, or
one results file; results format versions 1 and 2.

Layout (asv ``results.py``, ``Results.save``/``Results.load``/``update_to_2``):
``results/benchmarks.json`` describes every benchmark (``type``, ``unit``, ``params``,
``param_names``); ``results/<machine>/machine.json`` names the machine; every other
``results/<machine>/<hash8>-<env>.json`` holds one (commit, machine, environment):
``{"version": 2, "commit_hash", "env_name", "date" (the commit's time, ms since the
epoch), "params" (machine facts and the python version), "requirements", "env_vars",
"result_columns": ["result", "params", "version", "started_at", "duration",
"stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number",
"stats_repeat", "samples", "profile"], "results": {name: [one value per column]}}``.
Trailing columns that are null are left out of a row. ``result`` (and every ``stats_*``
and ``samples``) is a list with one entry per parameter combination, in the order of
``itertools.product(*params)``; ``null`` marks a failed or skipped benchmark. Version 1
stored ``results: {name: value or {"result", "params", "stats", "samples"}}`` with
``stats`` dicts ``{"ci_99": [a, b], "q_25", "q_75", "number", "repeat"}`` and top-level
``started_at`` / ``duration`` / ``benchmark_version`` dicts.

Mapping to the run format
-------------------------
* one tsanalyze run per results file, i.e. per (commit, machine, environment);
* run metadata ``commit`` (full hash), ``commit_time`` (from ``date``), ``machine`` (the
  machine name of ``params``), ``env`` (``env_name``); ``created_utc`` is the earliest
  ``started_at`` of the file (the commit's time when none is recorded);
* benchmark = asv's name, with the parameter values appended in parentheses for
  parameterised benchmarks exactly as ``asv compare`` prints them
  (``time_sort('list', 100)``);
* samples: the recorded ``samples`` (seconds per evaluation; ``stats_number``
  evaluations each) when the file has them, else one row holding asv's ``result``;
  extra columns ``asv_ci_99_a``, ``asv_ci_99_b``, ``asv_q_25``, ``asv_q_75`` keep asv's
  statistics of the run (ns per evaluation) for the history's within-run uncertainty;
* only timing benchmarks are imported (type ``time``, or a ``time_`` / ``timeraw_``
  name without ``benchmarks.json``); memory and ``track_`` benchmarks are counted in
  ``source.metadata.skipped_benchmarks``; failed (``null``) results are left out,
  counted in ``source.metadata.failed_results`` and named (the first few) in one note,
  a warning of ``tsanalyze import``.

Malformed input raises :class:`~tsanalyze.errors.ImportFormatError` naming the file and
the JSON path; nothing is returned for a directory until every file was read.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze._units import name_some
from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json
from tsanalyze.io.importers._metadata import text_field, to_utc_timestamp

__all__ = ["AsvImporter", "benchmark_name", "find_result_files"]

_SKIP_FILES = frozenset({"machine.json", "benchmarks.json"})
_EXTRA = ("asv_ci_99_a", "asv_ci_99_b", "asv_q_25", "asv_q_75")
_STATS_V1 = {"asv_ci_99_a": ("ci_99", 0), "asv_ci_99_b": ("ci_99", 1), "asv_q_25": ("q_25", None),
             "asv_q_75": ("q_75", None)}  # fmt: skip
_TIME_PREFIXES = ("time_", "timeraw_")


def benchmark_name(name: str, values: tuple[str, ...]) -> str:
    """asv's display name of one parameter combination: ``name(v1, v2)`` (``name`` alone
    when the benchmark has no parameters), as ``asv compare`` prints it."""
    return f"{name}({', '.join(values)})" if values else name


def _is_machine_dir(path: Path) -> bool:
    return (path / "machine.json").is_file()


def find_result_files(path: Path) -> tuple[Path | None, list[Path]]:
    """``benchmarks.json`` (or None) and every results file at or below ``path``, sorted.

    ``path`` may be the ``results`` directory, one machine's directory (with
    ``machine.json``) or one results file.
    """
    path = Path(path)
    if path.is_file():
        bj = path.parent.parent / "benchmarks.json"
        return (bj if bj.is_file() else None), [path]
    if _is_machine_dir(path):
        machines = [path]
        root = path.parent
    else:
        root = path
        machines = sorted(d for d in path.iterdir() if d.is_dir() and _is_machine_dir(d))
    files = [
        f
        for d in machines
        for f in sorted(d.glob("*.json"))
        if f.name not in _SKIP_FILES and f.is_file()
    ]
    bj = root / "benchmarks.json"
    return (bj if bj.is_file() else None), files


def _looks_like_results_dir(path: Path) -> bool:
    if _is_machine_dir(path):
        return True
    try:
        return any(d.is_dir() and _is_machine_dir(d) for d in path.iterdir())
    except OSError:
        return False


def _ms_to_utc(ms: Any) -> str | None:
    if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not math.isfinite(ms):
        return None
    try:
        when = _dt.datetime.fromtimestamp(ms / 1000.0, _dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return to_utc_timestamp(when)


class AsvImporter:
    """Importer of asv results (see the module docstring).

    References
    ----------
    asv (airspeed velocity) ``asv/results.py`` (``Results.save``, ``Results.load``,
    ``Results.update_to_2``) and ``asv/commands/compare.py`` (parameterised names),
    github.com/airspeed-velocity/asv; the results-format description in asv's
    documentation, "Developer Docs: Results".
    """

    name = "asv"
    tool = "asv"
    description = "asv results directories (results/<machine>/<hash>-<env>.json, formats 1, 2)"

    def sniff(self, path: Path, head: str) -> bool:
        path = Path(path)
        if path.is_dir():
            return _looks_like_results_dir(path)
        return (
            looks_like_json(head, "{", "commit_hash", "results", "params")
            and '"benchmarks"' not in head
        )

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("asv", options)
        path = Path(path)
        bj_path, files = find_result_files(path)
        if not files:
            raise fail(
                path,
                "",
                "expected asv results: no <machine>/machine.json with results files below it",
            )
        described = _read_benchmarks(bj_path) if bj_path is not None else {}
        builder = RunBuilder(path, extra=_EXTRA, extra_dtypes=dict.fromkeys(_EXTRA, "float64"))
        failed: dict[Path, list[str]] = {}
        for index, f in enumerate(files):
            names = _read_file(f, index, described, builder)
            if names:
                failed[f] = names
        table = builder.build(_failed_note(path, failed))
        if not table.metadata:
            raise fail(
                path,
                "",
                "expected at least one successful timing result (every result is null or "
                "not a time benchmark)",
            )
        return table


def _failed_note(path: Path, failed: dict[Path, list[str]]) -> list[str]:
    """One note for all null results (asv writes null for a benchmark that failed, timed
    out or was skipped): how many, in how many files, the first few names."""
    if not failed:
        return []
    total = sum(len(v) for v in failed.values())
    names = list(dict.fromkeys(n for v in failed.values() for n in v))
    shown = name_some(names)
    where = f"in {len(failed)} results files" if len(failed) > 1 else f"in {next(iter(failed))}"
    return [
        f"{path}: {total} result(s) {where} are null (the benchmark failed, timed out or was "
        f"skipped): {shown}; not imported"
    ]


def _read_benchmarks(path: Path) -> dict[str, dict[str, Any]]:
    root = JsonPath(path, read_json(path))
    out: dict[str, dict[str, Any]] = {}
    for name, info in root.obj().items():
        if name == "version":
            continue
        if not isinstance(info, dict):
            raise root.key(name).error("expected an object describing the benchmark")
        out[name] = info
    return out


def _is_timing(name: str, info: dict[str, Any] | None) -> bool:
    if info is not None and isinstance(info.get("type"), str):
        return info["type"] == "time" and info.get("unit", "seconds") == "seconds"
    return name.rsplit(".", 1)[-1].startswith(_TIME_PREFIXES)


def _rows_v2(root: JsonPath, top: dict[str, Any]) -> list[tuple[str, dict[str, Any], JsonPath]]:
    """(name, {column: value}, path) of every benchmark of a version-2 file."""
    cols_p = root.key("result_columns")
    columns = cols_p.arr()
    if not all(isinstance(c, str) for c in columns) or "result" not in columns:
        raise cols_p.error("expected a list of column names including 'result'")
    rows = []
    res = root.key("results")
    for name, values in res.obj().items():
        item = res.key(name)
        if not isinstance(values, list) or len(values) > len(columns):
            raise item.error(f"expected a list of at most {len(columns)} values (result_columns)")
        rows.append((name, dict(zip(columns, values, strict=False)), item))
    return rows


def _rows_v1(root: JsonPath, top: dict[str, Any]) -> list[tuple[str, dict[str, Any], JsonPath]]:
    """The same rows from a version-1 file (asv's ``update_to_2``, restated)."""
    raw_started = top.get("started_at")
    started: dict[str, Any] = raw_started if isinstance(raw_started, dict) else {}
    rows = []
    res = root.key("results")
    for name, value in res.obj().items():
        item = res.key(name)
        if not isinstance(value, dict):
            value = {"result": [value], "params": []}
        result = value.get("result")
        if result is not None and not isinstance(result, list):
            result = [result]
        stats = value.get("stats")
        if stats is not None and not isinstance(stats, list):
            stats = [stats]
        row: dict[str, Any] = {
            "result": result,
            "params": value.get("params") or [],
            "samples": value.get("samples"),
            "started_at": started.get(name),
        }
        if isinstance(stats, list):
            row["stats_number"] = [s.get("number") if isinstance(s, dict) else None for s in stats]
            for col, (key, pos) in _STATS_V1.items():
                vals = []
                for s in stats:
                    v = s.get(key) if isinstance(s, dict) else None
                    if pos is not None:
                        v = v[pos] if isinstance(v, list) and len(v) == 2 else None
                    vals.append(v)
                row["stats_" + col[4:]] = vals
        rows.append((name, row, item))
    return rows


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) and v > 0 else None


def _param_values(item: JsonPath, params: Any) -> list[tuple[str, ...]]:
    if params is None or params == []:
        return [()]
    if not isinstance(params, list) or not all(
        isinstance(p, list) and p and all(isinstance(v, str) for v in p) for p in params
    ):
        raise item.error("expected 'params' to be a list of lists of parameter values (strings)")
    return list(itertools.product(*params))


def _per_combination(item: JsonPath, row: dict[str, Any], key: str, n: int) -> list[Any]:
    v = row.get(key)
    if v is None:
        return [None] * n
    if not isinstance(v, list) or len(v) != n:
        raise item.error(
            f"expected '{key}' to hold one entry per parameter combination ({n}), got "
            f"{len(v) if isinstance(v, list) else type(v).__name__}"
        )
    return v


def _read_file(
    f: Path, index: int, described: dict[str, dict[str, Any]], builder: RunBuilder
) -> list[str]:
    """Read one results file into ``builder``; the names of its null (failed or skipped)
    timing results."""
    root = JsonPath(f, read_json(f))
    top = root.obj()
    version = top.get("version")
    if version not in (1, 2):
        raise root.key("version", required=False).error(
            f"expected asv results format version 1 or 2, got {version!r}"
        )
    commit = root.key("commit_hash").str()
    if not commit:
        raise root.key("commit_hash").error("expected a non-empty commit hash")
    params = root.key("params").obj()
    machine = params.get("machine")
    if not isinstance(machine, str) or not machine:
        machine = f.parent.name
    env = top.get("env_name")
    if not isinstance(env, str) or not env:
        env = f.stem.split("-", 1)[1] if "-" in f.stem else f"py{top.get('python', '')}"
    rows = (_rows_v2 if version == 2 else _rows_v1)(root, top)
    failed = 0
    failed_names: list[str] = []
    skipped = 0
    started: list[float] = []
    names: list[str] = []
    param_names: dict[str, list[str]] = {}
    for name, row, item in rows:
        info = described.get(name)
        if not _is_timing(name, info):
            skipped += 1
            continue
        combos = _param_values(item, row.get("params"))
        n = len(combos)
        results = _per_combination(item, row, "result", n)
        samples = _per_combination(item, row, "samples", n)
        number = _per_combination(item, row, "stats_number", n)
        extras = {c: _per_combination(item, row, "stats_" + c[4:], n) for c in _EXTRA}
        when = _number(row.get("started_at"))
        if when is not None:
            started.append(when)
        if info is not None and combos != [()] and isinstance(info.get("param_names"), list):
            param_names[name] = [str(p) for p in info["param_names"]]
        for i, values in enumerate(combos):
            value = _number(results[i])
            if value is None:
                if results[i] is not None and not (
                    isinstance(results[i], float) and math.isnan(results[i])
                ):
                    raise item.error(
                        f"expected result {i} to be a number > 0 or null, got {results[i]!r}"
                    )
                failed += 1
                failed_names.append(benchmark_name(name, values))
                continue
            evals = number[i]
            if evals is None:
                evals = 1
            elif isinstance(evals, bool) or not isinstance(evals, (int, float)) or evals < 1:
                raise item.error(f"expected stats_number {i} to be an integer >= 1, got {evals!r}")
            evals = int(evals)
            s = samples[i]
            if s is not None and s != []:
                per_eval = JsonPath(f, s, f"{item.path}.samples[{i}]").numbers(positive=True)
            else:
                per_eval = np.array([value])
            extra = {c: (_number(extras[c][i]) or math.nan) * 1e9 for c in _EXTRA}
            full = benchmark_name(name, values)
            builder.add(full, per_eval * 1e9, evals, **extra)
            names.append(full)
    commit_time = _ms_to_utc(top.get("date"))
    created = _ms_to_utc(min(started)) if started else None
    created = created or commit_time or file_mtime_utc(f)
    host = {
        "cpu_model": text_field(params, "cpu"),
        "logical_cores": _cores(params.get("num_cpu")),
        "kernel": text_field(params, "os"),
        "python": str(top["python"]) if isinstance(top.get("python"), (str, int, float)) else None,
    }
    tool_meta: dict[str, Any] = {
        "results_version": version,
        "params": params,
        "failed_results": failed,
        "skipped_benchmarks": skipped,
    }
    for key in ("requirements", "env_vars"):
        if top.get(key):
            tool_meta[key] = top[key]
    if param_names:
        tool_meta["param_names"] = param_names
    top_level: dict[str, Any] = {"commit": commit}
    if commit_time is not None:
        top_level["commit_time"] = commit_time
    top_level.update(machine=machine, env=env)
    builder.finish_imported(
        index,
        salt="asv",
        path=f,
        tool="asv",
        created_utc=created,
        spec=names,
        host=host,
        tool_metadata=tool_meta,
        top_level=top_level,
    )
    return failed_names


def _cores(v: Any) -> int | None:
    try:
        n = int(v)
    except (TypeError, ValueError):
        return None
    return n if n > 0 else None
