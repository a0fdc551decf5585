"""``collect``: record one run of one or more benchmarks into a Parquet file.

Standard library, ctypes and pyarrow only; imports nothing from the analysis layers.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
import math
import os
import random
import secrets
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Literal, TextIO

from tsanalyze import schema
from tsanalyze.collector.clock import (
    Clock,
    TimerProperties,
    bracket,
    get_clock,
    host_info,
    measure_timer,
)
from tsanalyze.collector.evals import EvalsChoice, choose_evals, oracle
from tsanalyze.collector.targets import (
    CommandTarget,
    GcMode,
    Target,
    TargetFailed,
    as_target,
    close_sampler,
    make_sampler,
    spawn_overhead,
)
from tsanalyze.collector.writer import RunWriter, check_output
from tsanalyze.errors import CollectorError

__all__ = ["Recording", "collect"]

_COLLECTOR_VERSION = "1"

# The report's timer checks (tsanalyze.stats.timer; mirrored here because the collector
# imports nothing from the analysis side; a test keeps the two equal): a sample should
# spend at most 1% of its time reading the clock (seed 004), carry at most 1% timer
# error (seed 000) and last at least 1000 timer precisions.
OVERHEAD_SHARE_LIMIT = 0.01
ACCURACY_SHARE_LIMIT = 0.01
PRECISION_FACTOR = 1000.0
#: headroom over the checks' limits: samples after calibration can run faster than t̂
SAMPLE_FLOOR_MARGIN = 1.5


def default_min_sample_ns(timer: TimerProperties) -> float:
    """Shortest sample (ns) at which the report's timer checks pass, with headroom.

    ``1.5 * max(overhead / 1%, accuracy / 1%, 1000 * precision)``.
    """
    return SAMPLE_FLOOR_MARGIN * max(
        timer.overhead_ns / OVERHEAD_SHARE_LIMIT,
        timer.accuracy_ns / ACCURACY_SHARE_LIMIT,
        PRECISION_FACTOR * timer.precision_ns,
    )


def _package_version() -> str:
    try:
        return importlib.metadata.version("tsanalyze")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"


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

    References
    ----------
    seed 002: zenbench methodology (rounds); DESIGN.md "The run format".
    """

    path: Path
    run: str
    rounds: int
    samples: int
    evals: dict[str, int]
    interrupted: bool
    failures: int
    metadata: dict[str, Any]


class _Progress:
    """A carriage-return progress line on a terminal; silent otherwise."""

    def __init__(
        self, enabled: bool, total: int | None, budget: float | None, stream: TextIO
    ) -> None:
        self.enabled = enabled
        self.total = total
        self.budget = budget
        self.stream = stream
        self._last = 0.0
        self._shown = False

    def update(self, rounds: int, samples: int, elapsed: float, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        if self.total is not None:
            done = f"round {rounds}/{self.total}"
        else:
            done = f"round {rounds}"
        if self.budget is not None:
            frac = min(elapsed / self.budget, 1.0)
            done += f"  {elapsed:.1f}/{self.budget:.0f} s"
        elif self.total:
            frac = rounds / self.total
            done += f"  {elapsed:.1f} s"
        else:
            frac = 0.0
        width = 24
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        self.stream.write(f"\rcollecting [{bar}] {done}  {samples} samples ")
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        if self.enabled and self._shown:
            self.stream.write("\n")
            self.stream.flush()


class _StopFlag:
    """SIGINT/SIGTERM: the first asks to stop after the current round, the second aborts it."""

    def __init__(self) -> None:
        self.requested = False
        self.abort = False
        self.critical = False  # rows are being handed to the writer: do not raise now
        self.signal_name: str | None = None

    def handler(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            self.abort = True
            if not self.critical:
                raise KeyboardInterrupt
            return
        self.requested = True
        self.signal_name = signal.Signals(signum).name


@contextlib.contextmanager
def _signals(flag: _StopFlag) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, flag.handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _collect_iv(
    benchmarks: Mapping[str, object],
    rounds: int | None,
    time_budget: float | None,
    evals: object,
    seed: int | None,
    gc: str,
) -> tuple[dict[str, Target], int | None, float | None, dict[str, int | None]]:
    if not isinstance(benchmarks, Mapping) or not benchmarks:
        raise ValueError("benchmarks must be a non-empty mapping of name -> callable or command")
    targets: dict[str, Target] = {}
    for name, value in benchmarks.items():
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"benchmark names must be non-empty strings, got {name!r}")
        targets[name] = as_target(name, value, gc)  # type: ignore[arg-type]
    kinds = {type(t) for t in targets.values()}
    if len(kinds) > 1:
        raise ValueError("benchmarks: a run times either Python callables or commands, not both")
    if rounds is not None and (
        isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1
    ):
        raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
    if time_budget is not None and not (
        isinstance(time_budget, (int, float)) and math.isfinite(time_budget) and time_budget > 0
    ):
        raise ValueError(f"time_budget must be a finite number of seconds > 0, got {time_budget!r}")
    if rounds is None and time_budget is None:
        rounds = 100
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(evals, Mapping):
        unknown = sorted(set(evals) - set(targets))
        if unknown:
            raise ValueError(f"evals names unknown benchmarks: {', '.join(map(repr, unknown))}")
    fixed: dict[str, int | None] = {}
    for name in targets:
        v: object
        if isinstance(evals, Mapping):
            v = evals.get(name, "auto")
        else:
            v = evals
        if v == "auto":
            fixed[name] = None
        elif isinstance(v, int) and not isinstance(v, bool) and v >= 1:
            fixed[name] = v
        else:
            raise ValueError(
                f"evals must be 'auto' or an integer >= 1 (benchmark {name!r}), got {v!r}"
            )
    return targets, rounds, time_budget, fixed


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
        Evaluations per sample: Algorithm 1 of seed 000 (``"auto"``), a fixed number, or a
        mapping per benchmark. Commands under ``"auto"`` get 1.
    interleave : bool
        Interleaved rounds in a seeded shuffled order (seed 002; ``position`` records the
        order), else every benchmark's series in turn (sequential; ``position`` is 0).
    seed : int, optional
        Seed of the round order; drawn at random and recorded when not given.
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
        which the report's timer checks (seed 004's 1% overhead share, seed 000's
        accuracy) pass; 0 leaves Algorithm 1 alone. Recorded in the run's metadata.
    calibration_window : float
        Seconds over which the TSC frequency is measured.
    subtract_spawn_overhead : bool
        For commands, include the empty command's minimum time in ``timer.overhead_ns``
        so that readers subtract it (hyperfine's convention).
    run_id : str, optional
        Run id (UUID4 by default).
    user : mapping, optional
        Free tags stored under ``user`` in the metadata.
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
    RunExistsError
        ``output`` exists and ``overwrite`` is false (checked before any timing).
    CollectorError
        A target failed (after writing the samples recorded so far), or nothing could be
        recorded.

    Notes
    -----
    Each sample is ``t0 = read(); evaluations; t1 = read()``; ``ticks = t1 − t0``,
    ``ns = ticks · 1e9 / hz``. The per-sample clock overhead (minimum of back-to-back
    reads) goes to ``timer.overhead_ns`` for readers to subtract (seed 004); the loop
    around the evaluations is part of the measured time, as in :mod:`timeit`.
    SIGINT/SIGTERM: the first finishes the current round then writes the file; a second
    drops the unfinished round and writes the finished ones. The file only appears under
    its final name once complete.

    References
    ----------
    seed 000: Chen, Revels, Edelman (HPEC 2016), Algorithm 1 (evaluations per sample).
    seed 002: zenbench methodology (interleaved shuffled rounds, paired samples).
    seed 004: Ou, "Eliminating a source of measurement errors in benchmarks".

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
    targets, rounds, time_budget, fixed = _collect_iv(
        benchmarks, rounds, time_budget, evals, seed, gc
    )
    if not (isinstance(flush_seconds, (int, float)) and flush_seconds > 0):
        raise ValueError(f"flush_seconds must be > 0, got {flush_seconds!r}")
    if isinstance(flush_rows, bool) or not isinstance(flush_rows, int) or flush_rows < 1:
        raise ValueError(f"flush_rows must be an integer >= 1, got {flush_rows!r}")
    if user is not None:
        try:
            schema.encode_metadata({"user": dict(user)})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"user must be a mapping of JSON-serialisable values: {exc}") from None
    if min_sample_ns is not None and not (
        isinstance(min_sample_ns, (int, float)) and math.isfinite(min_sample_ns)
        and min_sample_ns >= 0
    ):  # fmt: skip
        raise ValueError(f"min_sample_ns must be a finite number >= 0, got {min_sample_ns!r}")
    if tau_prec is not None or tau_acc is not None:
        # check what can be checked before calibrating (the rest once tau_* are measured)
        oracle(
            0.0,
            tau_prec=tau_prec if tau_prec is not None else 1e-300,
            tau_acc=tau_acc if tau_acc is not None else 1e300,
            a=oracle_a,
            b=oracle_b,
            j_max=j_max,
        )
    out = Path(output)
    check_output(out, overwrite)
    if seed is None:
        seed = secrets.randbits(63)
    run = run_id or str(uuid.uuid4())
    created = _utc_now()

    clk = clock if isinstance(clock, Clock) else get_clock(clock, window=calibration_window)
    timer = measure_timer(clk.read, clk.hz)
    samplers = {name: make_sampler(t, clk.read) for name, t in targets.items()}
    try:
        return _run(
            targets,
            samplers,
            out,
            clk,
            timer,
            rounds,
            time_budget,
            fixed,
            interleave,
            seed,
            gc,
            overwrite,
            ignore_failures,
            tau_prec,
            tau_acc,
            oracle_a,
            oracle_b,
            j_max,
            min_sample_ns,
            subtract_spawn_overhead,
            run,
            created,
            user,
            progress,
            on_round,
            flush_seconds,
            flush_rows,
        )
    finally:
        for sampler in samplers.values():
            close_sampler(sampler)


def _run(
    targets: dict[str, Target],
    samplers: dict[str, Callable[[int], tuple[int, int]]],
    out: Path,
    clk: Clock,
    timer: TimerProperties,
    rounds: int | None,
    time_budget: float | None,
    fixed: dict[str, int | None],
    interleave: bool,
    seed: int,
    gc: str,
    overwrite: bool,
    ignore_failures: bool,
    tau_prec: float | None,
    tau_acc: float | None,
    oracle_a: float | None,
    oracle_b: float,
    j_max: int,
    min_sample_ns: float | None,
    subtract_spawn_overhead: bool,
    run: str,
    created: str,
    user: Mapping[str, Any] | None,
    progress: bool | None,
    on_round: Callable[[int], None] | None,
    flush_seconds: float,
    flush_rows: int,
) -> Recording:
    is_command = isinstance(next(iter(targets.values())), CommandTarget)

    spawn: dict[str, Any] | None = None
    per_sample_overhead = timer.overhead_ns
    if is_command:
        shell = any(isinstance(t, CommandTarget) and t.shell for t in targets.values())
        spawn = spawn_overhead(clk.read, clk.hz, shell=shell)
        if subtract_spawn_overhead:
            per_sample_overhead += spawn["min_ns"]

    t_prec = tau_prec if tau_prec is not None else timer.precision_ns
    t_acc = tau_acc if tau_acc is not None else max(timer.accuracy_ns, t_prec)
    oracle(0.0, tau_prec=t_prec, tau_acc=t_acc, a=oracle_a, b=oracle_b, j_max=j_max)  # validates
    floor_ns = default_min_sample_ns(timer) if min_sample_ns is None else float(min_sample_ns)
    choices: dict[str, EvalsChoice] = {}
    evals_used: dict[str, int] = {}
    for name, n_fixed in fixed.items():
        if n_fixed is not None:
            evals_used[name] = n_fixed
        elif is_command:
            evals_used[name] = 1
        else:
            sampler = samplers[name]

            def measure(
                i: int, _s: Callable[[int], tuple[int, int]] = sampler, _n: str = name
            ) -> float:
                try:
                    a, b = _s(i)
                except TargetFailed as exc:
                    raise CollectorError(f"benchmark {_n!r} {exc} while choosing evals") from exc
                return (b - a) * 1e9 / clk.hz - timer.overhead_ns

            choice = choose_evals(
                measure, tau_prec=t_prec, tau_acc=t_acc, a=oracle_a, b=oracle_b, j_max=j_max,
                min_sample_ns=floor_ns,
            )  # fmt: skip
            choices[name] = choice
            evals_used[name] = choice.evals

    collector_meta: dict[str, Any] = {
        "version": _package_version(),
        "collector_format": _COLLECTOR_VERSION,
        "evals_method": "auto"
        if choices and len(choices) == len(targets)
        else ("fixed" if not choices else "mixed"),
        "evals": dict(evals_used),
        "oracle": {
            "a": oracle_a if oracle_a is not None else 0.009 / t_prec,
            "b": oracle_b,
            "tau_prec": t_prec,
            "tau_acc": t_acc,
            "j_max": j_max,
            "min_sample_ns": floor_ns,
            "per_benchmark": {k: v.to_dict() for k, v in choices.items()},
        },
        "interleave": interleave,
        "seed": seed,
        "rounds_requested": rounds,
        "time_budget_s": time_budget,
        "gc": gc,
        "ignore_failures": ignore_failures,
        "pid": os.getpid(),
        "argv": list(sys.argv),
    }
    timer_meta = timer.to_dict()
    timer_meta["clock_overhead_ns"] = timer.overhead_ns
    timer_meta["overhead_ns"] = per_sample_overhead
    target_meta: dict[str, Any] = {
        "kind": "command" if is_command else "python",
        "spec": {name: t.describe() for name, t in targets.items()},
    }
    if spawn is not None:
        target_meta["spawn_overhead_ns"] = spawn
        timer_meta["spawn_overhead_subtracted"] = subtract_spawn_overhead
    meta = schema.new_metadata(
        run,
        created,
        clk.source,
        clock=clk.metadata(),
        timer=timer_meta,
        host=host_info(),
        target=target_meta,
        collector=collector_meta,
        user=dict(user) if user else {},
    )
    problems = schema.validate_metadata(meta)
    if problems:  # pragma: no cover - a bug in this module
        raise CollectorError("invalid run metadata (a collector bug): " + "; ".join(problems))

    writer = RunWriter(out, overwrite=overwrite)
    bracket0 = bracket(clk.read)
    try:
        state = _loop(
            writer,
            samplers,
            evals_used,
            run,
            clk,
            rounds,
            time_budget,
            interleave,
            seed,
            ignore_failures,
            progress,
            on_round,
            flush_seconds,
            flush_rows,
        )
    except BaseException:
        writer.abort()
        raise
    if clk.calibration.method == "measured":
        # cross-check: the tick rate over the whole run against CLOCK_MONOTONIC_RAW
        r1, t1, h1 = bracket(clk.read)
        r0, t0, h0 = bracket0
        if r1 - r0 > 0.05e9:
            run_hz = (t1 - t0) / (r1 - r0) * 1e9
            meta["clock"]["calibration"]["run_check"] = {
                "hz": run_hz,
                "window_s": (r1 - r0) / 1e9,
                "relative_error": (h0 + h1) / (r1 - r0),
                "relative_difference": run_hz / clk.hz - 1.0,
            }
    collector_meta.update(
        {
            "finished_utc": _utc_now(),
            "rounds_completed": state.rounds_done,
            "interrupted": state.interrupted,
            "stop_reason": state.stop_reason,
            "failures": state.failures,
            "failure_messages": state.failure_messages[:20],
            "sampling_seconds": state.elapsed,
        }
    )
    if writer.rows_written + writer.pending == 0:
        writer.abort()
        msg = state.error or "no sample was recorded"
        raise CollectorError(f"{msg}; nothing was written to {out}")
    path = writer.close(meta)
    if state.error is not None:
        raise CollectorError(
            f"{state.error}; the {writer.rows_written} samples recorded so far were written to {path}"
        )
    return Recording(
        path,
        run,
        state.rounds_done,
        writer.rows_written,
        dict(evals_used),
        state.interrupted,
        state.failures,
        meta,
    )


@dataclass(slots=True)
class _LoopState:
    rounds_done: int = 0
    interrupted: bool = False
    stop_reason: str = "rounds"
    failures: int = 0
    failure_messages: list[str] = field(default_factory=list)
    error: str | None = None
    elapsed: float = 0.0


def _loop(
    writer: RunWriter,
    samplers: dict[str, Callable[[int], tuple[int, int]]],
    evals_used: dict[str, int],
    run: str,
    clk: Clock,
    rounds: int | None,
    time_budget: float | None,
    interleave: bool,
    seed: int,
    ignore_failures: bool,
    progress: bool | None,
    on_round: Callable[[int], None] | None,
    flush_seconds: float,
    flush_rows: int,
) -> _LoopState:
    st = _LoopState()
    names = list(samplers)
    rng = random.Random(seed)
    to_ns = 1e9 / clk.hz
    stream = sys.stderr
    show = progress if progress is not None else bool(getattr(stream, "isatty", lambda: False)())
    bar = _Progress(show, rounds, time_budget, stream)
    flag = _StopFlag()
    sample_index = dict.fromkeys(names, 0)
    start = time.monotonic()
    last_flush = start

    def record(name: str, rnd: int, pos: int, buf: list[tuple[Any, ...]]) -> bool:
        """Take one sample; False if it failed and the run must stop."""
        ev = evals_used[name]
        try:
            t0, t1 = samplers[name](ev)
        except TargetFailed as exc:
            if flag.requested:
                # Ctrl-C on a terminal reaches a running command too: the sample was cut
                # short by the interruption, not a failure; drop the unfinished round
                raise KeyboardInterrupt from exc
            msg = f"benchmark {name!r} {exc} (round {rnd}, sample {sample_index[name]})"
            if ignore_failures:
                st.failures += 1
                st.failure_messages.append(msg)
                return True
            st.error = msg
            return False
        ticks = t1 - t0
        buf.append((name, run, rnd, pos, sample_index[name], ev, ticks, t0, ticks * to_ns))
        sample_index[name] += 1
        return True

    def commit(buf: list[tuple[Any, ...]]) -> None:
        nonlocal last_flush
        flag.critical = True
        try:
            writer.extend(buf)
            now = time.monotonic()
            if now - last_flush >= flush_seconds or writer.pending >= flush_rows:
                writer.flush()
                last_flush = now
        finally:
            flag.critical = False
        if flag.abort:
            raise KeyboardInterrupt

    with _signals(flag):
        try:
            if interleave:
                rnd = 0
                while True:
                    order = names[:]
                    rng.shuffle(order)
                    buf: list[tuple[Any, ...]] = []
                    ok = True
                    for pos, name in enumerate(order):
                        if not record(name, rnd, pos, buf):
                            ok = False
                            break
                    commit(buf)  # a failed round keeps the samples it has (issue: "kept")
                    if not ok:
                        st.stop_reason = "failure"
                        break
                    rnd += 1
                    st.rounds_done = rnd
                    st.elapsed = time.monotonic() - start
                    if on_round is not None:
                        on_round(rnd)
                    bar.update(rnd, writer.rows_written + writer.pending, st.elapsed)
                    if flag.requested:
                        st.interrupted, st.stop_reason = True, f"signal {flag.signal_name}"
                        break
                    if rounds is not None and rnd >= rounds:
                        st.stop_reason = "rounds"
                        break
                    if time_budget is not None and st.elapsed >= time_budget:
                        st.stop_reason = "time_budget"
                        break
            else:
                per_bench = None if time_budget is None else time_budget / len(names)
                stop = False
                for name in names:
                    b_start = time.monotonic()
                    s = 0
                    while True:
                        buf = []
                        if not record(name, s, 0, buf):
                            stop = True
                            st.stop_reason = "failure"
                            break
                        commit(buf)
                        s += 1
                        st.rounds_done = max(st.rounds_done, s)
                        st.elapsed = time.monotonic() - start
                        if on_round is not None:
                            on_round(s)
                        bar.update(s, writer.rows_written + writer.pending, st.elapsed)
                        if flag.requested:
                            st.interrupted, st.stop_reason, stop = (
                                True,
                                f"signal {flag.signal_name}",
                                True,
                            )
                            break
                        if rounds is not None and s >= rounds:
                            break
                        if per_bench is not None and time.monotonic() - b_start >= per_bench:
                            st.stop_reason = "time_budget"
                            break
                    if stop:
                        break
        except KeyboardInterrupt:
            # second signal: the unfinished round is dropped, the finished ones are kept
            st.interrupted = True
            st.stop_reason = "signal (second, unfinished round dropped)"
        finally:
            st.elapsed = time.monotonic() - start
            bar.update(st.rounds_done, writer.rows_written + writer.pending, st.elapsed, force=True)
            bar.finish()
    return st
