"""What an importer returns (:class:`ImportedRun`, :class:`ImportedTable`) and provides
(the :class:`Importer` protocol), and the conventions every importer follows.

Conventions shared by all importers
-----------------------------------
* ``ns`` is the elapsed time of the whole sample, i.e. the tool's per-evaluation time
  times ``evals``. Every tool imported here already reports per-evaluation times from
  which it removed (or never measured) its own timer overhead, so the metadata records
  ``timer.overhead_ns = 0`` and the reader's overhead correction is a no-op.
* ``ticks`` and ``start_ticks`` are null (the raw clock readings are not available).
* Every row has an extra ``kind`` column: ``"value"``, or for pyperf ``"warmup"`` /
  ``"calibration"``; ``read_runs`` keeps only values unless asked for warm-ups.
* Samples are not interleaved: ``round == sample`` and ``position == 0``.
* Run ids are deterministic: a UUID5 of the resolved file path and the run's index in
  the file, so importing the same file twice gives the same ids.
* Malformed input raises :class:`~tsanalyze.errors.ImportFormatError` whose message names
  the file, the line (text formats) or JSON path, and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from tsanalyze import schema
from tsanalyze.errors import InvalidArgumentError

__all__ = ["RESERVED_COLUMNS", "ImportedRun", "ImportedTable", "Importer", "refuse_options"]

#: Column names an importer may not give to an extra measure: the run format's columns
#: and ``kind`` (value / warmup / calibration).
RESERVED_COLUMNS = frozenset(schema.COLUMN_NAMES) | {"kind", "time_ns", "time_ns_raw"}


@dataclass(frozen=True, slots=True)
class ImportedRun:
    """One run read from another tool's file.

    Attributes
    ----------
    frame : pandas.DataFrame
        Rows in the run format (v1 columns of :mod:`tsanalyze.schema`) plus the
        importer's extra columns (``kind`` for pyperf, ``user_ns``/``sys_ns`` for
        hyperfine, ``bytes_per_op`` ... for Go, ``cpu_ns`` for Google Benchmark, ...).
    metadata : dict
        Run metadata, valid per :func:`tsanalyze.schema.validate_metadata`.

    References
    ----------
    The run format: ``tsanalyze.schema`` and DESIGN.md, "The run format (schema version 1)".
    """

    frame: pd.DataFrame
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ImportedTable:
    """All runs read from one file, as one frame (fast to concatenate).

    Attributes
    ----------
    frame : pandas.DataFrame
        The rows of every run, run after run (same columns as :class:`ImportedRun`).
    metadata : dict
        Run id -> metadata, in file order.
    bounds : tuple of int
        Row offsets: run ``i`` is ``frame.iloc[bounds[i]:bounds[i + 1]]``.
    notes : tuple of str
        One line per thing the user must hear about that is not an error: a benchmark
        the tool reports as failed (skipped, or imported with its failing exit codes).
        Each line names the file; ``tsanalyze import`` prints them as warnings.

    References
    ----------
    The run format: ``tsanalyze.schema`` and DESIGN.md, "The run format (schema version 1)".
    """

    frame: pd.DataFrame
    metadata: dict[str, dict[str, Any]]
    bounds: tuple[int, ...]
    notes: tuple[str, ...] = ()

    def runs(self) -> list[ImportedRun]:
        """One :class:`ImportedRun` per run, each with its own 0-based frame."""
        b = self.bounds
        out: list[ImportedRun] = []
        for i, meta in enumerate(self.metadata.values()):
            part = self.frame.iloc[b[i] : b[i + 1]]
            part.index = pd.RangeIndex(b[i + 1] - b[i])  # a new axis: the parent is untouched
            out.append(ImportedRun(part, meta))
        return out


class Importer(Protocol):
    """What a format module provides (registered in ``FORMATS``)."""

    name: str
    tool: str
    description: str

    def sniff(self, path: Path, head: str) -> bool:
        """True when ``head`` (the first ~64 KiB, decompressed, decoded) looks like this format."""
        ...

    def load(self, path: Path, **options: Any) -> ImportedTable:
        """Read every run in ``path``; raise ImportFormatError on malformed input."""
        ...


def refuse_options(fmt: str, options: dict[str, Any], takes: str = "no options") -> None:
    """Refuse the options an importer does not know: ``"<fmt> import takes <takes>, got
    [...]"`` (``takes`` says which it does take, e.g. ``"only the option 'unit'"``)."""
    if options:
        raise InvalidArgumentError(f"{fmt} import takes {takes}, got {sorted(options)}")
