"""JSON input of the importers: parsing with line and column in errors, and
:class:`JsonPath`, a cursor that names the JSON path of every malformed value."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze.errors import ImportFormatError
from tsanalyze.io.importers._files import fail, open_text

__all__ = ["JsonPath", "looks_like_json", "read_json"]


def looks_like_json(head: str, opener: str, *keys: str, any_of: tuple[str, ...] = ()) -> bool:
    """True when ``head`` (a file's start) opens with ``opener`` (``{`` or ``[``) and holds
    every key in ``keys`` and, if ``any_of`` is given, at least one key in it (each key
    looked for in double quotes): the sniff of a JSON format."""
    h = head.lstrip()
    return (
        h.startswith(opener)
        and all(f'"{k}"' in h for k in keys)
        and (not any_of or any(f'"{k}"' in h for k in any_of))
    )


def read_json(path: Path) -> Any:
    """Parse a (possibly gzipped) JSON file; errors give the line and column."""
    text = open_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip())
        what = f"expected valid JSON ({exc.msg})"
        if truncated:
            what += "; the file ends early (truncated?)"
        raise fail(path, f"line {exc.lineno} column {exc.colno}", what) from exc
    except RecursionError:
        raise fail(
            path, "", f"expected JSON nested at most ~{sys.getrecursionlimit()} levels deep"
        ) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise fail(path, "", f"expected valid JSON ({' '.join(str(exc).split())[:120]})") from None


#: the largest count (evaluations, iterations, loops) the run format stores (int64)
MAX_COUNT = int(np.iinfo(np.int64).max)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"a string ({_short(value)})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: str, limit: int = 40) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "…")


def _finite(v: Any) -> float | None:
    """``v`` as a finite float, or None (strings, booleans, huge integers, NaN, inf)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


class JsonPath:
    """A cursor into parsed JSON that knows its path (``$.benchmarks[0].runs[3]``) and
    raises located :class:`ImportFormatError` when a value has the wrong shape."""

    __slots__ = ("file", "path", "value")

    def __init__(self, file: Path, value: Any, path: str = "$") -> None:
        self.file = file
        self.value = value
        self.path = path

    def error(self, what: str, suffix: str = "") -> ImportFormatError:
        return fail(self.file, self.path + suffix, what)

    def obj(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            raise self.error(f"expected an object, got {_type_name(self.value)}")
        return self.value

    def arr(self) -> list[Any]:
        if not isinstance(self.value, list):
            raise self.error(f"expected an array, got {_type_name(self.value)}")
        return self.value

    def key(self, name: str, required: bool = True) -> JsonPath:
        obj = self.obj()
        if name not in obj:
            if required:
                raise self.error(f"expected key {name!r}")
            return JsonPath(self.file, None, f"{self.path}.{name}")
        return JsonPath(self.file, obj[name], f"{self.path}.{name}")

    def item(self, index: int) -> JsonPath:
        arr = self.arr()
        if not -len(arr) <= index < len(arr):
            raise self.error(f"expected at least {index + 1} element(s), got {len(arr)}")
        return JsonPath(self.file, arr[index], f"{self.path}[{index}]")

    def items(self) -> list[JsonPath]:
        return [JsonPath(self.file, v, f"{self.path}[{i}]") for i, v in enumerate(self.arr())]

    def str(self, default: str | None = None) -> str:
        if self.value is None and default is not None:
            return default
        if not isinstance(self.value, str):
            raise self.error(f"expected a string, got {_type_name(self.value)}")
        return self.value

    def number(self, *, positive: bool = False, non_negative: bool = False) -> float:
        """A finite number (a numeric string is not one: JSON has numbers)."""
        v = self.value
        f = _finite(v)
        if f is None:
            raise self.error(
                f"expected a finite number, got {_type_name(v) if not isinstance(v, float) else v}"
            )
        if positive and f <= 0:
            raise self.error(f"expected a number > 0, got {v!r}")
        if non_negative and f < 0:
            raise self.error(f"expected a number >= 0, got {v!r}")
        return f

    def integer(self, *, minimum: int | None = None, maximum: int = MAX_COUNT) -> int:
        """A whole number from ``minimum`` to ``maximum`` (by default the int64 range)."""
        v = self.value
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.error(f"expected an integer, got {_type_name(v)}")
        if minimum is not None and v < minimum:
            raise self.error(f"expected an integer >= {minimum}, got {_type_name(v) if abs(v) > 10**30 else v}")
        if v > maximum:
            raise self.error(f"expected an integer <= {maximum}, got {_type_name(v) if v > 10**30 else v}")
        return v

    def numbers(self, *, positive: bool = False, non_negative: bool = False) -> np.ndarray:
        """An array of finite numbers (as float64); the error names the bad element."""
        values = self.arr()
        arr: np.ndarray | None = None
        # only JSON numbers: numpy would turn "1.5" and true into numbers
        if set(map(type, values)) <= {int, float}:
            try:
                arr = np.asarray(values, dtype=np.float64)
            except OverflowError:  # an integer beyond the float range
                arr = None
        if arr is None:
            for i, v in enumerate(values):
                JsonPath(self.file, v, f"{self.path}[{i}]").number()
            raise self.error("expected an array of numbers")  # pragma: no cover
        bad = ~np.isfinite(arr)
        if positive:
            bad |= arr <= 0
        elif non_negative:
            bad |= arr < 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            want = (
                "a finite number > 0"
                if positive
                else "a finite number >= 0"
                if non_negative
                else "a finite number"
            )
            raise fail(self.file, f"{self.path}[{i}]", f"expected {want}, got {values[i]!r}")
        return arr
