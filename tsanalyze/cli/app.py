"""The ``tsanalyze`` command line: one typer app, one module per command.

Each command module defines one function; it is registered here with one line, wrapped
in :func:`~tsanalyze.cli._errors.guard`. A command is parse -> load -> analyse -> render.
Any :class:`~tsanalyze.errors.TsanalyzeError` (the library's errors about the user's
input) becomes a one-line message on stderr and exit code 2, never a traceback; any other
exception is a bug in tsanalyze and exits 3 with a one-line "internal error, please
report" message (exit codes: :mod:`tsanalyze.cli._errors`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from tsanalyze._version import __version__
from tsanalyze.cli._errors import guard

app = typer.Typer(
    name="tsanalyze",
    help="What do these recorded benchmark timings really say?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"tsanalyze {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version and exit."),
    ] = False,
) -> None:
    """What do these recorded benchmark timings really say?"""


# --- command registry: one line per command module ---------------------------------
# (imports are inside _register so that `tsanalyze --version` stays fast)
def _register() -> None:
    from tsanalyze.cli import audit, collect, compare, import_, info, recover, report

    app.command("info")(guard(info.info))
    app.command("import")(guard(import_.import_))
    app.command("audit")(guard(audit.audit))
    app.command("collect")(guard(collect.collect))
    app.command("report")(guard(report.report))
    app.command("compare")(guard(compare.compare))
    app.command("recover")(guard(recover.recover))


_register()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (errors are handled around each command by ``guard``)."""
    app(args=argv, standalone_mode=True)
