"""A comparison's interval at the edges: the timer's tick and the floor (issue 23).

- *Tick.* Each side's times sit on a grid (the run's ``timer.precision_ns`` divided by the
  evaluations per sample, or the grid the values show). Each recorded location is within
  half a tick of the location of the true times, so the interval of the ratio is widened
  for both sides' rounding (:func:`tsanalyze.stats.ticks.widen_ratio_for_ticks`) before the
  verdict: *same* then needs an interval that accounts for the tick, and no interval of a
  change is of zero width on ticked data.
- *Floor.* ``estimator="min"`` compares floors: the interval of their ratio comes from the
  two floor intervals (:func:`tsanalyze.stats.floor.floor_ratio_ci`), not from a bootstrap
  of the minimum, which is inconsistent and whose interval never reaches below the sample
  minima.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from tsanalyze._result import Finding
from tsanalyze._units import format_time
from tsanalyze.analysis.compare.designs import Outcome
from tsanalyze.analysis.compare.sides import PreparedSide, Side, as_side, run_codes
from tsanalyze.stats._memo import ContentMemo
from tsanalyze.stats.floor import floor_ratio_ci
from tsanalyze.stats.ticks import TickArg, resolve_tick, widen_ratio_for_ticks

__all__ = ["at_the_edges", "prepare_side", "side_tick"]


def prepare_side(x: pd.DataFrame, name: str, column: str = "time_ns") -> PreparedSide:
    """What :func:`~tsanalyze.analysis.compare.compare` reads of a run-format frame: its
    side and its known timer step. Given instead of the frame, it gives the same
    comparison without reading the frame again (a frame must not change after this)."""
    return PreparedSide(as_side(x, name, column), _known_tick(x))


def _known_tick(x: Any) -> float:
    """Timer resolution per evaluation from a run-format frame's metadata (0 if unknown):
    the largest ``timer.precision_ns / evals`` over its runs."""
    if isinstance(x, PreparedSide):
        return x.known_tick
    if not isinstance(x, pd.DataFrame):
        return 0.0
    meta = x.attrs.get("runs")
    # the resolution is the whole sample's: without evals it says nothing per evaluation
    if not isinstance(meta, Mapping) or "run" not in x.columns or "evals" not in x.columns:
        return 0.0
    # numpy, not groupby: pandas deep-copies attrs on every operation (issue 24)
    codes, run_ids = run_codes(x["run"])
    per_run = np.full(len(run_ids), np.inf)
    np.minimum.at(per_run, codes, x["evals"].to_numpy(np.float64))
    best = 0.0
    for i in np.flatnonzero(per_run < np.inf).tolist():  # the runs the side holds
        rid, e = run_ids[i], float(per_run[i])
        timer = (meta.get(str(rid)) or {}).get("timer") or {}
        p = timer.get("precision_ns") if isinstance(timer, Mapping) else None
        if isinstance(p, (int, float)) and math.isfinite(p) and p > 0 and e >= 1:
            best = max(best, float(p) / float(e))
    return best


def side_tick(x: Any, side: Side, tick: TickArg) -> float:
    """The grid step of one side: ``tick`` if given (combined with the grid its values
    show), the run metadata's resolution per evaluation for ``"auto"``, 0 for None."""
    if tick is None:
        return 0.0
    known = _known_tick(x) if tick == "auto" else tick
    values = side.all_values
    arg: float | Literal["auto"] = known if known else "auto"
    # the baseline side is the same in every comparison of a report (issue 24)
    return _TICKS.get(values, arg, lambda: resolve_tick(values, arg).tick)


#: the grid step of a side's values, by their content and the known step
_TICKS: ContentMemo[float] = ContentMemo()


def _tick_finding(ta: float, tb: float, est_a: float, est_b: float, threshold: float) -> Finding:
    share = 0.5 * ta / est_a + 0.5 * tb / est_b if est_a > 0 and est_b > 0 else math.nan
    grid = (
        format_time(ta, trim=True)
        if ta == tb
        else f"{format_time(ta, trim=True)} (a) and {format_time(tb, trim=True)} (b)"
    )
    msg = (
        f"times are recorded on a grid of {grid}: the interval of the ratio is widened by "
        f"{share:.2%} on each side for the rounding of both sides"
    )
    severity = "info"
    if share >= threshold:
        msg += (
            f"; at least the {threshold:.2%} noise threshold, so 'same' cannot be concluded "
            "from these data, and more samples will not change that (a finer clock or more "
            "evaluations per sample will)"
        )
        severity = "warning"
    return Finding("tick-widened", msg, severity)  # type: ignore[arg-type]


def at_the_edges(
    out: Outcome,
    kind: str,
    x: np.ndarray | None,
    y: np.ndarray | None,
    *,
    estimator: str,
    tick_a: float,
    tick_b: float,
    confidence_level: float,
    threshold: float,
) -> Outcome:
    """The outcome with its ratio interval made honest at the edges.

    Parameters
    ----------
    out : Outcome
        What the design found.
    kind : {"unpaired", "paired", "run-level"}
        The design.
    x, y : array or None
        The two sides' values the design compared (None at the run level).
    estimator : str
        The location estimator.
    tick_a, tick_b : float
        Each side's grid step (0: exact values).
    confidence_level, threshold : float
        As in :func:`tsanalyze.compare`.

    Returns
    -------
    Outcome
        For ``estimator="min"`` (one run per side) the interval of the ratio of floors,
        otherwise the interval widened for the ticks; ``se_log`` at least the interval's
        half-width on the log scale over z, so a suite's geometric mean inherits it.
    """
    lo, hi, se_log = out.ci_low, out.ci_high, out.se_log
    found = list(out.findings)
    ci_method = out.ci_method
    if estimator == "min" and kind != "run-level" and x is not None and y is not None:
        lo, hi, ff = floor_ratio_ci(
            x, y, confidence_level=confidence_level, tick_x=tick_a, tick_y=tick_b,
            block_x=out.block_size_a, block_y=out.block_size_b, unit="ns",
        )  # fmt: skip
        found += ff
        ci_method = "floor"
    elif tick_a > 0 or tick_b > 0:
        lo, hi = widen_ratio_for_ticks(lo, hi, out.estimate_a, out.estimate_b, tick_a, tick_b)
        share = 0.5 * tick_a / out.estimate_a + 0.5 * tick_b / out.estimate_b
        # said when the widening is a quarter or more of the half-width, or rules out 'same'
        if share >= threshold or (math.isfinite(hi - lo) and share >= 0.125 * (hi - lo)):
            found.append(_tick_finding(tick_a, tick_b, out.estimate_a, out.estimate_b, threshold))
    if (lo, hi) == (out.ci_low, out.ci_high):
        return out
    if lo > 0 and math.isfinite(hi):
        z = float(special.ndtri(0.5 + confidence_level / 2))
        half = (math.log(hi) - math.log(lo)) / (2 * z)
        se_log = max(se_log, half) if math.isfinite(se_log) else half
    return dataclasses.replace(
        out, ci_low=float(lo), ci_high=float(hi), se_log=float(se_log), ci_method=ci_method,
        findings=tuple(found),
    )  # fmt: skip
