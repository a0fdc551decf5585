"""criterion.rs result directories (``target/criterion``).

Layout (criterion.rs ``analysis/mod.rs``, ``fs.rs``, ``critcmp/data.rs``):
``target/criterion/<group>/<function>/<value>/<baseline>/`` holds ``sample.json``
``{"sampling_mode": "Linear"|"Flat", "iters": [...], "times": [...]}`` (``times[i]`` is
the total measured time in ns of ``iters[i]`` iterations), ``benchmark.json``
``{"group_id", "function_id", "value_str", "throughput", "full_id",
"directory_name", "title"}``, ``estimates.json`` and ``tukey.json``. ``<baseline>`` is
``new`` for the latest run, ``base`` for the previous one, or a saved baseline name;
``change`` holds comparisons and is not a baseline.

Mapping to the run format
-------------------------
* ``path`` may be the ``target/criterion`` directory, any directory below it, or one
  ``sample.json``; all ``<baseline>/sample.json`` files found below (option
  ``baseline``, default ``"new"``) form one tsanalyze run;
* benchmark = ``full_id`` of ``benchmark.json`` (the directory path when it is missing);
* one sample per criterion sample: ``evals = iters[i]``, ``ns = times[i]``;
* ``sampling_mode`` and ``throughput`` are kept in ``target.spec``;
* a ``raw.csv`` file (criterion ``src/csv_report.rs``: ``group,function,value,
  throughput_num,throughput_type,sample_measured_value,unit,iteration_count``, one row
  per sample, ``sample_measured_value`` the time of ``iteration_count`` iterations in
  ``unit``) may be given instead of ``sample.json``; the benchmark is
  ``group/function/value`` (the parts present), as criterion's ``full_id``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze._units import parse_unit
from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc, open_text
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json

__all__ = ["CriterionImporter", "find_samples"]

#: the header of criterion's ``raw.csv``
_RAW_CSV = (
    "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,"
    "iteration_count"
)


def find_samples(path: Path, baseline: str = "new") -> list[Path]:
    """All ``<baseline>/sample.json`` files at or below ``path``, sorted."""
    path = Path(path)
    if path.is_file():
        return [path]
    if path.name == baseline and (path / "sample.json").is_file():
        return [path / "sample.json"]
    return sorted(p for p in path.rglob("sample.json") if p.parent.name == baseline)


class CriterionImporter:
    """Importer of criterion.rs result directories (see the module docstring).

    References
    ----------
    criterion.rs ``src/lib.rs`` (``SavedSample``) and ``src/critcmp/data.rs`` (``benchmark.json``), github.com/bheisler/criterion.rs.
    """

    name = "criterion"
    tool = "criterion.rs"
    description = "criterion.rs directories (target/criterion/**/new/sample.json)"

    def sniff(self, path: Path, head: str) -> bool:
        if Path(path).is_dir():
            return bool(find_samples(path))
        return head.lstrip("\ufeff").startswith(_RAW_CSV) or looks_like_json(
            head, "{", "iters", "times"
        )

    def load(self, path: Path, baseline: str = "new", **options: Any) -> ImportedTable:
        refuse_options("criterion", options, "only the option 'baseline'")
        path = Path(path)
        if path.is_file():
            text = open_text(path)
            if text.startswith(_RAW_CSV):
                return _load_raw_csv(path, text)
        files = find_samples(path, baseline)
        if not files:
            raise fail(
                path,
                "",
                f"expected criterion results: no {baseline}/sample.json below this directory",
            )
        builder = RunBuilder(path)
        spec: list[dict[str, Any]] = []
        for f in files:
            root = JsonPath(f, read_json(f))
            root.obj()
            iters_p, times_p = root.key("iters"), root.key("times")
            iters = iters_p.numbers(positive=True)
            times = times_p.numbers(positive=True)
            if len(iters) != len(times):
                raise times_p.error(
                    f"expected as many times as iters ({len(iters)}), got {len(times)}"
                )
            if len(iters) == 0:
                raise iters_p.error("expected at least one sample")
            bad = np.flatnonzero(iters != np.round(iters))
            if bad.size:
                raise fail(
                    f,
                    f"$.iters[{int(bad[0])}]",
                    f"expected a whole number of iterations, got {iters[bad[0]]!r}",
                )
            info = _benchmark_info(f)
            name = info.get("full_id") if isinstance(info.get("full_id"), str) else None
            if not name:
                bench_dir = f.parent.parent
                try:
                    name = (
                        bench_dir.relative_to(path).as_posix() if path.is_dir() else bench_dir.name
                    )
                except ValueError:
                    name = bench_dir.name
                name = name if name not in ("", ".") else bench_dir.name
            builder.add(name, times / iters, iters)  # the builder checks the int64 range
            entry: dict[str, Any] = {
                "benchmark": name,
                "sampling_mode": root.obj().get("sampling_mode"),
                "file": str(f),
            }
            if info.get("throughput") is not None:
                entry["throughput"] = info["throughput"]
            spec.append(entry)
        builder.finish_imported(
            0,
            salt=baseline,
            tool="criterion.rs",
            created_utc=file_mtime_utc(files[0]),
            spec=spec,
            tool_metadata={"baseline": baseline},
        )
        return builder.build()


def _load_raw_csv(path: Path, text: str) -> ImportedTable:
    """One criterion ``raw.csv`` (see the module docstring) as one run."""
    series: dict[str, tuple[list[float], list[int]]] = {}
    reader = csv.DictReader(io.StringIO(text))
    for row in reader:
        where = f"line {reader.line_num}"
        if None in row or any(v is None for v in row.values()):
            raise fail(path, where, f"expected {len(reader.fieldnames or ())} fields")
        name = "/".join(p for p in (row["group"], row["function"], row["value"]) if p)
        if not name:
            raise fail(path, where, "expected a group name")
        try:
            scale = parse_unit(row["unit"])
        except ValueError:
            raise fail(
                path, f"{where}, column 'unit'", f"expected a time unit, got {row['unit']!r}"
            ) from None
        try:
            total = float(row["sample_measured_value"]) * scale
            iters = int(row["iteration_count"])
        except ValueError:
            raise fail(
                path,
                where,
                "expected a number in sample_measured_value and a whole number in "
                "iteration_count",
            ) from None
        if not (np.isfinite(total) and total > 0):
            raise fail(path, f"{where}, column 'sample_measured_value'", "expected a time > 0")
        times, counts = series.setdefault(name, ([], []))
        times.append(total)
        counts.append(iters)
    if not series:
        raise fail(path, "line 2", "expected at least one sample")
    builder = RunBuilder(path)
    for name, (times, counts) in series.items():
        iters_arr = np.asarray(counts, dtype=np.int64)
        # a count below 1 is refused by the builder, naming the benchmark
        builder.add(name, np.asarray(times) / np.maximum(iters_arr, 1), iters_arr)
    builder.finish_imported(
        0,
        salt="raw.csv",
        tool="criterion.rs",
        created_utc=file_mtime_utc(path),
        spec=[{"benchmark": name, "file": str(path)} for name in series],
        tool_metadata={"file": "raw.csv"},
    )
    return builder.build()


def _benchmark_info(sample: Path) -> dict[str, Any]:
    bj = sample.parent / "benchmark.json"
    if not bj.is_file():
        return {}
    info = read_json(bj)
    if not isinstance(info, dict):
        raise fail(bj, "$", "expected an object")
    return info
