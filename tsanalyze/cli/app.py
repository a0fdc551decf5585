"""The ``tsanalyze`` command line: one typer app, one module per command.

Each command module defines one function; it is registered here with one line, wrapped
in :func:`~tsanalyze.cli._errors.guard`. A command is parse -> load -> analyse -> render.
Any :class:`~tsanalyze.errors.TsanalyzeError` (the library's errors about the user's
input) becomes a one-line message on stderr and exit code 2, never a traceback; any other
exception is a bug in tsanalyze and exits 3 with a one-line "internal error, please
report" message (exit codes: :mod:`tsanalyze.cli._errors`).
"""

from __future__ import annotations

import ast
import atexit
import importlib
import importlib.util
import os
import sys
import threading
from typing import Annotated, Any, NoReturn

import typer

from tsanalyze._version import __version__
from tsanalyze.cli._errors import OneLineErrors, guard

# --- command registry: one line per command module ---------------------------------
#: command name -> (module, function). A command's module is imported only when that
#: command runs or shows its own help, so `tsanalyze --help` and `--version` start fast
#: (issue 24); the one-line help of the listing is read from the function's docstring
#: in the module's source, without importing it.
COMMANDS: dict[str, tuple[str, str]] = {
    "info": ("tsanalyze.cli.info", "info"),
    "import": ("tsanalyze.cli.import_", "import_"),
    "audit": ("tsanalyze.cli.audit", "audit"),
    "collect": ("tsanalyze.cli.collect", "collect"),
    "report": ("tsanalyze.cli.report", "report"),
    "compare": ("tsanalyze.cli.compare", "compare"),
    "recover": ("tsanalyze.cli.recover", "recover"),
    "history": ("tsanalyze.cli.history", "history"),
}

_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}


def docstring_of(name: str) -> str:
    """The docstring of command ``name``'s function, read from its source (not imported)."""
    module, func = COMMANDS[name]
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:  # pragma: no cover - a broken installation
        return ""
    with open(spec.origin, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == func:
            return ast.get_docstring(node) or ""
    return ""  # pragma: no cover - registry out of date (tests check it is not)


class _LazyGroup(OneLineErrors):
    """The command group whose commands are built from their modules on first use (usage
    errors on one line, as :class:`OneLineErrors`)."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if cmd_name not in self.commands:
            module, func = COMMANDS[cmd_name]
            one = typer.Typer(**_SETTINGS)
            one.command(cmd_name)(guard(getattr(importlib.import_module(module), func)))
            self.commands[cmd_name] = typer.main.get_command(one)
        return self.commands[cmd_name]

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        limit = formatter.width - 6 - max(len(n) for n in COMMANDS)
        rows = [
            (name, typer.core._click.utils.make_default_short_help(docstring_of(name), limit))
            for name in COMMANDS
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    name="tsanalyze",
    help="What do these recorded benchmark timings really say?",
    no_args_is_help=True,
    cls=_LazyGroup,
    **_SETTINGS,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"tsanalyze {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version_callback,
            is_eager=True,
            help="Show the version and exit.",
        ),
    ] = False,
) -> None:
    """What do these recorded benchmark timings really say?"""


def main(argv: list[str] | None = None) -> None:
    """Run the command line on ``argv`` (default: ``sys.argv``); ends with ``SystemExit``
    (errors are handled around each command by ``guard``)."""
    app(args=argv, standalone_mode=True)


def console() -> NoReturn:
    """The ``tsanalyze`` program (console script, ``python -m tsanalyze``): :func:`main`,
    then the process ends once its output is flushed (:func:`exit_now`). A standard
    stream the process was started without (``>&-``: Python sets it to None) is taken as
    ``/dev/null``: the output is discarded, files are still written."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    try:
        main()
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


def exit_now(code: object) -> NoReturn:
    """End the process with ``code`` as :func:`sys.exit` would, without the interpreter's
    teardown when nothing else runs.

    Tearing the interpreter down after a report frees every module and object one by one
    (scipy's, numba's compiled kernels, the analysis): 0.45 s of a 100-run report's 7.8 s,
    for memory the system takes back at once (issue 24). So, when no other thread runs,
    no child process is alive (a pool or a Dask cluster are shut down the usual way) and
    no profiler or tracer watches (``python -m cProfile -m tsanalyze`` writes its profile
    after the run returns), the ``atexit`` handlers run (logging, temporary directories, multiprocessing),
    standard output and error are flushed, and the process exits. Files the commands
    write are closed by them before this (``with`` blocks), never left to finalizers.
    """
    mp = sys.modules.get("multiprocessing")
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if watched or threading.active_count() > 1 or (mp is not None and mp.active_children()):
        raise SystemExit(code)  # a profiler or coverage writes its data after the run
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: as Python's own exit, status 120
            status = status or 120
    os._exit(status)
