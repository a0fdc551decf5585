"""What ``tsanalyze info`` shows: an inventory of run files (runs, clock, timer, host,
the samples of each benchmark, and each file's rows and column ranges), as a document and
as rich tables.

The inventory comes from the files' footers (:func:`tsanalyze.io.inventory.inventory`):
``info`` on 10^7 samples answers in a fraction of a second because it never reads them.
Statistics of the samples (minimum, median) are the report's job: ``tsanalyze report``
gives them with their confidence intervals, after the steady-state detection.
Every name and metadata value is shown with control characters escaped
(:func:`tsanalyze.report.text.safe_text`): a run file anyone wrote cannot drive the
terminal.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from tsanalyze._units import format_time
from tsanalyze.io.inventory import Inventory, time_span_s
from tsanalyze.report.text import safe_text
from tsanalyze.schema import HISTORY_KEYS

__all__ = ["INFO_VERSION", "info_document", "info_renderable", "render_info"]

#: version of the ``info`` JSON document (2: from the footers; no min or median)
INFO_VERSION = 2


def info_document(inv: Inventory) -> dict[str, Any]:
    """The ``info`` content: the runs with their metadata summary and benchmarks, and the
    files with their rows and column ranges.

    Parameters
    ----------
    inv : Inventory
        What :func:`tsanalyze.io.inventory.inventory` found.

    Returns
    -------
    dict
        ``{"tsanalyze_info_version": 2, "runs": [{run, file, created_utc, clock_source,
        clock_hz, overhead_ns, precision_ns, host, source, time_span_s, history (the
        commit, commit_time, branch, machine, env the run records), benchmarks:
        [{benchmark, samples}]}], "files": [{file, format, size_bytes, rows, row_groups,
        rows_read, columns: {name: {min, max, nulls}}}]}``. ``time_span_s`` is from the
        first sample's start to the last one's (None when the file holds several runs or
        no clock readings); a column's ``min``/``max`` are None when unknown.
    """
    per_run: dict[str, list[dict[str, Any]]] = {}
    for (rid, bench), n in sorted(inv.samples.items()):
        per_run.setdefault(rid, []).append({"benchmark": bench, "samples": n})
    runs: list[dict[str, Any]] = []
    for rid, meta in inv.runs.items():
        clock = meta.get("clock") or {}
        timer = meta.get("timer") or {}
        runs.append({
            "run": rid,
            "file": meta.get("file"),
            "created_utc": meta.get("created_utc"),
            "clock_source": clock.get("source"),
            "clock_hz": clock.get("hz"),
            "overhead_ns": timer.get("overhead_ns"),
            "precision_ns": timer.get("precision_ns"),
            "host": meta.get("host") or {},
            "source": meta.get("source"),
            "time_span_s": time_span_s(inv, rid),
            "history": {k: meta[k] for k in HISTORY_KEYS if isinstance(meta.get(k), str)},
            "benchmarks": per_run.get(rid, []),
        })  # fmt: skip
    files = [
        {
            "file": f.file,
            "format": f.format,
            "size_bytes": f.size_bytes,
            "rows": f.rows,
            "row_groups": f.row_groups,
            "rows_read": f.rows_read,
            "columns": {
                name: {"min": c.min, "max": c.max, "nulls": c.nulls}
                for name, c in f.columns.items()
            },
        }
        for f in inv.files
    ]
    return {"tsanalyze_info_version": INFO_VERSION, "runs": runs, "files": files}


def _value(name: str, v: Any) -> str:
    if v is None:
        return "-"
    if name == "ns":
        return format_time(float(v))
    return f"{v:g}" if isinstance(v, float) else str(v)


def info_renderable(doc: dict[str, Any]) -> Group:
    """The ``info`` document as rich renderables: per run a header and a benchmark table."""
    parts: list[Text | Table] = []
    for r in doc["runs"]:
        host = r["host"]
        hz = r["clock_hz"]
        head = Text()
        head.append(safe_text(f"run {r['run']}", style="bold"))
        head.append(safe_text(f"  ({r['file']})"))
        head.append("\n")
        head.append(safe_text(f"created {r['created_utc']}   clock {r['clock_source']}"))
        if hz:
            head.append(f" @ {hz / 1e6:.6g} MHz")
        head.append(
            f"   overhead {format_time(r['overhead_ns'])}   precision {format_time(r['precision_ns'])}"
        )
        if r["time_span_s"] is not None:
            head.append(f"   span {r['time_span_s']:.3g} s")
        if r["history"]:
            head.append("\n")
            head.append(safe_text("history " + ", ".join(f"{k}={v}" for k, v in r["history"].items())))
        if host:
            head.append("\n")
            head.append(safe_text("host " + ", ".join(f"{k}={v}" for k, v in host.items())))
        parts.append(head)
        table = Table(show_edge=False)
        table.add_column("benchmark", justify="left")
        table.add_column("samples", justify="right")
        for b in r["benchmarks"]:
            table.add_row(safe_text(b["benchmark"]), str(b["samples"]))
        parts.append(table)
        parts.append(Text(""))
    for f in doc["files"]:
        head = Text()
        head.append(safe_text(f"file {f['file']}", style="bold"))
        size = "" if f["size_bytes"] is None else f", {f['size_bytes'] / 1e6:.3g} MB"
        groups = "" if f["row_groups"] is None else f" in {f['row_groups']} row group" + "s" * (f["row_groups"] != 1)
        head.append(safe_text(f"  ({f['format']}{size}: {f['rows']} rows{groups})"))
        parts.append(head)
        table = Table(show_edge=False)
        for col in ("column", "min", "max", "nulls"):
            table.add_column(col, justify="left" if col == "column" else "right")
        for name, c in f["columns"].items():
            table.add_row(
                name, _value(name, c["min"]), _value(name, c["max"]), _value("", c["nulls"])
            )
        parts.append(table)
        parts.append(Text(""))
    return Group(*parts)


def render_info(doc: dict[str, Any], console: Console | None = None) -> None:
    """Print the ``info`` tables to ``console`` (default: stdout, no highlighting)."""
    (console or Console(highlight=False)).print(info_renderable(doc))
