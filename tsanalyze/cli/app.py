"""The ``tsanalyze`` command line: one typer app, one module per command.

Each command module defines one function; it is registered here with one line. A
command is parse -> load -> analyse -> render. Any :class:`~tsanalyze.errors.TsanalyzeError`
(or a ``ValueError`` raised while checking user input) becomes a one-line message on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tsanalyze._version import __version__
from tsanalyze.errors import TsanalyzeError

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
    from tsanalyze.cli import info

    app.command("info")(info.info)
    app.command("import")(__import__("tsanalyze.cli.import_", fromlist=["import_"]).import_)
    app.command("audit")(__import__("tsanalyze.cli.audit", fromlist=["audit"]).audit)
    app.command("collect")(__import__("tsanalyze.cli.collect", fromlist=["collect"]).collect)
    app.command("report")(__import__("tsanalyze.cli.report", fromlist=["report"]).report)
    app.command("compare")(__import__("tsanalyze.cli.compare", fromlist=["compare"]).compare)
    app.command("recover")(__import__("tsanalyze.cli.recover", fromlist=["recover"]).recover)


_register()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app, turning user errors into exit code 2."""
    try:
        app(args=argv, standalone_mode=True)
    except TsanalyzeError as exc:
        typer.echo(f"tsanalyze: error: {exc}", err=True)
        sys.exit(2)
