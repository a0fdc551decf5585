"""Fixtures of the collector tests: child processes that are always cleaned up."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest


class Procs:
    """Start child processes (text pipes); every one still running is killed at teardown."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[str]] = []

    def start(
        self, argv: Sequence[str], *, path: Path | None = None, **kwargs: object
    ) -> subprocess.Popen[str]:
        """``Popen(argv)``; ``path`` is put first on the child's PYTHONPATH (target modules)."""
        if path is not None:
            kwargs["env"] = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), *sys.path])}
        proc = subprocess.Popen(
            list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
        )  # type: ignore[call-overload]
        self.started.append(proc)
        return proc

    @staticmethod
    def wait_rounds(proc: subprocess.Popen[str], n: int, timeout: float = 60.0) -> int:
        """Read ``ROUND k`` lines from the child's stdout until k >= n; return k."""
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("ROUND") and int(line.split()[1]) >= n:
                return int(line.split()[1])
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"the collector did not reach {n} rounds: {err}")

    @staticmethod
    def wait_for_partial(proc: subprocess.Popen[str], where: Path, timeout: float = 60.0) -> Path:
        """Wait until the child's collector has created its ``.partial`` in ``where``."""
        deadline = time.monotonic() + timeout
        while True:
            found = [p for p in where.iterdir() if p.name.endswith(".partial")]
            if found:
                return found[0]
            assert proc.poll() is None and time.monotonic() < deadline, "no .partial appeared"
            time.sleep(0.01)


@pytest.fixture
def procs() -> Iterator[Procs]:
    p = Procs()
    yield p
    for proc in p.started:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
