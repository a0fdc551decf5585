"""Run files and their footers, without pandas (issue 19: ``tsanalyze info`` answers from
here in a fraction of a second).

What a file's footer says and what is checked there: :func:`expand_paths` turns files,
globs and directories into files; :func:`runs_of_schema` reads and checks the run metadata
a Parquet file's key-value metadata holds (:func:`check_metadata`). Also re-exported by
:mod:`tsanalyze.io.runs` and :mod:`tsanalyze.io.checks`, where they were first defined.
"""

from __future__ import annotations

import glob
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tsanalyze import schema
from tsanalyze.errors import InvalidRunError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "PathLike",
    "check_metadata",
    "expand_paths",
    "importers_module",
    "is_parquet",
    "json_safe",
    "runs_of_schema",
]

PathLike = str | os.PathLike[str]
_GLOB_CHARS = set("*?[")


def expand_paths(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    """Expand files, globs and directories into a sorted, de-duplicated list of files.

    A directory contributes its ``*.parquet`` files (recursively), unless an importer
    recognises the directory itself (e.g. a criterion.rs ``target/criterion`` tree).

    Raises
    ------
    InvalidRunError
        When a path does not exist, a glob or directory matches nothing, or no path is
        given at all.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        s = os.fspath(p)
        if _GLOB_CHARS & set(s) and not Path(s).exists():
            matches = sorted(glob.glob(s, recursive=True))
            if not matches:
                raise InvalidRunError(f"{s}: the glob matches no file")
            out.extend(Path(m) for m in matches if Path(m).is_file() or _importer_dir(Path(m)))
            continue
        path = Path(s)
        if not path.exists():
            raise InvalidRunError(f"{s}: no such file or directory")
        if path.is_dir() and not _importer_dir(path):
            found = sorted(path.rglob("*.parquet"))
            if not found:
                raise InvalidRunError(f"{s}: the directory holds no .parquet run file")
            out.extend(found)
        else:
            out.append(path)
    seen: set[Path] = set()
    unique = []
    for f in out:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    if not unique:  # an empty list (a glob of directories only gives none either)
        raise InvalidRunError("paths: no run file given")
    return unique


def importers_module() -> Any:
    """The :mod:`tsanalyze.io.importers` package, or None where it cannot be imported
    (imported when first needed: run files alone never load the other tools' readers)."""
    try:
        from tsanalyze.io import importers
    except ImportError:  # pragma: no cover - importers package not installed yet
        return None
    return importers


def _importer_dir(path: Path) -> bool:
    imp = importers_module()
    sniff = getattr(imp, "sniff", None)
    return bool(path.is_dir() and sniff is not None and sniff(path))


def is_parquet(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PAR1"
    except OSError as exc:
        raise InvalidRunError(f"{path}: cannot be read ({exc.strerror})") from None


def runs_of_schema(path: PathLike, arrow_schema: pa.Schema) -> list[dict[str, Any]]:
    """The checked metadata of each run a file holds, from its arrow schema (its footer)."""
    raw = (arrow_schema.metadata or {}).get(schema.METADATA_KEY.encode())
    if raw is None:
        raise InvalidRunError(
            f"{path}: not a tsanalyze run (Parquet file metadata has no '{schema.METADATA_KEY}' key)"
        )
    try:
        meta = schema.decode_metadata(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise InvalidRunError(
            f"{path}: metadata key '{schema.METADATA_KEY}' is not valid JSON ({why})"
        ) from None
    cols = {f.name: str(f.type) for f in arrow_schema}
    problems = schema.validate(cols, meta)
    if problems:
        raise InvalidRunError(f"{path}: " + "; ".join(problems))
    metas: list[dict[str, Any]] = schema.file_runs(meta)
    check_metadata(os.fspath(path), metas)
    return metas


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, ±inf) replaced by None, so that it can
    be written as strict JSON (tools' metadata may hold NaN, which JSON cannot)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def check_metadata(source: str | Path, metas: Sequence[Mapping[str, Any]]) -> None:
    """Check the metadata of the runs of one file, or raise an error naming the file.

    Every run's metadata must be valid per :func:`tsanalyze.schema.validate_metadata`,
    storable as strict JSON, and the run ids must be distinct.

    Raises
    ------
    InvalidRunError
        With every problem found, on one line.
    """
    problems: list[str] = []
    seen: set[str] = set()
    for meta in metas:
        problems.extend(schema.validate_metadata(meta))
        rid = meta.get("run") if isinstance(meta, Mapping) else None
        if isinstance(rid, str):
            if rid in seen:
                problems.append(f"run id {rid!r} declared twice")
            seen.add(rid)
        try:
            json.dumps(meta, allow_nan=False)
        except (TypeError, ValueError) as exc:
            problems.append(f"metadata of run {rid!r}: not storable as JSON ({exc})")
    if problems:
        raise InvalidRunError(f"{source}: " + "; ".join(dict.fromkeys(problems)))
