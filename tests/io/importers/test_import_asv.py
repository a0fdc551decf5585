"""asv importer: results format versions 1 and 2, parameters, null results, bad input.

tests/data/importers/asv/django/ is a three-commit excerpt of django/django-asv (MIT, see
NOTICE): three benchmarks of ``results/ubuntu-latest/*-conda-py3.10.json``. The tests
re-read the JSON with the standard library and check the mapping against asv's own
numbers (its ``samples`` and its ``result``, the median of the samples). The version-1
and parameterised files are hand-made in asv's layouts (``asv/results.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tsanalyze import schema
from tsanalyze.cli.app import app
from tsanalyze.errors import ImportFormatError
from tsanalyze.io.importers import load, load_table, sniff
from tsanalyze.io.runs import read_runs

DJANGO = Path(__file__).resolve().parents[2] / "data" / "importers" / "asv" / "django"
COLUMNS = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
           "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat",
           "samples", "profile"]  # fmt: skip


def _results_dir(tmp_path: Path, files: dict[str, dict], benchmarks: dict | None = None) -> Path:  # type: ignore[type-arg]
    root = tmp_path / "results"
    (root / "m1").mkdir(parents=True)
    (root / "m1" / "machine.json").write_text(json.dumps({"machine": "m1", "version": 1}))
    if benchmarks is not None:
        (root / "benchmarks.json").write_text(json.dumps({**benchmarks, "version": 2}))
    for name, content in files.items():
        (root / "m1" / name).write_text(json.dumps(content))
    return root


BENCH = {
    "b.time_sort": {"name": "b.time_sort", "type": "time", "unit": "seconds",
                    "params": [["'list'", "'array'"], ["10", "100"]], "param_names": ["kind", "n"]},
    "b.time_plain": {"name": "b.time_plain", "type": "time", "unit": "seconds", "params": [],
                     "param_names": []},
    "b.mem_list": {"name": "b.mem_list", "type": "memory", "unit": "bytes", "params": [],
                   "param_names": []},
}  # fmt: skip


def _v2(commit: str, date: int, sort: list, samples: list | None = None) -> dict:  # type: ignore[type-arg]
    row = [sort, [["'list'", "'array'"], ["10", "100"]], "v", date + 5000, 1.0, None, None, None,
           None, [2, 2, 2, 2], [3, 3, 3, 3], samples]  # fmt: skip
    return {
        "version": 2, "commit_hash": commit, "env_name": "virtualenv-py3.11", "date": date,
        "params": {"machine": "m1", "python": "3.11", "cpu": "cpu x"}, "python": "3.11",
        "result_columns": COLUMNS,
        "results": {"b.time_sort": row, "b.time_plain": [[0.5]], "b.mem_list": [[1000]]},
    }  # fmt: skip


def test_django_excerpt_version2_samples_and_metadata() -> None:
    assert sniff(DJANGO) == "asv"
    runs = load(DJANGO)
    files = sorted((DJANGO / "ubuntu-latest").glob("*-conda-py3.10.json"))
    assert len(runs) == len(files) == 3
    for run, f in zip(runs, files, strict=True):
        raw = json.loads(f.read_text())
        meta = run.metadata
        assert schema.validate_metadata(meta) == []
        assert meta["commit"] == raw["commit_hash"] and len(meta["commit"]) == 40
        assert meta["machine"] == "ubuntu-latest" and meta["env"] == "conda-py3.10"
        assert meta["commit_time"].startswith("2022-") or meta["commit_time"][:2] == "20"
        cols = raw["result_columns"]
        for name, values in raw["results"].items():
            row = dict(zip(cols, values, strict=False))
            frame = run.frame[run.frame["benchmark"] == name]
            expected = np.array(row["samples"][0]) * 1e9
            np.testing.assert_allclose(frame["ns"].to_numpy() / frame["evals"], expected)
            assert (frame["evals"] == row["stats_number"][0]).all()
            # asv's result is the median of its samples
            assert np.median(expected) == pytest.approx(row["result"][0] * 1e9, rel=1e-9)
            assert frame["asv_ci_99_a"].iloc[0] == pytest.approx(row["stats_ci_99_a"][0] * 1e9)


def test_version2_parameters_nulls_and_skipped(tmp_path: Path) -> None:
    root = _results_dir(tmp_path, {
        "aaaaaaaa-virtualenv-py3.11.json": _v2("a" * 40, 1_600_000_000_000, [1e-3, None, 2e-3, 3e-3],
                                               [[1e-3, 1.1e-3], None, [2e-3], [3e-3, 3.1e-3]]),
    }, BENCH)  # fmt: skip
    table = load_table(root)
    (meta,) = table.metadata.values() if isinstance(table.metadata, dict) else table.metadata
    names = sorted(set(table.frame["benchmark"]))
    assert names == ["b.time_plain", "b.time_sort('array', 10)", "b.time_sort('array', 100)",
                     "b.time_sort('list', 10)"]  # fmt: skip
    assert meta["source"]["metadata"]["failed_results"] == 1
    assert meta["source"]["metadata"]["skipped_benchmarks"] == 1
    assert meta["commit_time"] == "2020-09-13T12:26:40.000000Z"
    # the parameterised combination without samples falls back to asv's result
    arr10 = table.frame[table.frame["benchmark"] == "b.time_sort('array', 10)"]
    assert arr10["ns"].tolist() == [2e6 * 2]
    assert set(arr10["evals"]) == {2}


def test_version1_results(tmp_path: Path) -> None:
    v1 = {
        "version": 1, "commit_hash": "b" * 40, "date": 1_500_000_000_000,
        "params": {"machine": "m1", "python": "2.7"}, "python": "2.7",
        "results": {
            "b.time_plain": 0.25,
            "b.time_sort": {"result": [1e-3, None, 2e-3, 4e-3],
                            "params": [["'list'", "'array'"], ["10", "100"]],
                            "stats": [{"ci_99": [0.9e-3, 1.1e-3], "q_25": 0.95e-3, "q_75": 1.05e-3,
                                       "number": 5, "repeat": 3}, None, None, None]},
            "b.track_x": 3,
        },
        "started_at": {"b.time_plain": 1_500_000_100_000},
    }  # fmt: skip
    root = _results_dir(tmp_path, {"bbbbbbbb-py2.7.json": v1})
    runs = load(root, "asv")
    (run,) = runs
    assert run.metadata["env"] == "py2.7"
    assert run.metadata["source"]["metadata"]["results_version"] == 1
    assert run.metadata["source"]["metadata"]["failed_results"] == 1
    assert run.metadata["source"]["metadata"]["skipped_benchmarks"] == 1
    f = run.frame.set_index("benchmark")
    assert f.loc["b.time_plain", "ns"] == pytest.approx(0.25e9)
    assert f.loc["b.time_sort('list', 10)", "ns"] == pytest.approx(5e6)
    assert f.loc["b.time_sort('list', 10)", "asv_ci_99_b"] == pytest.approx(1.1e6)
    assert run.metadata["created_utc"].startswith("2017-07-14T02:41:40")


def test_missing_commits_are_just_absent_runs(tmp_path: Path) -> None:
    files = {f"{c * 8}-virtualenv-py3.11.json": _v2(c * 40, 1_600_000_000_000 + i, [1e-3] * 4)
             for i, c in enumerate("acf")}  # fmt: skip
    runs = load(_results_dir(tmp_path, files, BENCH))
    assert sorted(r.metadata["commit"][0] for r in runs) == ["a", "c", "f"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "ab-env.json"),
        (json.dumps({"version": 3, "commit_hash": "ab", "params": {}, "results": {}}), "version 1 or 2"),
        (json.dumps({"version": 2, "commit_hash": "ab", "params": {}, "results": {"b.time_plain": [1]}}),
         "result_columns"),
        (json.dumps({"version": 2, "commit_hash": "ab", "params": {}, "result_columns": COLUMNS,
                     "results": {"b.time_plain": [["slow"]]}}), "number > 0 or null"),
        (json.dumps({"version": 2, "commit_hash": "ab", "params": {}, "result_columns": COLUMNS,
                     "results": {"b.time_sort": [[1.0], [["'list'", "'array'"], ["10", "100"]]]}}),
         "one entry per parameter combination"),
    ],
)  # fmt: skip
def test_bad_input_names_the_file_and_writes_nothing(
    tmp_path: Path, content: str, message: str
) -> None:
    root = _results_dir(
        tmp_path, {"aaaaaaaa-virtualenv-py3.11.json": _v2("a" * 40, 1, [1e-3] * 4)}, BENCH
    )
    (root / "m1" / "ab-env.json").write_text(content)
    with pytest.raises(ImportFormatError, match=message):
        load(root, "asv")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["import", "asv", str(root), "-o", str(out)])
    assert res.exit_code == 2
    assert "ab-env.json" in res.output and len(res.output.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_cli_import_directory(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["import", "asv", str(DJANGO), "-o", str(out)])
    assert res.exit_code == 0, res.output
    df = read_runs(out)
    assert df["run"].nunique() == 3


def test_null_results_are_named_in_one_note(tmp_path: Path) -> None:
    # asv writes null for a benchmark that failed, timed out or was skipped
    root = _results_dir(tmp_path, {
        "aaaaaaaa-virtualenv-py3.11.json": _v2("a" * 40, 1_600_000_000_000, [1e-3, None, 2e-3, None]),
        "bbbbbbbb-virtualenv-py3.11.json": _v2("b" * 40, 1_600_000_100_000, [1e-3, None, 2e-3, 3e-3]),
    }, BENCH)  # fmt: skip
    table = load_table(root)
    (note,) = table.notes
    assert note.startswith(str(root)) and "3 result(s) in 2 results files are null" in note
    assert "\"b.time_sort('list', 100)\"" in note and "\"b.time_sort('array', 100)\"" in note
    res = CliRunner().invoke(app, ["import", "asv", str(root), "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert res.stderr.count("tsanalyze: warning:") == 1
