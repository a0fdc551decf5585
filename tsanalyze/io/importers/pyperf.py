"""pyperf JSON results (``.json``, ``.json.gz``), format version 1.0.

Layout (pyperf ``_bench.py``): ``{"version": "1.0", "metadata": {common},
"benchmarks": [{"metadata": {...}, "runs": [{"metadata": {...}, "warmups":
[[loops, value], ...], "values": [...]}, ...]}]}``. Values are seconds (the ``unit``
metadata) per inner iteration, i.e. the raw time divided by ``loops * inner_loops``.

Mapping to the run format
-------------------------
* one tsanalyze run per pyperf run (one pyperf worker process) of each benchmark;
* ``evals = loops * inner_loops`` (metadata of the run, the benchmark or the file);
* rows carry an extra column ``kind``: ``"value"`` for values, ``"warmup"`` for the
  warm-up values of a run that has values, ``"calibration"`` for the warm-ups of a
  calibration run (a run without values, whose loop count grows). Warm-ups come first
  in time order, so the ``sample`` index of the first value equals the number of
  warm-ups of that run;
* metadata: the merged pyperf metadata (file, benchmark, run) in ``source.metadata``,
  ``created_utc`` from the run's ``date`` (pyperf writes local time without a zone; it
  is recorded as if it were UTC), host facts from ``cpu_model_name``, ``cpu_count``,
  ``python_version``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze._units import parse_unit
from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import MAX_COUNT, JsonPath, looks_like_json, read_json
from tsanalyze.io.importers._metadata import count_field, parse_timestamp, text_field

__all__ = ["PyperfImporter"]


class PyperfImporter:
    """Importer of pyperf JSON files (see the module docstring).

    References
    ----------
    pyperf documentation, "JSON format" and "Runs, values, warmups, outer and inner loops" (https://pyperf.readthedocs.io); pyperf ``_bench.py`` / ``_run.py``.
    """

    name = "pyperf"
    tool = "pyperf"
    description = "pyperf / pyperformance JSON (.json, .json.gz)"

    def sniff(self, path: Path, head: str) -> bool:
        return looks_like_json(head, "{", "benchmarks", "runs", any_of=("values", "warmups"))

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("pyperf", options)
        root = JsonPath(path, read_json(path))
        top = root.obj()
        version = top.get("version")
        if version not in ("1.0", None):
            raise root.key("version").error(
                f"expected pyperf format version '1.0', got {version!r}"
            )
        common = top.get("metadata") or {}
        if not isinstance(common, dict):
            raise root.key("metadata").error("expected an object")
        builder = RunBuilder(path)
        mtime: str | None = None
        index = 0
        for bi, bench in enumerate(root.key("benchmarks").items()):
            bobj = bench.obj()
            bmeta = bobj.get("metadata") or {}
            if not isinstance(bmeta, dict):
                raise bench.key("metadata").error("expected an object")
            merged = {**common, **bmeta}
            name = merged.get("name")
            if not isinstance(name, str) or not name:
                name = f"{path.name.split('.')[0]}#{bi}"
            bench_host = _host(merged)
            for run in bench.key("runs").items():
                robj = run.obj()
                rmeta = robj.get("metadata") or {}
                if not isinstance(rmeta, dict):
                    raise run.key("metadata").error("expected an object")
                meta = {**merged, **rmeta} if rmeta else merged
                unit = meta.get("unit", "second")
                scale = parse_unit(unit) if unit == "second" else None
                if scale is None:
                    raise run.error(
                        f"expected unit 'second' (timings), got {unit!r}; tsanalyze imports timings only"
                    )
                loops = _int_meta(run, meta, "loops")
                inner = _int_meta(run, meta, "inner_loops") or 1
                values = run.key("values", required=False)
                has_values = values.value is not None and len(values.arr()) > 0
                warm = run.key("warmups", required=False)
                if warm.value is not None and len(warm.arr()) > 0:
                    pairs = _warmups(warm)
                    builder.add(
                        name,
                        pairs[:, 1] * scale,
                        pairs[:, 0] * inner,  # the builder checks the int64 range
                        kind="warmup" if has_values else "calibration",
                    )
                if has_values:
                    if loops is None:
                        raise run.error(
                            "expected a 'loops' metadata key (run, benchmark or file) for a run with values"
                        )
                    builder.add(
                        name, values.numbers(positive=True) * scale, loops * inner, kind="value"
                    )
                created = parse_timestamp(rmeta.get("date"))
                if created is None:
                    mtime = mtime or file_mtime_utc(path)
                    created = mtime
                pyperf_version = meta.get("pyperf_version") or meta.get("perf_version")
                builder.finish_imported(
                    index,
                    tool="pyperf",
                    created_utc=created,
                    spec=name,
                    version=str(pyperf_version) if pyperf_version else None,
                    host=bench_host if meta is merged else _host(meta),
                    tool_metadata=meta,
                )
                index += 1
        runs = builder.build()
        if not runs.metadata:
            raise fail(path, "$.benchmarks", "expected at least one run with values or warm-ups")
        return runs


def _host(meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "cpu_model": text_field(meta, "cpu_model_name"),
        "logical_cores": count_field(meta, "cpu_count"),
        "python": text_field(meta, "python_version"),
    }


def _int_meta(run: JsonPath, meta: dict[str, Any], key: str) -> int | None:
    v = meta.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_COUNT:
        raise run.key("metadata", required=False).error(
            f"expected metadata {key!r} to be an integer from 1 to {MAX_COUNT}, got {v!r:.40}"
        )
    return v


def _warmups(warm: JsonPath) -> np.ndarray:
    """``[[loops, value], ...]`` as an (n, 2) float array; every pair is checked (JSON
    numbers only: a numeric string is not a time)."""
    rows = []
    for pair in warm.items():
        if not isinstance(pair.value, list) or len(pair.value) != 2:
            raise pair.error("expected a [loops, value] pair")
        rows.append((pair.item(0).integer(minimum=1), pair.item(1).number(positive=True)))
    return np.asarray(rows, dtype=np.float64)
