"""Importers: read other tools' timing files into the run format.

One module per format, one explicit registry (:data:`FORMATS`), content sniffing
(:func:`sniff`) and one entry point (:func:`load`). ``tsanalyze.read_runs`` calls
:func:`sniff` for every path that is not a Parquet run and :func:`load` for it, so every
command accepts these formats directly.

========================  ==============================================================
format name               files
========================  ==============================================================
``pyperf``                pyperf / pyperformance JSON (``.json``, ``.json.gz``)
``hyperfine``             ``hyperfine --export-json``
``gobench``               ``go test -bench`` output (benchstat input)
``gbench``                Google Benchmark JSON or CSV (``--benchmark_out_format``)
``criterion``             criterion.rs ``target/criterion`` directories, or a ``raw.csv``
``pytest-benchmark``      pytest-benchmark JSON (raw data needs ``--benchmark-save-data``)
``benchmarktools``        BenchmarkTools.jl ``BenchmarkTools.save`` JSON
``jmh``                   JMH (Java) ``-rf json`` result files
``values``                a JSON list of times, or a list of lists (one per fork); ``unit=``
``csv``                   CSV/TSV with a column mapping
``asv``                   asv (airspeed velocity) results directories, format versions 1, 2
========================  ==============================================================

Each imported run records ``source`` {tool, version if known, file} and the clock
source ``imported:<tool>``; see :mod:`tsanalyze.io.importers._imported` for the
conventions shared by all formats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze import schema
from tsanalyze.errors import ImportFormatError, InvalidArgumentError, InvalidRunError
from tsanalyze.io.checks import check_metadata, check_rows
from tsanalyze.io.footer import is_parquet
from tsanalyze.io.importers._files import read_head
from tsanalyze.io.importers._imported import ImportedRun, ImportedTable, Importer
from tsanalyze.io.importers.asv import AsvImporter
from tsanalyze.io.importers.benchmarktools import BenchmarkToolsImporter
from tsanalyze.io.importers.criterion import CriterionImporter
from tsanalyze.io.importers.csvtable import CsvImporter, parse_mapping
from tsanalyze.io.importers.gbench import GoogleBenchmarkImporter
from tsanalyze.io.importers.gobench import GoBenchImporter
from tsanalyze.io.importers.hyperfine import HyperfineImporter
from tsanalyze.io.importers.jmh import JmhImporter
from tsanalyze.io.importers.pyperf import PyperfImporter
from tsanalyze.io.importers.pytest_benchmark import PytestBenchmarkImporter, load_summaries
from tsanalyze.io.importers.values import ValuesImporter

__all__ = [
    "FORMATS",
    "ImportedRun",
    "ImportedTable",
    "Importer",
    "check_imported",
    "load",
    "load_summaries",
    "load_table",
    "parse_mapping",
    "sniff",
]

#: Registry: format name -> importer. The order is the sniffing order (most specific
#: content signatures first; ``csv`` goes by file extension and comes last).
FORMATS: dict[str, Importer] = {
    "benchmarktools": BenchmarkToolsImporter(),
    "jmh": JmhImporter(),
    "asv": AsvImporter(),
    "gbench": GoogleBenchmarkImporter(),
    "pytest-benchmark": PytestBenchmarkImporter(),
    "pyperf": PyperfImporter(),
    "hyperfine": HyperfineImporter(),
    "criterion": CriterionImporter(),
    "gobench": GoBenchImporter(),
    "values": ValuesImporter(),
    "csv": CsvImporter(),
}


#: Formats whose input may be a directory.
_DIRECTORY_FORMATS = ("asv", "criterion")


def sniff(path: Path | str) -> str | None:
    """Name of the format of ``path`` (a file or a criterion directory), or None.

    Parameters
    ----------
    path : path
        A file, or a criterion.rs results directory.

    Returns
    -------
    str or None
        A key of :data:`FORMATS`; None for a Parquet file, a missing path or an unknown
        format.

    Notes
    -----
    Looks at the first 64 KiB of the file (gunzipped if needed) for each format's
    signature keys, in the order of :data:`FORMATS`; directories are criterion.rs
    results when they hold ``**/new/sample.json``; ``csv`` goes by the extension
    (``.csv``, ``.tsv``, ``.tab``). Directories are asv results when they hold
    ``<machine>/machine.json`` beside ``benchmarks.json`` (or are a machine's directory).

    References
    ----------
    The formats' sources are cited in each importer module (pyperf, hyperfine, Go proposal
    14313 benchfmt, Google Benchmark, criterion.rs, pytest-benchmark, BenchmarkTools.jl).
    """
    path = Path(path)
    if path.is_dir():
        return next((f for f in _DIRECTORY_FORMATS if FORMATS[f].sniff(path, "")), None)
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            if fh.read(4) == b"PAR1":
                return None
        head = read_head(path)
    except OSError:
        return None
    for name, importer in FORMATS.items():
        if importer.sniff(path, head):
            return name
    return None


def load(path: Path | str, format: str = "auto", **kwargs: Any) -> list[ImportedRun]:
    """Read every run in another tool's file (or criterion directory).

    Parameters
    ----------
    path : path
        The file or directory to import.
    format : str
        A key of :data:`FORMATS`, or ``"auto"`` to :func:`sniff` it.
    **kwargs
        Format options: ``mapping`` (or ``time=``, ``benchmark=``, ...) for ``csv``,
        ``baseline`` for ``criterion``, ``unit`` for ``values``.

    Returns
    -------
    list of ImportedRun
        One entry per run, in file order, each with a run-format frame and metadata.

    Raises
    ------
    ImportFormatError
        The file is malformed or truncated (the message names the file, the line or
        JSON path and what was expected), its format is unknown, or it holds summary
        statistics only (pytest-benchmark without ``data``: use ``tsanalyze audit``).
    ValueError
        Unknown ``format`` or option.

    References
    ----------
    The formats' sources are cited in each importer module (pyperf, hyperfine, Go proposal
    14313 benchfmt, Google Benchmark, criterion.rs, pytest-benchmark, BenchmarkTools.jl).
    """
    return load_table(path, format, **kwargs).runs()


def load_table(path: Path | str, format: str = "auto", **kwargs: Any) -> ImportedTable:
    """Read every run in another tool's file into one frame (the fast path of :func:`load`).

    Parameters
    ----------
    path, format, **kwargs
        As for :func:`load`: the file or directory, the format (or ``"auto"``) and its
        options.

    Returns
    -------
    ImportedTable
        ``frame`` (the rows of all runs, run after run), ``metadata`` (run id ->
        metadata, in file order) and ``bounds`` (row offsets of the runs).

    Raises
    ------
    ImportFormatError, ValueError
        As :func:`load`.

    Notes
    -----
    Splitting a file into one DataFrame per run costs about 0.1 ms per run, which
    dominates for pyperf files of many runs; readers that concatenate the runs anyway
    (``read_runs``) should use this function.

    References
    ----------
    The formats' sources are cited in each importer module (pyperf, hyperfine, Go proposal
    14313 benchfmt, Google Benchmark, criterion.rs, pytest-benchmark, BenchmarkTools.jl).
    """
    path = Path(path)
    if not path.exists():
        raise ImportFormatError(f"{path}: no such file or directory")
    if format == "auto":
        found = sniff(path)
        if found is None and is_parquet(path):
            raise ImportFormatError(
                f"{path}: a Parquet file (a run file is already in the run format): nothing to "
                f"import; give it as it is to `tsanalyze report`, `compare` or `info`"
            )
        if found is None:
            raise ImportFormatError(
                f"{path}: expected a file in a known format ({', '.join(FORMATS)}); could not "
                "recognise it, give the format explicitly"
            )
        format = found
    importer = FORMATS.get(format)
    if importer is None:
        raise InvalidArgumentError(
            f"format: must be 'auto' or one of {', '.join(FORMATS)}, got {format!r}"
        )
    # an absurd value may overflow a unit conversion to inf: the checks refuse it by name
    with np.errstate(over="ignore", divide="ignore"):
        table = importer.load(path, **kwargs)
    check_imported(path, table)
    return table


def check_imported(path: Path | str, table: ImportedTable) -> None:
    """Apply the run format's checks to what an importer read (the checks ``read_runs``
    applies to run files), so that no importer can hand on a row a run file may not hold.

    Raises
    ------
    ImportFormatError
        With one line naming the file, the benchmark and the sample.
    """
    if not table.metadata:
        raise ImportFormatError(f"{path}: expected at least one run with samples")
    metas = list(table.metadata.values())
    cols = {str(c): str(t) for c, t in table.frame.dtypes.items()}
    try:
        problems = [p for p in schema.validate(cols, metas[0]) if p.startswith("column ")]
        if problems:
            raise InvalidRunError(f"{path}: " + "; ".join(problems))
        check_metadata(path, metas)
        check_rows(path, table.frame, list(table.metadata))
    except InvalidRunError as exc:
        if isinstance(exc, ImportFormatError):
            raise
        raise ImportFormatError(str(exc)) from None
