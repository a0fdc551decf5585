"""pytest-benchmark JSON (``--benchmark-json``, ``--benchmark-save``/``--benchmark-autosave``).

Layout (pytest-benchmark ``session.py``/``stats.py``): ``{"machine_info": {...},
"commit_info": {...}, "benchmarks": [{"group", "name", "fullname", "params",
"param", "extra_info", "options", "stats": {"min", "max", "mean", "stddev",
"rounds", "median", "iqr", "q1", "q3", "iqr_outliers", "stddev_outliers",
"outliers", "ld15iqr", "hd15iqr", "ops", "total", "iterations", "data"}}],
"datetime": "...", "version": "..."}``. Times are seconds per iteration; ``data`` (one
value per round, in time order) is present only when saved with
``--benchmark-save-data``; every round runs ``iterations`` iterations.

Mapping to the run format
-------------------------
* one tsanalyze run per file (one pytest session); benchmark = ``fullname``;
* one sample per round: ``evals = iterations``, ``ns = data[i] * iterations * 1e9``;
* files without ``data`` hold summary statistics only: :meth:`load` refuses them and
  :func:`load_summaries` turns them into rows for ``tsanalyze.audit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze.errors import InvalidArgumentError
from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json
from tsanalyze.io.importers._metadata import count_field, parse_timestamp, text_field

__all__ = ["PytestBenchmarkImporter", "load_summaries"]

_STAT_COLUMNS = (
    "min",
    "max",
    "mean",
    "stddev",
    "median",
    "q1",
    "q3",
    "iqr",
    "ld15iqr",
    "hd15iqr",
    "ops",
    "total",
)
_COUNT_COLUMNS = ("iqr_outliers", "stddev_outliers")


class PytestBenchmarkImporter:
    """Importer of pytest-benchmark JSON files (see the module docstring).

    References
    ----------
    pytest-benchmark ``stats.py`` and ``session.py`` (github.com/ionelmc/pytest-benchmark); documentation, "Comparing past runs".
    """

    name = "pytest-benchmark"
    tool = "pytest-benchmark"
    description = "pytest-benchmark JSON (raw data needs --benchmark-save-data)"

    def sniff(self, path: Path, head: str) -> bool:
        return looks_like_json(
            head, "{", "benchmarks", "stats", any_of=("fullname", "machine_info", "commit_info")
        )

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("pytest-benchmark", options)
        root = JsonPath(path, read_json(path))
        top = root.obj()
        builder = RunBuilder(path)
        names: list[str] = []
        summary_only: list[str] = []
        for entry in root.key("benchmarks").items():
            name = _name(entry)
            stats = entry.key("stats")
            stats.obj()
            data = stats.key("data", required=False)
            if data.value is None:
                summary_only.append(name)
                continue
            values = data.numbers(positive=True)
            if len(values) == 0:
                summary_only.append(name)
                continue
            iters = stats.key("iterations", required=False)
            evals = iters.integer(minimum=1) if iters.value is not None else 1
            builder.add(name, values * 1e9, evals)
            names.append(name)
        if not names:
            raise fail(
                path,
                "$.benchmarks[*].stats.data",
                "expected raw timings ('data', saved with --benchmark-save-data); this file holds "
                "summary statistics only; use `tsanalyze audit` (in Python: "
                "tsanalyze.audit(tsanalyze.io.importers.load_summaries(path)))",
            )
        machine: dict[str, Any] = (
            top["machine_info"] if isinstance(top.get("machine_info"), dict) else {}
        )
        cpu: dict[str, Any] = machine["cpu"] if isinstance(machine.get("cpu"), dict) else {}
        created = parse_timestamp(top.get("datetime")) or file_mtime_utc(path)
        tool_meta: dict[str, Any] = {k: top[k] for k in ("machine_info", "commit_info") if k in top}
        if summary_only:
            tool_meta["summary_only"] = summary_only
        builder.finish_imported(
            0,
            tool="pytest-benchmark",
            created_utc=created,
            spec=names,
            version=text_field(top, "version"),
            host={
                "cpu_model": text_field(cpu, "brand_raw"),
                "logical_cores": count_field(cpu, "count"),
                "python": text_field(machine, "python_version"),
                "kernel": text_field(machine, "release"),
            },
            tool_metadata=tool_meta,
        )
        return builder.build()


def _name(entry: JsonPath) -> str:
    obj = entry.obj()
    for key in ("fullname", "name"):
        if isinstance(obj.get(key), str) and obj[key]:
            return str(obj[key])
    raise entry.error("expected key 'fullname' or 'name' (a non-empty string)")


def load_summaries(
    paths: Path | str | Sequence[Path | str],
    location: Literal["mean", "median", "min"] = "mean",
) -> pd.DataFrame:
    """Summary statistics of pytest-benchmark files, one row per benchmark and file.

    Parameters
    ----------
    paths : path or sequence of paths
        pytest-benchmark JSON files (with or without raw ``data``).
    location : {"mean", "median", "min"}
        Which statistic fills ``location`` (and ``location_kind``).

    Returns
    -------
    pandas.DataFrame
        The input columns of :func:`tsanalyze.audit`: ``name`` (unique: the benchmark's
        ``fullname``, with `` [file name]`` appended when several files hold it),
        ``benchmark`` (the plain ``fullname``), ``location``, ``location_kind``,
        ``spread`` = ``sd`` (pytest-benchmark's ``stddev`` of the per-iteration round
        times) with ``spread_kind = "sd"``, ``unit = "s"``, ``n`` = ``rounds``, ``evals`` =
        ``iterations``, ``ci_low``/``ci_high`` (NaN: no CI is published) and ``source``
        (the file); then every other statistic as written (``min, max, mean, stddev,
        median, q1, q3, iqr, ld15iqr, hd15iqr, ops, total, iqr_outliers,
        stddev_outliers``), ``group`` and ``datetime``.

    Raises
    ------
    ImportFormatError
        A file is malformed (the message names the file and JSON path).
    InvalidArgumentError
        ``location`` is not mean, median or min.

    Notes
    -----
    Values are copied, not recomputed: the audit checks them (e.g. ``iqr == q3 - q1``,
    Boyer's (2008) σ-blowup model from ``mean``, ``stddev`` and ``iterations``).

    References
    ----------
    .. [1] pytest-benchmark ``stats.py`` (the statistics and their formulas).
    .. [2] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016.
       https://doi.org/10.1109/MASCOTS.2016.31 (what the audit does with them).
    .. [3] Boyer, B. (2008). Robust Java benchmarking, Part 2: Statistics and solutions.
       IBM developerWorks (the σ-blowup model).
    """
    if location not in ("mean", "median", "min"):
        raise InvalidArgumentError(f"location must be 'mean', 'median' or 'min', got {location!r}")
    if isinstance(paths, (str, Path)):
        paths = [paths]
    rows: list[dict[str, Any]] = []
    for p in paths:
        path = Path(p)
        root = JsonPath(path, read_json(path))
        top = root.obj()
        for entry in root.key("benchmarks").items():
            stats = entry.key("stats")
            sobj = stats.obj()
            row: dict[str, Any] = {"name": _name(entry)}
            vals: dict[str, float] = {}
            for k in _STAT_COLUMNS:
                v = stats.key(k, required=k in ("mean", "stddev", "min", "max", "median"))
                vals[k] = v.number() if v.value is not None else np.nan
            n = stats.key("rounds").integer(minimum=1)
            it = stats.key("iterations", required=False)
            evals = it.integer(minimum=1) if it.value is not None else 1
            row.update(
                location=vals[location],
                location_kind=location,
                spread=vals["stddev"],
                spread_kind="sd",
                sd=vals["stddev"],
                unit="s",
                n=n,
                evals=evals,
                ci_low=np.nan,
                ci_high=np.nan,
            )
            row.update(vals)
            for k in _COUNT_COLUMNS:
                count = sobj.get(k)
                row[k] = count if isinstance(count, int) and not isinstance(count, bool) else pd.NA
            obj = entry.obj()
            row["group"] = obj.get("group") if isinstance(obj.get("group"), str) else None
            row["source"] = str(path)
            row["datetime"] = top.get("datetime") if isinstance(top.get("datetime"), str) else None
            rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    # the audit needs unique names: the same benchmark from several files gets the file name
    frame.insert(1, "benchmark", frame["name"])
    dup = frame["name"].duplicated(keep=False)
    if dup.any():
        frame.loc[dup, "name"] = [
            f"{n} [{Path(src).name}]"
            for n, src in zip(frame.loc[dup, "name"], frame.loc[dup, "source"], strict=True)
        ]
    for k in _COUNT_COLUMNS:
        if k in frame:
            frame[k] = frame[k].astype("Int64")
    return frame
