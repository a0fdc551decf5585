"""BenchmarkTools.jl saved JSON (``BenchmarkTools.save("file.json", results)``).

Layout (BenchmarkTools ``src/serialization.jl``): ``[{"Julia": "...", "BenchmarkTools":
"..."}, [object, ...]]`` where every object is ``[type name, {fields}]``. A
``BenchmarkGroup`` is ``["BenchmarkGroup", {"data": {key: object}, "tags": [...]}]``;
a ``Trial`` is ``["Trial", {"params": ["Parameters", {"evals", "samples", "seconds",
"overhead", "gctrial", "gcsample", "time_tolerance", "memory_tolerance", ...}],
"times": [...], "gctimes": [...], "memory": bytes, "allocs": count}]``. ``times`` and
``gctimes`` are ns per evaluation (BenchmarkTools divides each sample's time by
``evals`` and subtracts ``overhead``).

Mapping to the run format
-------------------------
* one tsanalyze run per file; every ``Trial`` found (recursively in groups) is one
  benchmark named by its group keys joined with ``/`` (``trial<i>`` for a bare trial);
  two trials that would get the same name (a key ``"a/b"`` beside ``"a"`` -> ``"b"``)
  are named by their key lists instead (``["a/b"]``, ``["a", "b"]``), never merged;
* one sample per element of ``times``: ``evals = params.evals``, ``ns = time * evals``;
* ``gctimes`` becomes the extra column ``gc_ns`` (per evaluation); ``memory``,
  ``allocs`` and ``params`` are kept in ``target.spec``;
* other objects (``Parameters``, ``TrialEstimate``, ...) hold no samples and are skipped;
  a file of estimates only (``BenchmarkTools.save(f, median(results))``) is refused with
  a message that says so (``tsanalyze audit`` refuses it too: one number, no spread).
  BenchmarkTools before 0.0.4 sorted ``times`` ascending, which destroys time order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json
from tsanalyze.io.importers._metadata import text_field

__all__ = ["ESTIMATES_ONLY", "BenchmarkToolsImporter", "holds_estimates_only"]

#: why a file of TrialEstimates (``BenchmarkTools.save(f, median(results))``) is neither
#: imported nor audited
ESTIMATES_ONLY = (
    "holds TrialEstimate/TrialRatio/TrialJudgement objects only (one number per benchmark, "
    "e.g. from median(results): no samples, no spread, and not which estimator it was); "
    "save the Trials themselves, BenchmarkTools.save(file, results), to analyse them"
)
_SUMMARY_TYPES = frozenset({"TrialEstimate", "TrialRatio", "TrialJudgement"})


def holds_estimates_only(data: Any) -> bool:
    """Whether a loaded BenchmarkTools.save JSON holds summary objects but no ``Trial``."""
    kinds: set[str] = set()
    stack = [data[1]] if isinstance(data, list) and len(data) == 2 else []
    while stack:
        obj = stack.pop()
        if not isinstance(obj, list):
            continue
        if len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], dict):
            kind = obj[0].removeprefix("BenchmarkTools.")
            kinds.add(kind)
            if kind == "BenchmarkGroup" and isinstance(obj[1].get("data"), dict):
                stack.extend(obj[1]["data"].values())
        else:
            stack.extend(obj)
    return "Trial" not in kinds and bool(kinds & _SUMMARY_TYPES)


class BenchmarkToolsImporter:
    """Importer of BenchmarkTools.jl JSON files (see the module docstring).

    References
    ----------
    .. [1] BenchmarkTools.jl ``src/serialization.jl`` and manual.
       https://github.com/JuliaCI/BenchmarkTools.jl
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE HPEC 2016. https://arxiv.org/abs/1608.04295
    """

    name = "benchmarktools"
    tool = "BenchmarkTools.jl"
    description = "BenchmarkTools.jl saved JSON (BenchmarkTools.save)"

    def sniff(self, path: Path, head: str) -> bool:
        return looks_like_json(head, "[", "BenchmarkTools")

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("benchmarktools", options)
        root = JsonPath(path, read_json(path))
        top = root.arr()
        if len(top) != 2:
            raise root.error(
                f"expected [versions, [objects]] (2 elements), got {len(top)} elements"
            )
        versions = root.item(0).obj()
        objects = root.item(1).items()
        builder = RunBuilder(path, extra=("gc_ns",))
        spec: list[dict[str, Any]] = []
        found: list[tuple[list[str] | str, JsonPath]] = []
        for i, obj in enumerate(objects):
            _collect(obj, [], found, f"trial{i}")
        trials = _distinct_names(found)
        if not trials:
            raise fail(
                path,
                "$[1]",
                "expected at least one Trial (in a BenchmarkGroup or on its own)"
                + ("; the file " + ESTIMATES_ONLY if holds_estimates_only(root.value) else ""),
            )
        for name, trial in trials:
            fields = trial.item(1)
            fields.obj()
            params = fields.key("params")
            pfields = params.item(1) if isinstance(params.value, list) else params
            evals = pfields.key("evals").integer(minimum=1)
            times_p = fields.key("times")
            times = times_p.numbers(positive=True)
            if len(times) == 0:
                continue
            gc = fields.key("gctimes", required=False)
            cols: dict[str, Any] = {}
            if gc.value is not None:
                g = gc.numbers(non_negative=True)
                if len(g) != len(times):
                    raise gc.error(f"expected {len(times)} gctimes (one per time), got {len(g)}")
                cols["gc_ns"] = g
            builder.add(name, times, evals, **cols)
            fobj = fields.obj()
            spec.append(
                {
                    "benchmark": name,
                    "memory": fobj.get("memory"),
                    "allocs": fobj.get("allocs"),
                    "params": pfields.obj(),
                }
            )
        if not spec:
            raise fail(path, "$[1]", "expected at least one Trial with times")
        builder.finish_imported(
            0,
            tool="BenchmarkTools.jl",
            created_utc=file_mtime_utc(path),
            spec=spec,
            version=text_field(versions, "BenchmarkTools"),
            tool_metadata={"versions": versions},
        )
        return builder.build()


def _collect(
    obj: JsonPath, keys: list[str], out: list[tuple[list[str] | str, JsonPath]], bare: str
) -> None:
    arr = obj.arr()
    if len(arr) != 2 or not isinstance(arr[0], str):
        raise obj.error("expected a [type name, {fields}] pair")
    kind = arr[0].removeprefix("BenchmarkTools.")
    if kind == "Trial":
        out.append((keys if keys else bare, obj))
    elif kind == "BenchmarkGroup":
        data = obj.item(1).key("data")
        for key, value in data.obj().items():
            _collect(
                JsonPath(obj.file, value, f"{data.path}[{key!r}]"), [*keys, str(key)], out, bare
            )


def _distinct_names(trials: list[tuple[Any, JsonPath]]) -> list[tuple[str, JsonPath]]:
    """Name each trial by its group keys joined with ``/``; where two trials would get one
    name (a key ``"a/b"`` beside a group ``"a"`` holding ``"b"``) both are named by their
    key lists in Julia's syntax (``["a/b"]``, ``["a", "b"]``) instead of being merged."""
    joined = ["/".join(k) if isinstance(k, list) else k for k, _ in trials]
    count: dict[str, int] = {}
    for name in joined:
        count[name] = count.get(name, 0) + 1
    out = []
    for (keys, trial), name in zip(trials, joined, strict=True):
        if count[name] > 1 and isinstance(keys, list):
            name = "[" + ", ".join(json.dumps(k, ensure_ascii=False) for k in keys) + "]"
        out.append((name, trial))
    return out
