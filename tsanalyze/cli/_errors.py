"""How the CLI ends: exit codes, the one-line error message, and the guard around every
command that tells the user's mistake from a bug in tsanalyze.

Exit codes
----------
0
    Done.
1
    Done, and the result asks CI to fail: ``report``/``compare --fail-on regression`` found
    a slower candidate, ``audit`` found a serious problem.
2
    The input cannot be used: a :class:`~tsanalyze.errors.TsanalyzeError` (a bad file, an
    option out of range, an unknown baseline, ...) or a file that cannot be read or written
    (``OSError``). One line on stderr: ``tsanalyze: error: <what and where>``.
3
    A bug in tsanalyze: any other exception. One line on stderr saying so, naming the
    exception and asking for a report; ``TSANALYZE_TRACEBACK=1`` prints the traceback too.
    (Before, every ``ValueError`` became exit 2, so a bug looked like the user's mistake.)
"""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click
import typer

from tsanalyze.errors import TsanalyzeError

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAIL_ON",
    "EXIT_INTERNAL_ERROR",
    "fail",
    "guard",
    "internal_error",
]

EXIT_FAIL_ON = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 3
#: environment variable that makes an internal error print its traceback
TRACEBACK_ENV = "TSANALYZE_TRACEBACK"

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``tsanalyze: error: <message>`` to stderr and exit with ``code``."""
    typer.echo(f"tsanalyze: error: {message}", err=True)
    raise typer.Exit(code)


def internal_error(exc: BaseException) -> NoReturn:
    """Report a bug: one line on stderr (the traceback too with TSANALYZE_TRACEBACK=1), exit 3."""
    if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
        typer.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
    where = "" if os.environ.get(TRACEBACK_ENV) else f"; set {TRACEBACK_ENV}=1 for the traceback"
    typer.echo(
        f"tsanalyze: internal error (a bug in tsanalyze, not in your input): "
        f"{type(exc).__name__}: {exc}. Please report it with the command you ran and "
        f"`tsanalyze --version`{where}",
        err=True,
    )
    raise typer.Exit(EXIT_INTERNAL_ERROR)


def guard(command: F) -> F:
    """Wrap a command: TsanalyzeError and OSError exit 2 with their message, any other
    exception is an internal error (exit 3); typer/click exits pass through."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except click.ClickException:  # a usage error found late: click reports it (exit 2)
            raise
        except TsanalyzeError as exc:
            fail(str(exc))
        except OSError as exc:  # a file named by the user cannot be read or written
            fail(str(exc))
        except Exception as exc:
            internal_error(exc)

    return run  # type: ignore[return-value]
