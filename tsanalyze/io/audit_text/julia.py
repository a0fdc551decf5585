"""Julia: BenchmarkTools.jl trial displays (BenchmarkTools >= 1.0 and older), ``@btime``.

* The display since BenchmarkTools 1.0 (``Base.show(::MIME"text/plain", ::Trial)``):
  ``BenchmarkTools.Trial: 10000 samples with 998 evaluations [per sample].``, then
  ``Range (min … max)``, ``Time (median)``, ``Time (mean ± σ)`` with the GC share of
  each; σ is the sd of the samples (each sample = the mean of ``evals`` evaluations).
* The older display: ``minimum time: 1.208 ns (0.00% GC)``, median, mean and maximum
  time, ``samples:`` and ``evals/sample:``; no sd -- it is bounded from min, max, mean.
* ``@btime f(x)`` prints the minimum only: ``  1.234 μs (5 allocations: 256 bytes)``.

Names come from the ``@benchmark``/``@btime`` line above, else ``trial 1``, ``trial 2``.
BenchmarkTools tunes evals so a sample is far above the timer's resolution, and runs in
one Julia process.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tsanalyze._units import parse_unit
from tsanalyze.io.audit_text._scan import NUM, Scan, Table, clean_number

__all__ = ["read_benchmarktools"]

_T = rf"(?P<{{0}}>{NUM})\s*(?P<{{0}}u>ns|μs|µs|us|ms|s)"
_TRIAL = re.compile(
    r"BenchmarkTools\.Trial:\s*(?:(\d[\d,]*)\s+samples?\s+with\s+(\d[\d,]*)\s+evaluations?)?"
)
_MEAN = re.compile(
    r"Time\s+\(mean\s*±\s*σ\):\s*" + _T.format("loc") + r"\s*±\s*" + _T.format("sd")
    + rf"(?:.*?GC\s*\(mean\s*±\s*σ\):\s*(?P<gc>{NUM})%)?"
)  # fmt: skip
_MEDIAN = re.compile(r"Time\s+\(median\):\s*" + _T.format("med"))
_RANGE = re.compile(
    r"Range\s+\(min\s*…\s*max\):\s*" + _T.format("lo") + r"\s*…\s*" + _T.format("hi")
    + rf"(?:.*?GC\s*\(min\s*…\s*max\):\s*{NUM}%\s*…\s*(?P<gcmax>{NUM})%)?"
)  # fmt: skip
_SINGLE = re.compile(
    r"Single result which took\s*" + _T.format("one") + rf"\s*\((?P<gc>{NUM})% GC\)"
)
_OLD = re.compile(
    r"^\s*(?P<what>minimum|median|mean|maximum) time:\s*" + _T.format("v")
    + rf"\s*(?:\((?P<gc>{NUM})% GC\))?"
)  # fmt: skip
_OLD_COUNT = re.compile(r"^\s*(?P<what>samples|evals/sample):\s*(?P<v>\d[\d,]*)\s*$")
_NAME = re.compile(r"@(?:benchmark|btime|belapsed)\s+(.+?)\s*$")
_BTIME = re.compile(r"^\s*" + _T.format("v") + r"\s*\((?P<allocs>[\d.,]+[kMG]?) allocations?:")


def read_benchmarktools(scan: Scan) -> list[Table]:
    """Every BenchmarkTools trial display and ``@btime`` line of the text."""
    table = Table("BenchmarkTools", None)
    name: str | None = None
    trial: dict[str, Any] | None = None
    count = 0

    def finish() -> None:
        nonlocal trial, name, count
        if trial is None:
            return
        if "location" in trial or "mean" in trial:
            count += 1
            label = name or f"trial {count}"
            if any(r["name"] == label for r in table.rows):
                label = f"{label} #{count}"
            trial["name"] = label
            table.rows.append(trial)
        trial, name = None, None

    for lineno, line in scan.numbered():
        m = _TRIAL.search(line)
        if m is not None:
            finish()
            trial = {"tool": "BenchmarkTools", "scope": "one-process", "batched": True,
                     "source": scan.where(lineno)}  # fmt: skip
            if m.group(1):
                trial.update(n=int(clean_number(m.group(1))), evals=int(clean_number(m.group(2))))
            scan.take(lineno)
            scan.found("BenchmarkTools")
            continue
        if trial is not None and _in_trial(scan, lineno, line, trial):
            continue
        nm = _NAME.search(line)
        if nm is not None:
            finish()
            name = nm.group(1)
            scan.take(lineno)
            continue
        bt = _BTIME.match(line)
        if bt is not None and name is not None:
            table.rows.append(
                {
                    "name": name,
                    "location": clean_number(bt.group("v")),
                    "unit": bt.group("vu"),
                    "location_kind": "min",
                    "batched": True,
                    "scope": "one-process",
                    "tool": "BenchmarkTools @btime",
                    "source": scan.where(lineno),
                }
            )
            scan.take(lineno)
            scan.found("BenchmarkTools @btime")
            name = None
    finish()
    return [table] if table.rows else []


def _in_trial(scan: Scan, lineno: int, line: str, trial: dict[str, Any]) -> bool:
    """Read one line of a trial display into ``trial``; False when it is not one."""
    m = _MEAN.search(line)
    if m is not None:
        trial.update(location=clean_number(m.group("loc")), unit=m.group("locu"),
                     location_kind="mean", spread=clean_number(m.group("sd")),
                     spread_unit=m.group("sdu"), spread_kind="sd")  # fmt: skip
        if m.group("gc") is not None:
            trial["gc_share"] = m.group("gc") + "%"
    elif (m := _MEDIAN.search(line)) is not None:
        trial.update(median=clean_number(m.group("med")), median_unit=m.group("medu"))
    elif (m := _RANGE.search(line)) is not None:
        trial.update(min=clean_number(m.group("lo")), min_unit=m.group("lou"),
                     max=clean_number(m.group("hi")), max_unit=m.group("hiu"))  # fmt: skip
        if m.group("gcmax") is not None:
            trial["gc_max"] = m.group("gcmax") + "%"
    elif (m := _SINGLE.search(line)) is not None:
        trial.update(location=clean_number(m.group("one")), unit=m.group("oneu"),
                     location_kind="min", n=1, gc_share=m.group("gc") + "%")  # fmt: skip
    elif (m := _OLD.match(line)) is not None:
        key = {"minimum": "min", "median": "median", "mean": "mean", "maximum": "max"}[
            m.group("what")
        ]
        trial[key] = clean_number(m.group("v"))
        trial[f"{key}_unit"] = m.group("vu")
        if m.group("gc") is not None and key == "mean":
            trial["gc_share"] = m.group("gc") + "%"
        if m.group("gc") is not None and key == "max":
            trial["gc_max"] = m.group("gc") + "%"
    elif (m := _OLD_COUNT.match(line)) is not None:
        trial["n" if m.group("what") == "samples" else "evals"] = int(clean_number(m.group("v")))
    elif line.strip().startswith(
        ("memory estimate", "allocs estimate", "Memory estimate", "----")
    ) or ("Histogram" in line or set(line.strip()) <= set("▁▂▃▄▅▆▇█ ")):
        pass  # memory, allocations, the histogram: not timings
    else:
        return False
    scan.take(lineno)
    _common_unit(trial)
    return True


def _common_unit(trial: dict[str, Any]) -> None:
    """Put every time of the trial in the unit of its location (the display mixes ns, μs,
    ms and s), keeping the printed digits: a power-of-ten shift is written as ``e±k``."""
    unit = trial.get("unit") or trial.get("mean_unit")
    if unit is None:
        return
    trial["unit"] = unit
    for key in ("min", "median", "mean", "max"):
        u = trial.pop(f"{key}_unit", None)
        if u is not None and u != unit and key in trial:
            shift = round(math.log10(parse_unit(u) / parse_unit(unit)))
            trial[key] = f"{trial[key]}e{shift}"
