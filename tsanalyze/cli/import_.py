"""``tsanalyze import FORMAT|auto FILES… -o OUTPUT``: convert other tools' files to runs.

Every input is read and checked before anything is written: a malformed or truncated
file exits with code 2, a one-line message naming the file, the line or JSON path and
what was expected, and no output at all. Output naming:

* ``-o out.parquet`` and the inputs hold one run: that file;
* ``-o out.parquet`` and several runs: ``out-001.parquet``, ``out-002.parquet``, ...;
* ``-o DIR`` (anything not ending in ``.parquet``): one file per run in ``DIR``, named
  after the input (``telco-001.parquet`` ...; ``old.parquet`` for a one-run input).
"""

from __future__ import annotations

import contextlib
import enum
from pathlib import Path
from typing import Annotated

import typer

from tsanalyze.cli._errors import fail
from tsanalyze.errors import RunExistsError, TsanalyzeError
from tsanalyze.io import importers
from tsanalyze.io.importers import ImportedRun

__all__ = ["ImportFormat", "import_", "output_paths"]

ImportFormat = enum.Enum(  # type: ignore[misc]
    "ImportFormat",
    {name.replace("-", "_"): name for name in ("auto", *importers.FORMATS)},
    type=str,
)


def output_paths(output: Path, sources: list[tuple[Path, int]]) -> list[Path]:
    """Destination of every run: ``sources`` lists (input path, number of runs)."""
    total = sum(n for _, n in sources)
    if output.suffix == ".parquet":
        if total == 1:
            return [output]
        width = max(3, len(str(total)))
        return [
            output.with_name(f"{output.stem}-{i:0{width}d}.parquet") for i in range(1, total + 1)
        ]
    out: list[Path] = []
    seen: set[str] = set()
    for src, n in sources:
        stem = src.name.split(".")[0] or src.name
        base = stem
        k = 2
        while base in seen:
            base = f"{stem}_{k}"
            k += 1
        seen.add(base)
        if n == 1:
            out.append(output / f"{base}.parquet")
        else:
            width = max(3, len(str(n)))
            out.extend(output / f"{base}-{i:0{width}d}.parquet" for i in range(1, n + 1))
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
        typer.Option("-o", "--output", help="OUTPUT.parquet, or a directory for one file per run."),
    ],
    mapping: Annotated[
        str | None,
        typer.Option(
            "--map", help="CSV column mapping, e.g. time=col,benchmark=col,evals=col,unit=ns."
        ),
    ] = None,
    baseline: Annotated[str, typer.Option(help="criterion.rs baseline directory to read.")] = "new",
    overwrite: Annotated[bool, typer.Option(help="Replace existing output files.")] = False,
) -> None:
    """Import other tools' timing files (pyperf, hyperfine, Go bench, Google Benchmark,
    criterion.rs, pytest-benchmark, BenchmarkTools.jl, JMH, CSV) into the run format."""
    from tsanalyze.io.runs import write_run

    fmt = str(format.value)
    runs: list[ImportedRun] = []
    sources: list[tuple[Path, int]] = []
    for path in files:
        name = importers.sniff(path) if fmt == "auto" else fmt
        options: dict[str, object] = {}
        if mapping is not None:
            if name != "csv":
                fail(
                    f"{path}: --map applies to CSV/TSV input only (this file is {name or 'unrecognised'})"
                )
            options["mapping"] = importers.parse_mapping(mapping)
        if baseline != "new" and name == "criterion":
            options["baseline"] = baseline
        got = importers.load(path, fmt, **options)
        runs.extend(got)
        sources.append((path, len(got)))
    targets = output_paths(output, sources)
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
        for run, target in zip(runs, targets, strict=True):
            current = target
            written.append(write_run(run.frame, target, run.metadata, overwrite=overwrite))
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
    n_samples = sum(len(r.frame) for r in runs)
    where = (
        targets[0]
        if len(targets) == 1
        else f"{len(targets)} files ({targets[0].name} ... {targets[-1].name}) in {targets[0].parent}"
    )
    typer.echo(
        f"imported {len(runs)} run(s), {n_samples} samples from {len(files)} file(s) -> {where}"
    )
