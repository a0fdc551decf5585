"""``tsanalyze recover FILE.partial [--output RUN.parquet]``."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["recover"]


def recover(
    partial: Annotated[
        str, typer.Argument(help="The .partial a collection left beside its output.")
    ],
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Run file to write (default: the name the collection was writing). "
            "Never overwritten.",
        ),
    ] = None,
) -> None:
    """Turn the .partial of a collection that did not finish into a run file.

    Keeps every finished round the collector had flushed (a damaged or incomplete last
    block is dropped and reported). The .partial is left in place.
    """
    from tsanalyze.collector import recover as recover_partial

    rec = recover_partial(partial, output)
    typer.echo(
        f"wrote {rec.path}: run {rec.run}, {rec.rounds} rounds, {rec.samples} samples "
        f"recovered from {rec.partial} (which can now be deleted)"
    )
    if rec.truncated:
        typer.echo(
            f"tsanalyze: warning: {rec.partial} ended in an incomplete or damaged block; "
            "it was dropped (at most the samples of one flush)",
            err=True,
        )
