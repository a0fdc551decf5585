"""What a run will do, fixed before any timing: the frozen :class:`Plan` of :func:`collect`.

:func:`make_plan` checks every argument of :func:`~tsanalyze.collector.collect` (one
``ValueError`` naming the parameter), draws the seed and the run id when they are not
given, and refuses an output that cannot be written, all before the clock is touched.

Standard library only.
"""

from __future__ import annotations

import math
import os
import secrets
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tsanalyze import schema
from tsanalyze.collector.evals import check_oracle
from tsanalyze.collector.targets import CommandTarget, GcMode, Target, as_target
from tsanalyze.collector.writer import check_output
from tsanalyze.errors import InvalidArgumentError

__all__ = ["MAX_EVALS", "MAX_INT64", "OracleSettings", "Plan", "make_plan"]

#: Largest value an int64 column (round, sample, evals) or a recorded seed can hold.
MAX_INT64 = 2**63 - 1
#: Largest evaluations per sample: an int64 and a C ``ssize_t`` (the evaluation loop's count).
MAX_EVALS = min(MAX_INT64, sys.maxsize)


@dataclass(frozen=True, slots=True)
class OracleSettings:
    """How ``evals="auto"`` chooses evaluations per sample (Algorithm 1 of [1]_).

    Attributes
    ----------
    tau_prec, tau_acc : float or None
        Timer precision and accuracy in ns; None: measured at start-up.
    a : float or None
        Steepness of the oracle; None: ``0.009 / tau_prec``.
    b : float
        Midpoint as a fraction of ``tau_acc``.
    j_max : int
        Cap on j.
    min_sample_ns : float or None
        Shortest sample ``"auto"`` may choose; None: long enough for the timer checks.

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §IV-C,
       the oracle function and its parameters. arXiv:1608.04295.
    """

    tau_prec: float | None = None
    tau_acc: float | None = None
    a: float | None = None
    b: float = 0.5
    j_max: int = 1000
    min_sample_ns: float | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything :func:`~tsanalyze.collector.collect` will do, checked and fixed.

    Attributes
    ----------
    targets : mapping of str to target
        Benchmark name -> :class:`PythonTarget` or :class:`CommandTarget`, in the order
        given (read-only).
    output : Path
        The run file to write.
    rounds : int or None
        Rounds asked for (None: until ``time_budget``).
    time_budget : float or None
        Seconds of sampling asked for.
    evals : mapping of str to int or None
        Fixed evaluations per sample per benchmark; None: chosen at start-up.
    interleave : bool
        Interleaved shuffled rounds, else each benchmark's series in turn.
    seed : int
        Seed of the round order (drawn when not given).
    run : str
        Run id (a UUID4 when not given).
    gc : str
        Garbage-collector mode for plain callables.
    ignore_failures : bool
        Skip failing samples instead of stopping.
    oracle : OracleSettings
        Settings of ``evals="auto"``.
    subtract_spawn_overhead : bool
        Commands: include the empty command's time in ``timer.overhead_ns``.
    user : mapping
        Free tags for the metadata.
    history : mapping
        Where the run stands in the project's history: ``commit``, ``commit_time``,
        ``branch``, ``machine``, ``env`` (top-level metadata keys; any may be absent).
    overwrite : bool
        Replace an existing output.
    flush_seconds, flush_rows : float, int
        When finished rounds go to disk.
    """

    targets: Mapping[str, Target]
    output: Path
    rounds: int | None
    time_budget: float | None
    evals: Mapping[str, int | None]
    interleave: bool
    seed: int
    run: str
    gc: GcMode
    ignore_failures: bool
    oracle: OracleSettings
    subtract_spawn_overhead: bool
    user: Mapping[str, Any]
    history: Mapping[str, str]
    overwrite: bool
    flush_seconds: float
    flush_rows: int

    @property
    def names(self) -> tuple[str, ...]:
        """Benchmark names, in the order given."""
        return tuple(self.targets)

    @property
    def is_command(self) -> bool:
        """True when the run times external commands (else Python callables)."""
        return isinstance(next(iter(self.targets.values())), CommandTarget)


def _int_in(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _finite(value: object, low: float, *, strict: bool) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        v = float(value)
    except OverflowError:  # an int beyond the float range
        return False
    return math.isfinite(v) and (v > low if strict else v >= low)


def _targets_iv(benchmarks: object, gc: GcMode) -> dict[str, Target]:
    if not isinstance(benchmarks, Mapping) or not benchmarks:
        raise InvalidArgumentError("benchmarks must be a non-empty mapping of name -> callable or command")
    targets: dict[str, Target] = {}
    for name, value in benchmarks.items():
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgumentError(f"benchmark names must be non-empty strings, got {name!r}")
        targets[name] = as_target(name, value, gc)
    if len({type(t) for t in targets.values()}) > 1:
        raise InvalidArgumentError("benchmarks: a run times either Python callables or commands, not both")
    return targets


def _evals_iv(evals: object, names: list[str]) -> dict[str, int | None]:
    if isinstance(evals, Mapping):
        unknown = sorted(set(evals) - set(names))
        if unknown:
            raise InvalidArgumentError(f"evals names unknown benchmarks: {', '.join(map(repr, unknown))}")
    fixed: dict[str, int | None] = {}
    for name in names:
        v = evals.get(name, "auto") if isinstance(evals, Mapping) else evals
        if isinstance(v, str) and v == "auto":
            fixed[name] = None
        elif _int_in(v, 1, MAX_EVALS):
            fixed[name] = v  # type: ignore[assignment]
        else:
            raise InvalidArgumentError(
                f"evals must be 'auto' or an integer in [1, {MAX_EVALS}] (benchmark {name!r}), "
                f"got {v!r}"
            )
    return fixed


def make_plan(
    benchmarks: Mapping[str, object],
    output: str | os.PathLike[str],
    *,
    rounds: int | None = None,
    time_budget: float | None = None,
    evals: object = "auto",
    interleave: bool = True,
    seed: int | None = None,
    gc: GcMode = "enabled",
    overwrite: bool = False,
    ignore_failures: bool = False,
    oracle_settings: OracleSettings = OracleSettings(),
    subtract_spawn_overhead: bool = True,
    run_id: str | None = None,
    user: Mapping[str, Any] | None = None,
    history: Mapping[str, str] | None = None,
    flush_seconds: float = 10.0,
    flush_rows: int = 100_000,
) -> Plan:
    """Check the arguments of :func:`~tsanalyze.collector.collect` and fix the plan.

    Parameters are those of :func:`~tsanalyze.collector.collect`. Draws the seed
    (63 random bits) and the run id when not given.

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        An argument is out of range; the message names it.
    RunExistsError, CollectorError
        ``output`` exists (without ``overwrite``), is a directory, or its directory is
        missing.
    """
    targets = _targets_iv(benchmarks, gc)
    if rounds is not None and not _int_in(rounds, 1, MAX_INT64):
        raise InvalidArgumentError(f"rounds must be an integer in [1, {MAX_INT64}], got {rounds!r}")
    if time_budget is not None and not _finite(time_budget, 0.0, strict=True):
        raise InvalidArgumentError(f"time_budget must be a finite number of seconds > 0, got {time_budget!r}")
    if rounds is None and time_budget is None:
        rounds = 100
    if seed is not None and not _int_in(seed, 0, MAX_INT64):
        raise InvalidArgumentError(f"seed must be an integer in [0, {MAX_INT64}], got {seed!r}")
    fixed = _evals_iv(evals, list(targets))
    if not _finite(flush_seconds, 0.0, strict=True):
        raise InvalidArgumentError(f"flush_seconds must be a finite number > 0, got {flush_seconds!r}")
    if not _int_in(flush_rows, 1, MAX_INT64):
        raise InvalidArgumentError(f"flush_rows must be an integer >= 1, got {flush_rows!r}")
    if user is not None:
        try:
            schema.encode_metadata({"user": dict(user)})
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"user must be a mapping of JSON-serialisable values: {exc}") from None
    if history is not None:
        if not isinstance(history, Mapping):
            raise InvalidArgumentError(f"history must be a mapping, got {type(history).__name__}")
        problems = schema.check_history(history)
        if problems:
            raise InvalidArgumentError(f"history: {problems[0]}")
    o = oracle_settings
    if o.min_sample_ns is not None and not _finite(o.min_sample_ns, 0.0, strict=False):
        raise InvalidArgumentError(f"min_sample_ns must be a finite number >= 0, got {o.min_sample_ns!r}")
    check_oracle(o.tau_prec, o.tau_acc, o.a, o.b, o.j_max)
    out = Path(output)
    check_output(out, overwrite)
    return Plan(
        targets=MappingProxyType(targets),
        output=out,
        rounds=rounds,
        time_budget=None if time_budget is None else float(time_budget),
        evals=MappingProxyType(fixed),
        interleave=bool(interleave),
        seed=secrets.randbits(63) if seed is None else seed,
        run=run_id or str(uuid.uuid4()),
        gc=gc,
        ignore_failures=bool(ignore_failures),
        oracle=o,
        subtract_spawn_overhead=bool(subtract_spawn_overhead),
        user=MappingProxyType(dict(user) if user else {}),
        history=MappingProxyType(dict(history) if history else {}),
        overwrite=bool(overwrite),
        flush_seconds=float(flush_seconds),
        flush_rows=flush_rows,
    )
