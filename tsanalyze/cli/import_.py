"""``tsanalyze import FORMAT|auto FILES… -o OUTPUT``: convert other tools' files to runs.

Every input is read and checked before anything is written: a malformed or truncated
file exits with code 2, a one-line message naming the file, the line or JSON path and
what was expected, and no output at all. ``-o`` means what it says:

* ``-o out.parquet``: one file, ``out.parquet``, holding every run of the one input (the
  worker processes of a pyperf file, the forks of a JMH file: the trials of one side);
  several inputs with one output file are refused (give a directory);
* ``-o DIR`` (anything not ending in ``.parquet``): one file per input in ``DIR``, named
  after it (``DIR/telco.parquet``; ``telco_2.parquet`` when two inputs share a name).

Benchmarks an input reports as failed (a Google Benchmark error, a ``--- FAIL`` of
``go test``, a hyperfine command with non-zero exit codes) are not passed over in
silence: one warning line each on stderr, naming the file.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
from pathlib import Path
from typing import Annotated

import typer

from tsanalyze.cli._errors import fail
from tsanalyze.errors import InvalidArgumentError, RunExistsError, TsanalyzeError
from tsanalyze.io import importers
from tsanalyze.io.importers import ImportedTable

__all__ = ["ImportFormat", "import_", "output_paths"]

ImportFormat = enum.Enum(  # type: ignore[misc]
    "ImportFormat",
    {name.replace("-", "_"): name for name in ("auto", *importers.FORMATS)},
    type=str,
)


#: extensions taken off an input's name for its run file (``bench.json.gz`` -> ``bench``);
#: other dots are part of the name (asv's ``0010721e-conda-py3.10.json`` keeps ``py3.10``)
_DATA_SUFFIXES = frozenset(
    {".json", ".jsonl", ".csv", ".tsv", ".txt", ".log", ".out", ".stdout", ".xml", ".parquet",
     ".gz", ".bz2", ".xz", ".zst"}
)  # fmt: skip


def _stem(src: Path) -> str:
    name = src.name
    while (suffix := Path(name).suffix).lower() in _DATA_SUFFIXES and name != suffix:
        name = name[: -len(suffix)]
    return name


#: longest file name (bytes) of the usual file systems (NAME_MAX of ext4, XFS, APFS, NTFS)
_NAME_MAX = 255


def _fitting(base: str) -> str:
    """``base`` when ``<base>.parquet`` fits in :data:`_NAME_MAX` bytes, else its longest
    prefix that does, followed by ``~`` and 8 hex digits of a hash of the whole name (so
    that two long names differing at their end stay two files)."""
    if len(f"{base}.parquet".encode()) <= _NAME_MAX:
        return base
    tag = "~" + hashlib.sha256(base.encode()).hexdigest()[:8]
    room = _NAME_MAX - len(".parquet") - len(tag)
    return base.encode()[:room].decode("utf-8", errors="ignore") + tag


def output_paths(output: Path, sources: list[Path]) -> list[Path]:
    """Destination of every input file: ``output`` itself for one input and a ``.parquet``
    name, else ``output/<input name>.parquet`` (``_2``, ``_3``... for repeated names), the
    input name without its data extensions (``.json``, ``.csv``, ``.gz``, ...), shortened
    (with a hash of it) when the file system could not hold the name."""
    if output.suffix.lower() == ".parquet":
        if len(sources) != 1:
            raise InvalidArgumentError(
                f"--output: {output} names one file but {len(sources)} input files were given; "
                "give a directory (-o DIR) to write one run file per input"
            )
        return [output]
    if output.exists() and not output.is_dir():
        raise InvalidArgumentError(
            f"--output {output}: is a file but not a directory; give a directory (one run "
            "file per input) or a name ending in .parquet"
        )
    out: list[Path] = []
    seen: set[str] = set()
    for src in sources:
        stem = _stem(src)
        base = stem
        k = 2
        while base in seen:
            base = f"{stem}_{k}"
            k += 1
        seen.add(base)
        out.append(output / f"{_fitting(base)}.parquet")
    return out


def import_(
    format: Annotated[
        ImportFormat,
        typer.Argument(help="Input format, or 'auto' to recognise each file by its content."),
    ],
    files: Annotated[
        list[Path], typer.Argument(help="Files (or criterion.rs directories) to import.")
    ],
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            help="OUTPUT.parquet (one input: all its runs in one file), or a directory "
            "(one run file per input).",
        ),
    ],
    mapping: Annotated[
        str | None,
        typer.Option(
            "--map", help="CSV column mapping, e.g. time=col,benchmark=col,evals=col,unit=ns."
        ),
    ] = None,
    unit: Annotated[
        str | None,
        typer.Option(
            "--unit",
            help="Time unit of a plain JSON list of times (ns, us, ms, s; required for the "
            "'values' format) or of a CSV time column (as --map unit=...).",
        ),
    ] = None,
    baseline: Annotated[str, typer.Option(help="criterion.rs baseline directory to read.")] = "new",
    overwrite: Annotated[bool, typer.Option(help="Replace existing output files.")] = False,
) -> None:
    """Import other tools' timing files (pyperf, hyperfine, Go bench, Google Benchmark,
    criterion.rs, pytest-benchmark, BenchmarkTools.jl, JMH, CSV, a JSON list of times)
    into the run format."""
    from tsanalyze.io.runs import write_runs

    fmt = str(format.value)
    tables: list[ImportedTable] = []
    for path in files:
        name = importers.sniff(path) if fmt == "auto" else fmt
        options: dict[str, object] = {}
        if mapping is not None:
            if name != "csv":
                fail(
                    f"{path}: --map applies to CSV/TSV input only (this file is {name or 'unrecognised'})"
                )
            options["mapping"] = importers.parse_mapping(mapping)
        if unit is not None:
            if name not in ("csv", "values"):
                fail(
                    f"{path}: --unit applies to CSV/TSV input and JSON lists of times only "
                    f"(this file is {name or 'unrecognised'}; its format says its unit)"
                )
            if name == "csv":
                given = dict(options.get("mapping") or {})  # type: ignore[call-overload]
                if "unit" in given and given["unit"] != unit:
                    fail(f"{path}: --unit {unit} and --map unit={given['unit']} disagree")
                options["mapping"] = {**given, "unit": unit}
            else:
                options["unit"] = unit
        if baseline != "new" and name == "criterion":
            options["baseline"] = baseline
        tables.append(importers.load_table(path, fmt, **options))
    for table in tables:
        for note in table.notes:
            typer.echo(f"tsanalyze: warning: {note}", err=True)
    targets = output_paths(output, list(files))
    if not overwrite:
        for t in targets:
            if t.exists():
                raise RunExistsError(f"{t}: already exists; nothing written (use --overwrite)")
    written: list[Path] = []
    new_dirs = sorted(
        {a for t in targets for a in t.parents if not a.exists()},
        key=lambda d: len(d.parts),
        reverse=True,  # deepest first, so that rmdir can remove them in turn
    )
    current = targets[0]
    try:
        for table, target in zip(tables, targets, strict=True):
            current = target
            written.append(
                write_runs(table.frame, target, table.metadata.values(), overwrite=overwrite)
            )
    except BaseException as exc:
        if not overwrite:
            for w in written:
                w.unlink(missing_ok=True)
            for d in new_dirs:
                with contextlib.suppress(OSError):
                    d.rmdir()
        if isinstance(exc, OSError) and not isinstance(exc, TsanalyzeError):
            kept = "nothing written" if not overwrite else f"{len(written)} file(s) replaced"
            fail(f"{current}: cannot write ({exc.strerror or exc}); {kept}")
        raise
    n_runs = sum(len(t.metadata) for t in tables)
    n_samples = sum(len(t.frame) for t in tables)
    where = (
        targets[0]
        if len(targets) == 1
        else f"{len(targets)} files ({targets[0].name} ... {targets[-1].name}) in {targets[0].parent}"
    )
    typer.echo(
        f"imported {n_runs} run(s), {n_samples} samples from {len(files)} file(s) -> {where}"
    )
