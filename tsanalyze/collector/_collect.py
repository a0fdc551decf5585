"""``collect``: record one run of one or more benchmarks into a Parquet file.

The steps, each in its own module: check the arguments and fix a :class:`~.plan.Plan`;
choose and calibrate the clock, measure the timer and choose evals
(:mod:`~.calibration`); describe the run (:mod:`~.metadata`); take samples round by
round in the order of a :mod:`~.schedule` (:mod:`~.sampling`), writing finished rounds
as it goes (:mod:`~.writer`); react to signals by phase (:mod:`~.signals`).

Standard library, ctypes and pyarrow only; imports nothing from the analysis layers.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tsanalyze.collector.calibration import calibrate_run
from tsanalyze.collector.clock import Clock, bracket, get_clock
from tsanalyze.collector.metadata import finished_metadata, run_check, run_metadata, utc_now
from tsanalyze.collector.plan import OracleSettings, Plan, make_plan
from tsanalyze.collector.progress import Progress
from tsanalyze.collector.recover import PartialRunWarning, leftover_partials
from tsanalyze.collector.sampling import sample_rounds
from tsanalyze.collector.schedule import make_schedule
from tsanalyze.collector.signals import CollectorInterrupted, Interruptions
from tsanalyze.collector.targets import GcMode, close_sampler, make_sampler
from tsanalyze.collector.writer import RunWriter, WriteAborted
from tsanalyze.errors import CollectorError

__all__ = ["Recording", "collect"]


@dataclass(frozen=True, slots=True)
class Recording:
    """What :func:`collect` recorded.

    Attributes
    ----------
    path : Path
        The run file.
    run : str
        Run id.
    rounds : int
        Rounds completed (interleaved) or the largest series length (sequential).
    samples : int
        Rows written.
    evals : dict
        Evaluations per sample per benchmark.
    interrupted : bool
        Stopped by SIGINT/SIGTERM before the planned end.
    failures : int
        Samples that failed and were skipped (``ignore_failures``).
    metadata : dict
        The metadata written to the file.
    signal_name : str or None
        The signal that stopped the run (``"SIGINT"``, ``"SIGTERM"``), if one did.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (rounds).
       https://github.com/imazen/zenbench
    .. [2] DESIGN.md, "The run format".
    """

    path: Path
    run: str
    rounds: int
    samples: int
    evals: dict[str, int]
    interrupted: bool
    failures: int
    metadata: dict[str, Any]
    signal_name: str | None = None


def collect(
    benchmarks: Mapping[str, object],
    output: str | os.PathLike[str],
    *,
    rounds: int | None = None,
    time_budget: float | None = None,
    evals: Literal["auto"] | int | Mapping[str, int | str] = "auto",
    interleave: bool = True,
    seed: int | None = None,
    clock: str | Clock | None = None,
    gc: GcMode = "enabled",
    overwrite: bool = False,
    ignore_failures: bool = False,
    tau_prec: float | None = None,
    tau_acc: float | None = None,
    oracle_a: float | None = None,
    oracle_b: float = 0.5,
    j_max: int = 1000,
    min_sample_ns: float | None = None,
    calibration_window: float = 0.2,
    subtract_spawn_overhead: bool = True,
    run_id: str | None = None,
    user: Mapping[str, Any] | None = None,
    history: Mapping[str, str] | None = None,
    progress: bool | None = None,
    on_round: Callable[[int], None] | None = None,
    flush_seconds: float = 10.0,
    flush_rows: int = 100_000,
) -> Recording:
    """Record one run: time every benchmark, round by round, into a Parquet run file.

    Parameters
    ----------
    benchmarks : mapping of str to callable, command string, PythonTarget or CommandTarget
        What to time. A string is an external command (one process per evaluation).
        A run holds either Python targets or commands.
    output : path-like
        The run file to write (Parquet, run format v1). Refused if it exists unless
        ``overwrite``.
    rounds : int, optional
        Rounds to record (one sample of every benchmark per round). Default 100 when
        neither ``rounds`` nor ``time_budget`` is given.
    time_budget : float, optional
        Stop after the round during which this many seconds of sampling have passed
        (calibration not counted). With ``rounds`` too, whichever comes first.
    evals : "auto", int or mapping
        Evaluations per sample: Algorithm 1 of [1]_ (``"auto"``), a fixed number in
        [1, 2**63 - 1], or a mapping per benchmark. Commands under ``"auto"`` get 1.
    interleave : bool
        Interleaved rounds in a seeded shuffled order ([2]_; ``position`` records the
        order), else every benchmark's series in turn (sequential; ``position`` is 0).
    seed : int, optional
        Seed of the round order, in [0, 2**63 - 1]; drawn at random and recorded
        (``collector.seed``) when not given. The same seed gives the same order.
    clock : str or Clock, optional
        Clock source (see :func:`tsanalyze.collector.clock.get_clock`; default from
        ``TSANALYZE_CLOCK`` or automatic), or a ready clock.
    gc : {"enabled", "disabled", "collect"}
        Garbage-collector mode for plain callables (see :class:`PythonTarget`).
    overwrite : bool
        Replace an existing output file.
    ignore_failures : bool
        Skip a sample whose target raises (or whose command exits non-zero) and go on;
        otherwise the run stops, what was recorded is written, and CollectorError is
        raised.
    tau_prec, tau_acc : float, optional
        Oracle timer precision and accuracy in ns; default: measured.
    oracle_a, oracle_b, j_max : float, float, int
        Oracle steepness (default 0.009/τ_prec), midpoint fraction and cap on j.
    min_sample_ns : float, optional
        Shortest sample ``evals="auto"`` may choose, in ns. Default: 1.5 × the longest of
        100 × the clock-read overhead, 100 × τ_acc and 1000 × τ_prec, the sample length at
        which the timer checks of the analysis pass (the limits of
        :mod:`tsanalyze.timer_limits`: [3]_'s 1% overhead share, [1]_'s accuracy);
        0 leaves Algorithm 1 alone. Recorded in the run's metadata.
    calibration_window : float
        Seconds over which the TSC frequency is measured.
    subtract_spawn_overhead : bool
        For commands, include the empty command's minimum time in ``timer.overhead_ns``
        so that readers subtract it (hyperfine's convention).
    run_id : str, optional
        Run id (UUID4 by default).
    user : mapping, optional
        Free tags stored under ``user`` in the metadata.
    history : mapping, optional
        Where the run stands in the project's history, for ``tsanalyze history``:
        ``commit`` (full hash), ``commit_time`` (ISO 8601 with a zone: the commit's time,
        which orders the history), ``branch``, ``machine`` (a name that stays the same
        for one machine across runs) and ``env`` (the software environment), each
        optional. :func:`~tsanalyze.collector.metadata.git_commit` reads the first three
        from a git work tree.
    progress : bool, optional
        Show a progress line on stderr; default: when stderr is a terminal.
    on_round : callable, optional
        Called with the number of completed rounds after each round has been buffered
        (sequential collection: with the length of the current benchmark's series).
    flush_seconds, flush_rows : float, int
        Write a row group when this many seconds have passed since the last one, or this
        many rows are pending (bounds memory on long runs; each row group costs a few
        hundred bytes of file).

    Returns
    -------
    Recording

    Raises
    ------
    ValueError
        An argument is out of range (checked before any timing; the message names it).
    RunExistsError
        ``output`` exists and ``overwrite`` is false (checked before any timing), or it
        appeared while collecting (the run is then written beside it, named in the
        message).
    CollectorError
        A target failed or a write failed (after writing the samples recorded so far, or
        keeping them in a ``.partial`` the message names, for ``tsanalyze recover``), or
        nothing could be recorded.
    CollectorInterrupted
        SIGINT or SIGTERM during start-up (calibration): nothing was recorded. A
        :class:`KeyboardInterrupt`.

    Notes
    -----
    Each sample is ``t0 = read(); evaluations; t1 = read()``; ``ticks = t1 − t0``,
    ``ns = ticks · 1e9 / hz``. The per-sample clock overhead (minimum of back-to-back
    reads) goes to ``timer.overhead_ns`` for readers to subtract [3]_; the loop
    around the evaluations is part of the measured time, as in :mod:`timeit`.
    SIGINT/SIGTERM (:mod:`~tsanalyze.collector.signals`): during start-up the first
    stops at once (nothing recorded); while sampling, the first finishes the current
    round then writes the file, a second drops the unfinished round and writes the
    finished ones; while the file is written, signals wait. Finished rounds go to a
    ``.partial`` file beside the output as the run goes (every ``flush_seconds`` or
    ``flush_rows``); the run file only appears under its final name once complete. A
    killed run leaves the ``.partial``, which ``tsanalyze recover`` turns into a run file.

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016),
       Algorithm 1 (evaluations per sample). arXiv:1608.04295.
    .. [2] zenbench documentation, "Methodology" (interleaved shuffled rounds, paired
       samples). https://github.com/imazen/zenbench
    .. [3] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks

    Examples
    --------
    >>> from tsanalyze.collector import collect
    >>> xs = list(range(1000, 0, -1))
    >>> rec = collect(
    ...     {"sorted": lambda: sorted(xs), "sort": lambda: xs.copy().sort()},
    ...     "sorts.parquet", rounds=200, seed=1,
    ... )  # doctest: +SKIP
    >>> rec.rounds, rec.samples  # doctest: +SKIP
    (200, 400)
    """
    plan = make_plan(
        benchmarks,
        output,
        rounds=rounds,
        time_budget=time_budget,
        evals=evals,
        interleave=interleave,
        seed=seed,
        gc=gc,
        overwrite=overwrite,
        ignore_failures=ignore_failures,
        oracle_settings=OracleSettings(tau_prec, tau_acc, oracle_a, oracle_b, j_max, min_sample_ns),
        subtract_spawn_overhead=subtract_spawn_overhead,
        run_id=run_id,
        user=user,
        history=history,
        flush_seconds=flush_seconds,
        flush_rows=flush_rows,
    )
    for partial in leftover_partials(plan.output):
        warnings.warn(
            f"{partial} was left by an earlier collection into {plan.output.name} that did "
            f"not finish; `tsanalyze recover {partial}` turns it into a run file",
            PartialRunWarning,
            stacklevel=2,
        )
    interrupts = Interruptions()
    with interrupts.installed():
        return _record(plan, clock, calibration_window, progress, on_round, interrupts)


def _record(
    plan: Plan,
    clock: str | Clock | None,
    calibration_window: float,
    progress: bool | None,
    on_round: Callable[[int], None] | None,
    interrupts: Interruptions,
) -> Recording:
    created = utc_now()
    clk = clock if isinstance(clock, Clock) else get_clock(clock, window=calibration_window)
    samplers = {name: make_sampler(t, clk.read) for name, t in plan.targets.items()}
    try:
        cal = calibrate_run(plan, clk, samplers)
        meta = run_metadata(plan, clk, cal, created)
        names = plan.names
        writer = RunWriter(
            plan.output,
            names=names,
            run=plan.run,
            ns_per_tick=1e9 / clk.hz,
            metadata=meta,
            overwrite=plan.overwrite,
        )
        try:
            stream = sys.stderr
            show = progress if progress is not None else _isatty(stream)
            bracket0 = bracket(clk.read)
            start = time.monotonic()
            outcome = sample_rounds(
                make_schedule(
                    len(names),
                    interleave=plan.interleave,
                    rounds=plan.rounds,
                    time_budget=plan.time_budget,
                    seed=plan.seed,
                    start=start,
                ),
                names,
                [samplers[n] for n in names],
                [cal.evals[n] for n in names],
                writer,
                interrupts,
                ignore_failures=plan.ignore_failures,
                flush_seconds=plan.flush_seconds,
                flush_rows=plan.flush_rows,
                on_round=on_round,
                progress=Progress(show, plan.rounds, plan.time_budget, stream),
                start=start,
            )
        except BaseException as exc:
            # a bug, or an exception from on_round: keep what was recorded for `recover`
            kept = writer.keep()
            add_note = getattr(exc, "add_note", None)  # Python >= 3.11
            if kept is not None and callable(add_note):
                add_note(
                    f"the samples recorded so far are kept in {kept}; "
                    f"`tsanalyze recover {kept}` turns them into a run file"
                )
            raise
        interrupts.phase = "finishing"
        if writer.rows == 0:
            writer.abort()
            msg = outcome.error or "no sample was recorded"
            raise CollectorError(f"{msg}; nothing was written to {plan.output}")
        final = finished_metadata(meta, outcome.to_metadata(), run_check(clk, bracket0))
        try:
            path = writer.close(final, stop=interrupts.wants_out)
        except WriteAborted as exc:
            name = interrupts.signal_name or "SIGINT"
            raise CollectorInterrupted(
                f"interrupted by {name} while writing {plan.output}; {exc}",
                name,
                interrupts.signal_number or signal.SIGINT,
            ) from None
        if outcome.error is not None:
            raise CollectorError(
                f"{outcome.error}; the {writer.rows_written} samples recorded so far were "
                f"written to {path}"
            )
        return Recording(
            path,
            plan.run,
            outcome.rounds_done,
            writer.rows_written,
            dict(cal.evals),
            outcome.interrupted,
            outcome.failures,
            final,
            interrupts.signal_name if outcome.interrupted else None,
        )
    finally:
        for sampler in samplers.values():
            close_sampler(sampler)


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False
