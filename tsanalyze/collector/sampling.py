"""The sampling loop: one body for interleaved and sequential runs.

:func:`sample_rounds` takes rounds from a :mod:`schedule <tsanalyze.collector.schedule>`,
times each sample (``t0 = read(); evaluations; t1 = read()``, inside the target's
sampler), hands every finished round to the writer and decides when to stop: the
schedule is done, a target failed, a signal asked to stop, or the disk refused a write.

Only a finished round is ever handed to the writer, and that step is shielded from a
second Ctrl-C (see :mod:`~tsanalyze.collector.signals`), so ``rounds_done`` always
equals the rounds the writer holds.

Standard library only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tsanalyze.collector.progress import Progress
from tsanalyze.collector.schedule import Schedule
from tsanalyze.collector.signals import Interruptions
from tsanalyze.collector.targets import TargetFailed
from tsanalyze.collector.writer import RunWriter, SampleRow

__all__ = ["Outcome", "sample_rounds"]

Sampler = Callable[[int], tuple[int, int]]


@dataclass(slots=True)
class Outcome:
    """How sampling ended.

    Attributes
    ----------
    rounds_done : int
        Rounds completed (interleaved) or the longest series (sequential).
    interrupted : bool
        A signal stopped the run before its plan was done.
    stop_reason : str
        ``rounds``, ``time_budget``, ``failure``, ``write error``, ``signal SIGINT``, ...
    failures : int
        Samples skipped because their target failed (``ignore_failures``).
    failure_messages : list of str
        What failed.
    error : str or None
        Why the run stopped early against its will (a failing target, a failed write).
    elapsed : float
        Seconds of sampling.
    """

    rounds_done: int = 0
    interrupted: bool = False
    stop_reason: str = "rounds"
    failures: int = 0
    failure_messages: list[str] = field(default_factory=list)
    error: str | None = None
    elapsed: float = 0.0

    def to_metadata(self) -> dict[str, Any]:
        """The ``collector`` metadata entries that say how the run ended."""
        return {
            "rounds_completed": self.rounds_done,
            "interrupted": self.interrupted,
            "stop_reason": self.stop_reason,
            "failures": self.failures,
            "failure_messages": list(self.failure_messages),
            "sampling_seconds": self.elapsed,
        }


def sample_rounds(
    schedule: Schedule,
    names: Sequence[str],
    samplers: Sequence[Sampler],
    evals: Sequence[int],
    writer: RunWriter,
    interrupts: Interruptions,
    *,
    ignore_failures: bool,
    flush_seconds: float,
    flush_rows: int,
    on_round: Callable[[int], None] | None,
    progress: Progress,
    start: float,
) -> Outcome:
    """Take samples round by round until the schedule, a failure or a signal stops it.

    Parameters
    ----------
    schedule : Schedule
        Hands out rounds (benchmark numbers index ``names``, ``samplers``, ``evals``).
    names, samplers, evals : sequences
        Per benchmark: name (for messages), sampler, evaluations per sample.
    writer : RunWriter
        Receives every finished round.
    interrupts : Interruptions
        The run's signal state (its phase is set to ``sampling``, then ``finishing``).
    ignore_failures : bool
        Skip a failing sample and go on, instead of stopping.
    flush_seconds, flush_rows : float, int
        Flush the writer when this long has passed or this many rows are pending.
    on_round : callable, optional
        Called with the run's progress (``done`` of the round) after each round.
    progress : Progress
        The progress line.
    start : float
        ``time.monotonic()`` when sampling began (the schedule's time origin).

    Returns
    -------
    Outcome
    """
    out = Outcome()
    counts = [0] * len(samplers)
    last_flush = now = start
    rounds_done = 0
    extend = writer.extend
    next_round = schedule.next
    show = progress.enabled
    interrupts.phase = "sampling"
    try:
        unit = next_round(now)
        while unit is not None:
            rnd, order, done = unit
            buf: list[SampleRow] = []
            append = buf.append
            first = 0
            failed = False
            while first >= 0:
                pos = first
                try:
                    for pos in range(first, len(order)):
                        i = order[pos]
                        ev = evals[i]
                        t0, t1 = samplers[i](ev)
                        append((i, rnd, pos, counts[i], ev, t0, t1))
                        counts[i] += 1
                    first = -1
                except TargetFailed as exc:
                    if interrupts.count:
                        # Ctrl-C on a terminal reaches a running command too: the sample was
                        # cut short by the interruption, not a failure; drop the round
                        raise KeyboardInterrupt from exc
                    i = order[pos]
                    msg = f"benchmark {names[i]!r} {exc} (round {rnd}, sample {counts[i]})"
                    if not ignore_failures:
                        out.error, failed = msg, True
                        break
                    out.failures += 1
                    out.failure_messages.append(msg)
                    first = pos + 1
            # hand the finished round (or a failed round's samples) to the writer, shielded
            # from a second signal so that rounds_done always matches what the writer holds
            interrupts.critical = True
            try:
                pending = extend(buf)
                if not failed and done > rounds_done:
                    rounds_done = done
                now = time.monotonic()
                if pending >= flush_rows or now - last_flush >= flush_seconds:
                    last_flush = now
                    writer.flush()
            except OSError:
                out.error, out.stop_reason = writer.write_error or "write failed", "write error"
                break
            finally:
                interrupts.critical = False
            if failed:
                out.stop_reason = "failure"
                break
            if interrupts.count:
                interrupts.raise_deferred()  # a second signal during the step above
            if on_round is not None:
                on_round(done)
            if show:
                progress.update(done, writer.rows, now - start)
            if interrupts.count:
                out.interrupted = True
                out.stop_reason = f"signal {interrupts.signal_name}"
                break
            unit = next_round(now)
        else:
            out.stop_reason = schedule.stop_reason
    except KeyboardInterrupt:
        # a second signal (or a command cut short by the first): the unfinished round is
        # dropped, the finished ones are kept
        interrupts.phase = "finishing"
        out.interrupted = True
        twice = " twice" if interrupts.count >= 2 else ""
        name = interrupts.signal_name or "SIGINT"
        out.stop_reason = f"signal {name}{twice} (unfinished round dropped)"
    finally:
        interrupts.phase = "finishing"
        out.rounds_done = rounds_done
        out.elapsed = time.monotonic() - start
        progress.update(rounds_done, writer.rows, out.elapsed, force=True)
        progress.finish()
    return out
