"""The run metadata the collector writes (the ``tsanalyze`` key of :mod:`tsanalyze.schema`).

:func:`run_metadata` builds everything known before the first sample (it goes into the
partial too, so that a recovered run is as well described as a finished one);
:func:`finished_metadata` adds how the run ended.

Standard library only.
"""

from __future__ import annotations

import copy
import datetime as _dt
import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from tsanalyze import schema
from tsanalyze.collector.calibration import RunCalibration
from tsanalyze.collector.clock import Clock, bracket, host_info
from tsanalyze.collector.plan import Plan
from tsanalyze.errors import CollectorError

__all__ = [
    "COLLECTOR_FORMAT",
    "finished_metadata",
    "git_commit",
    "package_version",
    "run_check",
    "run_metadata",
    "utc_now",
]

#: Version of the collector's own metadata section (``collector.collector_format``).
COLLECTOR_FORMAT = "1"
#: How many failure messages the metadata keeps.
MAX_FAILURE_MESSAGES = 20


def utc_now() -> str:
    """The current time as the run format's ISO 8601 UTC timestamp."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def package_version() -> str:
    """The installed tsanalyze version (``unknown`` when not installed)."""
    try:
        return importlib.metadata.version("tsanalyze")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"


def run_metadata(plan: Plan, clock: Clock, cal: RunCalibration, created: str) -> dict[str, Any]:
    """The metadata of a run as known before its first sample (valid on its own).

    Raises
    ------
    CollectorError
        The result does not validate (a collector bug).
    """
    collector: dict[str, Any] = {
        "version": package_version(),
        "collector_format": COLLECTOR_FORMAT,
        "evals_method": cal.evals_method,
        "evals": dict(cal.evals),
        "oracle": {
            "a": cal.a,
            "b": plan.oracle.b,
            "tau_prec": cal.tau_prec,
            "tau_acc": cal.tau_acc,
            "j_max": plan.oracle.j_max,
            "min_sample_ns": cal.floor_ns,
            "per_benchmark": {k: v.to_dict() for k, v in cal.choices.items()},
        },
        "interleave": plan.interleave,
        "seed": plan.seed,
        "rounds_requested": plan.rounds,
        "time_budget_s": plan.time_budget,
        "gc": plan.gc,
        "ignore_failures": plan.ignore_failures,
        "pid": os.getpid(),
        "argv": list(sys.argv),
    }
    timer = cal.timer.to_dict()
    timer["clock_overhead_ns"] = cal.timer.overhead_ns
    timer["overhead_ns"] = cal.overhead_ns
    target: dict[str, Any] = {
        "kind": "command" if plan.is_command else "python",
        "spec": {name: t.describe() for name, t in plan.targets.items()},
    }
    if cal.spawn is not None:
        target["spawn_overhead_ns"] = cal.spawn
        timer["spawn_overhead_subtracted"] = plan.subtract_spawn_overhead
    meta = schema.new_metadata(
        plan.run,
        created,
        clock.source,
        clock=clock.metadata(),
        timer=timer,
        host=host_info(),
        target=target,
        collector=collector,
        user=dict(plan.user),
        **dict(plan.history),
    )
    problems = schema.validate_metadata(meta)
    if problems:  # pragma: no cover - a bug in this module
        raise CollectorError("invalid run metadata (a collector bug): " + "; ".join(problems))
    return meta


#: seconds a git command may take before the commit is taken as unknown
GIT_TIMEOUT = 10.0


def _git(args: list[str], cwd: str | os.PathLike[str] | None) -> str | None:
    """Output of ``git ARGS`` in ``cwd`` (stripped), or None when git is missing, fails or
    hangs."""
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT,
            check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_commit(
    cwd: str | os.PathLike[str] | None = None, commit: str = "HEAD"
) -> tuple[dict[str, str], bool]:
    """The history keys git knows of ``commit`` in the repository at ``cwd``.

    Parameters
    ----------
    cwd : path-like, optional
        A directory inside the work tree (default: the current directory).
    commit : str
        Any name git resolves (default ``HEAD``, the commit checked out).

    Returns
    -------
    dict, bool
        ``commit`` (the full hash), ``commit_time`` (the committer date, ISO 8601 with its
        zone) and, for ``HEAD`` on a branch, ``branch``: empty when ``cwd`` is not in a
        git work tree, git is missing, or ``commit`` does not resolve. The flag is true
        when tracked files differ from ``HEAD`` (what runs is then not that commit).

    References
    ----------
    .. [1] asv (airspeed velocity) records the commit hash and its date with each result:
       https://asv.readthedocs.io/en/stable/dev.html (the results format).
    """
    full = _git(["rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"], cwd)
    if not full:
        return {}, False
    out = {"commit": full}
    when = _git(["show", "-s", "--format=%cI", full], cwd)
    if when and not schema.check_history({"commit_time": when}):
        out["commit_time"] = when
    if commit == "HEAD":
        branch = _git(["symbolic-ref", "--quiet", "--short", "HEAD"], cwd)
        if branch:
            out["branch"] = branch
    dirty = commit == "HEAD" and _git(["status", "--porcelain", "--untracked-files=no"], cwd) != ""
    return out, dirty


def run_check(clock: Clock, start: tuple[float, int, float]) -> dict[str, float] | None:
    """Cross-check a measured tick rate over the whole run against CLOCK_MONOTONIC_RAW.

    ``start`` is :func:`~tsanalyze.collector.clock.bracket` taken before sampling; None
    for nominal clocks or runs shorter than 50 ms.
    """
    if clock.calibration.method != "measured":
        return None
    r1, t1, h1 = bracket(clock.read)
    r0, t0, h0 = start
    if r1 - r0 <= 0.05e9:
        return None
    hz = (t1 - t0) / (r1 - r0) * 1e9
    return {
        "hz": hz,
        "window_s": (r1 - r0) / 1e9,
        "relative_error": (h0 + h1) / (r1 - r0),
        "relative_difference": hz / clock.hz - 1.0,
    }


def finished_metadata(
    meta: Mapping[str, Any], ended: Mapping[str, Any], check: Mapping[str, float] | None
) -> dict[str, Any]:
    """A copy of ``meta`` with how the run ended (``ended``) added to ``collector``.

    ``ended`` holds ``rounds_completed``, ``interrupted``, ``stop_reason``, ``failures``,
    ``failure_messages`` (at most 20 kept) and ``sampling_seconds``; ``check`` is
    :func:`run_check`'s result, stored as ``clock.calibration.run_check``.
    """
    out = copy.deepcopy(dict(meta))
    if check is not None:
        out["clock"].setdefault("calibration", {})["run_check"] = dict(check)
    collector = out["collector"]
    collector["finished_utc"] = utc_now()
    collector.update(ended)
    collector["failure_messages"] = list(ended.get("failure_messages", []))[:MAX_FAILURE_MESSAGES]
    return out
