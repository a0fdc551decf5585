"""Read published benchmark numbers for :func:`tsanalyze.audit`.

Accepted inputs (chosen by file suffix, text otherwise):

* ``.csv`` -- a header row, then one row per benchmark (``#`` lines are comments; a UTF-8
  byte-order mark is allowed); see :mod:`tsanalyze.io.audit_records` for the columns;
  ``hyperfine --export-csv`` files are recognised by their header (times in seconds);
* ``.yaml`` / ``.yml`` / ``.json`` -- a list of mappings, or a mapping with a ``rows``
  list (and optional ``defaults`` applied to every row); pytest-benchmark's saved JSON;
* anything else -- text pasted as the tools print it: benchstat v1/v2, ``go test
  -bench``, BenchmarkTools, ``@btime``, ``%timeit``, pyperf, pytest-benchmark,
  hyperfine, JMH, criterion, libtest, Google Benchmark (:mod:`tsanalyze.io.audit_text`).

Raw-timing files of other tools (pyperf/pyperformance JSON, hyperfine JSON, ...) are not
summaries: the error points to the command that reads them. Every error is an
:class:`~tsanalyze.errors.AuditInputError` naming the file, the row (or line) and the
field; notes on the input (skipped lines, unknown columns) come back with the rows.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import json
import math
import os
import stat
import warnings
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tsanalyze._result import Finding
from tsanalyze.errors import AuditInputError, AuditInputWarning
from tsanalyze.io.audit_records import rows_from_records
from tsanalyze.io.audit_text import read_text
from tsanalyze.io.audit_text._scan import one_line

__all__ = [
    "AuditSource",
    "merge_sources",
    "parse_audit_text",
    "read_audit_file",
    "read_audit_input",
    "rows_from_records",
]

#: larger files are not published summaries (and would not fit a terminal)
MAX_BYTES = 64 * 1024 * 1024
_RAW_FORMATS = {
    "pyperf": "pyperf/pyperformance result (raw timings)",
    "hyperfine": "hyperfine --export-json result (raw timings)",
    "gbench": "Google Benchmark result (JSON or CSV)",
    "benchmarktools": "BenchmarkTools.save JSON",
    "jmh": "JMH -rf json result",
    "criterion": "criterion.rs result (directory or raw.csv)",
}


@dataclasses.dataclass(frozen=True, slots=True)
class AuditSource:
    """What one file holds for the audit.

    Attributes
    ----------
    rows : list of dict
        Rows for :func:`tsanalyze.audit`.
    notes : tuple of Finding
        Notes on the input (``line-skipped``, ``unknown-column``, ``table-skipped``,
        ``benchmark-failed``), each message starting with the file (and line); pass them
        as ``audit(notes=...)``.
    formats : tuple of str
        The formats recognised (``"benchstat v2"``, ``"hyperfine markdown"``, ``"csv"``...).
    """

    rows: list[dict[str, Any]]
    notes: tuple[Finding, ...] = ()
    formats: tuple[str, ...] = ()


def parse_audit_text(
    text: str, source: str = "<text>", *, spread_kind: str | None = None
) -> list[dict[str, Any]]:
    """Rows of a pasted text (see :func:`tsanalyze.io.audit_text.read_text`); notes on
    skipped lines are emitted as :class:`~tsanalyze.errors.AuditInputWarning`."""
    got = read_text(text, source, spread_kind=spread_kind)
    _warn(got.notes)
    return got.rows


def _warn(notes: tuple[Finding, ...]) -> None:
    for note in notes:
        if note.severity != "info":
            warnings.warn(note.message, AuditInputWarning, stacklevel=3)


def _read(p: Path, source: str) -> str:
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise AuditInputError(f"{source}: no such file") from None
    except OSError as exc:
        raise AuditInputError(f"{source}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        what = (
            "a directory"
            if stat.S_ISDIR(st.st_mode)
            else "not a regular file (a FIFO, device or socket)"
        )
        raise AuditInputError(f"{source}: {what}; give a file of published numbers")
    if st.st_size > MAX_BYTES:
        raise AuditInputError(
            f"{source}: {st.st_size} bytes is too large for a table of published numbers"
        )
    try:
        raw = p.read_bytes()
        if raw[:2] == b"\x1f\x8b":  # gzip, as the importers read it (pyperf's .json.gz)
            raw = gzip.decompress(raw)
        return raw.decode("utf-8-sig")
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise AuditInputError(f"{source}: a truncated or corrupt gzip file ({exc})") from None
    except UnicodeDecodeError as exc:
        raise AuditInputError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise AuditInputError(f"{source}: cannot read ({exc.strerror or exc})") from None


def read_audit_file(
    path: str | Path,
    *,
    n: int | None = None,
    evals: int | None = None,
    spread_kind: str | None = None,
) -> AuditSource:
    """Read a file of published numbers into audit rows and notes.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.yaml``/``.yml``, ``.json`` or text file.
    n, evals : int, optional
        Fill in samples per row / evaluations per sample where the file gives none.
    spread_kind : {"sd", "range", "ci"}, optional
        What the spread means where the file does not say (text: benchstat's ``±``).

    Returns
    -------
    AuditSource

    Raises
    ------
    AuditInputError
        Unreadable file or malformed row; the message names file, row/line and field.
    """
    p = Path(path)
    source = str(path)
    raw = _read(p, source)
    suffix = p.suffix.lower()
    if suffix == ".gz":  # what is inside: bench.json.gz is JSON
        suffix = Path(p.stem).suffix.lower()
    notes: list[Finding] = []
    formats: tuple[str, ...]
    if suffix == ".csv" and (kind := _sniff(p)) in ("gbench", "criterion"):
        rows, formats = _foreign_json(p, kind, source, notes)  # raw timings: refused
    elif suffix == ".csv":
        rows = _csv_rows(raw, source, notes)
        formats = ("csv",)
    elif suffix == ".json" and (kind := _sniff(p)) is not None:
        rows, formats = _foreign_json(p, kind, source, notes)
    elif suffix in (".yaml", ".yml", ".json"):
        rows = rows_from_records(_structured(_load(raw, suffix, source), source), source, notes)
        formats = (suffix[1:],)
    else:
        got = read_text(raw, source, spread_kind=spread_kind)
        rows, formats = got.rows, got.formats
        notes.extend(got.notes)
    if not rows:
        raise AuditInputError(f"{source}: no rows")
    for r in rows:
        if n is not None and _blank(r.get("n")):
            r["n"] = n
        if evals is not None and _blank(r.get("evals")):
            r["evals"] = evals
        if spread_kind is not None and _blank(r.get("spread_kind")):
            r["spread_kind"] = spread_kind
    return AuditSource(rows, tuple(notes), formats)


def read_audit_input(
    path: str | Path,
    *,
    n: int | None = None,
    evals: int | None = None,
    spread_kind: str | None = None,
) -> list[dict[str, Any]]:
    """The rows of :func:`read_audit_file`; its warnings are emitted as
    :class:`~tsanalyze.errors.AuditInputWarning` (use :func:`read_audit_file` to keep them
    with the rows and pass them to the audit)."""
    got = read_audit_file(path, n=n, evals=evals, spread_kind=spread_kind)
    _warn(got.notes)
    return got.rows


def merge_sources(
    sources: list[AuditSource], labels: list[str]
) -> tuple[list[dict[str, Any]], tuple[Finding, ...]]:
    """Rows and notes of several files for one audit; a file reusing names of an earlier
    file has its rows prefixed with its label (``new.txt: BenchmarkX``)."""
    rows: list[dict[str, Any]] = []
    notes: list[Finding] = []
    seen: set[str] = set()
    for src, label in zip(sources, labels, strict=True):
        names = {str(r.get("name")) for r in src.rows}
        if names & seen:
            rename = {n: f"{label}: {n}" for n in names}
            src = AuditSource(
                [
                    {**r, "name": rename[str(r.get("name"))],
                     **({"compare_to": rename[r["compare_to"]]} if r.get("compare_to") in rename else {})}
                    for r in src.rows
                ],
                src.notes,
                src.formats,
            )  # fmt: skip
            names = set(rename.values())
        seen |= names
        rows.extend(src.rows)
        notes.extend(src.notes)
    return rows, tuple(notes)


def _csv_rows(raw: str, source: str, notes: list[Finding]) -> list[dict[str, Any]]:
    # '#' lines are comments; keep the physical line numbers for messages
    lines = [(i, ln) for i, ln in enumerate(raw.splitlines(), 1) if not ln.lstrip().startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(ln for _, ln in lines)))
    recs: list[Mapping[str, Any]] = []
    linenos: list[int] = []
    header = False
    try:
        if not reader.fieldnames:
            raise AuditInputError(f"{source}: empty CSV (no header row)")
        header = True
        for r in reader:
            lineno = lines[min(reader.line_num, len(lines)) - 1][0]
            if None in r:
                raise AuditInputError(f"{source}:{lineno}: more fields than the header has")
            if not any((v or "").strip() for v in r.values()):
                continue
            recs.append({str(k).strip(): v for k, v in r.items()})
            linenos.append(lineno)
    except csv.Error as exc:
        k = reader.line_num + 1 if header else max(reader.line_num, 1)
        at = lines[min(k, len(lines)) - 1][0] if lines else 1
        raise AuditInputError(
            f"{source}:{at}: cannot read as CSV ({one_line(str(exc), 120)})"
        ) from None
    from tsanalyze.io.importers.csvtable import is_hyperfine_csv

    if is_hyperfine_csv(reader.fieldnames):
        recs = [_hyperfine_record(r) for r in recs]
    rows = rows_from_records(recs, source, notes)
    for r, lineno in zip(rows, linenos, strict=True):
        if str(r.get("source", "")).startswith(f"{source} row"):
            r["source"] = f"{source}:{lineno}"
    return rows


def _hyperfine_record(rec: Mapping[str, Any]) -> dict[str, Any]:
    """A row of ``hyperfine --export-csv`` with hyperfine's conventions: times in seconds,
    the mean of one process run per sample, full floats (not printed digits); the
    parameters are already substituted into the command."""
    out = {k: v for k, v in rec.items() if not k.startswith("parameter_")}
    out.update(unit="s", location_kind="mean", evals=1, scope="per-process", tool="hyperfine",
               rounding="none")  # fmt: skip
    return out


def _load(raw: str, suffix: str, source: str) -> Any:
    try:
        return json.loads(raw) if suffix == ".json" else yaml.safe_load(raw)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        first = one_line(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, 160)
        raise AuditInputError(f"{source}: not valid {suffix[1:].upper()} ({first})") from None
    except RecursionError:
        raise AuditInputError(f"{source}: nested too deeply to be a table of numbers") from None
    except (ValueError, OverflowError) as exc:
        raise AuditInputError(
            f"{source}: not valid {suffix[1:].upper()} ({one_line(str(exc), 120)})"
        ) from None


def _structured(data: Any, source: str) -> list[Mapping[str, Any]]:
    defaults: Mapping[str, Any] = {}
    if isinstance(data, Mapping):
        if "rows" not in data:
            raise AuditInputError(f"{source}: expected a list of rows or a mapping with 'rows'")
        d = data.get("defaults") or {}
        if not isinstance(d, Mapping):
            raise AuditInputError(f"{source}, field 'defaults': expected a mapping")
        defaults = d
        data = data["rows"]
    if not isinstance(data, list):
        raise AuditInputError(f"{source}: expected a list of rows, got {type(data).__name__}")
    out: list[Mapping[str, Any]] = []
    for i, rec in enumerate(data):
        if not isinstance(rec, Mapping):
            raise AuditInputError(f"{source} row {i + 1}: expected a mapping of fields")
        out.append({**defaults, **rec})
    return out


def _sniff(path: Path) -> str | None:
    from tsanalyze.io.importers import sniff

    try:
        return sniff(path)
    except (OSError, ValueError):
        return None


def _foreign_json(
    p: Path, kind: str, source: str, notes: list[Finding]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    if kind == "pytest-benchmark":
        # pytest-benchmark saves summary statistics: exactly what the audit reads
        from tsanalyze.io.importers import load_summaries

        records = [
            {str(k): v for k, v in r.items()} for r in load_summaries([p]).to_dict("records")
        ]
        for r in records:
            # a saved data file: its numbers are the tool's floats, not printed digits
            r.update(tool="pytest-benchmark", scope="one-process", rounding="none")
        return rows_from_records(records, source, notes), ("pytest-benchmark json",)
    if kind == "gbench":
        records = _gbench_aggregates(p)
        if records:
            return rows_from_records(records, source, notes), ("google benchmark json",)
    if kind == "benchmarktools":
        from tsanalyze.io.importers.benchmarktools import ESTIMATES_ONLY, holds_estimates_only

        if holds_estimates_only(_json_or_none(p)):
            raise AuditInputError(f"{source}: a BenchmarkTools.save JSON that {ESTIMATES_ONLY}")
    what = _RAW_FORMATS.get(kind, f"{kind} file")
    raise AuditInputError(
        f"{source}: a {what}, not published summaries: analyse it with "
        f"`tsanalyze report {source}` or compare with `tsanalyze compare A B` "
        f"(`tsanalyze import` converts it to a run file)"
    )


def _json_or_none(p: Path) -> Any:
    """The JSON document in ``p``, or None when it cannot be read as one (the caller then
    says what the file is)."""
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def _gbench_aggregates(p: Path) -> list[dict[str, Any]]:
    """Rows of a Google Benchmark JSON file that holds aggregates only
    (``--benchmark_report_aggregates_only``: no repetition to import, so summaries to
    audit); [] when it holds repetitions (the file is then raw timings).

    The conventions are those of Google Benchmark's console aggregates: ``mean`` and
    ``stddev`` of the repetitions' per-iteration ``real_time`` (``aggregate_unit``
    ``"time"``), ``n`` = ``repetitions``, all repetitions in one process; the number of
    iterations per repetition is not in these entries.
    """
    data = _json_or_none(p)
    entries = data.get("benchmarks") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return []
    if any(e.get("run_type", "iteration") != "aggregate" for e in entries):
        return []
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for e in entries:
        if e.get("aggregate_unit", "time") != "time" or not isinstance(e.get("run_name"), str):
            continue
        groups.setdefault(e["run_name"], {})[str(e.get("aggregate_name"))] = e
    out: list[dict[str, Any]] = []
    for name, aggs in groups.items():
        mean = aggs.get("mean")
        if mean is None:
            continue
        row: dict[str, Any] = {
            "name": name, "location": mean.get("real_time"), "unit": mean.get("time_unit", "ns"),
            "location_kind": "mean", "n": mean.get("repetitions"), "batched": True,
            "scope": "one-process", "tool": "Google Benchmark", "rounding": "none",
        }  # fmt: skip
        sd = aggs.get("stddev")
        if sd is not None and sd.get("time_unit", "ns") == row["unit"]:
            row.update(spread=sd.get("real_time"), spread_kind="sd")
        med = aggs.get("median")
        if med is not None and med.get("time_unit", "ns") == row["unit"]:
            row["median"] = med.get("real_time")
        out.append(row)
    return out


def _blank(v: Any) -> bool:
    return (
        v is None
        or (isinstance(v, str) and not v.strip())
        or (isinstance(v, float) and math.isnan(v))
    )
