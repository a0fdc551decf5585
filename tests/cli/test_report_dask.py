"""``engine="dask"`` and ``report --engine dask`` (issue 19): the local engine's report, as Dask tasks.

One in-process LocalCluster (two single-threaded workers in this process, the `dask_client`
fixture of conftest.py) serves every test.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

import tsanalyze
from tsanalyze.analysis.runset import analyze
from tsanalyze.analysis.runset.dask_engine import INSTALL_HINT, DaskRunner
from tsanalyze.datasets import simulate_run, simulate_trials
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.io.series_source import parquet_series

distributed = pytest.importorskip("distributed")

SAMPLES = sorted((Path(__file__).parents[2] / "data" / "samples").glob("*.parquet"))


@pytest.fixture
def client(dask_client: Any) -> Any:
    return dask_client


def _doc(result: Any) -> str:
    # JSON text: NaN compares equal to itself there, unlike in the dicts
    return json.dumps(result.to_dict(), sort_keys=True)


def test_samples_identical_to_local_engine(client: Any) -> None:
    assert SAMPLES, "data/samples/*.parquet missing"
    df = tsanalyze.read_runs(SAMPLES)
    local = analyze(df, rng=7, jobs=1)
    ticks: list[tuple[int, int]] = []
    dask = analyze(
        df, rng=7, engine="dask", client=client, progress=lambda d, t: ticks.append((d, t))
    )
    assert _doc(dask) == _doc(local)
    assert len(local.series) > len(SAMPLES) and local.comparisons
    assert ticks[-1][0] == ticks[-1][1] == len(local.series) + len(local.comparisons)
    assert client.status == "running"  # a client given is left open
    # the files planned from their footers, each series read by its task on a worker
    planned = parquet_series(SAMPLES)
    assert planned is not None and planned.n_samples == len(df)
    assert _doc(analyze(planned, rng=7, engine="dask", client=client)) == _doc(local)


def test_simulated_run_set_identical_to_local_engine(client: Any) -> None:
    # four runs of two alternatives, one shifted: series, trials across runs, benchmark
    # comparisons within each run and run-against-run comparisons, Holm families
    sim = simulate_trials(4, benchmarks={"a": 1000.0, "b": 1100.0}, n_rounds=300, rng=5)
    df = sim.frame
    local = analyze(df, rng=11, jobs=1, baseline_benchmark="a")
    dask = analyze(df, rng=11, engine="dask", client=client, baseline_benchmark="a")
    assert local.comparisons and local.trials  # the reduction had something to do
    assert {c.kind for c in local.comparisons} == {"benchmark", "run"}
    assert _doc(dask) == _doc(local)
    # a different seed gives a different document: the check above can fail
    other = analyze(df, rng=12, engine="dask", client=client, baseline_benchmark="a")
    assert _doc(other) != _doc(local)


def test_runner_keeps_item_order(client: Any) -> None:
    runner = DaskRunner(client)
    done: list[int] = []
    out = runner.map(_square, list(range(20)), lambda: done.append(1))
    runner.close()
    assert out == [i * i for i in range(20)] and len(done) == 20
    assert client.status == "running"


def _square(i: int) -> int:
    return i * i


def test_unknown_engine() -> None:
    df = simulate_run({"a": 1000.0}, n_rounds=100, rng=1).frame
    with pytest.raises(InvalidArgumentError, match="engine"):
        analyze(df, engine="spark")


Cli = Callable[..., Result]


def test_cli_scheduler_option_and_environment(
    client: Any, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = client.scheduler.address
    files = " ".join(str(p) for p in SAMPLES)
    local = cli("report", f"{files} -f json -q -j 1 --seed 3")
    assert local.exit_code == 0, local.output
    by_option = cli("report", f"{files} -f json -q --seed 3 --engine dask --scheduler {address}")
    assert by_option.exit_code == 0, by_option.output
    assert by_option.stdout == local.stdout
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", address)
    by_env = cli("report", f"{files} -f json -q --seed 3 --engine dask")
    assert by_env.exit_code == 0, by_env.output
    assert by_env.stdout == local.stdout
    assert client.status == "running"


def test_cli_without_dask_says_how_to_install(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    res = cli("report", SAMPLES[0], "--engine dask -q")
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [f"tsanalyze: error: {INSTALL_HINT}"]
    assert "pip install 'tsanalyze[dask]'" in res.output


def test_worker_process_identical_to_local_engine() -> None:
    # a worker in another process: the jobs travel pickled, their arrays arrive as views
    # of the message (the in-process cluster above hands over the objects themselves)
    sim = simulate_trials(2, benchmarks={"a": 1000.0, "b": 1010.0}, n_rounds=4000, rng=9)
    local = analyze(sim.frame, rng=2, jobs=1, baseline_benchmark="a")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        dask = analyze(sim.frame, rng=2, engine="dask", client=c, baseline_benchmark="a")
        # the series' readers pickled to that process, each series read there
        read_there = analyze(parquet_series(SAMPLES), rng=2, engine="dask", client=c)
    assert _doc(dask) == _doc(local)
    assert _doc(read_there) == _doc(analyze(tsanalyze.read_runs(SAMPLES), rng=2, jobs=1))


def test_local_cluster_workers_get_the_malloc_setting() -> None:
    # Dask's nanny sets MALLOC_TRIM_THRESHOLD_ (glibc's adaptive mmap threshold off): the
    # cluster report and history start give their workers a fixed mmap threshold instead
    import os

    from tsanalyze.analysis.runset.dask_engine import WORKER_ENV, close_owned, dask_client

    c, owned = dask_client(workers=1)
    try:
        seen = c.run(lambda: {k: os.environ.get(k) for k in WORKER_ENV})
    finally:
        close_owned(c)
    assert owned and list(seen.values()) == [WORKER_ENV]
