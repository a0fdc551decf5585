"""collector.signals.Interruptions: what a signal does in each phase (the handler called
directly; test_signals.py sends real signals to real processes)."""

from __future__ import annotations

import signal
import threading

import pytest

from tsanalyze.collector.signals import CollectorInterrupted, Interruptions

INT, TERM = int(signal.SIGINT), int(signal.SIGTERM)


def test_start_up_stops_at_once() -> None:
    it = Interruptions()
    with pytest.raises(CollectorInterrupted, match="during start-up") as info:
        it.handler(TERM, None)
    assert isinstance(info.value, KeyboardInterrupt)  # `except Exception` does not eat it
    assert (info.value.signal_name, info.value.signal_number) == ("SIGTERM", TERM)
    it.handler(INT, None)  # once raised, never again (clean-up must not be interrupted)
    assert it.count == 2 and it.signal_name == "SIGTERM"


def test_sampling_first_asks_second_drops_the_round() -> None:
    it = Interruptions()
    it.phase = "sampling"
    it.handler(INT, None)  # the first: finish the round
    assert it.count == 1 and not it.abort
    with pytest.raises(KeyboardInterrupt):
        it.handler(INT, None)  # the second: drop the unfinished round
    it.handler(INT, None)  # a third changes nothing
    assert it.abort


def test_second_signal_while_the_round_is_handed_over_waits() -> None:
    it = Interruptions()
    it.phase = "sampling"
    it.handler(INT, None)
    it.critical = True
    it.handler(INT, None)  # no raise inside the critical step ...
    it.critical = False
    with pytest.raises(KeyboardInterrupt):
        it.raise_deferred()  # ... the loop raises it right after
    it.raise_deferred()  # once


def test_finishing_defers_and_two_signals_ask_out() -> None:
    it = Interruptions()
    it.phase = "sampling"
    it.handler(INT, None)
    it.phase = "finishing"
    it.handler(INT, None)  # the reported case: a second Ctrl-C while the file is written
    assert not it.wants_out()
    it.handler(INT, None)
    assert it.wants_out() and it.count == 3


def test_installed_restores_handlers_and_skips_other_threads() -> None:
    before = signal.getsignal(signal.SIGINT)
    it = Interruptions()
    with it.installed():
        assert signal.getsignal(signal.SIGINT) == it.handler
        assert signal.getsignal(signal.SIGTERM) == it.handler
    assert signal.getsignal(signal.SIGINT) == before
    seen: list[object] = []

    def worker() -> None:
        with Interruptions().installed():
            seen.append(signal.getsignal(signal.SIGINT))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [before]
