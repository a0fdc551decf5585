"""Read one (run, benchmark) series at a time from Parquet run files (issue 19).

:func:`scan_runs` learns which file holds which run from the files' footers (no sample is
read); :func:`read_series` then reads one series, and only it: the file holding the run,
the columns asked for, the row groups a dataset filter on ``run`` and ``benchmark`` does
not exclude. Memory is that of one series, not of the files. Also importable from
:mod:`tsanalyze.io.runs`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pds

from tsanalyze import schema
from tsanalyze._lru import LRU
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.checks import check_rows
from tsanalyze.io.footer import PathLike, expand_paths, runs_of_schema
from tsanalyze.io.runs import add_time_columns, file_names, normalise_table, order_columns

__all__ = [
    "RunFiles",
    "iter_series",
    "open_dataset",
    "read_series",
    "scan_runs",
    "series_keys",
]


@dataclasses.dataclass(frozen=True, slots=True)
class RunFiles:
    """Run files known from their footers: which file holds which run, and its metadata.

    Made by :func:`scan_runs`; :func:`read_series` reads one series of them at a time.
    """

    files: tuple[str, ...]  # in the order given (paths or URLs)
    runs: dict[str, dict[str, Any]]  # run id -> its metadata, "file" added
    filesystem: Any = None  # a pyarrow.fs filesystem; None: local paths, URLs pyarrow resolves

    def series(self) -> list[tuple[str, str]]:
        """Every ``(run, benchmark)`` series, in file order (reads only those 2 columns)."""
        out: dict[tuple[str, str], None] = {}
        for f in self.files:
            out.update(dict.fromkeys(series_keys(open_dataset(f, self.filesystem))))
        return list(out)


def series_keys(dset: Any) -> list[tuple[str, str]]:
    """The ``(run, benchmark)`` pairs of a dataset in order of appearance, from the
    dictionary indices of its two key columns, batch by batch (each batch, like each row
    group, may have its own dictionaries; no string per row is made)."""
    out: dict[tuple[str, str], None] = {}
    for batch in dset.to_batches(columns=["run", "benchmark"]):
        cols = [batch.column(i) for i in range(2)]
        cols = [c if pa.types.is_dictionary(c.type) else c.dictionary_encode() for c in cols]
        ri, bi = (c.indices.to_numpy(zero_copy_only=False).astype(np.int64) for c in cols)
        if ri.size == 0:
            continue
        code = ri * len(cols[1].dictionary) + bi
        _, first = np.unique(code, return_index=True)
        runs, benches = (c.dictionary.to_pylist() for c in cols)
        for i in np.sort(first).tolist():
            out[(str(runs[ri[i]]), str(benches[bi[i]]))] = None
    return list(out)


def open_dataset(path: str, filesystem: Any) -> pds.Dataset:
    """The run file at ``path`` as an arrow dataset, ``run`` and ``benchmark`` read as
    dictionaries; a file arrow cannot open is an :class:`InvalidRunError` naming it."""
    fmt = pds.ParquetFileFormat(read_options={"dictionary_columns": ["run", "benchmark"]})
    try:
        return pds.dataset(path, format=fmt, filesystem=filesystem)
    except (pa.ArrowException, OSError, ValueError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise InvalidRunError(f"{path}: cannot be read as a Parquet run file ({why})") from None


def scan_runs(
    paths: PathLike | Iterable[PathLike] | RunFiles, *, filesystem: Any = None
) -> RunFiles:
    """Find the runs of Parquet run files from their footers, without reading samples.

    Parameters
    ----------
    paths : path, glob, directory, iterable of them, or RunFiles
        Local paths are expanded as :func:`read_runs` does; with ``filesystem`` (a
        ``pyarrow.fs`` filesystem, e.g. from ``pyarrow.fs.FileSystem.from_uri``) the
        paths are taken as they are, on that filesystem.
    filesystem : pyarrow.fs.FileSystem, optional

    Returns
    -------
    RunFiles

    Raises
    ------
    InvalidRunError
        A file that is not a tsanalyze Parquet run (import other tools' files first with
        ``tsanalyze import``), invalid metadata, or a run id held by two files.
    """
    if isinstance(paths, RunFiles):
        return paths
    if filesystem is None:
        files = [str(p) for p in expand_paths(paths)]
    else:
        files = [
            os.fspath(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)
        ]
    runs: dict[str, dict[str, Any]] = {}
    for f in files:
        arrow_schema = open_dataset(f, filesystem).schema
        for meta in runs_of_schema(f, arrow_schema):
            if meta["run"] in runs:
                raise InvalidRunError(
                    f"{f}: run id {meta['run']!r} is also in {runs[meta['run']]['file']}"
                )
            runs[meta["run"]] = {**meta, "file": f}
    return RunFiles(tuple(files), runs, filesystem)


#: a local file of at most this many rows is read whole, once per process, and its series
#: are cut from memory: with many small runs (issue 24) one filtered read per series and
#: comparison side costs several times the analysis; larger files keep the filtered read
#: (memory of one series, issue 19)
WHOLE_FILE_ROWS = 200_000


class _SmallFiles:
    """The last few small local files read whole (by path, size, modification time and
    columns, so a file rewritten since is read again); thread-safe."""

    def __init__(self, keep: int = 4) -> None:
        self._tables: LRU[tuple[Any, ...], pa.Table] = LRU(keep)

    def table(self, file: str, filesystem: Any, dset: pds.Dataset,
              columns: Sequence[str]) -> pa.Table | None:  # fmt: skip
        """The whole file's ``columns``, or None for a URL or a file too large."""
        if filesystem is not None:
            return None
        try:
            st = os.stat(file)
        except OSError:
            return None
        key = (file, st.st_size, st.st_mtime_ns, tuple(columns))
        table = self._tables.get(key)
        if table is None:
            if dset.count_rows() > WHOLE_FILE_ROWS:  # from the footer
                return None
            table = self._read(dset, columns)
            self._tables.put(key, table)
        return table

    @staticmethod
    def _read(dset: pds.Dataset, columns: Sequence[str]) -> pa.Table:
        return dset.to_table(columns=list(columns))


_small_files = _SmallFiles()


def read_series(
    source: PathLike | Iterable[PathLike] | RunFiles, run: str, benchmark: str, *,
    columns: Sequence[str] = (), filesystem: Any = None,
) -> pd.DataFrame:  # fmt: skip
    """Read one (run, benchmark) series, and only it, in sample order (issue 19).

    Only the file holding ``run`` is opened; a dataset filter on ``run`` and
    ``benchmark`` skips the row groups whose statistics exclude them, so memory is
    that of the series, not of the files.

    Parameters
    ----------
    source : path(s) or RunFiles
        Parquet run files, or what :func:`scan_runs` found (scan once, read many).
    run, benchmark : str
        The series.
    columns : sequence of str
        Columns to read besides the required ones of the run format (e.g. ``"ticks"``).
    filesystem : pyarrow.fs.FileSystem, optional
        As for :func:`scan_runs` (ignored when ``source`` is a RunFiles).

    Returns
    -------
    pandas.DataFrame
        The rows of the series as :func:`read_runs` gives them (``benchmark`` and ``run``
        categorical, ``time_ns_raw`` and ``time_ns`` added), sorted by ``sample``;
        ``attrs["runs"]`` holds the metadata of ``run`` only.

    Raises
    ------
    InvalidRunError
        As :func:`scan_runs`, a run or benchmark not in the files, or a row the run
        format forbids (the checks of :func:`read_runs`, on this series' rows).
    """
    found = scan_runs(source, filesystem=filesystem)
    meta = found.runs.get(run)
    if meta is None:
        raise InvalidRunError(f"{file_names([Path(f) for f in found.files])}: no run {run!r}")
    file = meta["file"]
    dset = open_dataset(file, found.filesystem)
    want = [c for c in schema.COLUMN_NAMES if c in schema.REQUIRED_COLUMNS or c in columns]
    want += [c for c in columns if c not in want]
    absent = [c for c in want if c not in dset.schema.names and c != "work"]
    if absent:
        raise InvalidRunError(f"{file}: column {absent[0]}: missing")
    cond = (pc.field("run") == run) & (pc.field("benchmark") == benchmark)
    cols = [c for c in want if c in dset.schema.names]
    try:
        whole = _small_files.table(file, found.filesystem, dset, cols)
        table = dset.to_table(columns=cols, filter=cond) if whole is None else whole.filter(cond)
    except (pa.ArrowException, OSError, ValueError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise InvalidRunError(f"{file}: truncated or corrupt Parquet file ({why})") from None
    if table.num_rows == 0:
        raise InvalidRunError(f"{file}: run {run!r} has no benchmark {benchmark!r}")
    check_rows(f"{file} (run {run!r}, benchmark {benchmark!r})", table, [run])
    sample = table.column("sample").to_numpy()
    if sample.size > 1 and not bool(np.all(sample[1:] > sample[:-1])):
        table = table.sort_by("sample")
    df = normalise_table(table).to_pandas(split_blocks=True, self_destruct=True)
    del table
    for c in ("ticks", "start_ticks"):
        if c in df.columns:
            df[c] = df[c].astype("Int64")
    df["benchmark"] = df["benchmark"].cat.remove_unused_categories()
    df = order_columns(df)
    df.attrs["runs"] = schema.RunsAttr({run: meta})
    return add_time_columns(df)


def iter_series(
    source: PathLike | Iterable[PathLike] | RunFiles, *, columns: Sequence[str] = (),
    filesystem: Any = None,
) -> Iterator[pd.DataFrame]:  # fmt: skip
    """Each series of the files, one at a time (:func:`read_series`), in the order of
    :meth:`RunFiles.series`: at most one series is held in memory by this reader."""
    found = scan_runs(source, filesystem=filesystem)
    for run, benchmark in found.series():
        yield read_series(found, run, benchmark, columns=columns)
