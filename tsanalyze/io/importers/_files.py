"""Reading an importer's input file (gzip-aware, UTF-8 with or without a BOM) and
building errors located in it (``<file>: <where>: <what>``)."""

from __future__ import annotations

import datetime as _dt
import gzip
import zlib
from pathlib import Path

from tsanalyze.errors import ImportFormatError
from tsanalyze.io.importers._metadata import to_utc_timestamp

__all__ = ["fail", "file_mtime_utc", "open_text", "read_bytes", "read_head"]


def fail(path: Path | str, where: str, what: str) -> ImportFormatError:
    """Build the located error ``<file>: <where>: <what>`` (``where`` may be empty)."""
    loc = f"{path}: {where}: " if where else f"{path}: "
    return ImportFormatError(loc + what)


def file_mtime_utc(path: Path) -> str:
    """The file's modification time as a UTC timestamp (for formats without dates)."""
    return to_utc_timestamp(
        _dt.datetime.fromtimestamp(Path(path).stat().st_mtime, _dt.timezone.utc)
    )


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip-compressed (errors name the file)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise fail(path, "", f"cannot read: {exc.strerror or exc}") from exc
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise fail(
                path,
                "",
                f"expected a complete gzip stream ({exc}); the file is truncated or corrupt",
            ) from exc
    return raw


def open_text(path: Path) -> str:
    """Decode the (possibly gzipped) file as UTF-8 text."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise fail(path, f"line {line}", "expected UTF-8 text") from exc


def read_head(path: Path, size: int = 65536) -> str:
    """The first ``size`` bytes of the file (decompressed), decoded leniently.

    A truncated or corrupt gzip stream yields what could be decompressed, so that the
    format is still recognised and the importer reports the truncation.
    """
    with open(path, "rb") as fh:
        raw = fh.read(size)
    if raw[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            raw = inflater.decompress(raw, size)
        except zlib.error:
            raw = b""
    return raw.decode("utf-8", errors="replace").lstrip("\ufeff")
