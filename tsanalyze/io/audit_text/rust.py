"""Rust: libtest's ``#[bench]`` lines and criterion.rs's console report.

* libtest (``cargo bench`` without criterion): ``test argon::energy ... bench:
  156,449 ns/iter (+/- 10,025)``. The number is the median of 50 samples (per-iteration
  times of batches of about 1 ms, winsorized at 5%), truncated to an integer in older
  releases; ``+/-`` is max − min of those samples (``spread_kind`` span).
* criterion.rs: ``name  time: [26.029 us 26.251 us 26.505 us]`` -- a 95% bootstrap CI of
  the mean (or of the slope) of one run's samples with the estimate in the middle;
  ``change: [-7.09% -6.32% -5.52%] (p = 0.00 < 0.05)`` compares with a baseline saved by
  an earlier run, which is not printed (for a benchmark with a throughput, criterion
  prints ``change:`` alone and the percentages on the next line, ``time: [...] (p =
  ...)``, then ``thrpt: [...]``); n from ``Found 11 outliers among 100 measurements``
  or ``Collecting 100 samples``.

Both time batches of many iterations per clock read in one process.
"""

from __future__ import annotations

import re
from typing import Any

from tsanalyze.io.audit_text._scan import NUM, Scan, Table, clean_number

__all__ = ["read_criterion", "read_libtest"]

_LIBTEST = re.compile(
    r"^\s*test\s+(?P<name>\S+)\s+\.\.\.\s+bench:\s+(?P<med>[\d,._]+)\s*(?P<u>ps|ns|µs|μs|us|ms|s)/iter"
    r"\s+\(\+/-\s*(?P<dev>[\d,._]+)\)(?:\s*=\s*(?P<mbs>[\d,.]+)\s*MB/s)?\s*$"
)
_LIBTEST_LIKE = re.compile(r"^\s*test\s+\S+\s+\.\.\.\s+bench:")
_T = rf"({NUM})\s*(ps|ns|µs|μs|us|ms|s)"
_TIME = re.compile(rf"^(?P<name>.*?)\s*time:\s*\[\s*{_T}\s+{_T}\s+{_T}\s*\]\s*$")
_PCT = r"([-+−]?\d+(?:\.\d*)?)%"
_CHANGE = re.compile(
    rf"^\s*(?:change|time):\s*\[\s*{_PCT}\s+{_PCT}\s+{_PCT}\s*\]\s*(?:\(p\s*=\s*(?P<p>{NUM})\s*[<>]\s*{NUM}\))?"
)
_N = re.compile(
    r"(?:Found \d+ outliers among (?P<a>\d+) measurements|Collecting (?P<b>\d+) samples)"
)
_VERDICT = ("Performance has", "No change in performance", "Change within noise", "change:")
_EXTRA = ("thrpt:", "slope ", "mean ", "median ", "R^2", "Benchmarking ", "Warming up", "Analyzing")


def read_libtest(scan: Scan) -> list[Table]:
    """Every ``test ... bench:`` line."""
    table = Table("libtest", None)
    for lineno, line in scan.numbered():
        m = _LIBTEST.match(line)
        if m is None:
            if _LIBTEST_LIKE.match(line):
                scan.skip(lineno, "not 'test NAME ... bench: N ns/iter (+/- D)'")
            continue
        med = clean_number(m.group("med"))
        table.rows.append(
            {
                "name": m.group("name"),
                "location": med,
                "location_kind": "median",
                "unit": m.group("u"),
                "spread": clean_number(m.group("dev")),
                "spread_kind": "span",
                "n": 50,
                "rounding": "nearest" if "." in med else "down",
                "batched": True,
                "scope": "one-process",
                "tool": "libtest",
                "source": scan.where(lineno),
            }
        )
        scan.take(lineno)
        scan.found("libtest")
    return [table] if table.rows else []


def read_criterion(scan: Scan) -> list[Table]:
    """criterion.rs console reports."""
    table = Table("criterion", None)
    row: dict[str, Any] | None = None
    pending_name: str | None = None
    n_next: int | None = None
    # with a throughput, criterion prints "change:" alone, then "time: [a% b% c%] (p = ...)"
    change_open = False
    for lineno, line in scan.numbered():
        stripped = line.strip()
        after_change, change_open = change_open, stripped == "change:" and row is not None
        c = _CHANGE.match(line)
        if c is not None and stripped.startswith("time:") and not after_change:
            c = None
        m = _TIME.match(line)
        if m is not None:
            name = m.group("name").strip() or pending_name
            if not name:
                scan.skip(lineno, "a criterion time line without a benchmark name")
                continue
            if pending_name is not None and not m.group("name").strip():
                scan.take(lineno - 1)
            lo, lou, mid, midu, hi, hiu = m.groups()[1:]
            if not (lou == midu == hiu):
                scan.skip(lineno, "the three times are in different units")
                continue
            row = {
                "name": name,
                "location": clean_number(mid),
                "unit": midu,
                "location_kind": "mean",
                "ci_low": clean_number(lo),
                "ci_high": clean_number(hi),
                "ci_level": 0.95,
                "batched": True,
                "scope": "one-process",
                "tool": "criterion",
                "source": scan.where(lineno),
            }
            if n_next is not None:
                row["n"] = n_next
            table.rows.append(row)
            scan.take(lineno)
            scan.found("criterion")
            pending_name, n_next = None, None
            continue
        if c is not None and row is not None:
            row.update(
                claimed_change_low=clean_number(c.group(1)) + "%",
                claimed_change=clean_number(c.group(2)) + "%",
                claimed_change_high=clean_number(c.group(3)) + "%",
            )
            if c.group("p") is not None:
                row["claimed_pvalue"] = c.group("p")
            scan.take(lineno)
            continue
        if (nm := _N.search(line)) is not None:
            n = int(nm.group("a") or nm.group("b"))
            if nm.group("a") and row is not None:
                row["n"] = n
            else:
                n_next = n
            scan.take(lineno)
            continue
        if (
            stripped.startswith(_VERDICT)
            or stripped.startswith(_EXTRA)
            or (
                row is not None
                and re.match(r"^\d+ \(\d+\.\d+%\) (high|low) (mild|severe)$", stripped)
            )
        ):
            if table.rows or stripped.startswith("Benchmarking"):
                scan.take(lineno)
            continue
        if stripped and not line.startswith(" ") and "time:" not in line:
            pending_name = stripped  # a long id is printed on its own line
    return [table] if table.rows else []
