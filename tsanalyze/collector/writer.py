"""Safe output for the collector: a recoverable ``.partial`` while sampling, Parquet at the end.

While a run is recorded, finished rounds go to ``.<name>.<hex>.partial`` next to the
final name: an Arrow IPC *stream* whose schema carries the run's metadata (as known at
the start) and whose record batches hold the samples, one batch per flush. A stream is
readable up to its last complete batch, so whatever happens to the process (a second
Ctrl-C, SIGKILL, a full disk, a crash) the flushed rounds can be turned into a run file
with ``tsanalyze recover`` (:func:`tsanalyze.collector.recover`). At the end the
partial is converted to Parquet (run format v1) in a second temporary file, which is
fsync'ed and linked (or, with ``overwrite``, renamed) into place; only then is the
partial removed. Nothing ever appears half-written under the final name.

While its collector runs, a partial is locked (``flock``) so that ``recover`` can tell
a live run from a dead one.

Uses pyarrow directly (no pandas); the columns and metadata follow
:mod:`tsanalyze.schema`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from tsanalyze import schema
from tsanalyze.errors import CollectorError, RunExistsError

try:  # POSIX: lock the partial while its collector runs
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "ARROW_SCHEMA",
    "PARTIAL_MARKER",
    "ROW_GROUP_ROWS",
    "RunWriter",
    "SampleRow",
    "WriteAborted",
    "check_output",
    "describe_os_error",
    "is_locked",
    "write_run",
]

_ARROW_TYPES = {
    "int64": pa.int64(),
    "int16": pa.int16(),
    "float64": pa.float64(),
    "string": pa.string(),
}


def _arrow_schema() -> pa.Schema:
    fields = []
    for col in schema.COLUMNS:
        if not col.required:
            continue  # optional columns (work) are not written by the collector
        if col.name == "benchmark":
            typ = pa.dictionary(pa.int32(), pa.string())
        else:
            typ = _ARROW_TYPES[col.dtype]
        fields.append(pa.field(col.name, typ, nullable=col.nullable))
    return pa.schema(fields)


#: The Arrow schema the collector writes (the required columns of the run format).
ARROW_SCHEMA = _arrow_schema()
#: Schema-metadata key that marks a collector's partial stream (value: its format version).
PARTIAL_MARKER = "tsanalyze.partial"
_PARTIAL_VERSION = "1"
#: Rows per Parquet row group in the final file (at most).
ROW_GROUP_ROWS = 1 << 20


class WriteAborted(Exception):
    """Writing the run file was stopped on request (``stop()`` returned True)."""


#: One sample as the sampling loop records it: ``(benchmark number, round, position,
#: sample, evals, start_ticks, end_ticks)``; ``ticks`` and ``ns`` are derived at flush.
SampleRow = tuple[int, int, int, int, int, int, int]


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def check_output(path: Path, overwrite: bool) -> None:
    """Raise if ``path`` cannot be written: it exists (without overwrite), or its directory
    does not exist, or it is a directory."""
    if path.is_dir():
        raise CollectorError(
            f"output {path} is a directory; give a file name such as {path}/run.parquet"
        )
    if path.exists() and not overwrite:
        raise RunExistsError(
            f"{path} exists; refusing to overwrite it (use overwrite=True / --overwrite)"
        )
    if not path.parent.is_dir():
        raise CollectorError(f"output directory {path.parent} does not exist")


def describe_os_error(exc: OSError) -> str:
    """The OS's words for a failed write ("No space left on device"), also from pyarrow."""
    if isinstance(exc.errno, int) and exc.errno > 0:
        return os.strerror(exc.errno)  # pyarrow puts its whole message in strerror
    text = str(exc)
    m = re.search(r"\[errno (\d+)\]", text, re.IGNORECASE)
    if m:
        return os.strerror(int(m.group(1)))
    return text.splitlines()[0] if text else type(exc).__name__


def is_locked(path: Path) -> bool:
    """True when a running collector holds ``path`` (a partial) locked."""
    if fcntl is None:  # pragma: no cover - Windows
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _link_new(src: Path, dst: Path) -> bool:
    """Give ``src`` the name ``dst`` unless ``dst`` exists; False if it does."""
    try:
        os.link(src, dst)  # fails if dst exists: no window in which a file is clobbered
    except FileExistsError:
        return False
    except OSError:  # file systems without hard links: check, then rename (a small window)
        if dst.exists():
            return False
        os.replace(src, dst)
    return True


def _publish(tmp: Path, path: Path, overwrite: bool) -> Path:
    """Move a finished temporary file to ``path`` without ever clobbering another file.

    Without ``overwrite``, a file that appeared under ``path`` meanwhile is kept and the
    run goes to ``<stem>.<hex><suffix>`` beside it (RunExistsError names it).
    """
    try:
        if overwrite:
            os.replace(tmp, path)
            return path
        if _link_new(tmp, path):
            return path
        alt = path.with_name(f"{path.stem}.{uuid.uuid4().hex[:8]}{path.suffix}")
        if not _link_new(tmp, alt):  # pragma: no cover - a 32-bit random name collided
            raise OSError(errno.EEXIST, f"{alt} exists")
        raise RunExistsError(
            f"{path} appeared while the run was being written; the run was written to {alt}"
        )
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
        _fsync_dir(path.parent)


def write_run(
    batches: Iterable[pa.RecordBatch],
    metadata: Mapping[str, Any],
    path: Path,
    *,
    overwrite: bool = False,
    stop: Callable[[], bool] | None = None,
) -> tuple[Path, int]:
    """Write record batches and metadata as a Parquet run file, atomically.

    The batches go to ``.<name>.<hex>.tmp`` beside ``path`` (row groups of at most
    :data:`ROW_GROUP_ROWS` rows), which is fsync'ed and then published under ``path``
    (never clobbering a file that appeared meanwhile). Any failure removes the temporary
    file and leaves ``path`` untouched. ``stop`` is asked before every batch and before
    publishing; when it says True the write is abandoned (:class:`WriteAborted`).

    Returns
    -------
    (Path, int)
        Where the run was written and how many rows it holds.

    Raises
    ------
    OSError
        Writing failed (a full disk, ...); nothing was published.
    RunExistsError
        ``path`` appeared meanwhile; the run went beside it (named in the message).
    WriteAborted
        ``stop()`` said so; nothing was published.
    """
    problems = schema.validate_metadata(metadata)
    if problems:
        raise CollectorError("invalid run metadata (a collector bug): " + "; ".join(problems))
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    rows = 0
    try:
        # store_schema=False: the key-value metadata attached below then becomes the Arrow
        # schema metadata on reading (a stored ARROW:schema would shadow it)
        with pq.ParquetWriter(tmp, ARROW_SCHEMA, compression="zstd", store_schema=False) as pw:
            group: list[pa.RecordBatch] = []
            pending = 0
            for batch in batches:
                if stop is not None and stop():
                    raise WriteAborted
                group.append(batch)
                pending += batch.num_rows
                if pending >= ROW_GROUP_ROWS:
                    pw.write_table(_table(group), row_group_size=ROW_GROUP_ROWS)
                    rows += pending
                    group, pending = [], 0
            if group:
                pw.write_table(_table(group), row_group_size=ROW_GROUP_ROWS)
                rows += pending
            pw.add_key_value_metadata({schema.METADATA_KEY: schema.encode_metadata(metadata)})
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if stop is not None and stop():
            raise WriteAborted
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return _publish(tmp, path, overwrite), rows


def _table(batches: Sequence[pa.RecordBatch]) -> pa.Table:
    return pa.Table.from_batches(
        [b.replace_schema_metadata(None) for b in batches], schema=ARROW_SCHEMA
    )


class RunWriter:
    """Write one run: finished rounds go to a recoverable partial, :meth:`close` makes the
    Parquet run file.

    Parameters
    ----------
    path : path-like
        Final file name.
    names : sequence of str
        Benchmark names; a :data:`SampleRow` refers to them by number.
    run : str
        Run id (the ``run`` column).
    ns_per_tick : float
        ``1e9 / hz``: ``ns = ticks * ns_per_tick``.
    metadata : mapping
        The run's metadata as known at the start (stored in the partial, so that
        ``recover`` can rebuild a valid run file from it).
    overwrite : bool
        Replace an existing file. Without it an existing file raises
        :class:`~tsanalyze.errors.RunExistsError`, now and again at :meth:`close`.

    Attributes
    ----------
    partial : Path
        The partial stream (``.<name>.<hex>.partial`` beside ``path``).
    rows_written : int
        Rows safely in the partial.
    write_error : str or None
        Why the last flush failed (the partial then keeps ``rows_written`` rows and the
        rest stays in memory for :meth:`close`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        names: Sequence[str],
        run: str,
        ns_per_tick: float,
        metadata: Mapping[str, Any],
        overwrite: bool = False,
    ) -> None:
        self.path = Path(path)
        self.overwrite = overwrite
        check_output(self.path, overwrite)
        problems = schema.validate_metadata(metadata)
        if problems:
            raise CollectorError("invalid run metadata (a collector bug): " + "; ".join(problems))
        self._dictionary = pa.array(list(names), pa.string())
        self._run = run
        self._ns_per_tick = float(ns_per_tick)
        self._rows: list[SampleRow] = []
        self.rows_written = 0
        self.write_error: str | None = None
        self.partial = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex[:8]}.partial")
        self._lock_fd: int | None = None
        self._sink: Any = None
        self._stream: Any = None
        meta = {
            schema.METADATA_KEY: schema.encode_metadata(metadata),
            PARTIAL_MARKER: _PARTIAL_VERSION,
        }
        try:
            os.close(os.open(self.partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            self._lock()
            self._sink = pa.OSFile(str(self.partial), mode="w")
            codec = next((c for c in ("lz4", "zstd") if pa.Codec.is_available(c)), None)
            self._stream = ipc.new_stream(
                self._sink,
                ARROW_SCHEMA.with_metadata(meta),
                options=ipc.IpcWriteOptions(compression=codec),
            )
            # an empty batch puts the schema (with the metadata) and the benchmark names
            # on disk now, so that even a run killed before its first flush is identified
            self._write_batch(self._empty_batch())
        except OSError as exc:
            self.write_error = "cannot create the partial"  # the stream is not closed cleanly
            self._close_stream()
            self._release()
            with contextlib.suppress(OSError):
                self.partial.unlink()
            raise CollectorError(
                f"cannot create {self.partial}: {describe_os_error(exc)}"
            ) from None

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover - Windows
            return
        self._lock_fd = os.open(self.partial, os.O_RDONLY)
        with contextlib.suppress(OSError):
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None

    @property
    def pending(self) -> int:
        """Rows added but not yet flushed."""
        return len(self._rows)

    @property
    def rows(self) -> int:
        """Rows recorded so far (flushed or pending)."""
        return self.rows_written + len(self._rows)

    def extend(self, rows: list[SampleRow]) -> int:
        """Add the samples of one round (:data:`SampleRow` tuples; the loop's fast path).

        Returns the number of rows now pending.
        """
        self._rows.extend(rows)
        return len(self._rows)

    def _batch(self, rows: Sequence[SampleRow]) -> pa.RecordBatch:
        bench, rnd, pos, sample, evals, t0, t1 = zip(*rows, strict=True)
        start = pa.array(t0, pa.int64())
        ticks = pc.subtract(pa.array(t1, pa.int64()), start)
        ns = pc.multiply(pc.cast(ticks, pa.float64()), self._ns_per_tick)
        return pa.RecordBatch.from_arrays(
            [
                pa.DictionaryArray.from_arrays(pa.array(bench, pa.int32()), self._dictionary),
                pa.repeat(self._run, len(rows)),
                pa.array(rnd, pa.int64()),
                pa.array(pos, pa.int16()),
                pa.array(sample, pa.int64()),
                pa.array(evals, pa.int64()),
                ticks,
                start,
                ns,
            ],
            schema=ARROW_SCHEMA,
        )

    def _empty_batch(self) -> pa.RecordBatch:
        arrays = [
            pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), self._dictionary)
            if f.name == "benchmark"
            else pa.array([], f.type)
            for f in ARROW_SCHEMA
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)

    def _write_batch(self, batch: pa.RecordBatch) -> None:
        """Append one batch to the partial (the one place that writes during sampling)."""
        self._stream.write_batch(batch)

    def flush(self) -> None:
        """Write the pending rows to the partial as one batch.

        Raises
        ------
        OSError
            The write failed (a full disk, ...). The rows stay pending and the partial is
            not written to again; :meth:`close` still puts them in the run file.
        """
        if self._stream is None:
            raise CollectorError("the run writer is closed")
        if not self._rows or self.write_error is not None:
            return
        batch = self._batch(self._rows)
        try:
            self._write_batch(batch)
        except OSError as exc:
            self.write_error = (
                f"writing the finished rounds failed ({describe_os_error(exc)}, {self.partial})"
            )
            raise
        self.rows_written += batch.num_rows
        self._rows.clear()

    def _close_stream(self) -> None:
        stream, sink = self._stream, self._sink
        self._stream = self._sink = None
        if stream is not None and self.write_error is None:
            try:
                stream.close()
            except OSError as exc:
                self.write_error = (
                    f"writing the finished rounds failed ({describe_os_error(exc)}, {self.partial})"
                )
        if sink is not None:
            with contextlib.suppress(OSError):
                sink.close()

    def close(self, metadata: Mapping[str, Any], *, stop: Callable[[], bool] | None = None) -> Path:
        """Flush, convert the partial to the Parquet run file, move it into place.

        Every row goes to the partial first (unless a write failed), so that whatever
        happens during the conversion, the partial holds the whole run.

        Parameters
        ----------
        metadata : mapping
            The run's final metadata.
        stop : callable, optional
            Asked between blocks of the conversion: True abandons it, keeping the partial.

        Returns
        -------
        Path
            The run file (``path``).

        Raises
        ------
        CollectorError
            The run file could not be written (a full disk, ...). The partial is kept
            and the message says how to recover it.
        RunExistsError
            ``path`` appeared while collecting (without ``overwrite``); the run was
            written beside it, under the name the message gives.
        WriteAborted
            ``stop()`` said so. The partial is kept; the message says where and how to
            recover it.
        """
        if self._stream is None:
            raise CollectorError("the run writer is closed")
        with contextlib.suppress(OSError):  # a failure is kept in write_error
            self.flush()
        self._close_stream()
        pending = list(self._rows)
        lost = f" (the last {len(pending)} samples could not be saved)" if pending else ""
        try:
            path, rows = write_run(
                self._all_batches(pending),
                metadata,
                self.path,
                overwrite=self.overwrite,
                stop=stop,
            )
        except RunExistsError:  # (an OSError too) the run went beside the path
            self._discard_partial()
            raise
        except OSError as exc:
            self._release()
            raise CollectorError(
                f"cannot write {self.path}: {describe_os_error(exc)}; the {self.rows_written} "
                f"samples recorded before are kept in {self.partial}{lost}: free space, then "
                f"run `tsanalyze recover {self.partial}`"
            ) from None
        except WriteAborted:
            self._release()
            raise WriteAborted(
                f"the {self.rows_written} samples recorded are kept in {self.partial}{lost}: "
                f"`tsanalyze recover {self.partial}` turns them into {self.path.name}"
            ) from None
        self.rows_written = rows
        self._rows.clear()
        self._discard_partial()
        return path

    def _all_batches(self, pending: list[SampleRow]) -> Iterator[pa.RecordBatch]:
        """The partial's first ``rows_written`` rows (all written whole), then the pending."""
        left = self.rows_written
        if left:
            with pa.OSFile(str(self.partial)) as source:
                reader = ipc.open_stream(source)
                while left > 0:  # never read past them: a failed write may have left a torn block
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        raise OSError(
                            errno.EIO, f"{self.partial} holds fewer rows than were written"
                        ) from None
                    if batch.num_rows > left:
                        batch = batch.slice(0, left)
                    left -= batch.num_rows
                    yield batch
        if pending:
            yield self._batch(pending)

    def _discard_partial(self) -> None:
        self._release()
        with contextlib.suppress(OSError):
            self.partial.unlink()
        _fsync_dir(self.path.parent)

    def abort(self) -> None:
        """Discard everything: close and delete the partial."""
        self._rows.clear()
        self._close_stream()
        self._discard_partial()

    def keep(self) -> Path | None:
        """Stop writing but keep what was recorded in the partial (for ``recover``).

        Returns the partial, or None (and deletes it) when it holds no sample.
        """
        with contextlib.suppress(OSError, CollectorError):
            self.flush()
        self._close_stream()
        self._release()
        if self.rows_written == 0:
            with contextlib.suppress(OSError):
                self.partial.unlink()
            return None
        return self.partial
