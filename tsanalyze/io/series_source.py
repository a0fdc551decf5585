"""Parquet run files as a source of series that workers read themselves (issue 19).

:func:`parquet_series` plans from the files' footers and their ``run``/``benchmark``
columns: which runs each file holds (with their metadata), which (run, benchmark) series
exist, how many samples in all. It reads no sample. Each series is then described by a
:class:`SeriesReader`, a small picklable object (the file's path or URL, the run, the
benchmark, the run's metadata) that reads that one series, and only it, where it is
called (:func:`~tsanalyze.io.series_reader.read_series`: a dataset filter on ``run`` and
``benchmark``, so the row groups whose statistics exclude the series are skipped). A Dask
task given a reader reads its series on the worker: the client never holds the samples,
and the files may be URLs the cluster reaches (``s3://…``, ``gs://…``, ``file://…``, any
fsspec filesystem such as ``memory://``).

References
----------
Apache Arrow, "Tabular Datasets" (pyarrow.dataset: filters pruned by Parquet row-group
statistics). https://arrow.apache.org/docs/python/dataset.html
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.fs as pafs

from tsanalyze import schema
from tsanalyze.errors import InvalidArgumentError, InvalidRunError
from tsanalyze.io.footer import is_parquet
from tsanalyze.io.runs import PathLike, expand_paths
from tsanalyze.io.series_reader import RunFiles, open_dataset, read_series, scan_runs, series_keys

__all__ = [
    "ParquetSeries",
    "SeriesReader",
    "files_of_url",
    "is_url",
    "open_url",
    "parquet_series",
]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(arg: PathLike) -> bool:
    """Whether ``arg`` is a URL (``scheme://…``) rather than a local path."""
    return isinstance(arg, str) and bool(_SCHEME.match(arg))


@functools.lru_cache(maxsize=64)
def _filesystem_of(url: str) -> tuple[Any, str]:
    try:
        return pafs.FileSystem.from_uri(url)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        pass  # not a scheme pyarrow knows: fsspec's (memory://, gcs through gcsfs, ...)
    try:
        import fsspec
    except ImportError:
        raise InvalidArgumentError(
            f"{url}: pyarrow cannot open this URL and fsspec is not installed: pip install fsspec"
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise InvalidArgumentError(f"{url}: cannot open this URL ({exc})") from None
    return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


def open_url(url: str) -> tuple[Any, str]:
    """``(pyarrow filesystem, path on it)`` of a URL: pyarrow's own filesystems
    (``file``, ``s3``, ``gs``, ``hdfs``, ...) first, else fsspec's, wrapped for pyarrow.
    Cached per process, so a worker opens each filesystem once."""
    return _filesystem_of(url)


def files_of_url(url: str) -> list[str]:
    """A URL naming a file, or a directory whose ``*.parquet`` files are taken (sorted)."""
    fs, path = open_url(url)
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        raise InvalidRunError(f"{url}: no such file")
    if info.type != pafs.FileType.Directory:
        return [url]
    scheme = url.split("://", 1)[0]
    found = fs.get_file_info(pafs.FileSelector(path, recursive=True))
    files = sorted(f.path for f in found if f.is_file and f.path.endswith(".parquet"))
    if not files:
        raise InvalidRunError(f"{url}: no *.parquet file in this directory")
    return [f"{scheme}://{f}" for f in files]


@dataclasses.dataclass(frozen=True, slots=True)
class SeriesReader:
    """What a task needs to read one series itself: a few hundred bytes, not its samples.

    Calling it returns the series' frame as :func:`~tsanalyze.io.series_reader.read_series`
    gives it (``attrs["runs"]`` holds the run's metadata, ``"file"`` as given).
    """

    file: str  # a local path or a URL, as the user gave it
    run: str
    benchmark: str
    meta: Mapping[str, Any]  # the run's metadata ("file" included)

    def __call__(self, columns: Sequence[str] = ()) -> pd.DataFrame:
        fs, path = open_url(self.file) if is_url(self.file) else (None, self.file)
        found = RunFiles((path,), {self.run: {**self.meta, "file": path}}, fs)
        df = read_series(found, self.run, self.benchmark, columns=columns)
        df.attrs["runs"] = schema.RunsAttr({self.run: dict(self.meta)})
        return df


@dataclasses.dataclass(frozen=True, slots=True)
class ParquetSeries:
    """Run files planned from their footers: what an analysis needs before reading samples.

    Made by :func:`parquet_series`; an analysis
    (:func:`tsanalyze.analysis.runset.analyze`) takes it in place of a frame and sends
    each task the :meth:`reader` of its series.
    """

    runs: dict[str, dict[str, Any]]  # run id -> metadata, "file" = the path or URL given
    keys: tuple[tuple[str, str], ...]  # every (run, benchmark) series, in file order
    n_samples: int

    def reader(self, run: str, benchmark: str) -> SeriesReader:
        """The picklable reader of one series."""
        return SeriesReader(str(self.runs[run]["file"]), run, benchmark, self.runs[run])


def parquet_series(paths: PathLike | Iterable[PathLike]) -> ParquetSeries | None:
    """Plan run files from their footers and ``run``/``benchmark`` columns (no sample read).

    Parameters
    ----------
    paths : path, glob, directory, URL, or an iterable of them
        Local paths expand as for :func:`~tsanalyze.io.runs.read_runs`; a URL
        (``s3://bucket/runs/``, ``file:///data/run.parquet``, ``memory://…``) names a
        Parquet run file or a directory of them.

    Returns
    -------
    ParquetSeries or None
        None when a local input is not a Parquet run file (another tool's file, imported
        on the fly by ``read_runs``) or a run id is held by two local files (which
        ``read_runs`` merges): read those with ``read_runs`` on the client.

    Raises
    ------
    InvalidRunError
        A URL that names no file, a file that is not a tsanalyze run, invalid metadata,
        or a run id held by two files one of which is a URL.
    """
    args = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    files: list[str] = []
    for arg in args:
        if is_url(arg):
            files += files_of_url(str(arg))
            continue
        for p in expand_paths([arg]):
            if not (p.is_file() and is_parquet(p)):
                return None
            files.append(str(p))
    runs: dict[str, dict[str, Any]] = {}
    keys: dict[tuple[str, str], None] = {}
    n = 0
    for f in files:
        fs, path = open_url(f) if is_url(f) else (None, f)
        found = scan_runs([path] if fs is not None else f, filesystem=fs)
        for rid, meta in found.runs.items():
            if rid in runs:
                if not any(is_url(x) for x in (f, runs[rid]["file"])):
                    return None
                raise InvalidRunError(f"{f}: run id {rid!r} is also in {runs[rid]['file']}")
            runs[rid] = {**meta, "file": f}
        dset = open_dataset(path, fs)
        keys.update(dict.fromkeys(series_keys(dset)))
        n += dset.count_rows()
    return ParquetSeries(runs, tuple(keys), n)
