"""What the collector measures before sampling: the timer, the spawn overhead, evals.

:func:`calibrate_run` runs once per run, after the clock is chosen and before the first
sample: it measures the clock's overhead, precision and accuracy [1]_, the cost of
starting an empty command (commands only, as hyperfine does), and chooses evaluations
per sample by Algorithm 1 of [2]_ with a floor that keeps samples long enough for the
timer checks of the analysis side (:mod:`tsanalyze.timer_limits`).

Standard library only (plus :mod:`tsanalyze.timer_limits`).

References
----------
.. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
   https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
.. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
   environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), Algorithm
   1. arXiv:1608.04295.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from tsanalyze.collector.clock import Clock, TimerProperties, measure_timer
from tsanalyze.collector.evals import EvalsChoice, check_oracle, choose_evals
from tsanalyze.collector.plan import Plan
from tsanalyze.collector.targets import CommandTarget, TargetFailed, spawn_overhead
from tsanalyze.errors import CollectorError
from tsanalyze.timer_limits import ACCURACY_SHARE_LIMIT, OVERHEAD_SHARE_LIMIT, PRECISION_FACTOR

__all__ = ["SAMPLE_FLOOR_MARGIN", "RunCalibration", "calibrate_run", "default_min_sample_ns"]

#: Headroom over the timer limits: samples after calibration can run faster than t̂.
SAMPLE_FLOOR_MARGIN = 1.5

Sampler = Callable[[int], tuple[int, int]]


def default_min_sample_ns(timer: TimerProperties) -> float:
    """Shortest sample (ns) whose timer checks pass, with headroom.

    ``1.5 * max(overhead / 1%, accuracy / 1%, 1000 * precision)``, with the limits of
    :mod:`tsanalyze.timer_limits`: the same ones
    :func:`tsanalyze.stats.timer.timer_check` applies to every sample of a run.
    """
    return SAMPLE_FLOOR_MARGIN * max(
        timer.overhead_ns / OVERHEAD_SHARE_LIMIT,
        timer.accuracy_ns / ACCURACY_SHARE_LIMIT,
        PRECISION_FACTOR * timer.precision_ns,
    )


@dataclass(frozen=True, slots=True)
class RunCalibration:
    """What was measured before the first sample.

    Attributes
    ----------
    timer : TimerProperties
        Overhead, precision and accuracy of the clock.
    overhead_ns : float
        Per-sample overhead readers subtract: the clock's, plus the empty command's
        minimum for commands when asked.
    spawn : dict or None
        The empty command's times (commands only).
    tau_prec, tau_acc, a : float
        Oracle parameters used (given or measured; ``a`` defaults to 0.009 / τ_prec).
    floor_ns : float
        Shortest sample ``evals="auto"`` may choose (0: none).
    evals : mapping of str to int
        Evaluations per sample per benchmark.
    choices : mapping of str to EvalsChoice
        Algorithm 1's outcome for the benchmarks whose evals were chosen.
    """

    timer: TimerProperties
    overhead_ns: float
    spawn: dict[str, Any] | None
    tau_prec: float
    tau_acc: float
    a: float
    floor_ns: float
    evals: Mapping[str, int]
    choices: Mapping[str, EvalsChoice]

    @property
    def evals_method(self) -> str:
        """``auto`` (every benchmark chosen), ``fixed`` (none) or ``mixed``."""
        if not self.choices:
            return "fixed"
        return "auto" if len(self.choices) == len(self.evals) else "mixed"


def calibrate_run(plan: Plan, clock: Clock, samplers: Mapping[str, Sampler]) -> RunCalibration:
    """Measure the timer (and spawn overhead) and choose evals for every benchmark.

    Parameters
    ----------
    plan : Plan
        The run's plan.
    clock : Clock
        The clock samples are taken with.
    samplers : mapping of str to sampler
        One sampler per benchmark (Algorithm 1 times them).

    Returns
    -------
    RunCalibration

    Raises
    ------
    CollectorError
        A target failed while evals were chosen, or the empty command failed.
    ValueError
        Measured timer properties make the oracle settings invalid (tau_acc < tau_prec).
    """
    timer = measure_timer(clock.read, clock.hz)
    spawn: dict[str, Any] | None = None
    overhead = timer.overhead_ns
    if plan.is_command:
        shell = any(isinstance(t, CommandTarget) and t.shell for t in plan.targets.values())
        spawn = spawn_overhead(clock.read, clock.hz, shell=shell)
        if plan.subtract_spawn_overhead:
            overhead += spawn["min_ns"]
    o = plan.oracle
    t_prec = o.tau_prec if o.tau_prec is not None else timer.precision_ns
    t_acc = o.tau_acc if o.tau_acc is not None else max(timer.accuracy_ns, t_prec)
    check_oracle(t_prec, t_acc, o.a, o.b, o.j_max)
    floor_ns = default_min_sample_ns(timer) if o.min_sample_ns is None else float(o.min_sample_ns)
    choices: dict[str, EvalsChoice] = {}
    evals: dict[str, int] = {}
    for name, fixed in plan.evals.items():
        if fixed is not None:
            evals[name] = fixed
        elif plan.is_command:
            evals[name] = 1
        else:
            choices[name] = choose_evals(
                _measure(name, samplers[name], clock.hz, timer.overhead_ns),
                tau_prec=t_prec, tau_acc=t_acc, a=o.a, b=o.b, j_max=o.j_max,
                min_sample_ns=floor_ns,
            )  # fmt: skip
            evals[name] = choices[name].evals
    return RunCalibration(
        timer=timer,
        overhead_ns=overhead,
        spawn=spawn,
        tau_prec=t_prec,
        tau_acc=t_acc,
        a=o.a if o.a is not None else 0.009 / t_prec,
        floor_ns=floor_ns,
        evals=MappingProxyType(evals),
        choices=MappingProxyType(choices),
    )


def _measure(name: str, sampler: Sampler, hz: float, overhead_ns: float) -> Callable[[int], float]:
    """``measure(i)`` for Algorithm 1: ns of ``i`` evaluations, clock overhead subtracted."""

    def measure(i: int) -> float:
        try:
            a, b = sampler(i)
        except TargetFailed as exc:
            raise CollectorError(f"benchmark {name!r} {exc} while choosing evals") from exc
        return (b - a) * 1e9 / hz - overhead_ns

    return measure
