"""Read and write runs in the tsanalyze run format (Parquet, schema v1).

``read_runs`` accepts files, globs and directories (and, through the importers, other
tools' files), checks every file against :mod:`tsanalyze.schema` and returns one tidy
DataFrame. ``write_run`` writes atomically and never overwrites unless asked.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from tsanalyze import schema
from tsanalyze.errors import ImportNoteWarning, InvalidRunError, RunExistsError
from tsanalyze.io.checks import check_rows
from tsanalyze.io.footer import (
    PathLike,
    expand_paths,
    importers_module,
    is_parquet,
    runs_of_schema,
)
from tsanalyze.io.footer import check_metadata as check_metadata

__all__ = [
    "add_time_columns",
    "expand_paths",
    "file_names",
    "normalise_table",
    "order_columns",
    "read_runs",
    "temp_prefix",
    "write_run",
    "write_runs",
]


#: Arrow types written for each column of the run format (``run`` is a dictionary like
#: ``benchmark`` since issue 19: one value per file, which readers made a dictionary anyway;
#: files of older versions store it as strings, and both read the same).
ARROW_TYPES: dict[str, pa.DataType] = {
    "benchmark": pa.dictionary(pa.int32(), pa.string()),
    "run": pa.dictionary(pa.int32(), pa.string()),
    "round": pa.int64(),
    "position": pa.int16(),
    "sample": pa.int64(),
    "evals": pa.int64(),
    "ticks": pa.int64(),
    "start_ticks": pa.int64(),
    "ns": pa.float64(),
    "work": pa.float64(),
}


#: Columns written with dictionary encoding: those of few distinct values. Times, ticks
#: and indices are written plain, where pyarrow's default first tries a dictionary and
#: falls back after a megabyte of it (issue 19: 10-25% of the write time, and files
#: 13-25% larger, on simulated runs of 10^5 to 10^7 samples).
_DICTIONARY_COLUMNS = ["benchmark", "run", "position", "evals", "kind"]

def _read_parquet(path: Path) -> tuple[pa.Table, list[dict[str, Any]]]:
    """A run file's table and the metadata of each run it holds, types and values checked."""
    try:
        pf = pq.ParquetFile(path)
        table = pf.read()
        # a damaged page can decode into invalid UTF-8 or dictionary indices out of range:
        # find it here, not as an IndexError or UnicodeDecodeError deep in an analysis
        table.validate(full=True)
    except (pa.ArrowException, OSError, ValueError, IndexError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise InvalidRunError(f"{path}: truncated or corrupt Parquet file ({why})") from None
    metas = runs_of_schema(path, table.schema)
    check_rows(path, table, [m["run"] for m in metas])
    return table, metas


def normalise_table(table: pa.Table) -> pa.Table:
    """Cast the known columns to the v1 arrow types (keeping extra columns)."""
    fields = []
    arrays = []
    for f in table.schema:
        col = table.column(f.name)
        want = ARROW_TYPES.get(f.name)
        if want is not None and col.type != want:
            if f.name == "benchmark" and pa.types.is_dictionary(col.type):
                col = pc.cast(col, pa.dictionary(pa.int32(), pa.string()))
            elif f.name == "run":
                pass  # dictionary-encoded below
            else:
                col = pc.cast(col, want)
        if f.name == "run" and not pa.types.is_dictionary(col.type):
            col = pc.cast(col, pa.string()).dictionary_encode()  # categorical without a string copy
        fields.append(pa.field(f.name, col.type))
        arrays.append(col)
    if "work" not in table.column_names:
        fields.append(pa.field("work", pa.float64()))
        arrays.append(pa.nulls(table.num_rows, pa.float64()))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _load_file(path: Path) -> tuple[pa.Table | pd.DataFrame, list[dict[str, Any]]]:
    """One file's rows (an arrow table for runs, a frame for imports) and its runs' metadata."""
    if path.is_file() and is_parquet(path):
        table, metas = _read_parquet(path)
        return normalise_table(table), metas
    imp = importers_module()
    sniff = getattr(imp, "sniff", None)
    fmt = sniff(path) if sniff is not None else None
    if fmt is None:
        raise InvalidRunError(
            f"{path}: not a Parquet file, and not a format tsanalyze can import "
            "(see `tsanalyze import --help`)"
        )
    imported = imp.load_table(path, fmt)
    for note in imported.notes:
        warnings.warn(note, ImportNoteWarning, stacklevel=2)
    return imported.frame, list(imported.metadata.values())


def order_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The run-format columns first, in schema order, then any extra columns."""
    first = [c for c in schema.COLUMN_NAMES if c in df.columns]
    rest = [c for c in df.columns if c not in first]
    return df[first + rest]


def add_time_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``time_ns_raw`` = ns / evals and ``time_ns`` = (ns − overhead) / evals in place.

    The overhead is the run's ``timer.overhead_ns`` from ``df.attrs["runs"]`` (0 when
    absent). Following BenchmarkTools, a sample is never *corrected* below 1 ns: the floor
    applies only where an overhead is subtracted from what a clock measured. A sample
    with nothing to subtract (every imported run: the tools report per-operation times,
    e.g. 0.296 ns/op from a JMH throughput of 3.376e9 ops/s) keeps its value.

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """
    runs = df.attrs.get("runs", {})
    ns = df["ns"].to_numpy(dtype=np.float64)
    evals = df["evals"].to_numpy(dtype=np.float64)
    overhead_by_run = {
        r: float((m.get("timer") or {}).get("overhead_ns") or 0.0) for r, m in runs.items()
    }
    if len(set(overhead_by_run.values())) <= 1:
        overhead: Any = next(iter(overhead_by_run.values()), 0.0)
    else:
        run_codes = df["run"].astype("category")
        lut = np.array([overhead_by_run.get(c, 0.0) for c in run_codes.cat.categories])
        overhead = lut[run_codes.cat.codes.to_numpy()]
    df["time_ns_raw"] = ns / evals
    corrected = np.where(np.asarray(overhead) > 0, np.maximum(ns - overhead, 1.0), ns)
    df["time_ns"] = corrected / evals
    return df


def read_runs(
    paths: PathLike | Iterable[PathLike],
    *,
    include_warmups: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Read runs (files, globs, directories, other tools' files) into one tidy DataFrame.

    Parameters
    ----------
    paths : path, glob, directory, or an iterable of them
        Parquet run files; directories contribute their ``*.parquet`` files; files in
        another tool's format are recognised by content and imported on the fly.
    include_warmups : bool
        Keep imported warm-up and calibration values (rows whose ``kind`` column is not
        ``"value"``); by default they are dropped.
    progress : callable, optional
        Called as ``progress(done, total)`` after each file is read (a progress bar).

    Returns
    -------
    pandas.DataFrame
        One row per sample, the run-format columns (``benchmark`` and ``run`` as
        categoricals) plus ``time_ns_raw`` = ns / evals and ``time_ns`` = per-evaluation
        time after subtracting the run's recorded timer overhead. ``df.attrs["runs"]``
        maps each run id to its metadata (with ``"file"`` added).

    Raises
    ------
    InvalidRunError
        With a one-line message naming the file (and column, row or key) for every
        problem the run format forbids. Input files are never modified.

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (the
       overhead). https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """
    files = expand_paths(paths)
    tables: list[pa.Table] = []
    frames: list[pd.DataFrame] = []
    runs: dict[str, dict[str, Any]] = {}
    sources: dict[str, Path] = {}
    n_loaded = 0
    for done, src in enumerate(files, start=1):
        data, metas = _load_file(src)
        if progress is not None:
            progress(done, len(files))
        for meta in metas:
            rid = meta["run"]
            n_loaded += 1
            if rid in runs:
                prev = {k: v for k, v in runs[rid].items() if k != "file"}
                if prev != meta:
                    raise InvalidRunError(
                        f"{src}: run id {rid!r} is also claimed by {sources[rid]} with different metadata"
                    )
            runs[rid] = {**meta, "file": str(src)}
            sources.setdefault(rid, src)
        if isinstance(data, pa.Table):
            tables.append(data)
        else:
            frames.append(data)
    parts: list[pd.DataFrame] = []
    if tables:
        merged = pa.concat_tables(tables, promote_options="default").unify_dictionaries()
        tables.clear()
        # self_destruct frees each arrow column once converted: peak ~ final frame + 1 column
        parts.append(merged.to_pandas(split_blocks=True, self_destruct=True))
        del merged
    if frames:
        imported = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        parts.append(imported)
    if len(parts) == 1:
        df = parts[0]
    else:  # runs and imports together: unify the categoricals once
        df = pd.concat([p.astype({"benchmark": str, "run": str}) for p in parts], ignore_index=True)
    for c in ("benchmark", "run"):
        if not isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype("category")
    for c in ("ticks", "start_ticks"):
        if c in df.columns and df[c].dtype != "Int64":
            df[c] = df[c].astype("Int64")
    if "kind" in df.columns and not include_warmups:
        keep = df["kind"].isna() | (df["kind"].astype(str) == "value")  # runs have no kind
        if not keep.all():
            if not keep.any():
                raise InvalidRunError(
                    f"{file_names(files)}: holds only warm-up or calibration rows (column kind), no "
                    "measured values; read them with include_warmups=True"
                )
            df = df[keep].reset_index(drop=True)
    if len(runs) < n_loaded:
        _check_cross_file_duplicates(df, sources)
    df = order_columns(df)
    df.attrs["runs"] = schema.RunsAttr(runs)
    add_time_columns(df)
    # the arrow allocator keeps the pages of the tables just converted for reuse; give them
    # back (issue 19: 0.5 GB of a 1.5 GB resident set after reading 10^7 samples)
    pa.default_memory_pool().release_unused()
    return df


def file_names(files: list[Path]) -> str:
    """The files a message is about: the one path, or the first and how many more."""
    return str(files[0]) if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more files)"


def _check_cross_file_duplicates(df: pd.DataFrame, sources: Mapping[str, Path]) -> None:
    dup = df.duplicated(["run", "benchmark", "sample"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        row = df.iloc[i]
        raise InvalidRunError(
            f"{sources.get(str(row['run']), '?')}: duplicate (run, benchmark, sample) = "
            f"({row['run']!r}, {row['benchmark']!r}, {int(row['sample'])}) across files"
        )


def write_run(
    frame: pd.DataFrame,
    path: PathLike,
    metadata: Mapping[str, Any],
    *,
    overwrite: bool = False,
) -> Path:
    """Write one run atomically: temporary file in the same directory, fsync, rename.

    Parameters
    ----------
    frame : pandas.DataFrame
        The samples, with the run-format columns (``time_ns``/``time_ns_raw`` are derived
        and not written; other extra columns are kept).
    path : path
        Destination file.
    metadata : mapping
        The run metadata (validated against :data:`tsanalyze.schema.METADATA`).
    overwrite : bool
        Replace an existing file. Without it an existing file is never touched.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    RunExistsError
        If ``path`` exists and ``overwrite`` is false.
    InvalidRunError
        If the frame or metadata violate the run format: the same checks as
        :func:`read_runs` (:func:`tsanalyze.io.checks.check_rows`), so a file written
        here always reads back.

    Notes
    -----
    The file is first written under a hidden temporary name in the destination
    directory and fsynced; it then appears under its final name in one atomic step
    (``os.link`` when not overwriting, so a file created meanwhile is never clobbered;
    ``os.replace`` otherwise), so a crash never leaves a half-written file there.

    References
    ----------
    DESIGN.md, "The run format (schema version 1)" and "Collector: Safety".
    """
    return write_runs(frame, path, [metadata], overwrite=overwrite)


def write_runs(
    frame: pd.DataFrame,
    path: PathLike,
    metadata: Iterable[Mapping[str, Any]],
    *,
    overwrite: bool = False,
) -> Path:
    """Write several runs (e.g. every run of one import) into one file, atomically.

    Parameters
    ----------
    frame : pandas.DataFrame
        The samples of every run; the ``run`` column says which run a row belongs to.
    path : path
        Destination file.
    metadata : iterable of mappings
        The metadata of each run, in file order (one entry: the file is written exactly
        as :func:`write_run` writes it).
    overwrite : bool
        Replace an existing file.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    RunExistsError, InvalidRunError
        As :func:`write_run`.

    Notes
    -----
    A file of several runs stores ``{"schema_version": 2, "runs": [...]}`` as its
    metadata (run format version 2; :func:`tsanalyze.schema.file_runs`). Readers treat
    the runs of one file as the trials of one side.

    References
    ----------
    DESIGN.md, "The run format (schema version 1)"; :mod:`tsanalyze.schema` (version 2).
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise RunExistsError(f"{path}: already exists; refusing to overwrite (pass overwrite=True)")
    metas = [dict(m) for m in metadata]
    if not metas:
        raise InvalidRunError(f"{path}: cannot write: no run metadata given")
    stored: Any = metas[0] if len(metas) == 1 else {"schema_version": schema.SCHEMA_VERSION, "runs": metas}
    missing = [c for c in schema.REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise InvalidRunError(f"{path}: cannot write: column {missing[0]}: missing")
    try:
        check_metadata(path, metas)
        table = _to_arrow(frame, path)
        cols = {f.name: str(f.type) for f in table.schema}
        problems = schema.validate(cols, stored)
        if problems:
            raise InvalidRunError(f"{path}: " + "; ".join(problems))
        check_rows(path, table, [m["run"] for m in metas])
    except InvalidRunError as exc:
        raise InvalidRunError(f"cannot write {exc}") from None
    table = table.replace_schema_metadata({schema.METADATA_KEY: schema.encode_metadata(stored)})
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(path), suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give a run file the usual mode
    try:
        with os.fdopen(fd, "wb") as fh:
            pq.write_table(table, fh, compression="zstd", use_dictionary=_DICTIONARY_COLUMNS)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # atomic no-clobber
            except FileExistsError:
                raise RunExistsError(f"{path}: already exists; refusing to overwrite") from None
            tmp.unlink()
        _fsync_dir(path.parent)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def temp_prefix(path: Path) -> str:
    """The hidden name a file is written under before it appears as ``path``: ``.`` and
    the name, cut so that the temporary name (up to 30 bytes longer) still fits in the
    255 bytes a file name may have (a name of 242-255 bytes failed before)."""
    short = path.name.encode()[:200].decode("utf-8", errors="ignore")
    return f".{short}."


def _categorical_strings(col: pd.Series) -> pa.Array | None:
    """A categorical column as arrow strings from its codes, without a Python string per
    row: a dictionary of the values in order of first appearance, as ``dictionary_encode``
    of the strings would give (None when the column is not categorical or has missing
    values, which the caller converts the slow way)."""
    if not isinstance(col.dtype, pd.CategoricalDtype):
        return None
    codes = col.cat.codes.to_numpy()
    if codes.size and codes.min() < 0:
        return None
    first, used = _first_appearance(codes)
    names = pa.array([str(v) for v in col.cat.categories[used]], pa.string())
    return pa.DictionaryArray.from_arrays(pa.array(first.astype(np.int32, copy=False)), names)


def _first_appearance(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(codes, sort=False)`` of non-negative codes (new codes, and the old
    code of each) without a hash table over every row when there are few codes (issue
    19: the hash table was a fifth of the conversion at 5·10^6 rows): the first rows
    usually hold every code, else one vectorised pass per code finds where it first
    appears; the codes are then kept, or relabelled by a lookup."""
    if codes.size == 0:
        return codes.astype(np.intp), np.zeros(0, dtype=np.intp)
    top = int(codes.max())
    _, used = pd.factorize(codes[: 1 << 12], sort=False)
    if used.size != top + 1:
        if top >= 64:
            first, used = pd.factorize(codes, sort=False)
            return first, used
        where = [(int(np.argmax(codes == c)), c) for c in range(top + 1)]
        used = np.array([c for i, c in sorted(where) if codes[i] == c], dtype=np.intp)
    if used.size == top + 1 and bool((used == np.arange(used.size)).all()):
        return codes, used
    lut = np.zeros(top + 1, dtype=np.int32)
    lut[used] = np.arange(used.size, dtype=np.int32)
    return lut.take(codes), used


def _column_to_arrow(name: str, col: pd.Series) -> pa.Array:
    """One column in the run format's type (no Python object per row for categoricals)."""
    typ = ARROW_TYPES.get(name)
    if name in ("benchmark", "run"):
        fast = _categorical_strings(col)
        if fast is None:
            fast = pa.array(col.astype(str).to_numpy(), pa.string()).dictionary_encode()
        want = ARROW_TYPES[name]
        return fast if fast.type == want else pc.cast(fast, want)
    arr = pa.array(col, from_pandas=True)
    return arr if typ is None or arr.type == typ else arr.cast(typ)


def _to_arrow(frame: pd.DataFrame, path: Path) -> pa.Table:
    """The run-format arrow table of ``frame``, derived columns dropped (issue 19: column
    by column, no copy of the frame); a column that cannot be stored in its type is an
    :class:`InvalidRunError` naming ``path`` and the column."""
    names = [c for c in schema.COLUMN_NAMES if c in frame.columns]
    names += [c for c in frame.columns if c not in names and c not in ("time_ns", "time_ns_raw")]
    # a shallow copy without attrs: pandas deep-copies attrs (every run's metadata) on
    # each column access otherwise (issue 19: 5 ms of a 50 ms write of 5·10^4 rows)
    frame = frame.copy(deep=False)
    frame.attrs = {}
    arrays = []
    fields = []
    for name in names:
        try:
            arr = _column_to_arrow(name, frame[name])
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
            why = " ".join(str(exc).split())[:200]
            typ = ARROW_TYPES.get(name)
            raise InvalidRunError(
                f"{path}: column {name}: cannot be stored as {typ or 'a column'} ({why})"
            ) from None
        arrays.append(arr)
        fields.append(pa.field(name, arr.type, nullable=True))
    if "work" not in frame.columns:
        arrays.append(pa.nulls(len(frame), pa.float64()))
        fields.append(pa.field("work", pa.float64(), nullable=True))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_SERIES_READER = ("RunFiles", "iter_series", "read_series", "scan_runs")


def __getattr__(name: str) -> Any:
    """The one-series-at-a-time reader (:mod:`tsanalyze.io.series_reader`), also here."""
    if name in _SERIES_READER:
        from tsanalyze.io import series_reader

        return getattr(series_reader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
