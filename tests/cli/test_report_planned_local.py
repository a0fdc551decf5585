"""The local engine plans large Parquet inputs (issue 19): from ``LOCAL_PLAN_ROWS`` rows
its workers read their own series, and the report is the one made from files read whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

import tsanalyze.cli.report as report_cli
from tsanalyze.datasets import simulate_trials
from tsanalyze.io.runs import write_runs
from tsanalyze.io.series_source import ParquetSeries

SAMPLES = sorted((Path(__file__).parents[2] / "data" / "samples").glob("*.parquet"))


@pytest.fixture(scope="module")
def trial_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("planned")
    paths = []
    for k, (name, b) in enumerate((("old", 1100.0), ("new", 1155.0))):
        sim = simulate_trials(2, benchmarks={"a": 1000.0, "b": b}, n_rounds=300, evals=7,
                              rng=40 + k)  # fmt: skip
        write_runs(sim.frame, out / f"{name}.parquet", sim.frame.attrs["runs"].values())
        paths.append(out / f"{name}.parquet")
    return paths


@pytest.mark.parametrize("which", ["samples", "trials"])
def test_planned_local_report_is_the_read_one(
    which: str,
    trial_files: list[Path],
    cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = SAMPLES if which == "samples" else trial_files
    read = cli("report", *files, "-f", "json", "--seed", "3", "-q", "-j", "1")
    assert read.exit_code == 0, read.output
    monkeypatch.setattr(report_cli, "LOCAL_PLAN_ROWS", 1)
    monkeypatch.setattr(report_cli, "SMALL_FILE_ROWS", 1)
    planned = cli("report", *files, "-f", "json", "--seed", "3", "-q", "-j", "1")
    assert planned.exit_code == 0, planned.output
    assert planned.stdout == read.stdout


def test_the_row_count_decides(trial_files: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from tsanalyze.cli._options import Engine

    files = [str(p) for p in trial_files]  # 2 x 2 runs x 2 benchmarks x 300 rounds
    monkeypatch.setattr(report_cli, "LOCAL_PLAN_ROWS", 2400)
    monkeypatch.setattr(report_cli, "SMALL_FILE_ROWS", 1200)
    assert report_cli.large_inputs(files)
    assert isinstance(report_cli.planned_or_read(files, Engine.local, None, True), ParquetSeries)
    monkeypatch.setattr(report_cli, "LOCAL_PLAN_ROWS", 2401)
    assert not report_cli.large_inputs(files)
    assert not isinstance(
        report_cli.planned_or_read(files, Engine.local, None, True), ParquetSeries
    )
    # --reference needs every series at once: read whole, whatever the size
    monkeypatch.setattr(report_cli, "LOCAL_PLAN_ROWS", 1)
    assert not isinstance(
        report_cli.planned_or_read(files, Engine.local, "a", True), ParquetSeries
    )


def test_many_small_files_are_read_whole_up_to_a_bound(
    trial_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 24: files of few rows (1200 each here) are read whole, one filtered read per
    # series would cost more than the analysis; from SMALL_FILES_PLAN_ROWS they are planned
    files = [str(p) for p in trial_files]
    monkeypatch.setattr(report_cli, "LOCAL_PLAN_ROWS", 2400)
    monkeypatch.setattr(report_cli, "SMALL_FILE_ROWS", 1201)
    assert not report_cli.large_inputs(files)
    monkeypatch.setattr(report_cli, "SMALL_FILES_PLAN_ROWS", 2401)
    assert not report_cli.large_inputs(files)
    monkeypatch.setattr(report_cli, "SMALL_FILES_PLAN_ROWS", 2400)
    assert report_cli.large_inputs(files)


def test_compare_of_large_files_is_planned_and_the_same(
    trial_files: list[Path],
    cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `tsanalyze compare A B` read both files whole whatever their size: two runs of 10^7
    # samples each peaked at 5.2 GB in one process (-j 1; 10.4 GB summed over the process
    # tree with two workers) where `report` of the same files plans them. Now compare plans
    # as report does, and says the same to the byte
    import tsanalyze.analysis.runset as runset

    read = cli("compare", *map(str, trial_files), "-f", "json", "--seed", "3", "-j", "1")
    assert read.exit_code == 0, read.output
    given: list[type] = []
    real = runset.analyze

    def spy(data: object, *args: object, **kw: object) -> object:
        given.append(type(data))
        return real(data, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(runset, "analyze", spy)
    monkeypatch.setattr(report_cli, "LOCAL_PLAN_ROWS", 1)
    monkeypatch.setattr(report_cli, "SMALL_FILE_ROWS", 1)
    planned = cli("compare", *map(str, trial_files), "-f", "json", "--seed", "3", "-j", "1")
    assert planned.exit_code == 0, planned.output
    assert given == [ParquetSeries]
    assert planned.stdout == read.stdout
