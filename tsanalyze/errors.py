"""The exception hierarchy of tsanalyze.

Every error a user can cause derives from :class:`TsanalyzeError` and carries a
one-line message that names the file (and column, row or key) or the parameter, and what
is wrong. The CLI turns any :class:`TsanalyzeError` into that message on stderr and exit
code 2; any other exception is a bug in tsanalyze and exits 3 with a short "internal
error, please report" line. So raise a :class:`TsanalyzeError` for what the user can
fix, and let everything else surface as the bug it is. The errors about values also
derive from ``ValueError`` (scipy's input checks raise ``ValueError``, and callers catch
it). This module is a stdlib-only leaf so that every layer, the collector included, may
raise these.
"""

from __future__ import annotations

__all__ = [
    "AuditInputError",
    "AuditInputWarning",
    "CollectorError",
    "ImportFormatError",
    "ImportNoteWarning",
    "InvalidArgumentError",
    "InvalidRunError",
    "NotEnoughData",
    "RunExistsError",
    "TsanalyzeError",
]


class TsanalyzeError(Exception):
    """Base class of every error tsanalyze raises on purpose."""


class InvalidArgumentError(TsanalyzeError, ValueError):
    """An argument of a tsanalyze function cannot be used: a value out of range, NaN in a
    series, an unknown name (of an estimator, a benchmark, a baseline). The message names
    the parameter first (``"confidence_level: must be strictly between 0 and 1, got 2"``).
    """


class InvalidRunError(TsanalyzeError, ValueError):
    """A run file (or a set of them) is missing, unreadable or violates the run format."""


class ImportFormatError(InvalidRunError):
    """A file in another tool's format is malformed: names the file, the line or JSON path
    and what was expected."""


class RunExistsError(TsanalyzeError, FileExistsError):
    """Writing would overwrite an existing run and ``overwrite`` was not given."""


class NotEnoughData(TsanalyzeError, ValueError):
    """A method needs more samples than it was given.

    Analyses usually return a result carrying a warning instead of raising this; it is
    raised only where no meaningful result can exist (e.g. an empty series).
    """


class AuditInputError(TsanalyzeError, ValueError):
    """A row of published numbers given to the audit is malformed: names row and field."""


class AuditInputWarning(UserWarning):
    """A line or column of published numbers was skipped (the message names the file and
    line); the rest was read."""


class ImportNoteWarning(UserWarning):
    """A file in another tool's format was read, but the tool reports some of its
    benchmarks as failed or skipped (the message names the file and the benchmark)."""


class CollectorError(TsanalyzeError):
    """The collector could not record a run (a failing target, a bad target spec, ...)."""
