"""SIGINT and SIGTERM while collecting: what a signal means in each phase of a run.

A run goes through three phases, and a signal means something different in each:

``start-up``
    Clock calibration, timer measurement, spawn overhead, the choice of evals. Nothing
    has been recorded yet: the first signal stops at once (:class:`CollectorInterrupted`).
``sampling``
    The first signal asks to stop after the current round; the second drops the
    unfinished round (it is raised as :class:`KeyboardInterrupt` inside the sample being
    taken, never while finished rounds are handed to the writer).
``finishing``
    The finished rounds are being written under the final name. A signal is deferred:
    the write is short, and stopping it half-way is what used to lose the whole run.
    Two signals received in this phase ask to abandon the write (:attr:`wants_out`);
    every sample is in the ``.partial`` by then, and the message says how to recover it.

Standard library only.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Literal

__all__ = ["CollectorInterrupted", "Interruptions", "Phase"]

Phase = Literal["start-up", "sampling", "finishing"]


class CollectorInterrupted(KeyboardInterrupt):
    """A signal stopped :func:`~tsanalyze.collector.collect` before anything was recorded.

    A :class:`KeyboardInterrupt`, so that ``except Exception`` does not swallow a
    Ctrl-C; the command line turns it into a one-line message and exit status
    128 + the signal number.

    Attributes
    ----------
    signal_name : str
        ``"SIGINT"`` or ``"SIGTERM"``.
    signal_number : int
        The signal's number.
    """

    def __init__(self, message: str, signal_name: str, signal_number: int) -> None:
        super().__init__(message)
        self.signal_name = signal_name
        self.signal_number = signal_number

    def __str__(self) -> str:
        return str(self.args[0])


class Interruptions:
    """Counts SIGINT/SIGTERM and decides, by phase, whether a signal stops work at once.

    Attributes
    ----------
    phase : {"start-up", "sampling", "finishing"}
        Set by the collector as the run goes on.
    count : int
        Signals received so far.
    signal_name, signal_number : str or None, int or None
        The first signal received.
    critical : bool
        True while the sampling loop hands a finished round to the writer: a second
        signal then waits for the loop to raise it after that step.
    """

    def __init__(self) -> None:
        self.phase: Phase = "start-up"
        self.count = 0
        self.signal_name: str | None = None
        self.signal_number: int | None = None
        self.critical = False
        self.finishing_count = 0
        self._raised = False

    @property
    def abort(self) -> bool:
        """True once a second signal asked to drop the unfinished round."""
        return self.count >= 2

    def wants_out(self) -> bool:
        """True once two signals arrived while the run file was being written."""
        return self.finishing_count >= 2

    def handler(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler (installed by :meth:`installed`)."""
        self.count += 1
        if self.phase == "finishing":
            self.finishing_count += 1
        if self.signal_name is None:
            self.signal_name = signal.Signals(signum).name
            self.signal_number = signum
        if self._raised:
            return  # one raise per run: a later signal never breaks the clean-up of the first
        if self.phase == "start-up":
            self._raised = True
            raise CollectorInterrupted(
                f"interrupted by {self.signal_name} during start-up (clock calibration, timer "
                "measurement, choice of evals); nothing was recorded",
                self.signal_name,
                signum,
            )
        if self.phase == "sampling" and self.count >= 2 and not self.critical:
            self._raised = True
            raise KeyboardInterrupt

    def raise_deferred(self) -> None:
        """Raise the second signal's interrupt if it arrived during a critical step."""
        if self.count >= 2 and not self._raised:
            self._raised = True
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interruptions]:
        """Install the handler for SIGINT and SIGTERM (main thread only), restore on exit."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        for s in old:
            signal.signal(s, self.handler)
        try:
            yield self
        finally:
            for s, h in old.items():
                signal.signal(s, h)
