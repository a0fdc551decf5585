"""The value checks of the run format: one path for run files, imports and writes.

:func:`check_rows` is what :func:`tsanalyze.read_runs` applies to every Parquet run file,
what every importer's result goes through (:func:`tsanalyze.io.importers.load_table`)
and what :func:`tsanalyze.write_run` applies before writing, so that no reader, importer
or writer can let through a row the others would refuse. It takes an Arrow table (run
files) or a pandas DataFrame (imports) and raises :class:`~tsanalyze.errors.InvalidRunError`
with one line naming the file, the column, the row (and the benchmark) and what is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from tsanalyze import schema
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.footer import check_metadata, json_safe

__all__ = ["check_metadata", "check_rows", "json_safe"]

_INT64_MAX = np.iinfo(np.int64).max
_INT16_MAX = np.iinfo(np.int16).max
#: non-negative integer columns and their largest value
_INDEX_COLUMNS = {"sample": _INT64_MAX, "round": _INT64_MAX, "position": _INT16_MAX}
_NOT_NULL = ("benchmark", "run", "round", "position", "sample", "evals", "ns")

Rows: TypeAlias = pa.Table | pd.DataFrame


_CACHE: dict[tuple[int, str], Any] = {}


def _column(rows: Rows, name: str) -> Any:
    """A column (of an Arrow table: string columns combined into one array, once)."""
    if not isinstance(rows, pa.Table):
        return rows[name]
    key = (id(rows), name)
    if key not in _CACHE:
        col = rows.column(name)
        string = pa.types.is_dictionary(col.type) or pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
        _CACHE[key] = col.combine_chunks() if string else col
    return _CACHE[key]


def _null_mask(col: Any) -> np.ndarray | None:
    if isinstance(col, (pa.Array, pa.ChunkedArray)):
        if not col.null_count:
            return None
        return np.asarray(pc.is_null(col).to_numpy(zero_copy_only=False))
    mask = pd.isna(col).to_numpy() if isinstance(col, pd.Series) else pd.isna(np.asarray(col))
    return mask if mask.any() else None


def _numbers(col: Any) -> np.ndarray:
    """A column without nulls as a numpy array (integers kept as integers)."""
    if isinstance(col, (pa.Array, pa.ChunkedArray)):
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        return np.asarray(col.to_numpy(zero_copy_only=False))
    arr = col.to_numpy() if isinstance(col, pd.Series) else np.asarray(col)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            pass
    return arr


def _codes(col: Any) -> tuple[np.ndarray, list[Any]]:
    """Integer codes and the distinct values of a string column."""
    if isinstance(col, pa.Array):
        d = col if pa.types.is_dictionary(col.type) else pc.dictionary_encode(col)
        return np.asarray(d.indices.to_numpy(zero_copy_only=False)).astype(np.int64), d.dictionary.to_pylist()
    codes, uniques = pd.factorize(np.asarray(col, dtype=object), sort=False)
    return codes.astype(np.int64), list(uniques)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _cell(rows: Rows, name: str, i: int) -> Any:
    col = _column(rows, name)
    return col[i].as_py() if isinstance(col, (pa.Array, pa.ChunkedArray)) else col.iloc[i]


def _row(rows: Rows, i: int) -> str:
    """``row i (benchmark 'x', sample k)``: where a problem is, for the message."""
    try:
        where = f"benchmark {str(_cell(rows, 'benchmark', i))!r}"
        sample = _cell(rows, "sample", i)
        if sample is not None and not _is_na(sample):
            where += f", sample {sample}"
    except (KeyError, IndexError, AttributeError):  # pragma: no cover - checked before
        return f"row {i}"
    return f"row {i} ({where})"


def _fmt(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(value)


def check_rows(source: str | Path, rows: Rows, run_ids: Sequence[str]) -> None:
    """Check every value of a run table, or raise an error naming file, column and row.

    Parameters
    ----------
    source : path or str
        The file the rows come from (named in every message).
    rows : pyarrow.Table or pandas.DataFrame
        The rows, with the run-format columns (types already checked by
        :func:`tsanalyze.schema.validate`).
    run_ids : sequence of str
        The run ids the file's metadata declares; the ``run`` column must hold only these.

    Raises
    ------
    InvalidRunError
        A null in a required column; an ``ns`` that is not finite, not > 0, below
        :data:`tsanalyze.schema.MIN_SAMPLE_NS` or not below
        :data:`tsanalyze.schema.MAX_SAMPLE_NS`; ``evals`` < 1 or beyond int64;
        a negative ``sample``, ``round`` or ``position``; a ``kind`` other than
        :data:`tsanalyze.schema.ROW_KINDS`; a non-finite ``work``; a ``run`` the metadata
        does not declare; a (run, benchmark, sample) twice.

    Notes
    -----
    The checks are those of the run format (DESIGN.md, "The run format"); they are
    vectorised (a few passes over each column), so checking costs little next to reading.

    References
    ----------
    DESIGN.md, "The run format (schema version 1)" and "Decisions added after the first
    release"; :mod:`tsanalyze.schema` (version 2).
    """
    try:
        _check(source, rows, run_ids)
    finally:
        _CACHE.clear()


def _check(source: str | Path, rows: Rows, run_ids: Sequence[str]) -> None:
    n = rows.num_rows if isinstance(rows, pa.Table) else len(rows)
    names = rows.column_names if isinstance(rows, pa.Table) else list(rows.columns)
    missing = [c for c in schema.REQUIRED_COLUMNS if c not in names]
    if missing:
        raise InvalidRunError(f"{source}: column {missing[0]}: missing")
    for name in _NOT_NULL:
        mask = _null_mask(_column(rows, name))
        if mask is not None:
            i = _first(mask)
            raise InvalidRunError(f"{source}: column {name}: null at {_row(rows, i)}")
    if n == 0:
        return
    _check_numbers(source, rows)
    if "work" in names and not _in_range(_column(rows, "work"), -math.inf, math.inf, low_open=True, high_open=True):
        col = _column(rows, "work")
        w = _numbers(col).astype(np.float64, copy=False)
        bad = ~np.isfinite(w)
        mask = _null_mask(col)
        if mask is not None:
            bad &= ~mask
        if bad.any():
            i = _first(bad)
            raise InvalidRunError(f"{source}: column work: {_fmt(w[i])} at {_row(rows, i)} is not finite")
    if "kind" in names:
        codes, kinds = _codes(_column(rows, "kind"))
        unknown = [k for k in kinds if k is not None and k not in schema.ROW_KINDS and not _is_na(k)]
        if unknown:
            i = _first(np.isin(codes, [kinds.index(unknown[0])]))
            raise InvalidRunError(
                f"{source}: column kind: {unknown[0]!r} at {_row(rows, i)}; the run format "
                f"reserves this column for {', '.join(schema.ROW_KINDS)} (rename your column)"
            )
    run_col = _column(rows, "run")
    if len(run_ids) == 1 and isinstance(run_col, pa.Array):
        # one run (every collector file): its column holds one value, no codes needed
        if isinstance(run_col.type, pa.DictionaryType):
            # the values its indices use, without a string per row (issue 19)
            used = run_col.dictionary.take(pc.unique(run_col.indices)).to_pylist()
            distinct = list(dict.fromkeys(used))
        else:
            distinct = pc.unique(run_col).to_pylist()
        run_names = [*distinct]
        run_codes = np.zeros(n, dtype=np.int64) if len(distinct) == 1 else _codes(run_col)[0]
        if len(distinct) > 1:
            run_names = _codes(run_col)[1]
    else:
        run_codes, run_names = _codes(run_col)
    declared = set(run_ids)
    other = [r for r in run_names if r not in declared]
    if other:
        i = _first(run_codes == run_names.index(other[0]))
        said = (
            f"the metadata says run {run_ids[0]!r}" if len(run_ids) == 1
            else f"the metadata declares {len(run_ids)} other runs"
        )  # fmt: skip
        raise InvalidRunError(f"{source}: column run: holds {other[0]!r} at row {i} but {said}")
    _check_duplicates(source, rows, run_codes, run_names)


def _check_numbers(source: Any, rows: Rows) -> None:
    if not _in_range(_column(rows, "ns"), schema.MIN_SAMPLE_NS, schema.MAX_SAMPLE_NS, high_open=True):
        _check_ns(source, rows)
    if not _in_range(_column(rows, "evals"), 1, _INT64_MAX):
        _check_evals(source, rows)
    for name, top in _INDEX_COLUMNS.items():
        if not _in_range(_column(rows, name), 0, top):
            _check_index(source, rows, name, top)


def _in_range(col: Any, lo: float, hi: float, *, low_open: bool = False, high_open: bool = False) -> bool:
    """A cheap pass (min and max, no copy) saying every value lies in the range; False
    means "look closer" (a NaN, a value outside, a float column of counts)."""
    if isinstance(col, (pa.Array, pa.ChunkedArray)):
        if pa.types.is_floating(col.type) and pc.any(pc.is_nan(col)).as_py():
            return False
        if pa.types.is_floating(col.type) and not col.null_count and len(col):
            # numpy's min and max: pyarrow's min_max of doubles is 15x slower (issue 19)
            chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
            parts = [np.asarray(c.to_numpy(zero_copy_only=False)) for c in chunks if len(c)]
            vmin, vmax = min(float(p.min()) for p in parts), max(float(p.max()) for p in parts)
        else:
            mm = pc.min_max(col)
            vmin, vmax = mm["min"].as_py(), mm["max"].as_py()
    else:
        arr = np.asarray(col)
        if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and lo >= 1):
            return False
        if arr.size == 0:
            return True
        vmin, vmax = arr.min(), arr.max()
        if arr.dtype.kind == "f" and not (math.isfinite(vmin) and math.isfinite(vmax)):
            return False
    if vmin is None:
        return True
    ok_lo = vmin > lo if low_open else vmin >= lo
    ok_hi = vmax < hi if high_open else vmax <= hi
    return bool(ok_lo and ok_hi)


def _check_ns(source: Any, rows: Rows) -> None:
    ns = _numbers(_column(rows, "ns")).astype(np.float64, copy=False)
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(ns) & (ns >= schema.MIN_SAMPLE_NS) & (ns < schema.MAX_SAMPLE_NS))
    if bad.any():
        i = _first(bad)
        why = (
            "is not finite (NaN, or too large a value for a time)" if not math.isfinite(ns[i])
            else "is not > 0" if ns[i] <= 0
            else f"is below {schema.MIN_SAMPLE_NS:g} ns (an attosecond), less than any clock resolves"
            if ns[i] < schema.MIN_SAMPLE_NS
            else f"is beyond {schema.MAX_SAMPLE_NS:.4g} ns (292 years), more than any clock measures"
        )  # fmt: skip
        raise InvalidRunError(
            f"{source}: column ns: time {_fmt(ns[i])} at {_row(rows, i)} {why}"
        )


def _check_evals(source: Any, rows: Rows) -> None:
    evals = _numbers(_column(rows, "evals"))
    if evals.dtype.kind == "f":
        bad = ~((evals >= 1) & (evals == np.round(evals)) & (evals < 2.0**63))
    elif evals.dtype.kind == "u":
        bad = (evals < 1) | (evals > _INT64_MAX)
    else:
        bad = evals < 1
    if bad.any():
        i = _first(bad)
        raise InvalidRunError(
            f"{source}: column evals: {_fmt(evals[i])} at {_row(rows, i)} is not a whole "
            f"number from 1 to {_INT64_MAX}"
        )


def _check_index(source: Any, rows: Rows, name: str, top: int) -> None:
    v = _numbers(_column(rows, name))
    bad = (v < 0) | (v > top)
    if bad.any():
        i = _first(bad)
        raise InvalidRunError(
            f"{source}: column {name}: {_fmt(v[i])} at {_row(rows, i)} is not "
            f"between 0 and {top}"
        )


def _is_na(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _check_duplicates(source: Any, rows: Rows, run_codes: np.ndarray, run_names: list[Any]) -> None:
    bench_codes, bench_names = _codes(_column(rows, "benchmark"))
    sample = _numbers(_column(rows, "sample")).astype(np.int64, copy=False)
    group = run_codes * max(len(bench_names), 1) + bench_codes
    if _distinct_fast(group, sample):
        return
    order = np.lexsort((sample, bench_codes, run_codes))
    same = (
        (run_codes[order][1:] == run_codes[order][:-1])
        & (bench_codes[order][1:] == bench_codes[order][:-1])
        & (sample[order][1:] == sample[order][:-1])
    )
    if same.any():
        k = _first(same)
        i = int(order[k + 1])
        raise InvalidRunError(
            f"{source}: duplicate (run, benchmark, sample) = ({run_names[run_codes[i]]!r}, "
            f"{bench_names[bench_codes[i]]!r}, {int(sample[i])}) at rows {int(order[k])} and {i}"
        )


def _distinct_fast(group: np.ndarray, sample: np.ndarray) -> bool:
    """True when every (group, sample) is distinct: one sort of a combined int64 key
    (fast on the nearly sorted keys of real files; samples are >= 0 by then). False means
    "a duplicate, or a key that would not fit in int64": the caller locates it."""
    span = int(sample.max()) + 1
    cells = (int(group.max()) + 1) * span
    if cells >= 2**62:
        return False
    key = group * span + sample
    if cells <= 8 * key.size + (1 << 20):
        # a bitmap of every possible key (<= 8 bytes per row): O(n), no sort (issue 19:
        # the sort was a quarter of write_run's time at 10^7 rows)
        seen = np.zeros(cells, dtype=np.bool_)
        seen[key] = True
        return int(np.count_nonzero(seen)) == key.size
    key.sort(kind="stable")
    return not bool((key[1:] == key[:-1]).any())
