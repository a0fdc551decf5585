"""Option types and declarations that several commands share (one declaration each)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tsanalyze.errors import InvalidArgumentError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = [
    "ConfidenceOpt",
    "Engine",
    "EngineOpt",
    "Estimator",
    "EstimatorOpt",
    "FailOn",
    "FailOnOpt",
    "FormatOpt",
    "HtmlOpt",
    "JobsOpt",
    "OutputFormat",
    "PlotsOpt",
    "QuietOpt",
    "RawOpt",
    "SchedulerOpt",
    "SeedOpt",
    "seed_value",
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


class Engine(str, enum.Enum):
    """Who runs the per-series work: this machine's worker processes, or a Dask cluster."""

    local = "local"
    dask = "dask"


class FailOn(str, enum.Enum):
    """When to exit 1: ``regression``, a candidate run (file) slower than its baseline run
    on some benchmark; ``slower``, any comparison made with verdict slower, including two
    benchmarks of one run compared because they were declared alternatives or asked for."""

    never = "never"
    regression = "regression"
    slower = "slower"


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
FailOnOpt = Annotated[
    FailOn,
    typer.Option(
        "--fail-on",
        help="Exit 1 on a regression (a candidate run slower than its baseline run) or on any "
        "slower verdict (also for benchmarks compared within one run).",
    ),
]
JobsOpt = Annotated[
    int | None, typer.Option("--jobs", "-j", help="Worker processes (default: all cores).")
]
EngineOpt = Annotated[
    Engine,
    typer.Option(
        "--engine",
        help="Run the per-series work here (local) or as tasks of a Dask cluster (dask; "
        "needs pip install 'tsanalyze[dask]'). Same results either way.",
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="With --engine dask: address of a running Dask scheduler (tcp://host:8786); "
        "default $DASK_SCHEDULER_ADDRESS, else a local cluster of --jobs workers.",
        show_default=False,
    ),
]
SeedOpt = Annotated[
    str | None,
    typer.Option(
        "--seed",
        help="Seed of the bootstrap: an integer >= 0 (default 0, so the same input gives the "
        "same report) or 'random' for a fresh one; the seed used is in the report.",
        show_default=False,
    ),
]


def seed_value(text: str | None) -> int | np.random.Generator | None:
    """What ``--seed`` asks for: None (the default seed), an int, or a fresh Generator."""
    if text is None:
        return None
    if text.strip().lower() == "random":
        import numpy as np

        return np.random.default_rng()
    value = text.strip()
    if not value.isdigit():
        raise InvalidArgumentError(f"--seed: expected an integer >= 0 or 'random', got {text!r}")
    return int(value)


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
