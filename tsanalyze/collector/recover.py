"""Turn the ``.partial`` of a collection that did not finish into a run file.

A collector writes finished rounds to ``.<name>.<hex>.partial`` (an Arrow IPC stream
holding the run's metadata and one batch per flush; see :mod:`~.writer`). When the
process dies before it can write the run file (SIGKILL, a crash, a full disk, a
machine that went down), :func:`recover` reads every complete batch of the partial,
checks it, and writes a valid run file (Parquet, run format v1) beside it: atomically,
never over an existing file. The command line is ``tsanalyze recover FILE.partial``.

Standard library and pyarrow only.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from tsanalyze import schema
from tsanalyze.collector.metadata import utc_now
from tsanalyze.collector.writer import (
    ARROW_SCHEMA,
    PARTIAL_MARKER,
    describe_os_error,
    is_locked,
    write_run,
)
from tsanalyze.errors import CollectorError, InvalidRunError, RunExistsError

__all__ = ["PartialRunWarning", "Recovery", "default_output", "leftover_partials", "recover"]

_PARTIAL_NAME = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{8}\.partial$")
_READ_ERRORS = (OSError, ValueError, pa.ArrowException)


class PartialRunWarning(UserWarning):
    """An earlier collection into the same output left a ``.partial`` behind."""


@dataclass(frozen=True, slots=True)
class Recovery:
    """What :func:`recover` wrote.

    Attributes
    ----------
    path : Path
        The run file written.
    partial : Path
        The partial it came from (left in place; delete it once satisfied).
    run : str
        Run id.
    samples : int
        Rows recovered.
    rounds : int
        Rounds recorded (the largest ``round`` + 1).
    truncated : bool
        The partial ended in an incomplete or damaged block, which was dropped (the
        samples of at most one flush).
    metadata : dict
        The metadata written (``collector.stop_reason`` is ``"recovered"``).
    """

    path: Path
    partial: Path
    run: str
    samples: int
    rounds: int
    truncated: bool
    metadata: dict[str, Any]


def default_output(partial: Path) -> Path:
    """The run file a partial belongs to: ``.run.parquet.1a2b3c4d.partial`` -> ``run.parquet``.

    A name without the collector's pattern loses ``.partial`` (and gains ``.parquet``).
    """
    m = _PARTIAL_NAME.match(partial.name)
    if m:
        return partial.with_name(m.group("name"))
    stem = partial.name[: -len(".partial")] if partial.name.endswith(".partial") else partial.name
    stem = stem.lstrip(".") or "recovered"
    return partial.with_name(stem if stem.endswith(".parquet") else f"{stem}.parquet")


def leftover_partials(output: Path) -> list[Path]:
    """Partials of earlier collections into ``output`` whose collector is gone."""
    try:
        found = sorted(output.parent.glob(f".{glob_escape(output.name)}.*.partial"))
    except OSError:
        return []
    return [p for p in found if _PARTIAL_NAME.match(p.name) and p.is_file() and not is_locked(p)]


def glob_escape(name: str) -> str:
    """Escape glob metacharacters in a file name."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def _not_partial(path: Path, why: str) -> InvalidRunError:
    return InvalidRunError(f"{path}: not a partial run written by tsanalyze collect ({why})")


def _open(path: Path) -> tuple[Any, Any]:
    source = pa.OSFile(str(path))
    try:
        return source, ipc.open_stream(source)
    except _READ_ERRORS as exc:
        source.close()
        raise _not_partial(path, _first_line(exc)) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _check_header(path: Path) -> None:
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(0, os.SEEK_END)
            size = f.tell()
            tail = b""
            if size >= 8:
                f.seek(-4, os.SEEK_END)
                tail = f.read(4)
    except IsADirectoryError:
        raise InvalidRunError(f"{path}: is a directory, not a partial run") from None
    except FileNotFoundError:
        raise InvalidRunError(f"{path}: no such file") from None
    except OSError as exc:
        raise InvalidRunError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if head == b"PAR1":
        if tail == b"PAR1":
            raise InvalidRunError(
                f"{path}: a complete Parquet file, not a partial run; nothing to recover"
            )
        raise InvalidRunError(
            f"{path}: an unfinished Parquet file from a collector older than `tsanalyze "
            "recover` (its row groups have no index); it cannot be recovered"
        )
    if size == 0:
        raise _not_partial(path, "the file is empty")


def _metadata(path: Path, sch: pa.Schema) -> dict[str, Any]:
    raw = sch.metadata or {}
    if raw.get(PARTIAL_MARKER.encode()) is None or schema.METADATA_KEY.encode() not in raw:
        raise _not_partial(path, "no tsanalyze partial marker in its schema")
    if not sch.remove_metadata().equals(ARROW_SCHEMA):
        raise _not_partial(path, "its columns are not those of the run format")
    try:
        meta = schema.decode_metadata(raw[schema.METADATA_KEY.encode()])
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidRunError(f"{path}: its run metadata is damaged ({_first_line(exc)})") from None
    problems = schema.validate_metadata(meta)
    if problems:
        raise InvalidRunError(f"{path}: its run metadata is invalid: {problems[0]}")
    if not isinstance(meta.get("collector"), dict):
        raise InvalidRunError(f"{path}: its run metadata has no collector section")
    return dict(meta)


def _batch_ok(batch: pa.RecordBatch, run: str) -> bool:
    """A complete batch whose values the collector could have written."""
    try:
        batch.validate(full=True)
    except _READ_ERRORS:
        return False
    if any(col.null_count for col in batch.columns):
        return False
    for name, low in (("round", 0), ("position", 0), ("sample", 0), ("evals", 1), ("ticks", 0)):
        if pc.min(batch.column(name)).as_py() < low:
            return False
    ns = batch.column("ns")
    if not pc.all(pc.is_finite(ns)).as_py() or pc.min(ns).as_py() < 0:
        return False
    return bool(pc.all(pc.equal(batch.column("run"), run)).as_py())


def _scan(path: Path, run: str) -> tuple[int, int, bool]:
    """Rows and rounds in the partial's sound batches, and whether a bad tail was dropped."""
    source, reader = _open(path)
    rows = rounds = 0
    truncated = False
    with contextlib.closing(source):
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            except _READ_ERRORS:
                truncated = True
                break
            if batch.num_rows == 0:
                continue
            if not _batch_ok(batch, run):
                truncated = True
                break
            rows += batch.num_rows
            rounds = max(rounds, int(pc.max(batch.column("round")).as_py()) + 1)
    return rows, rounds, truncated


def _batches(path: Path, rows: int) -> Iterator[pa.RecordBatch]:
    source, reader = _open(path)
    left = rows
    with contextlib.closing(source):
        while left > 0:
            batch = reader.read_next_batch()
            if batch.num_rows > left:
                batch = batch.slice(0, left)
            left -= batch.num_rows
            yield batch


def recover(
    partial: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> Recovery:
    """Turn a collector's ``.partial`` into a valid run file.

    Parameters
    ----------
    partial : path-like
        The ``.<name>.<hex>.partial`` a collection left behind.
    output : path-like, optional
        The run file to write; default: the name the collection was writing (the
        partial's name without the dot, the hex tag and ``.partial``). Never overwritten.

    Returns
    -------
    Recovery

    Raises
    ------
    InvalidRunError
        The file is missing, not a collector's partial, damaged before its first
        complete batch, or holds no sample.
    CollectorError
        Its collector is still running, or the output directory does not exist, or the
        run file could not be written (a full disk, ...).
    RunExistsError
        ``output`` exists.

    Notes
    -----
    Every complete batch (one per flush of the collector, finished rounds only) is kept
    up to the first incomplete or damaged one; that one and anything after it are
    dropped (``truncated``). The metadata is the one the collector wrote at the start,
    with ``collector.stop_reason = "recovered"``, ``interrupted = true``,
    ``rounds_completed`` and ``recovered_from``.
    """
    src = Path(partial)
    _check_header(src)
    if is_locked(src):
        raise CollectorError(
            f"{src} is still being written by a running collector; stop it first (one Ctrl-C "
            "finishes the round and writes the run file)"
        )
    source, reader = _open(src)
    with contextlib.closing(source):
        meta = _metadata(src, reader.schema)
    rows, rounds, truncated = _scan(src, meta["run"])
    if rows == 0:
        more = " (its first block is incomplete or damaged)" if truncated else ""
        raise InvalidRunError(f"{src}: holds no finished sample{more}; nothing to recover")
    out = Path(output) if output is not None else default_output(src)
    if out.is_dir():
        raise CollectorError(f"output {out} is a directory; give a file name")
    if out.exists():
        raise RunExistsError(
            f"{out} exists; refusing to overwrite it: give another name (--output)"
        )
    if not out.parent.is_dir():
        raise CollectorError(f"output directory {out.parent} does not exist")
    meta["collector"].update(
        {
            "interrupted": True,
            "stop_reason": "recovered",
            "rounds_completed": rounds,
            "recovered_from": src.name,
            "recovered_utc": utc_now(),
            "recovered_truncated": truncated,
        }
    )
    try:
        path, written = write_run(_batches(src, rows), meta, out)
    except OSError as exc:
        raise CollectorError(f"cannot write {out}: {describe_os_error(exc)}") from None
    return Recovery(path, src, meta["run"], written, rounds, truncated, meta)
