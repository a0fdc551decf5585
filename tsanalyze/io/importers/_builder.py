"""Turning per-sample arrays of several runs into one run-format frame
(:class:`RunBuilder`), and naming the extra columns (:func:`extra_columns`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze.errors import ImportFormatError
from tsanalyze.io.importers._imported import RESERVED_COLUMNS, ImportedTable
from tsanalyze.io.importers._metadata import make_metadata, run_id

__all__ = ["RunBuilder", "extra_columns", "identifier"]

_INT64_MAX = int(np.iinfo(np.int64).max)


def identifier(name: str) -> str:
    """An identifier-safe lower-case column name (``text-bytes`` -> ``text_bytes``)."""
    out = re.sub(r"[^0-9A-Za-z_]+", "_", name).strip("_").lower()
    if not out or out[0].isdigit():
        out = "u_" + out
    return out


def extra_columns(
    names: Iterable[str],
    *,
    prefix: str = "",
    clash_prefix: str = "x_",
    taken: Iterable[str] = (),
    to_identifier: Callable[[str], str] = identifier,
) -> dict[str, str]:
    """Distinct column names for a tool's extra measures or parameters.

    Each name becomes ``prefix + to_identifier(name)``; a result that would be a
    run-format column, ``kind``, a name in ``taken`` or one already given to another name
    gets ``clash_prefix`` and, if still taken, a numeric suffix (``_2``, ``_3``...). So
    two measures never share a column (which silently dropped values) and no measure
    replaces a run-format column.
    """
    used = set(RESERVED_COLUMNS) | set(taken)
    out: dict[str, str] = {}
    for name in names:
        if name in out:
            continue
        base = prefix + to_identifier(name)
        col = base if base not in used else clash_prefix + base
        k = 2
        while col in used:
            col = f"{clash_prefix}{base}_{k}"
            k += 1
        used.add(col)
        out[name] = col
    return out


class RunBuilder:
    """Collect the samples of several runs, then build all their rows at once.

    Building one DataFrame per file (and slicing it into runs only when asked) is many
    times faster than building one DataFrame per run: pyperf files hold dozens of runs.
    """

    def __init__(
        self,
        path: Any,
        extra: Sequence[str] = (),
        extra_dtypes: Mapping[str, str] | None = None,
    ) -> None:
        self._path = path
        # every imported row says what it is: "value" unless the importer says otherwise
        clash = sorted(set(extra) & (RESERVED_COLUMNS - {"kind", "work"}))
        if clash:  # pragma: no cover - programming error in an importer (use extra_columns)
            raise ValueError(f"extra columns {clash} would replace run-format columns")
        self._extra_names = ["kind", *(k for k in extra if k != "kind")]
        self._extra_dtypes = {"kind": "object", **(extra_dtypes or {})}
        self._counts: list[int] = []  # rows per chunk
        self._bench: list[Any] = []  # per chunk: a name, or an array of names
        self._run: list[str] = []  # per chunk
        self._sample: list[np.ndarray] = []
        self._evals: list[Any] = []  # per chunk: an int or an int64 array
        self._ns: list[np.ndarray] = []
        self._extra: dict[str, list[Any]] = {k: [] for k in self._extra_names}
        self._bounds: list[int] = [0]
        self._meta: list[dict[str, Any]] = []
        self._open = 0  # chunks added to the current run

    def add(
        self,
        benchmark: str,
        per_eval_ns: np.ndarray,
        evals: np.ndarray | int,
        /,
        **extra: Any,
    ) -> None:
        """Append samples (per-evaluation ns and evals) of one benchmark to the current run.

        ``ns = per_eval_ns * evals`` may overflow to inf for absurd input: the checks of
        the run format (:func:`tsanalyze.io.checks.check_rows`) refuse it with the file
        named, after the importer is done.
        """
        n = len(per_eval_ns)
        if n == 0:
            return
        unknown = set(extra) - set(self._extra_names)
        if unknown:  # pragma: no cover - programming error in an importer
            raise KeyError(f"undeclared extra columns {sorted(unknown)}")
        evals = self._evals_of(benchmark, evals)
        with np.errstate(over="ignore"):
            ns = np.asarray(per_eval_ns, dtype=np.float64) * evals
        self._counts.append(n)
        self._bench.append(benchmark)
        self._evals.append(evals)
        self._ns.append(ns)
        for k in self._extra_names:
            v = extra.get(k)
            if v is None and k == "kind":
                v = "value"
            elif isinstance(v, np.ndarray) and v.ndim == 0:
                v = v.item()
            self._extra[k].append(v)
        self._open += 1

    def _evals_of(self, benchmark: str, evals: Any) -> Any:
        """``evals`` as int or int64 array; a count that is not a whole number from 1 to
        2**63 - 1 is an error naming the file (a cast would wrap it to a negative count)."""
        arr = np.asarray(evals) if not isinstance(evals, (int, np.integer)) else None
        if arr is None:
            value = int(evals)
            if 1 <= value <= _INT64_MAX:
                return value
            bad: Any = value
        else:
            if arr.dtype.kind == "i":
                ok = arr >= 1
            elif arr.dtype.kind == "u":
                ok = (arr >= 1) & (arr <= _INT64_MAX)
            else:
                f = arr.astype(np.float64)
                ok = (f >= 1) & (f == np.floor(f)) & (f < 2.0**63)
            if ok.all():
                return arr.astype(np.int64, copy=False)
            bad = arr[np.flatnonzero(~ok)[0]]
        raise ImportFormatError(
            f"{self._path}: benchmark {benchmark!r}: evaluations per sample must be a whole "
            f"number from 1 to {_INT64_MAX}, got {bad!r}"
        )

    def finish_run(self, rid: str, metadata: dict[str, Any]) -> None:
        """Close the current run (a run without samples is dropped)."""
        if self._open == 0:
            return
        first_chunk = len(self._counts) - self._open
        # the sample index (time order) restarts for every benchmark of the run
        seen: dict[str, int] = {}
        for i in range(first_chunk, len(self._counts)):
            c = self._counts[i]
            at = seen.get(self._bench[i], 0)
            self._sample.append(np.arange(at, at + c, dtype=np.int64))
            seen[self._bench[i]] = at + c
        self._run.extend([rid] * self._open)
        self._bounds.append(self._bounds[-1] + sum(self._counts[first_chunk:]))
        self._meta.append(metadata)
        self._open = 0

    def finish_imported(
        self,
        index: int,
        *,
        tool: str,
        created_utc: str,
        spec: Any,
        salt: str = "",
        path: Any = None,
        top_level: Mapping[str, Any] | None = None,
        **metadata: Any,
    ) -> None:
        """Close the current run as the ``index``-th run read from ``path`` (default: the
        builder's file).

        Its id is :func:`run_id` of the path, ``index`` and ``salt``; its metadata is
        :func:`make_metadata`'s (``metadata`` holds the optional ``version``, ``host``,
        ``tool_metadata`` and ``user``) plus the tool-specific ``top_level`` keys.
        """
        source = self._path if path is None else path
        rid = run_id(source, index, salt)
        meta = make_metadata(
            rid=rid, tool=tool, path=source, created_utc=created_utc, spec=spec, **metadata
        )
        meta.update(top_level or {})
        self.finish_run(rid, meta)

    def _column(self, parts: list[Any], counts: np.ndarray, dtype: Any) -> np.ndarray:
        if all(not isinstance(p, np.ndarray) for p in parts):
            return np.repeat(np.asarray(parts, dtype=dtype), counts)
        return np.concatenate(
            [
                p.astype(dtype, copy=False)
                if isinstance(p, np.ndarray)
                else np.full(c, p, dtype=dtype)
                for p, c in zip(parts, counts, strict=True)
            ]
        )

    def build(self, notes: Sequence[str] = ()) -> ImportedTable:
        """All finished runs as one :class:`ImportedTable` (with the importer's ``notes``)."""
        if not self._meta:
            return ImportedTable(pd.DataFrame(), {}, (0,), tuple(notes))
        done = len(self._run)  # chunks of finished runs
        counts = np.asarray(self._counts[:done], dtype=np.int64)
        n = int(counts.sum())
        sample = np.concatenate(self._sample)
        missing = np.ones(n, dtype=bool)
        cols: dict[str, Any] = {
            "benchmark": np.repeat(np.asarray(self._bench[:done], dtype=object), counts),
            "run": np.repeat(np.asarray(self._run, dtype=object), counts),
            "round": sample,
            "position": np.zeros(n, dtype=np.int16),
            "sample": sample,
            "evals": self._column(self._evals[:done], counts, np.int64),
            "ticks": pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), missing),
            "start_ticks": pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), missing.copy()),
            "ns": np.concatenate(self._ns[:done]),
        }
        for k in self._extra_names:
            parts = self._extra[k][:done]
            if self._extra_dtypes.get(k, "float64") == "float64":
                parts = [np.nan if p is None else p for p in parts]
                cols[k] = self._column(parts, counts, np.float64)
            else:
                cols[k] = self._column(parts, counts, object)
        frame = pd.DataFrame(cols, copy=False)
        return ImportedTable(
            frame, {m["run"]: m for m in self._meta}, tuple(self._bounds), tuple(notes)
        )
