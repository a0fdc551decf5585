"""CSV / TSV tables of timings, with a column mapping.

The mapping (``--map time=col,benchmark=col,evals=col,unit=ns`` on the command line,
``mapping={"time": "col", ...}`` in Python) says which column holds what:

``time``
    per-evaluation time (required unless ``total`` is given);
``total``
    elapsed time of the whole sample (``evals`` evaluations), instead of ``time``;
``benchmark``
    benchmark name (default: the file name without extension, one benchmark);
``evals``
    evaluations per sample (default 1);
``run``
    a column whose values split the rows into runs (default: one run per file);
``work``
    work amount of each sample (the run format's ``work`` column, Pilot's WPS model);
``unit``
    the unit of the time column: ``ns`` (default), ``us``, ``ms`` or ``s``; a file with
    a column named ``unit`` that says otherwise is refused until the unit is given;
``sep``
    the field separator (default: tab for ``.tsv``/``.tab`` files, else comma).

Without a mapping, columns named ``benchmark``/``name`` and ``time_ns``/``ns``/``time``
and ``evals``/``iterations`` are used when present. Rows keep file order (the
``sample`` index counts rows of each benchmark within its run). Every other column is
carried along unchanged as an extra (string) column, except names of run-format
columns and ``kind``, which are dropped.

A ``hyperfine --export-csv`` file (recognised by its header) holds one mean per command,
not timings: without a mapping it is refused with a pointer to ``--export-json`` and to
``tsanalyze audit``, which reads it.
"""

from __future__ import annotations

import csv as _csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._units import parse_unit
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc, open_text
from tsanalyze.io.importers._imported import RESERVED_COLUMNS, ImportedTable

__all__ = ["CsvImporter", "is_hyperfine_csv", "parse_mapping"]

#: the columns of ``hyperfine --export-csv`` (hyperfine ``src/export/csv.rs``), before one
#: ``parameter_<name>`` column per ``--parameter-scan``/``--parameter-list`` parameter
_HYPERFINE_CSV = ("command", "mean", "stddev", "median", "user", "system", "min", "max")


def is_hyperfine_csv(columns: Any) -> bool:
    """The header of ``hyperfine --export-csv``: its eight columns, then parameters only."""
    names = [str(c).strip() for c in columns or ()]
    return tuple(names[:8]) == _HYPERFINE_CSV and all(
        n.startswith("parameter_") for n in names[8:]
    )

_KEYS = ("time", "total", "benchmark", "evals", "run", "work", "unit", "sep")
_AUTO = {
    "benchmark": ("benchmark", "name"),
    "time": ("time_ns", "ns", "time"),
    "evals": ("evals", "iterations", "iters"),
    "work": ("work",),
}


def _refuse_unit_column(path: Path, table: pd.DataFrame) -> None:
    """A column named ``unit`` that says the times are not in ns, when no unit was given:
    the times would be read as ns (a million times off for ms), so refuse and say how to
    give it."""
    col = next((c for c in table.columns if str(c).strip().lower() == "unit"), None)
    if col is None:
        return
    units = sorted({str(v).strip() for v in table[col]} - {""})
    if not units or units == ["ns"]:
        return
    if len(units) == 1:
        raise fail(
            path,
            "",
            f"column {col!r} says the times are in {units[0]}, but no unit was given (the "
            f"time column is read as ns unless told); give it: `tsanalyze import csv {path} "
            f"--unit {units[0]} -o run.parquet`",
        )
    raise fail(
        path,
        "",
        f"column {col!r} holds several units ({', '.join(units[:5])}); one time column needs "
        "one unit: split the file by unit and import each with its --unit",
    )


def parse_mapping(text: str | None) -> dict[str, str]:
    """Parse a column mapping such as ``"time=col,benchmark=col,unit=ns"``.

    Parameters
    ----------
    text : str or None
        Comma-separated ``KEY=VALUE`` pairs; keys are ``time, total, benchmark, evals,
        run, unit, sep``. None or an empty string gives an empty mapping.

    Returns
    -------
    dict of str to str
        The mapping.

    Raises
    ------
    ValueError
        A pair without ``=`` or value, or an unknown key (the message names it).

    References
    ----------
    RFC 4180, "Common Format and MIME Type for Comma-Separated Values (CSV) Files".
    """
    out: dict[str, str] = {}
    if not text:
        return out
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not value:
            raise InvalidArgumentError(f"--map: expected KEY=VALUE, got {part!r}")
        if key not in _KEYS:
            raise InvalidArgumentError(f"--map: unknown key {key!r}; expected one of {', '.join(_KEYS)}")
        out[key] = value
    return out


class CsvImporter:
    """Importer of CSV/TSV tables with a column mapping (see the module docstring).

    References
    ----------
    RFC 4180, "Common Format and MIME Type for Comma-Separated Values (CSV) Files".
    """

    name = "csv"
    tool = "csv"
    description = (
        "CSV/TSV table with a column mapping (--map time=col,benchmark=col,evals=col,unit=ns)"
    )

    def sniff(self, path: Path, head: str) -> bool:
        return Path(path).suffix.lower() in (".csv", ".tsv", ".tab")

    def load(
        self, path: Path, mapping: Mapping[str, str] | str | None = None, **options: Any
    ) -> ImportedTable:
        m = parse_mapping(mapping) if isinstance(mapping, str) or mapping is None else dict(mapping)
        for k, v in options.items():
            if k not in _KEYS:
                raise InvalidArgumentError(
                    f"csv import: unknown option {k!r}; expected mapping= or one of {', '.join(_KEYS)}"
                )
            m[k] = str(v)
        unknown = set(m) - set(_KEYS)
        if unknown:
            raise InvalidArgumentError(
                f"csv import: unknown mapping keys {sorted(unknown)}; expected {', '.join(_KEYS)}"
            )
        if "time" in m and "total" in m:
            raise InvalidArgumentError(
                "csv import: map either time (per evaluation) or total (per sample), not both"
            )
        unit = m.get("unit", "ns")
        try:
            scale = parse_unit(unit)
        except ValueError:
            raise InvalidArgumentError(
                f"csv import: unit must be one of ns, us, ms, s, got {unit!r}"
            ) from None
        sep = m.get("sep") or ("\t" if Path(path).suffix.lower() in (".tsv", ".tab") else ",")
        if sep in ("tab", "\\t"):
            sep = "\t"
        text = open_text(path)
        if text.lstrip().startswith(("[", "{")):
            raise fail(
                path,
                "line 1",
                "expected a CSV table, but this looks like JSON; a list of times is read with "
                f"`tsanalyze import values {path} --unit UNIT`, other tools' JSON with `import auto`",
            )
        try:
            table = pd.read_csv(
                io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, skip_blank_lines=True
            )
        except (pd.errors.ParserError, _csv.Error) as exc:
            # pandas' tokenizer messages end in a newline: keep the error on one line
            why = " ".join(str(exc).split())
            raise fail(
                path, "", f"expected a {'TSV' if sep == chr(9) else 'CSV'} table ({why})"
            ) from exc
        except pd.errors.EmptyDataError as exc:
            raise fail(path, "line 1", "expected a header row, the file is empty") from exc
        columns = list(table.columns)
        for key, candidates in _AUTO.items():
            if key not in m and not (key == "time" and "total" in m):
                found = next((c for c in candidates if c in columns), None)
                if found is not None:
                    m[key] = found
        if "time" not in m and "total" not in m and is_hyperfine_csv(columns):
            raise fail(
                path,
                "line 1",
                "a hyperfine --export-csv file holds summary statistics only (mean, stddev, min, "
                "max per command), not timings: import hyperfine's --export-json file instead, "
                f"or audit these numbers with `tsanalyze audit {path}`",
            )
        if "time" not in m and "total" not in m:
            raise fail(
                path,
                "line 1",
                "expected a time column (time_ns, ns or time); map one with "
                f"`tsanalyze import csv FILE --map time=COLUMN,...` (columns: {_listing(columns)})",
            )
        for key in ("time", "total", "benchmark", "evals", "run", "work"):
            if key in m and m[key] not in columns:
                raise fail(
                    path,
                    "line 1",
                    f"expected a column {m[key]!r} for {key} (columns: {_listing(columns)})",
                )
        if len(table) == 0:
            raise fail(path, "line 2", "expected at least one data row")
        if "unit" not in m:
            _refuse_unit_column(path, table)
        tcol = m["time"] if "time" in m else m["total"]
        times = _numbers(path, table[tcol], tcol)
        if "evals" in m:
            evals_f = _numbers(path, table[m["evals"]], m["evals"])
            _refuse_first(
                path,
                table[m["evals"]],
                m["evals"],
                (evals_f < 1) | (evals_f != np.round(evals_f)),
                "a whole number >= 1",
            )
            evals = evals_f  # the builder checks the int64 range before any cast
        else:
            evals = np.ones(len(table), dtype=np.int64)
        _refuse_first(path, table[tcol], tcol, times <= 0, "a time > 0")
        per_eval = times * scale
        if "total" in m and "time" not in m:
            per_eval = per_eval / evals
        bench = (
            table[m["benchmark"]].to_numpy(dtype=object)
            if "benchmark" in m
            else np.full(len(table), Path(path).stem, dtype=object)
        )
        used = {m.get(k) for k in ("time", "total", "benchmark", "evals", "run", "work")}
        extras = [c for c in columns if c not in used]
        extra_names = [c for c in extras if c not in RESERVED_COLUMNS]
        work = _numbers(path, table[m["work"]], m["work"]) if "work" in m else None
        builder = RunBuilder(
            path,
            extra=[*extra_names, *(["work"] if work is not None else [])],
            extra_dtypes=dict.fromkeys(extra_names, "object"),
        )
        run_keys = (
            table[m["run"]].to_numpy(dtype=object)
            if "run" in m
            else np.zeros(len(table), dtype=object)
        )
        created = file_mtime_utc(path)
        for index, key in enumerate(dict.fromkeys(run_keys.tolist())):
            sel = np.flatnonzero(run_keys == key)
            names = list(dict.fromkeys(bench[sel].tolist()))
            for name in names:
                rows = sel[bench[sel] == name]
                builder.add(
                    str(name),
                    per_eval[rows],
                    evals[rows],
                    **{c: table[c].to_numpy(dtype=object)[rows] for c in extra_names},
                    **({"work": work[rows]} if work is not None else {}),
                )
            builder.finish_imported(
                index,
                tool="csv",
                created_utc=created,
                spec=[str(n) for n in names],
                tool_metadata={"mapping": m, "run_key": str(key)} if "run" in m else {"mapping": m},
            )
        return builder.build()


def _numbers(path: Path, column: pd.Series, name: str) -> np.ndarray:
    values = pd.to_numeric(column.str.strip(), errors="coerce").to_numpy(dtype=np.float64)
    _refuse_first(path, column, name, ~np.isfinite(values), "a finite number")
    return values


def _refuse_first(path: Path, column: pd.Series, name: str, bad: np.ndarray, expected: str) -> None:
    """Refuse the first row where ``bad`` holds, naming its line, column and value."""
    rows = np.flatnonzero(bad)
    if rows.size:
        i = int(rows[0])
        raise fail(
            path, f"line {i + 2}", f"expected {expected} in column {name!r}, got {column.iloc[i]!r}"
        )


def _listing(columns: list[str], limit: int = 8) -> str:
    """The first column names, for a message that stays one short line."""
    shown = [c if len(c) <= 40 else c[:40] + "…" for c in map(str, columns[:limit])]
    more = f", ... ({len(columns) - limit} more)" if len(columns) > limit else ""
    return ", ".join(shown) + more
