"""Identity and metadata of imported runs: deterministic run ids, UTC timestamps and
the run metadata every importer writes (valid per :func:`tsanalyze.schema.validate_metadata`)."""

from __future__ import annotations

import datetime as _dt
import functools
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tsanalyze import schema
from tsanalyze._version import __version__
from tsanalyze.io.checks import json_safe

__all__ = [
    "IMPORT_NAMESPACE",
    "count_field",
    "make_metadata",
    "parse_timestamp",
    "run_id",
    "text_field",
    "to_utc_timestamp",
]

#: Namespace of the deterministic run ids of imported runs.
IMPORT_NAMESPACE = uuid.UUID("6f1c1f4e-3c2a-5b7e-9a51-7473616e616c")


@functools.lru_cache(maxsize=256)
def _resolved(path: str) -> str:
    return str(Path(path).resolve())


def run_id(path: Path, index: int, salt: str = "") -> str:
    """Deterministic run id: UUID5 of the resolved path, ``salt`` and ``index``."""
    key = f"{_resolved(str(path))}#{salt}#{index}"
    return str(uuid.uuid5(IMPORT_NAMESPACE, key))


def to_utc_timestamp(when: _dt.datetime) -> str:
    """Format a datetime as the ISO 8601 UTC string the schema accepts (naive = UTC)."""
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_timestamp(text: Any) -> str | None:
    """Parse a tool's date string into a UTC timestamp, or None when unparseable."""
    if not isinstance(text, str) or not text:
        return None
    try:
        when = _dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return to_utc_timestamp(when)


def text_field(fields: Mapping[str, Any], key: str) -> str | None:
    """A tool's optional text field: ``fields[key]`` when it is a string, else None."""
    value = fields.get(key)
    return value if isinstance(value, str) else None


def count_field(fields: Mapping[str, Any], key: str) -> int | None:
    """A tool's optional count (of cores, say): ``fields[key]`` when it is a whole number
    above 0 (a JSON ``true`` is not one), else None."""
    value = fields.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def make_metadata(
    *,
    rid: str,
    tool: str,
    path: Path,
    created_utc: str,
    spec: Any,
    version: str | None = None,
    host: Mapping[str, Any] | None = None,
    tool_metadata: Mapping[str, Any] | None = None,
    user: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Metadata of one imported run (valid per :func:`schema.validate_metadata`).

    ``timer.overhead_ns`` is 0: the tools report per-evaluation times that already
    exclude (or never measured) their timer overhead, so nothing more is subtracted.
    """
    source: dict[str, Any] = {"tool": tool, "file": str(path)}
    if version:
        source["version"] = str(version)
    if tool_metadata:
        # JSON has no NaN: a tool's NaN (pyperf metadata may hold one) is stored as null
        source["metadata"] = json_safe(dict(tool_metadata))
    meta = schema.new_metadata(
        rid,
        created_utc,
        f"imported:{tool}",
        timer={"overhead_ns": 0.0},
        target={"kind": "imported", "spec": json_safe(spec)},
        source=source,
        collector={"version": __version__, "evals_method": f"imported from {tool}"},
    )
    if host:
        h = {k: v for k, v in host.items() if v is not None}
        if h:
            meta["host"] = h
    if user:
        meta["user"] = json_safe(dict(user))
    return meta
