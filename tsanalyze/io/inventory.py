"""What run files hold, from their footers: ``tsanalyze info`` without the samples (issue 19).

A Parquet file's footer holds most of what ``info`` shows: the runs' metadata (the
``tsanalyze`` key-value metadata), the number of rows and row groups and, per row group
and column, the minimum, maximum and number of nulls. The one thing it does not hold is
how many samples each (run, benchmark) series has. A row group whose statistics say it
holds a single run and a single benchmark counts whole; only the other row groups have
their two key columns read, as dictionary indices, a batch at a time. No float sample is
ever read, so the time and memory of :func:`inventory` do not grow with the samples of a
file laid out by series, and grow with two integer columns of the others (a collector's
interleaved rounds).

Files in another tool's format hold no footer: they are read whole (they are small) and
summarised the same way.

This module does not import pandas for Parquet files (a third of a second and 50 MB).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tsanalyze.errors import InvalidRunError
from tsanalyze.io.footer import PathLike, expand_paths, is_parquet, runs_of_schema

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ColumnRange",
    "FileInventory",
    "Inventory",
    "file_inventory",
    "frame_inventory",
    "inventory",
    "parquet_inventory",
    "time_span_s",
]

#: the columns whose range the inventory gives (the numbers of the run format)
RANGE_COLUMNS = ("round", "position", "sample", "evals", "ticks", "start_ticks", "ns", "work")
#: rows of the key columns decoded at a time from a row group of several series
_BATCH_ROWS = 1 << 17


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnRange:
    """Smallest and largest value and number of nulls of one column of a file.

    ``min``/``max`` are None when the column holds no value, or when a row group of a
    Parquet file carries no statistics for it; ``nulls`` is None when unknown.
    """

    min: float | int | None
    max: float | int | None
    nulls: int | None


@dataclasses.dataclass(frozen=True, slots=True)
class FileInventory:
    """What one file holds, as its footer (or, for an import, its content) says."""

    file: str
    format: str  # "parquet", or the importer's format name
    size_bytes: int | None
    rows: int
    row_groups: int | None  # None: not a Parquet file
    runs: tuple[dict[str, Any], ...]  # each run's checked metadata, in file order
    samples: dict[tuple[str, str], int]  # (run, benchmark) -> samples, in file order
    columns: dict[str, ColumnRange]
    rows_read: int  # rows whose key columns were decoded (0: the footer said it all)


@dataclasses.dataclass(frozen=True, slots=True)
class Inventory:
    """The files of :func:`inventory` and their runs merged as :func:`tsanalyze.read_runs`
    merges them (a run id in two files must carry the same metadata in both)."""

    files: tuple[FileInventory, ...]
    runs: dict[str, dict[str, Any]]  # run id -> metadata, "file" added (the first file)
    samples: dict[tuple[str, str], int]  # (run, benchmark) -> samples over every file


def _corrupt(path: PathLike, exc: BaseException) -> InvalidRunError:
    why = " ".join(str(exc).split())[:200]
    return InvalidRunError(f"{path}: truncated or corrupt Parquet file ({why})")


def _single(stats: Any) -> Any:
    """The one value of a column chunk whose statistics say it holds only that value, or
    None (no statistics, nulls, or several values)."""
    if stats is None or not stats.has_min_max or not stats.has_null_count or stats.null_count:
        return None
    return stats.min if stats.min == stats.max else None


def _indices(arr: pa.DictionaryArray) -> np.ndarray:
    """The dictionary indices of ``arr`` as a numpy view of its buffer (``to_numpy`` and
    arrow arithmetic with a Python number would import pandas)."""
    idx = arr.indices
    size = idx.type.bit_width // 8
    return np.frombuffer(
        idx.buffers()[1], dtype=f"<i{size}", count=len(idx), offset=idx.offset * size
    )


def _as_dictionary(arr: pa.Array) -> pa.DictionaryArray:
    if pa.types.is_dictionary(arr.type):
        return arr
    import pyarrow.compute as pc  # a writer that stored the key columns without dictionaries

    return pc.dictionary_encode(arr)


def _all_values(stats: Any, num_rows: int) -> bool:
    """Whether a ``kind`` column chunk holds only ``value`` rows (or nulls, which are
    values), by its statistics; False when they cannot tell."""
    if stats is None or not stats.has_null_count:
        return False
    if stats.null_count == num_rows:
        return True
    return bool(stats.has_min_max and stats.min == stats.max == "value")


def _count_keys(
    path: PathLike, pf: pq.ParquetFile, groups: list[int], into: dict[tuple[str, str], int],
    *, values_only: bool = False,
) -> None:  # fmt: skip
    """Add the rows of each (run, benchmark) in row groups ``groups``: the two key columns
    only, as dictionary indices, :data:`_BATCH_ROWS` rows at a time; with ``values_only``
    the ``kind`` column too, and only the rows that are samples (kind null or value), as
    :func:`tsanalyze.read_runs` keeps them."""
    columns = ["run", "benchmark", "kind"] if values_only else ["run", "benchmark"]
    try:
        batches = pf.iter_batches(_BATCH_ROWS, row_groups=groups, columns=columns)
        for batch in batches:
            run = _as_dictionary(batch.column(0))
            bench = _as_dictionary(batch.column(1))
            if run.null_count or bench.null_count:
                name = "run" if run.null_count else "benchmark"
                raise InvalidRunError(f"{path}: column {name}: holds a null")
            width = max(1, len(bench.dictionary))
            key = _indices(run).astype(np.int64) * width + _indices(bench)
            if values_only:
                import pyarrow.compute as pc  # only imported files have other kinds

                kind = batch.column(2)
                keep = pc.fill_null(pc.equal(kind.cast(pa.string()), "value"), True)
                key = key[np.asarray(keep.to_numpy(zero_copy_only=False), dtype=bool)]
            counts = np.bincount(key, minlength=len(run.dictionary) * width)
            runs = run.dictionary.to_pylist()
            benches = bench.dictionary.to_pylist()
            for k in np.flatnonzero(counts).tolist():
                rb = (str(runs[k // width]), str(benches[k % width]))
                into[rb] = into.get(rb, 0) + int(counts[k])
    except (pa.ArrowException, OSError, ValueError, IndexError) as exc:
        if isinstance(exc, InvalidRunError):
            raise
        raise _corrupt(path, exc) from None


def _column_ranges(pf: pq.ParquetFile) -> dict[str, ColumnRange]:
    """Each range column's min, max and nulls over the row groups' statistics."""
    md = pf.metadata
    where = {md.schema.column(j).path: j for j in range(md.num_columns)}
    out: dict[str, ColumnRange] = {}
    for name in RANGE_COLUMNS:
        j = where.get(name)
        if j is None:
            continue
        lo: Any = None
        hi: Any = None
        nulls: int | None = 0
        known = True
        for i in range(md.num_row_groups):
            chunk = md.row_group(i).column(j)
            st = chunk.statistics
            if st is None or not st.has_null_count:
                nulls = None
            elif nulls is not None:
                nulls += st.null_count
            if st is not None and st.has_min_max:
                lo = st.min if lo is None else min(lo, st.min)
                hi = st.max if hi is None else max(hi, st.max)
            elif not (st is not None and st.has_null_count and st.null_count == chunk.num_values):
                known = False  # values without statistics: the range is unknown
        out[name] = ColumnRange(lo, hi, nulls) if known else ColumnRange(None, None, nulls)
    return out


def parquet_inventory(path: PathLike) -> FileInventory:
    """What a Parquet run file holds, from its footer (and, for row groups of several
    series, its two key columns). The metadata is checked as :func:`tsanalyze.read_runs`
    checks it; the samples are not read, so not checked either."""
    try:
        pf = pq.ParquetFile(path)
        arrow_schema = pf.schema_arrow
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise _corrupt(path, exc) from None
    metas = runs_of_schema(path, arrow_schema)
    md = pf.metadata
    where = {md.schema.column(j).path: j for j in range(md.num_columns)}
    samples: dict[tuple[str, str], int] = {}
    mixed: list[int] = []
    kinded: list[int] = []  # imported rows of other kinds than value (warm-ups): not samples
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        if rg.num_rows == 0:
            continue
        if "kind" in where and not _all_values(rg.column(where["kind"]).statistics, rg.num_rows):
            kinded.append(i)
            continue
        run = _single(rg.column(where["run"]).statistics)
        bench = _single(rg.column(where["benchmark"]).statistics)
        if run is None or bench is None:
            mixed.append(i)
        else:
            samples[(str(run), str(bench))] = samples.get((str(run), str(bench)), 0) + rg.num_rows
    if mixed or kinded:  # the key columns, as dictionaries (their columns exist: checked above)
        keys = pq.ParquetFile(path, metadata=md, read_dictionary=["run", "benchmark"])
        if mixed:
            _count_keys(path, keys, mixed, samples)
        if kinded:
            _count_keys(path, keys, kinded, samples, values_only=True)
    mixed += kinded
    declared = [m["run"] for m in metas]
    for rid, _ in samples:
        if rid not in declared:
            said = (
                f"the metadata says run {declared[0]!r}" if len(declared) == 1
                else f"the metadata declares {len(declared)} other runs"
            )  # fmt: skip
            raise InvalidRunError(f"{path}: column run: holds {rid!r} but {said}")
    return FileInventory(
        file=os.fspath(path),
        format="parquet",
        size_bytes=_size(path),
        rows=md.num_rows,
        row_groups=md.num_row_groups,
        runs=tuple(metas),
        samples=samples,
        columns=_column_ranges(pf),
        rows_read=sum(md.row_group(i).num_rows for i in mixed),
    )


def _size(path: PathLike) -> int | None:
    try:
        return os.stat(path).st_size if Path(path).is_file() else None
    except OSError:  # pragma: no cover - vanished meanwhile
        return None


def frame_inventory(path: PathLike, df: pd.DataFrame, fmt: str) -> FileInventory:
    """What a file read whole holds (another tool's file, read by :func:`tsanalyze.read_runs`),
    summarised as :func:`parquet_inventory` summarises a run file."""
    sizes = df.groupby(["run", "benchmark"], observed=True, sort=False).size()
    samples = {
        (str(r), str(b)): int(n)
        for r, b, n in zip(
            sizes.index.get_level_values(0), sizes.index.get_level_values(1), sizes, strict=True
        )
    }
    columns: dict[str, ColumnRange] = {}
    for name in RANGE_COLUMNS:
        if name not in df.columns:
            continue
        col = df[name]
        nulls = int(col.isna().sum())
        has = len(col) > nulls
        lo, hi = (_plain(col.min()), _plain(col.max())) if has else (None, None)
        columns[name] = ColumnRange(lo, hi, nulls)
    runs = tuple(
        {k: v for k, v in m.items() if k != "file"} for m in df.attrs.get("runs", {}).values()
    )
    return FileInventory(
        file=os.fspath(path), format=fmt, size_bytes=_size(path), rows=len(df), row_groups=None,
        runs=runs, samples=samples, columns=columns, rows_read=len(df),
    )  # fmt: skip


def _plain(value: Any) -> float | int | None:
    """A numpy scalar as a Python number (None for a missing value)."""
    if value is None:
        return None
    v = value.item() if hasattr(value, "item") else value
    if isinstance(v, float) and math.isnan(v):
        return None
    return v if isinstance(v, (int, float)) else None


def file_inventory(path: PathLike) -> FileInventory:
    """:func:`parquet_inventory` of a Parquet file; another tool's file is imported (read
    whole, as :func:`tsanalyze.read_runs` reads it) and summarised the same way."""
    p = Path(path)
    if p.is_file() and is_parquet(p):
        return parquet_inventory(p)
    from tsanalyze.io.importers import sniff
    from tsanalyze.io.runs import read_runs

    df = read_runs([p])  # the error for a file nobody can read is read_runs'
    return frame_inventory(p, df, sniff(p) or "unknown")


def inventory(paths: PathLike | Iterable[PathLike]) -> Inventory:
    """What run files (files, globs, directories, other tools' files) hold, without
    reading the samples of Parquet run files (:func:`parquet_inventory`).

    Parameters
    ----------
    paths : path, glob, directory, or an iterable of them
        As for :func:`tsanalyze.read_runs`.

    Returns
    -------
    Inventory

    Raises
    ------
    InvalidRunError
        A file that cannot be read, invalid metadata, a run id claimed by two files with
        different metadata, rows of a run the file does not declare.
    """
    files = tuple(file_inventory(f) for f in expand_paths(paths))
    runs: dict[str, dict[str, Any]] = {}
    samples: dict[tuple[str, str], int] = {}
    for fi in files:
        for meta in fi.runs:
            rid = meta["run"]
            if rid in runs:
                prev = {k: v for k, v in runs[rid].items() if k != "file"}
                if prev != meta:
                    raise InvalidRunError(
                        f"{fi.file}: run id {rid!r} is also claimed by {runs[rid]['file']} "
                        "with different metadata"
                    )
                continue
            runs[rid] = {**meta, "file": fi.file}
        for key, n in fi.samples.items():
            samples[key] = samples.get(key, 0) + n
    return Inventory(files, runs, samples)


def time_span_s(inv: Inventory, run: str) -> float | None:
    """Seconds from the first sample's start to the last one's, from the ``start_ticks``
    range of the file holding ``run`` when that file holds this run only (the statistics
    are per file), else None."""
    meta: Mapping[str, Any] = inv.runs.get(run) or {}
    hz = float((meta.get("clock") or {}).get("hz") or 0.0)
    holding = [f for f in inv.files if any(m["run"] == run for m in f.runs)]
    if hz <= 0 or len(holding) != 1 or len(holding[0].runs) != 1:
        return None
    st = holding[0].columns.get("start_ticks")
    if st is None or st.min is None or st.max is None or st.nulls:
        return None
    return float(st.max - st.min) / hz
