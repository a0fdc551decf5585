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
    option out of range, an unknown baseline, ...), a file that cannot be read or written
    (``OSError``), a command line click cannot parse (an unknown option, a missing
    argument), or an input too large for this machine (out of memory, a worker process
    killed). One line on stderr: ``tsanalyze: error: <what and where>``.
3
    A bug in tsanalyze: any other exception. One line on stderr saying so, naming the
    exception and asking for a report; ``TSANALYZE_TRACEBACK=1`` prints the traceback too.
    (Before, every ``ValueError`` became exit 2, so a bug looked like the user's mistake.)
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
from typer._click import exceptions as click_exceptions  # typer >= 0.26 vendors click
from typer.core import TyperGroup

from tsanalyze.errors import TsanalyzeError

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAIL_ON",
    "EXIT_INTERNAL_ERROR",
    "OneLineErrors",
    "fail",
    "guard",
    "internal_error",
    "resource_error",
]

EXIT_FAIL_ON = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 3
#: environment variable that makes an internal error print its traceback
TRACEBACK_ENV = "TSANALYZE_TRACEBACK"

F = TypeVar("F", bound=Callable[..., Any])


#: longest message printed (a message that quotes a whole input line stays readable)
_MAX_MESSAGE = 1000


def one_line(message: str) -> str:
    """``message`` on one line (newlines and runs of blanks become one space), shortened
    to :data:`_MAX_MESSAGE` characters."""
    text = " ".join(str(message).split())
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``tsanalyze: error: <message>`` (one line) to stderr and exit with ``code``;
    control characters in the message (a file or benchmark name quoted in it) are shown
    escaped."""
    from tsanalyze.report.text import printable

    typer.echo(f"tsanalyze: error: {printable(one_line(message))}", err=True)
    raise typer.Exit(code)


def resource_error(exc: BaseException) -> NoReturn:
    """Out of memory, or a worker process that died: one line and exit 2, not a traceback.

    A worker killed by the kernel's out-of-memory killer surfaces as ``BrokenProcessPool``
    (the local engine) or ``KilledWorker`` (dask); an allocation that fails in this
    process as ``MemoryError``. Neither is a bug in tsanalyze nor in the input's format:
    the input is too large for this machine as run.
    """
    if isinstance(exc, MemoryError):
        what = f"out of memory ({exc or 'MemoryError'})"
    else:
        what = (
            f"a worker process died ({type(exc).__name__}); the usual cause is the kernel "
            "killing it for using too much memory"
        )
    fail(
        f"{what}; try fewer or smaller files, -j 1 (one worker holds less), or a machine "
        "with more memory"
    )


def _is_resource_error(exc: BaseException) -> bool:
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(exc, (MemoryError, BrokenProcessPool)):
        return True
    # dask.distributed's KilledWorker, without importing dask
    return type(exc).__name__ == "KilledWorker"


def internal_error(exc: BaseException) -> NoReturn:
    """Report a bug: one line on stderr (the traceback too with TSANALYZE_TRACEBACK=1), exit 3."""
    if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
        typer.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
    where = "" if os.environ.get(TRACEBACK_ENV) else f"; set {TRACEBACK_ENV}=1 for the traceback"
    from tsanalyze.report.text import printable

    typer.echo(
        f"tsanalyze: internal error (a bug in tsanalyze, not in your input): "
        f"{type(exc).__name__}: {printable(exc)}. Please report it with the command you ran and "
        f"`tsanalyze --version`{where}",
        err=True,
    )
    raise typer.Exit(EXIT_INTERNAL_ERROR)


def _show_import_notes() -> None:
    """Print every :class:`~tsanalyze.errors.ImportNoteWarning` (a benchmark another tool
    reports as failed, in a file read directly by a command) as one line,
    ``tsanalyze: warning: <file>: ...``; other warnings are shown as Python shows them.
    Call inside ``warnings.catch_warnings()``, which restores the previous state."""
    from tsanalyze.errors import ImportNoteWarning

    shown = warnings.showwarning
    warnings.simplefilter("always", ImportNoteWarning)

    def show(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(category, type) and issubclass(category, ImportNoteWarning):
            typer.echo(f"tsanalyze: warning: {message}", err=True)
        else:
            shown(message, category, *args, **kwargs)

    warnings.showwarning = show


def guard(command: F) -> F:
    """Wrap a command: TsanalyzeError and OSError exit 2 with their message, any other
    exception is an internal error (exit 3); typer/click exits pass through."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            with warnings.catch_warnings():
                _show_import_notes()
                return command(*args, **kwargs)
        except (typer.Exit, typer.Abort):  # the vendored click's Exit and Abort are these
            raise
        except click_exceptions.ClickException:  # a usage error found late: exit 2
            raise
        except TsanalyzeError as exc:
            fail(str(exc))
        except OSError as exc:  # a file named by the user cannot be read or written
            fail(str(exc))
        except Exception as exc:
            if _is_resource_error(exc):
                resource_error(exc)
            internal_error(exc)

    return run  # type: ignore[return-value]


def _click_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(usage-error bases, abort classes) of the click that typer (>= 0.26) vendors as
    ``typer._click``: its exceptions are not those of a separately installed click."""
    return (click_exceptions.ClickException,), (typer.Abort,)


_CLICK_ERRORS, _ABORTS = _click_errors()


class OneLineErrors(TyperGroup):
    """The command group: click's usage errors (an unknown option, a missing argument, a
    bad choice) print one line, ``tsanalyze: error: <command>: <what> (see <command>
    --help)``, and exit 2, instead of click's usage block of three lines or more."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except _CLICK_ERRORS as exc:
            code = int(getattr(exc, "exit_code", EXIT_BAD_INPUT))
            if type(exc).__name__ == "NoArgsIsHelpError":  # `tsanalyze` alone: the help
                exc.show()  # type: ignore[attr-defined]
                sys.exit(code)
            ctx = getattr(exc, "ctx", None)
            where = ctx.command_path if ctx is not None else (prog_name or "tsanalyze")
            usage = "Usage" in type(exc).__name__ or hasattr(exc, "param_hint") or ctx is not None
            hint = f" (see `{where} --help`)" if usage else ""
            message = exc.format_message()  # type: ignore[attr-defined]
            typer.echo(f"tsanalyze: error: {one_line(where + ': ' + message)}{hint}", err=True)
            sys.exit(code)
        except _ABORTS:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)
