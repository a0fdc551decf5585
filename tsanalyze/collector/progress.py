"""The collector's progress line: a carriage-return bar on a terminal, silent otherwise.

Standard library only.
"""

from __future__ import annotations

import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """A carriage-return progress line on ``stream``; does nothing unless ``enabled``.

    Parameters
    ----------
    enabled : bool
        Draw the line (the collector's default: when stderr is a terminal).
    total : int, optional
        Rounds asked for.
    budget : float, optional
        Seconds of sampling asked for.
    stream : text stream
        Where to draw (stderr).
    """

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
        """Redraw (at most every 0.1 s unless ``force``)."""
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
        try:
            self.stream.write(f"\rcollecting [{bar}] {done}  {samples} samples ")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr must not stop the run
            self.enabled = False
            return
        self._shown = True

    def finish(self) -> None:
        """End the line (a newline after the last redraw)."""
        if self.enabled and self._shown:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                self.enabled = False
