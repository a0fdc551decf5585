"""Fixtures of the CLI tests: run files written from the simulator, and one way to invoke."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tsanalyze.cli.app import app
from tsanalyze.datasets import simulate_run
from tsanalyze.io.runs import write_run


@pytest.fixture(scope="session")
def write_sim() -> Callable[..., Path]:
    """``write_sim(path, benchmarks, rng=..., **simulate_run_options)``: a simulated run file.

    500 interleaved rounds of Gaussian noise (1% of the truth) unless the options say
    otherwise.
    """

    def write(path: Path, benchmarks: dict[str, float], *, rng: int, **options: object) -> Path:
        options = {"n_rounds": 500, "noise": "gaussian", "scale": 0.01, **options}
        sim = simulate_run(benchmarks, rng=rng, **options)  # type: ignore[arg-type]
        (meta,) = sim.frame.attrs["runs"].values()
        write_run(sim.frame, path, meta)
        return path

    return write


@pytest.fixture(scope="session")
def cli() -> Callable[..., Result]:
    """``cli("report", path, "-f json --seed 1")``: ``tsanalyze`` through typer's CliRunner.

    A str is split into arguments as a shell line would be; a Path is one argument.
    """
    runner = CliRunner()

    def invoke(*args: str | Path) -> Result:
        argv = [s for a in args for s in ([str(a)] if isinstance(a, Path) else shlex.split(a))]
        return runner.invoke(app, argv)

    return invoke


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """One in-process Dask cluster (two single-threaded workers in this process) for every
    Dask test of the session; skipped without dask.distributed."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()
