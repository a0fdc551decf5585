"""Turning per-sample arrays of several runs into one run-format frame
(:class:`RunBuilder`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze.io.importers._imported import ImportedTable

__all__ = ["RunBuilder"]


class RunBuilder:
    """Collect the samples of several runs, then build all their rows at once.

    Building one DataFrame per file (and slicing it into runs only when asked) is many
    times faster than building one DataFrame per run: pyperf files hold dozens of runs.
    """

    def __init__(
        self, extra: Sequence[str] = (), extra_dtypes: Mapping[str, str] | None = None
    ) -> None:
        # every imported row says what it is: "value" unless the importer says otherwise
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
        **extra: Any,
    ) -> None:
        """Append samples (per-evaluation ns and evals) of one benchmark to the current run."""
        n = len(per_eval_ns)
        if n == 0:
            return
        unknown = set(extra) - set(self._extra_names)
        if unknown:  # pragma: no cover - programming error in an importer
            raise KeyError(f"undeclared extra columns {sorted(unknown)}")
        if isinstance(evals, np.ndarray):
            evals = evals.astype(np.int64, copy=False)
            ns = np.asarray(per_eval_ns, dtype=np.float64) * evals
        else:
            evals = int(evals)
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

    def build(self) -> ImportedTable:
        """All finished runs as one :class:`ImportedTable`."""
        if not self._meta:
            return ImportedTable(pd.DataFrame(), {}, (0,))
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
        return ImportedTable(frame, {m["run"]: m for m in self._meta}, tuple(self._bounds))
