"""Option types and declarations that several commands share (one declaration each)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "ConfidenceOpt",
    "Estimator",
    "EstimatorOpt",
    "FailOn",
    "FormatOpt",
    "HtmlOpt",
    "JobsOpt",
    "OutputFormat",
    "PlotsOpt",
    "QuietOpt",
    "RawOpt",
    "SeedOpt",
]


class OutputFormat(str, enum.Enum):
    """Output formats of the reporting commands."""

    table = "table"
    json = "json"


class Estimator(str, enum.Enum):
    """Location estimators offered on the command line."""

    median = "median"
    min = "min"
    mean = "mean"
    trimmed_mean = "trimmed_mean"


class FailOn(str, enum.Enum):
    """When to exit 1."""

    never = "never"
    regression = "regression"


# Options shared by `report` and `compare`
FormatOpt = Annotated[
    OutputFormat, typer.Option("--format", "-f", help="Terminal table or JSON document.")
]
HtmlOpt = Annotated[
    Path | None, typer.Option("--html", help="Also write a self-contained HTML report here.")
]
PlotsOpt = Annotated[
    Path | None,
    typer.Option("--plots", help="Also write the figures as SVG files into this directory."),
]
EstimatorOpt = Annotated[Estimator, typer.Option("--estimator", help="Location estimator.")]
ConfidenceOpt = Annotated[float, typer.Option("--confidence-level", help="Of every CI.")]
RawOpt = Annotated[
    bool, typer.Option("--raw", help="Analyse whole series, not their stable segments.")
]
JobsOpt = Annotated[
    int | None, typer.Option("--jobs", "-j", help="Worker processes (default: all cores).")
]
SeedOpt = Annotated[
    int | None, typer.Option("--seed", help="Seed of the bootstrap (recorded in the report).")
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
