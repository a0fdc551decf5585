"""``tsanalyze collect OUTPUT --python NAME=module:function … --cmd NAME='command …'``."""

from __future__ import annotations

import enum
import math
import re
import signal
import warnings
from typing import Annotated, Literal, NoReturn

import typer

from tsanalyze.cli._errors import fail
from tsanalyze.schema import ClockSource

__all__ = ["collect"]


class GcChoice(str, enum.Enum):
    """Garbage-collector mode for Python targets."""

    enabled = "enabled"
    disabled = "disabled"
    collect = "collect"


def _pairs(values: list[str], option: str, what: str = "benchmark name") -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        name, sep, spec = v.partition("=")
        if not sep or not name.strip() or not spec.strip():
            fail(f"{option} expects NAME=VALUE, got {v!r}")
        if name.strip() in out:
            fail(f"{option}: {what} {name.strip()!r} given twice")
        out[name.strip()] = spec.strip()
    return out


def _evals(text: str) -> Literal["auto"] | int:
    if text == "auto":
        return "auto"
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        fail(f"--evals must be 'auto' or an integer >= 1, got {text!r}")
    return int(text)  # the upper bound is checked by collect() (one place)


def _history_keys(
    commit: str, commit_time: str | None, branch: str | None, machine: str | None,
    env: str | None,
) -> dict[str, str]:  # fmt: skip
    """The run's history keys from the options and, for ``--commit``, git."""
    from tsanalyze import schema
    from tsanalyze.collector.metadata import git_commit

    options = {"commit_time": commit_time, "branch": branch, "machine": machine, "env": env}
    given = {k: v for k, v in options.items() if v is not None}
    if commit not in ("auto", "none"):
        given["commit"] = commit
    for problem in schema.check_history(given):  # the options first: before asking git
        key, _, what = problem.partition(": ")
        fail(f"--{key.replace('_', '-')}: {what}")
    given.pop("commit", None)
    out: dict[str, str] = {}
    if commit == "auto":
        found, dirty = git_commit()
        if found and dirty:
            typer.echo("tsanalyze: warning: tracked files differ from git's HEAD: no commit "
                       "recorded (give --commit to record one)", err=True)  # fmt: skip
        elif found:
            out.update(found)
    elif commit != "none":
        found, _ = git_commit(commit=commit)
        out.update(found or {"commit": commit})
    out.update(given)
    return out


def _interrupted(message: str, signal_name: str | None) -> NoReturn:
    """Say what was kept; exit 128 + the signal's number (130 for SIGINT, 143 for SIGTERM)."""
    number = getattr(signal, signal_name or "SIGINT", signal.SIGINT)
    typer.echo(f"tsanalyze: {message}", err=True)
    raise typer.Exit(128 + int(number))


def collect(
    output: Annotated[str, typer.Argument(help="Run file to write (Parquet).")],
    python: Annotated[
        list[str] | None,
        typer.Option(
            "--python", "-p", help="NAME=module:function (or file.py:function); repeatable."
        ),
    ] = None,
    cmd: Annotated[
        list[str] | None,
        typer.Option("--cmd", "-c", help="NAME='command …' (one process per sample); repeatable."),
    ] = None,
    rounds: Annotated[
        int | None, typer.Option(min=1, help="Rounds to record (default 100).")
    ] = None,
    time_budget: Annotated[
        float | None, typer.Option("--time-budget", min=0.001, help="Seconds of sampling.")
    ] = None,
    evals: Annotated[
        str, typer.Option(help="'auto' (Algorithm 1 of Chen et al. 2016) or a number.")
    ] = "auto",
    seed: Annotated[int | None, typer.Option(min=0, help="Seed of the round order.")] = None,
    no_interleave: Annotated[
        bool, typer.Option("--no-interleave", help="Each benchmark's series in turn.")
    ] = False,
    clock: Annotated[ClockSource | None, typer.Option(help="Force a clock source.")] = None,
    gc: Annotated[
        GcChoice, typer.Option(help="Garbage collector during samples.")
    ] = GcChoice.enabled,
    shell: Annotated[
        bool, typer.Option("--shell", help="Run commands through /bin/sh -c.")
    ] = False,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace OUTPUT if it exists.")
    ] = False,
    ignore_failures: Annotated[
        bool, typer.Option("--ignore-failures", help="Skip failing samples instead of stopping.")
    ] = False,
    tau_acc: Annotated[
        float | None,
        typer.Option("--tau-acc", min=0.0, help="Oracle timer accuracy in ns (default: measured)."),
    ] = None,
    tau_prec: Annotated[
        float | None,
        typer.Option(
            "--tau-prec", min=0.0, help="Oracle timer precision in ns (default: measured)."
        ),
    ] = None,
    min_sample_ns: Annotated[
        float | None,
        typer.Option(
            "--min-sample-ns",
            min=0.0,
            help="Shortest sample --evals auto may choose, in ns (default: long enough for "
            "the report's timer checks; 0: Algorithm 1 alone).",
        ),
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="KEY=VALUE stored in the run's user metadata.")
    ] = None,
    commit: Annotated[
        str,
        typer.Option(
            help="The commit measured, for `tsanalyze history`: 'auto' reads git's HEAD here "
            "(nothing outside a git work tree, or when tracked files have changes), 'none' "
            "records none; else a commit git resolves here, or any id."
        ),
    ] = "auto",
    commit_time: Annotated[
        str | None,
        typer.Option(
            "--commit-time",
            help="The commit's time, ISO 8601 with a zone (default: git's committer date).",
        ),
    ] = None,
    branch: Annotated[
        str | None, typer.Option(help="Branch measured (default: git's, with --commit auto).")
    ] = None,
    machine: Annotated[
        str | None,
        typer.Option(
            help="A name for this machine that stays the same from run to run (history "
            "series are per machine)."
        ),
    ] = None,
    env: Annotated[
        str | None,
        typer.Option(help="The software environment (e.g. py3.12); history series are per env."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress line.")] = False,
) -> None:
    """Record a run: time Python callables or commands, interleaved round by round.

    Ctrl-C (or SIGTERM) once: finish the current round and write the run; twice: drop the
    unfinished round and write the finished ones. Either way the exit status is 130 (143
    for SIGTERM) and the message says what was kept. A run that could not be written (the
    process was killed, the disk is full) leaves a .partial beside OUTPUT: `tsanalyze
    recover` turns it into a run file.
    """
    from tsanalyze.collector import (
        CollectorInterrupted,
        CommandTarget,
        PythonTarget,
        collect,
        resolve_callable,
    )

    if not python and not cmd:
        fail("give at least one --python NAME=module:function or --cmd NAME='command'")
    for option, value in (
        ("--time-budget", time_budget), ("--tau-acc", tau_acc), ("--tau-prec", tau_prec),
        ("--min-sample-ns", min_sample_ns),
    ):  # fmt: skip
        if value is not None and not math.isfinite(value):
            fail(f"{option}: must be a finite number, got {value}")
    for option, value in (("--tau-acc", tau_acc), ("--tau-prec", tau_prec)):
        if value is not None and value <= 0:
            fail(f"{option}: must be > 0 ns, got {value:g}")
    n_evals = _evals(evals)
    history = _history_keys(commit, commit_time, branch, machine, env)
    try:
        benchmarks: dict[str, object] = {}
        for name, spec in _pairs(python or [], "--python").items():
            benchmarks[name] = PythonTarget(resolve_callable(spec), gc=gc.value, spec=spec)
        for name, command in _pairs(cmd or [], "--cmd").items():
            if name in benchmarks:
                fail(f"benchmark name {name!r} given twice")
            benchmarks[name] = CommandTarget(command, shell=shell)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                rec = collect(
                    benchmarks,
                    output,
                    rounds=rounds,
                    time_budget=time_budget,
                    evals=n_evals,
                    interleave=not no_interleave,
                    seed=seed,
                    clock=clock,
                    overwrite=overwrite,
                    ignore_failures=ignore_failures,
                    user=_pairs(tag or [], "--tag", "tag"),
                    history=history,
                    tau_acc=tau_acc,
                    tau_prec=tau_prec,
                    min_sample_ns=min_sample_ns,
                    progress=False if quiet else None,
                )
            finally:
                for w in caught:
                    typer.echo(f"tsanalyze: warning: {w.message}", err=True)
    except CollectorInterrupted as exc:
        _interrupted(str(exc), exc.signal_name)
    except KeyboardInterrupt:  # before collect() took over the signals (importing targets)
        _interrupted("interrupted before collecting started; nothing was recorded", None)
    clock_meta = rec.metadata["clock"]
    evals_txt = ", ".join(f"{k}={v}" for k, v in rec.evals.items())
    at = f"; commit {history['commit'][:12]}" if "commit" in history else ""
    typer.echo(
        f"wrote {rec.path}: run {rec.run}, {rec.rounds} rounds, {rec.samples} samples; "
        f"evals {evals_txt}; clock {clock_meta['source']} ({clock_meta['hz'] / 1e9:.6g} GHz)"
        + at
    )
    if rec.failures:
        typer.echo(f"tsanalyze: warning: {rec.failures} failing samples were skipped", err=True)
    if rec.interrupted:
        _interrupted(
            f"interrupted by {rec.signal_name or 'a signal'}; kept the {rec.rounds} finished "
            f"rounds ({rec.samples} samples) in {rec.path}",
            rec.signal_name,
        )
