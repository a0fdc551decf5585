"""tsanalyze.collector: the minimal agent that records new runs.

Standard library, ctypes and pyarrow only; from the package it imports just
:mod:`tsanalyze.schema` and :mod:`tsanalyze.errors` (an import-linter contract).

- :func:`collect` records one run of Python callables or external commands, interleaved
  round by round in a seeded shuffled order, into a Parquet run file.
- :func:`get_clock` returns the TSC read through a page of machine code (``rdtscp``,
  ``lfence; rdtsc``, aarch64 ``cntvct_el0``) or a fallback clock; :func:`measure_timer`
  its overhead, precision and accuracy.
- :func:`oracle` and :func:`choose_evals` are the oracle function (Eq. 11) and Algorithm 1
  of Chen & Revels (HPEC 2016) for evaluations per sample.
- :func:`recover` turns the ``.partial`` of a collection that did not finish (killed,
  crashed, disk full) into a run file.

Inside: :mod:`~.plan` (the checked, frozen plan), :mod:`~.calibration` (timer, spawn
overhead, evals), :mod:`~.metadata`, :mod:`~.schedule` (interleaved or sequential),
:mod:`~.sampling` (the one loop), :mod:`~.signals`, :mod:`~.progress`, :mod:`~.writer`
(partial stream, then Parquet) and :mod:`~.recover`.
"""

from tsanalyze.collector._collect import Recording, collect
from tsanalyze.collector.clock import (
    CLOCK_ENV,
    Calibration,
    Clock,
    ClockWarning,
    TimerProperties,
    calibrate,
    get_clock,
    measure_timer,
)
from tsanalyze.collector.evals import EvalsChoice, choose_evals, oracle
from tsanalyze.collector.recover import PartialRunWarning, Recovery, recover
from tsanalyze.collector.signals import CollectorInterrupted
from tsanalyze.collector.targets import CommandTarget, PythonTarget, resolve_callable

__all__ = [
    "CLOCK_ENV",
    "Calibration",
    "Clock",
    "ClockWarning",
    "CollectorInterrupted",
    "CommandTarget",
    "EvalsChoice",
    "PartialRunWarning",
    "PythonTarget",
    "Recording",
    "Recovery",
    "TimerProperties",
    "calibrate",
    "choose_evals",
    "collect",
    "get_clock",
    "measure_timer",
    "oracle",
    "recover",
    "resolve_callable",
]
