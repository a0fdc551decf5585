"""What the collector times: Python callables and external commands.

A *sampler* is a closure ``sample(evals) -> (start_ticks, end_ticks)`` that runs ``evals``
consecutive evaluations of one target between two clock reads. Anything the target
needs that must not be timed (a per-sample ``setup``, ``gc.collect()``) happens before
the first read.

Standard library only.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import itertools
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tsanalyze.errors import CollectorError, InvalidArgumentError

__all__ = [
    "CommandTarget",
    "GcMode",
    "PythonTarget",
    "Target",
    "TargetFailed",
    "as_target",
    "close_sampler",
    "make_sampler",
    "resolve_callable",
    "spawn_overhead",
]

GcMode = Literal["enabled", "disabled", "collect"]
_GC_MODES: tuple[str, ...] = ("enabled", "disabled", "collect")


class TargetFailed(Exception):
    """A target raised or a command exited non-zero (internal; becomes CollectorError)."""


@dataclass(frozen=True, slots=True)
class PythonTarget:
    """A Python callable to time.

    Attributes
    ----------
    fn : callable
        Called once per evaluation: ``fn()``, or ``fn(state)`` when ``setup`` is given.
    setup : callable, optional
        Called once per sample before the clock starts (like BenchmarkTools' ``setup``);
        its return value is passed to every evaluation of that sample.
    gc : {"enabled", "disabled", "collect"}
        Garbage collector during the sample: left enabled (default; its cost is part of
        the code's cost), disabled while timing (like :mod:`timeit`), or enabled after a
        full ``gc.collect()`` before each sample (outside the timing).
    spec : str, optional
        How the callable was named (``module:function``), recorded in the metadata.

    References
    ----------
    .. [1] BenchmarkTools.jl (``setup`` per sample), github.com/JuliaCI/BenchmarkTools.jl.
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §V, the
       implementation in BenchmarkTools. arXiv:1608.04295.
    """

    fn: Callable[..., object]
    setup: Callable[[], object] | None = None
    gc: GcMode = "enabled"
    spec: str | None = None

    def describe(self) -> dict[str, Any]:
        """Return the JSON-ready description recorded in ``target.spec``."""
        return {
            "kind": "python",
            "callable": self.spec or _qualname(self.fn),
            "setup": None if self.setup is None else _qualname(self.setup),
            "gc": self.gc,
        }


@dataclass(frozen=True, slots=True)
class CommandTarget:
    """An external command, one process per evaluation (``evals`` is 1 unless fixed).

    Attributes
    ----------
    command : str or sequence of str
        The command. A string is split with :func:`shlex.split` unless ``shell``.
    shell : bool
        Run through ``/bin/sh -c`` (the spawn overhead is then that of an empty shell
        command, as hyperfine measures it).
    cwd : str, optional
        Working directory.
    env : mapping, optional
        Extra environment variables.

    References
    ----------
    hyperfine (github.com/sharkdp/hyperfine): one process per run, shell spawn time
    measured with an empty command and subtracted.
    """

    command: str | Sequence[str]
    shell: bool = False
    cwd: str | None = None
    env: Mapping[str, str] | None = field(default=None)

    def argv(self) -> str | list[str]:
        """Return what :func:`subprocess.run` gets as its first argument."""
        if self.shell:
            return self.command if isinstance(self.command, str) else shlex.join(self.command)
        return shlex.split(self.command) if isinstance(self.command, str) else list(self.command)

    def describe(self) -> dict[str, Any]:
        """Return the JSON-ready description recorded in ``target.spec``."""
        cmd = self.command if isinstance(self.command, str) else shlex.join(self.command)
        return {"kind": "command", "command": cmd, "shell": self.shell, "cwd": self.cwd}


Target = PythonTarget | CommandTarget


def _qualname(fn: Callable[..., object]) -> str:
    mod = getattr(fn, "__module__", None) or "?"
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{mod}:{name}"


def as_target(name: str, value: object, gc_mode: GcMode = "enabled") -> Target:
    """Turn a user value into a target: a callable, a command string, or a target object."""
    if gc_mode not in _GC_MODES:
        raise InvalidArgumentError(f"gc must be one of {', '.join(_GC_MODES)}, got {gc_mode!r}")
    if isinstance(value, (PythonTarget, CommandTarget)):
        if isinstance(value, CommandTarget) and not value.argv():
            raise InvalidArgumentError(f"benchmark {name!r}: empty command")
        return value
    if isinstance(value, str):
        if not value.strip():
            raise InvalidArgumentError(f"benchmark {name!r}: empty command")
        return CommandTarget(value)
    if callable(value):
        return PythonTarget(value, gc=gc_mode)
    raise InvalidArgumentError(
        f"benchmark {name!r}: expected a callable, a command string, PythonTarget or "
        f"CommandTarget, got {type(value).__name__}"
    )


def resolve_callable(spec: str) -> Callable[..., object]:
    """Import ``module:function`` (or ``path/to/file.py:function``; dots allowed after ``:``).

    Parameters
    ----------
    spec : str
        ``module:function`` or ``path/to/file.py:function``.

    Returns
    -------
    callable

    Raises
    ------
    CollectorError
        When the module or attribute cannot be found or is not callable.

    References
    ----------
    The ``module:function`` convention of setuptools entry points and ``python -m timeit``'s
    ``--setup``/statement split.
    """
    mod_name, sep, attr = spec.rpartition(":")
    if not sep or not mod_name or not attr:
        raise CollectorError(f"python target {spec!r}: expected module:function")
    try:
        if mod_name.endswith(".py") or os.sep in mod_name:
            path = Path(mod_name)
            if not path.is_file():
                raise CollectorError(f"python target {spec!r}: file {path} not found")
            mspec = importlib.util.spec_from_file_location(path.stem, path)
            if mspec is None or mspec.loader is None:
                raise CollectorError(f"python target {spec!r}: cannot load {path}")
            module = importlib.util.module_from_spec(mspec)
            sys.modules.setdefault(path.stem, module)
            mspec.loader.exec_module(module)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(mod_name)
    except ImportError as exc:
        raise CollectorError(f"python target {spec!r}: cannot import {mod_name}: {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CollectorError(
                f"python target {spec!r}: {mod_name} has no attribute {attr}"
            ) from None
    if not callable(obj):
        raise CollectorError(f"python target {spec!r}: {attr} is not callable")
    return obj  # type: ignore[no-any-return]


Sampler = Callable[[int], tuple[int, int]]


def _python_sampler(t: PythonTarget, read: Callable[[], int]) -> Sampler:
    fn, setup, mode = t.fn, t.setup, t.gc
    repeat = itertools.repeat

    if setup is None and mode == "enabled":
        # the common case, kept minimal: less work between samples

        def plain(evals: int) -> tuple[int, int]:
            it = repeat(None, evals)
            try:
                t0 = read()
                for _ in it:
                    fn()
                t1 = read()
            except (Exception, SystemExit) as exc:  # a target calling sys.exit() failed too
                raise TargetFailed(f"raised {type(exc).__name__}: {exc}") from exc
            return t0, t1

        return plain

    def sample(evals: int) -> tuple[int, int]:
        if mode == "collect":
            gc.collect()
        state = setup() if setup is not None else None
        was_enabled = gc.isenabled()
        if mode == "disabled":
            gc.disable()
        try:
            if setup is None:
                it = repeat(None, evals)
                t0 = read()
                for _ in it:
                    fn()
                t1 = read()
            else:
                states = repeat(state, evals)
                t0 = read()
                for s in states:
                    fn(s)
                t1 = read()
        except (Exception, SystemExit) as exc:
            raise TargetFailed(f"raised {type(exc).__name__}: {exc}") from exc
        finally:
            if was_enabled and not gc.isenabled():
                gc.enable()
        return t0, t1

    return sample


class _CommandSampler:
    """Runs a command ``evals`` times between two clock reads; stderr goes to a temp file."""

    def __init__(self, t: CommandTarget, read: Callable[[], int]) -> None:
        self.target = t
        self.read = read
        self.argv = t.argv()
        self.env = None if t.env is None else {**os.environ, **t.env}
        self.err = tempfile.TemporaryFile()

    def __call__(self, evals: int) -> tuple[int, int]:
        t, err, read, run, devnull = (
            self.target,
            self.err,
            self.read,
            subprocess.run,
            subprocess.DEVNULL,
        )
        argv, env = self.argv, self.env
        err.seek(0)
        err.truncate()
        rc = 0
        try:
            t0 = read()
            for _ in range(evals):
                rc = run(
                    argv,
                    shell=t.shell,
                    cwd=t.cwd,
                    env=env,
                    stdin=devnull,
                    stdout=devnull,
                    stderr=err,
                ).returncode
                if rc != 0:
                    break
            t1 = read()
        except OSError as exc:
            raise TargetFailed(f"could not start: {exc}") from exc
        if rc != 0:
            err.seek(0)
            tail = err.read()[-400:].decode("utf-8", "replace").strip()
            more = f"; stderr: {tail}" if tail else ""
            raise TargetFailed(f"exited with status {rc}{more}")
        return t0, t1

    def close(self) -> None:
        self.err.close()


def make_sampler(target: Target, read: Callable[[], int]) -> Sampler:
    """Return ``sample(evals) -> (start_ticks, end_ticks)`` for a target and a clock."""
    if isinstance(target, PythonTarget):
        return _python_sampler(target, read)
    return _CommandSampler(target, read)


def close_sampler(sampler: Sampler) -> None:
    """Release what a sampler holds (the stderr file of a command sampler)."""
    close = getattr(sampler, "close", None)
    if close is not None:
        close()


def spawn_overhead(
    read: Callable[[], int], hz: float, *, shell: bool, n: int = 20
) -> dict[str, Any]:
    """Time an empty command ``n`` times, as hyperfine does: min and median in ns.

    The empty command is ``/bin/sh -c ''`` with ``shell`` and ``true`` without.

    References
    ----------
    hyperfine (github.com/sharkdp/hyperfine): shell spawning time is measured with an
    empty command and subtracted.
    """
    if shell:
        target = CommandTarget("", shell=True)
        empty = "sh -c ''"
    else:
        true = shutil.which("true")
        if true is None:
            return {"command": None, "n": 0, "min_ns": 0.0, "median_ns": 0.0}
        target = CommandTarget([true])
        empty = true
    sample = _CommandSampler(target, read)
    try:
        sample(1)  # warm the page cache
        times = []
        for _ in range(n):
            t0, t1 = sample(1)
            times.append((t1 - t0) * 1e9 / hz)
    except TargetFailed as exc:
        raise CollectorError(f"the empty command {empty!r} {exc}") from exc
    finally:
        sample.close()
    return {"command": empty, "n": n, "min_ns": min(times), "median_ns": statistics.median(times)}
