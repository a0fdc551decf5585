"""In what order samples are taken: interleaved shuffled rounds, or each series in turn.

A schedule hands the sampling loop one *round* at a time, ``(index, order, done)``:
``index`` goes to the ``round`` column, ``order`` lists benchmark numbers in the order
they are sampled (``position`` is the place in that list) and ``done`` is how far the
run has come once this round is recorded (rounds for interleaved runs, the length of
the current series for sequential ones). :meth:`next` returns None when the plan is
done and sets :attr:`stop_reason`. One loop body serves both schedules.

Standard library only.

References
----------
.. [1] zenbench documentation, "Methodology" (interleaved rounds in a seeded shuffled order,
   so that samples of the same round are paired and order effects can be checked).
   https://github.com/imazen/zenbench
"""

from __future__ import annotations

import random
from typing import Protocol

__all__ = ["InterleavedSchedule", "Round", "Schedule", "SequentialSchedule", "make_schedule"]

#: ``(round index, benchmark numbers in sampling order, progress once recorded)``
Round = tuple[int, list[int], int]


class Schedule(Protocol):
    """What the sampling loop needs from a schedule."""

    stop_reason: str

    def next(self, now: float) -> Round | None:
        """The next round, or None when done; ``now`` is ``time.monotonic()``."""
        ...


class InterleavedSchedule:
    """Rounds of every benchmark once, in an order shuffled by ``random.Random(seed)`` [1]_.

    The shuffles are exactly ``random.Random(seed).shuffle(list(range(k)))`` per round,
    so a recorded seed replays the recorded ``position`` of every sample.

    Parameters
    ----------
    k : int
        Number of benchmarks.
    rounds : int, optional
        Stop after this many rounds.
    time_budget : float, optional
        Stop after the round during which this many seconds have passed since ``start``.
    seed : int
        Seed of the order.
    start : float
        ``time.monotonic()`` when sampling began.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (one sample of each benchmark per round, in
       shuffled order). https://github.com/imazen/zenbench
    """

    def __init__(
        self, k: int, rounds: int | None, time_budget: float | None, seed: int, start: float
    ) -> None:
        self._base = list(range(k))
        self._rounds = rounds
        self._budget = time_budget
        self._shuffle = random.Random(seed).shuffle
        self._start = start
        self._index = 0
        self.stop_reason = "rounds"

    def next(self, now: float) -> Round | None:
        """The next round, or None when ``rounds`` are done or the budget is spent."""
        index = self._index
        if index:
            if self._rounds is not None and index >= self._rounds:
                self.stop_reason = "rounds"
                return None
            if self._budget is not None and now - self._start >= self._budget:
                self.stop_reason = "time_budget"
                return None
        order = self._base[:]
        self._shuffle(order)
        self._index = index + 1
        return index, order, index + 1


class SequentialSchedule:
    """Every benchmark's series in turn: ``rounds`` samples each, or an equal share of the
    time budget each (whichever comes first); ``round`` equals ``sample``, ``position`` is 0.
    """

    def __init__(self, k: int, rounds: int | None, time_budget: float | None) -> None:
        self._k = k
        self._rounds = rounds
        self._per_bench = None if time_budget is None else time_budget / k
        self._bench = 0
        self._s = 0
        self._bench_start = 0.0
        self.stop_reason = "rounds"

    def next(self, now: float) -> Round | None:
        """The next sample of the current series, or of the next one; None after the last."""
        while self._bench < self._k:
            s = self._s
            if s == 0:
                self._bench_start = now
            else:
                stop = self._rounds is not None and s >= self._rounds
                if not stop and self._per_bench is not None:
                    stop = now - self._bench_start >= self._per_bench
                    if stop:
                        self.stop_reason = "time_budget"
                if stop:
                    self._bench += 1
                    self._s = 0
                    continue
            self._s = s + 1
            return s, [self._bench], s + 1
        return None


def make_schedule(
    k: int,
    *,
    interleave: bool,
    rounds: int | None,
    time_budget: float | None,
    seed: int,
    start: float,
) -> Schedule:
    """The schedule of a plan: interleaved (seeded) or sequential."""
    if interleave:
        return InterleavedSchedule(k, rounds, time_budget, seed, start)
    return SequentialSchedule(k, rounds, time_budget)
