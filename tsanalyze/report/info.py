"""What ``tsanalyze info`` shows: an inventory of run files (runs, clock, timer, host,
benchmarks with their sample counts, min and median), as a document and as rich tables.

No statistics beyond min and median; the CLI loads the runs and prints what this returns.
Every name and metadata value is shown with control characters escaped
(:func:`tsanalyze.report.text.safe_text`): a run file anyone wrote cannot drive the
terminal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from tsanalyze._units import format_time
from tsanalyze.report.text import safe_text

__all__ = ["INFO_VERSION", "info_document", "info_renderable", "render_info"]

#: version of the ``info`` JSON document
INFO_VERSION = 1


def info_document(df: pd.DataFrame) -> dict[str, Any]:
    """The ``info`` content: one entry per run with its metadata summary and benchmarks.

    Parameters
    ----------
    df : pandas.DataFrame
        Samples as :func:`tsanalyze.read_runs` returns them (run metadata in
        ``df.attrs["runs"]``).

    Returns
    -------
    dict
        ``{"tsanalyze_info_version": 1, "runs": [{run, file, created_utc, clock_source,
        clock_hz, overhead_ns, precision_ns, host, source, benchmarks: [{benchmark,
        samples, evals_min, evals_max, time_span_s, min_ns, median_ns}]}]}``.
    """
    runs: list[dict[str, Any]] = []
    grouped = df.groupby(["run", "benchmark"], observed=True, sort=True)
    per_bench: dict[str, list[dict[str, Any]]] = {}
    for (rid, bench), g in grouped:
        st = g["start_ticks"]
        hz = float(((df.attrs["runs"].get(rid) or {}).get("clock") or {}).get("hz") or 0.0)
        span_s = None
        if st.notna().all() and hz > 0 and len(g) > 0:
            end = (st + g["ticks"].fillna(0)).max()
            span_s = float(end - st.min()) / hz
        t = g["time_ns"].to_numpy()
        evals = g["evals"].to_numpy()
        per_bench.setdefault(str(rid), []).append({
            "benchmark": str(bench),
            "samples": len(g),
            "evals_min": int(evals.min()),
            "evals_max": int(evals.max()),
            "time_span_s": span_s,
            "min_ns": float(t.min()),
            "median_ns": float(np.median(t)),
        })  # fmt: skip
    for rid, meta in df.attrs.get("runs", {}).items():
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
            "benchmarks": per_bench.get(rid, []),
        })  # fmt: skip
    return {"tsanalyze_info_version": INFO_VERSION, "runs": runs}


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
        if host:
            head.append("\n")
            head.append(safe_text("host " + ", ".join(f"{k}={v}" for k, v in host.items())))
        parts.append(head)
        table = Table(show_edge=False)
        for col in ("benchmark", "samples", "evals", "time span", "min / eval", "median / eval"):
            table.add_column(col, justify="left" if col == "benchmark" else "right")
        for b in r["benchmarks"]:
            ev = (
                str(b["evals_min"])
                if b["evals_min"] == b["evals_max"]
                else f"{b['evals_min']}–{b['evals_max']}"
            )
            span = "-" if b["time_span_s"] is None else f"{b['time_span_s']:.3g} s"
            table.add_row(
                safe_text(b["benchmark"]), str(b["samples"]), ev, span,
                format_time(b["min_ns"]), format_time(b["median_ns"]),
            )  # fmt: skip
        parts.append(table)
        parts.append(Text(""))
    return Group(*parts)


def render_info(doc: dict[str, Any], console: Console | None = None) -> None:
    """Print the ``info`` tables to ``console`` (default: stdout, no highlighting)."""
    (console or Console(highlight=False)).print(info_renderable(doc))
