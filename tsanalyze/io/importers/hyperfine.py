"""hyperfine ``--export-json`` files.

Layout (hyperfine ``src/export/json.rs`` and ``benchmark_result.rs``): ``{"results":
[{"command", "mean", "stddev", "median", "user", "system", "min", "max", "times":
[...], "memory_usage_byte": [...], "exit_codes": [...], "parameters": {...}}]}``, all
times in seconds; ``times`` holds one wall-clock time per command run.

Mapping to the run format
-------------------------
* one tsanalyze run per file (one hyperfine invocation); one benchmark per result,
  named by its ``command`` (which holds the ``--command-name`` when one was given);
* one sample per command run, ``evals = 1``, ``ns = time * 1e9``; hyperfine subtracts
  its measured shell-spawning time from each time (unless ``--shell=none``), so no
  further overhead is removed;
* extra columns (only when present in the file) ``user_ns`` and ``sys_ns`` when the
  result holds per-run arrays
  ``user``/``system`` (the JSON of current hyperfine versions only has their means,
  kept in ``target.spec``), ``exit_code`` and ``max_rss_bytes``
  (``memory_usage_byte``) when present;
* ``parameters`` (``--parameter-scan`` / ``--parameter-list``) are kept in the spec and
  as ``param_<name>`` string columns (one column per parameter, even when two names
  differ only in punctuation);
* a command benchmarked twice in one file becomes two benchmarks, ``<command>`` and
  ``<command> #2``;
* a command that failed in some runs (``--ignore-failure``: a non-zero or missing exit
  code, ``null`` when a signal ended it) is imported as measured, with a note (a warning
  of ``tsanalyze import``) naming it and how many of its runs failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze.io.importers._builder import RunBuilder, extra_columns
from tsanalyze.io.importers._files import fail, file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json

__all__ = ["HyperfineImporter"]

_SUMMARY = ("mean", "stddev", "median", "user", "system", "min", "max")
_COLUMNS = ("user_ns", "sys_ns", "exit_code", "max_rss_bytes")


class HyperfineImporter:
    """Importer of hyperfine JSON exports (see the module docstring).

    References
    ----------
    hyperfine ``src/benchmark/benchmark_result.rs`` and ``src/export/json.rs`` (github.com/sharkdp/hyperfine).
    """

    name = "hyperfine"
    tool = "hyperfine"
    description = "hyperfine --export-json"

    def sniff(self, path: Path, head: str) -> bool:
        return looks_like_json(head, "{", "results", "command")

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("hyperfine", options)
        root = JsonPath(path, read_json(path))
        results = root.key("results").items()
        if not results:
            raise root.key("results").error("expected at least one result")
        params: list[str] = []
        for res in results:
            p = res.key("parameters", required=False)
            if p.value is not None:
                for k in p.obj():
                    if k not in params:
                        params.append(k)
        # distinct columns even for parameters whose names differ only in punctuation
        pcols = extra_columns(params, prefix="param_", taken=_COLUMNS)
        per_result: list[tuple[str, np.ndarray, dict[str, Any]]] = []
        notes: list[str] = []
        seen: dict[str, int] = {}
        spec: list[dict[str, Any]] = []
        for res in results:
            obj = res.obj()
            command = res.key("command").str()
            # the same command benchmarked twice is two benchmarks, not one merged series
            seen[command] = seen.get(command, 0) + 1
            if seen[command] > 1:
                command = f"{command} #{seen[command]}"
            times_p = res.key("times", required=False)
            if times_p.value is None:
                raise res.error(
                    "expected key 'times' (one time per command run); without it the export holds summary statistics only"
                )
            times = times_p.numbers(positive=True)
            n = len(times)
            if n == 0:
                raise times_p.error("expected at least one time")
            cols: dict[str, Any] = {}
            for key, col in (("user", "user_ns"), ("system", "sys_ns")):
                v = res.key(key, required=False)
                if isinstance(v.value, list):
                    arr = v.numbers(non_negative=True)
                    if len(arr) != n:
                        raise v.error(f"expected {n} values (one per time), got {len(arr)}")
                    cols[col] = arr * 1e9
            for key, col in (("exit_codes", "exit_code"), ("memory_usage_byte", "max_rss_bytes")):
                v = res.key(key, required=False)
                if isinstance(v.value, list):
                    raw = v.arr()
                    if len(raw) != n:
                        raise v.error(f"expected {n} values (one per time), got {len(raw)}")
                    for i, x in enumerate(raw):
                        if x is not None:
                            v.item(i).number()
                    cols[col] = np.asarray(
                        [np.nan if x is None else x for x in raw], dtype=np.float64
                    )
            codes = res.key("exit_codes", required=False).value
            if isinstance(codes, list):
                failed = sum(1 for c in codes if c != 0)
                if failed:
                    notes.append(
                        f"{path}: command {command!r} failed (non-zero exit code) in {failed} of "
                        f"{len(codes)} runs; its times are imported as measured, the codes are "
                        "in the column exit_code"
                    )
            pvals: dict[str, Any] = {}
            p = res.key("parameters", required=False)
            if p.value is not None:
                for k, val in p.obj().items():
                    pvals[k] = val if isinstance(val, str) else str(val)
                    cols[pcols[k]] = np.asarray(pvals[k], dtype=object)
            per_result.append((command, times, cols))
            entry: dict[str, Any] = {"command": command}
            entry.update({k: obj[k] for k in _SUMMARY if isinstance(obj.get(k), (int, float))})
            if pvals:
                entry["parameters"] = pvals
            spec.append(entry)
        present = [c for c in _COLUMNS if any(c in r[2] for r in per_result)]
        builder = RunBuilder(
            path,
            extra=[*present, *pcols.values()], extra_dtypes=dict.fromkeys(pcols.values(), "object")
        )
        for command, times, cols in per_result:
            builder.add(command, times * 1e9, 1, **cols)
        builder.finish_imported(0, tool="hyperfine", created_utc=file_mtime_utc(path), spec=spec)
        runs = builder.build(notes)
        if not runs.metadata:  # pragma: no cover - every result has >= 1 time
            raise fail(path, "$.results", "expected at least one time")
        return runs
