"""``--engine dask`` with Parquet run files (issue 19): the workers read their own series.

The client plans from the files' footers (:func:`tsanalyze.io.series_source.parquet_series`)
and sends each task a small description of its series; the worker reads that series with
a pyarrow dataset filter. Files may be URLs: ``file://`` and fsspec's ``memory://`` (the
in-process workers share this process's memory filesystem). The report must be the local
engine's, to the byte (the bundled samples: tests/cli/test_report_dask.py).
"""

from __future__ import annotations

import json
import pickle
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

import tsanalyze
from tsanalyze.analysis.runset import analyze, plan
from tsanalyze.datasets import simulate_trials
from tsanalyze.errors import InvalidRunError
from tsanalyze.io.runs import write_runs
from tsanalyze.io.series_source import parquet_series

distributed = pytest.importorskip("distributed")
fsspec = pytest.importorskip("fsspec")

SAMPLES = sorted((Path(__file__).parents[2] / "data" / "samples").glob("*.parquet"))
Cli = Callable[..., Result]


@pytest.fixture
def client(dask_client: Any) -> Any:
    return dask_client


@pytest.fixture(scope="module")
def trials_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two files (sides) of two runs each (trials), two interleaved alternatives, the new
    side's "b" 5% slower: series, trials, benchmark and run-level comparisons."""
    out = tmp_path_factory.mktemp("trials")
    for k, (name, b) in enumerate((("old", 1100.0), ("new", 1155.0))):
        # evals=7: per-evaluation times off the 1 ns grid (run medians not all equal)
        sim = simulate_trials(
            2, benchmarks={"a": 1000.0, "b": b}, n_rounds=400, evals=7, rng=20 + k
        )
        write_runs(sim.frame, out / f"{name}.parquet", sim.frame.attrs["runs"].values())
    return out


def _doc(result: Any, replace: tuple[str, str] = ("", "")) -> str:
    text = json.dumps(result.to_dict(), sort_keys=True)
    return text.replace(*replace) if replace[0] else text


def test_tasks_carry_descriptions_not_samples(trials_dir: Path) -> None:
    planned = parquet_series(sorted(trials_dir.glob("*.parquet")))
    assert planned is not None
    lay = plan.source_layout(planned, None)
    jobs = plan.read_series_jobs(planned, lay, range(len(lay.keys)), "median", 0.95, False)
    assert len(jobs) == 8
    for job in jobs:
        # a path, a run, a benchmark and the run's metadata; 400 samples would be 3 kB more
        assert len(pickle.dumps(job)) < 2500
        series = job.job()  # what the worker does: read that series, and only it
        assert series.x.size == 400 and series.run == job.run
        assert series.benchmark == job.benchmark


def test_simulated_sides_identical_to_local_engine(client: Any, trials_dir: Path) -> None:
    files = sorted(trials_dir.glob("*.parquet"), reverse=True)  # old first: the baseline
    local = analyze(tsanalyze.read_runs(files), rng=11, jobs=1, baseline_benchmark="a")
    assert {c.kind for c in local.comparisons} == {"benchmark", "run"} and local.trials
    planned = parquet_series(files)
    dask = analyze(planned, rng=11, engine="dask", client=client, baseline_benchmark="a")
    assert _doc(dask) == _doc(local)
    # the check above can fail: the same jobs on the local engine, another seed
    assert _doc(analyze(planned, rng=12, jobs=1, baseline_benchmark="a")) != _doc(local)


def test_memory_and_file_urls(client: Any, trials_dir: Path) -> None:
    files = sorted(trials_dir.glob("*.parquet"), reverse=True)
    local = _doc(analyze(tsanalyze.read_runs(files), rng=3, jobs=1))
    mem = fsspec.filesystem("memory")
    root = f"/tsa-{uuid.uuid4().hex}"
    for f in files:
        mem.pipe(f"{root}/{f.name}", f.read_bytes())
    try:
        urls = [f"memory://{root}/{f.name}" for f in files]
        dask = analyze(parquet_series(urls), rng=3, engine="dask", client=client)
        assert _doc(dask, (f"memory://{root}/", f"{trials_dir}/")) == local
    finally:
        mem.rm(root, recursive=True)
    file_urls = [f"file://{f}" for f in files]
    by_file_url = analyze(parquet_series(file_urls), rng=3, engine="dask", client=client)
    assert _doc(by_file_url, ("file://", "")) == local
    # a directory URL: its *.parquet files, sorted (new before old: another baseline)
    by_dir = parquet_series(f"file://{trials_dir}")
    assert by_dir is not None and sorted(by_dir.keys) == sorted(parquet_series(files).keys)


def test_cli_reads_on_workers_same_report(client: Any, cli: Cli, trials_dir: Path) -> None:
    address = client.scheduler.address
    old, new = trials_dir / "old.parquet", trials_dir / "new.parquet"
    local = cli("report", old, new, "-f json -q -j 1 --seed 5 --baseline-benchmark a")
    assert local.exit_code == 0, local.output
    dask = cli(
        "report", f"file://{old}", f"file://{new}",
        f"-f json -q --seed 5 --baseline-benchmark a --engine dask --scheduler {address}",
    )  # fmt: skip
    assert dask.exit_code == 0, dask.output
    assert dask.stdout.replace("file://", "") == local.stdout
    assert json.loads(local.stdout)["comparisons"]


def test_url_errors_one_line(cli: Cli, tmp_path: Path) -> None:
    missing = cli("report", f"file://{tmp_path}/nope.parquet", "-q --engine dask")
    assert missing.exit_code == 2 and "nope.parquet: no such file" in missing.output
    assert len(missing.output.strip().splitlines()) == 1
    ref = cli("report", f"file://{SAMPLES[0]}", "-q --reference x")
    assert ref.exit_code == 2 and "give local paths" in ref.output


def test_inputs_read_by_the_client(tmp_path: Path, trials_dir: Path) -> None:
    # another tool's file: None (read_runs imports it); a run in two files: None too
    other = tmp_path / "times.csv"
    other.write_text("x\n1\n")
    assert parquet_series([other]) is None
    twin = tmp_path / "twin.parquet"
    twin.write_bytes((trials_dir / "old.parquet").read_bytes())
    assert parquet_series([trials_dir / "old.parquet", twin]) is None
    with pytest.raises(InvalidRunError, match="also in"):
        parquet_series([f"file://{trials_dir / 'old.parquet'}", f"file://{twin}"])
