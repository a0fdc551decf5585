"""`tsanalyze compare A B`: two files, or two benchmarks of one run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

Invoke = Callable[..., Result]


@pytest.fixture(scope="module")
def files(
    tmp_path_factory: pytest.TempPathFactory, write_sim: Callable[..., Path]
) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cmp")
    return {
        "a": write_sim(d / "a.parquet", {"x": 1000.0, "y": 500.0}, rng=1),
        "b": write_sim(d / "b.parquet", {"x": 1100.0, "y": 500.0}, rng=2),
    }


@pytest.fixture
def invoke(cli: Invoke) -> Invoke:
    """``tsanalyze compare ARGS`` with one worker and a fixed seed."""
    return lambda *args: cli("compare", *args, "-j 1 --seed 3")


def test_two_files(files: dict[str, Path], invoke: Invoke) -> None:
    res = invoke(files["a"], files["b"], "-f json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    verdicts = {c["benchmark"]: c["verdict"] for c in doc["comparisons"]}
    assert verdicts["x"] == "slower"
    assert doc["runs"][0]["file"].endswith("a.parquet")


def test_two_files_fail_on_regression(files: dict[str, Path], invoke: Invoke) -> None:
    res = invoke(files["a"], files["b"], "--fail-on regression")
    assert res.exit_code == 1
    assert "slower" in res.output
    back = invoke(files["b"], files["a"], "--fail-on regression")
    assert back.exit_code == 0, back.output


def _one_each(
    folder: Path, write_sim: Callable[..., Path], a: str, b: str
) -> tuple[Path, Path]:
    """Two run files of one benchmark each: ``a`` at 1000 ns in old, ``b`` at 1100 in new."""
    folder.mkdir(parents=True, exist_ok=True)
    old = write_sim(folder / "old.parquet", {a: 1000.0}, rng=1)
    return old, write_sim(folder / "new.parquet", {b: 1100.0}, rng=2)


def test_two_files_sharing_no_benchmark_is_an_error(
    tmp_path: Path, write_sim: Callable[..., Path], invoke: Invoke, cli: Invoke
) -> None:
    # before: `compare old.txt new.txt` of Go runs on machines of 48 and 8 cores
    # (BenchmarkX-48 vs BenchmarkX-8) compared nothing, said nothing, and exited 0
    old = write_sim(tmp_path / "old.parquet", {"Encode-48": 1000.0, "Decode-48": 500.0}, rng=1)
    new = write_sim(tmp_path / "new.parquet", {"Encode-8": 1100.0, "Decode-8": 500.0}, rng=2)
    res = invoke(old, new, "--fail-on regression")
    assert res.exit_code == 2, res.output
    assert res.output.startswith("tsanalyze: error: A and B share no benchmark")
    assert "'Encode-48'" in res.output and "'Encode-8'" in res.output
    old, new = _one_each(tmp_path / "one", write_sim, "Encode-48", "Encode-8")
    # report says it as a warning (when nothing at all was compared), JSON carries it
    rep = cli("report", old, new, "-f json -j 1")
    assert rep.exit_code == 0, rep.output
    (w,) = json.loads(rep.stdout)["warnings"]
    assert w["code"] == "nothing-compared" and w["severity"] == "warning"
    assert "Encode-48" in w["message"] and "Encode-8" in w["message"]
    # ... and a --fail-on gate that compared nothing does not pass (it exited 0)
    gate = cli("report", old, new, "-j 1 --fail-on regression")
    assert gate.exit_code == 2, gate.output
    assert "--fail-on regression: nothing was compared" in gate.output


def test_two_files_of_one_benchmark_each_are_compared_whatever_their_names(
    tmp_path: Path, write_sim: Callable[..., Path], invoke: Invoke
) -> None:
    # JSON lists of times are named after their files (old.json -> "old"): two of them
    # could not be compared at all; one benchmark on each side is what is asked for
    old, new = _one_each(tmp_path, write_sim, "old", "new")
    res = invoke(old, new, "-f json --fail-on regression")
    assert res.exit_code == 1, res.output
    (c,) = json.loads(res.stdout)["comparisons"]
    assert c["verdict"] == "slower" and c["ci_low"] <= 1.1 <= c["ci_high"]
    assert "comparing 'new' of B with 'old' of A" in res.stderr


def test_two_benchmarks_never_in_one_run_is_an_error(
    tmp_path: Path, write_sim: Callable[..., Path], invoke: Invoke
) -> None:
    # before: `compare X-48 X-8 --in old.parquet --in new.parquet` compared nothing, exit 0
    old, new = _one_each(tmp_path, write_sim, "X-48", "X-8")
    res = invoke("X-48 X-8 --in", old, "--in", new)
    assert res.exit_code == 2, res.output
    assert "A and B are never in the same run" in res.output, res.output


def test_two_benchmarks(files: dict[str, Path], invoke: Invoke) -> None:
    res = invoke("y x --in", files["a"], "-f json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (c,) = doc["comparisons"]
    assert (c["benchmark"], c["baseline_benchmark"], c["paired"]) == ("x", "y", True)
    # simulator truth: x takes twice as long as y
    assert c["ci_low"] <= 2.0 * 1.01 and c["ci_high"] >= 2.0 * 0.99


def test_table_output(files: dict[str, Path], invoke: Invoke) -> None:
    res = invoke(files["a"], files["b"])
    assert res.exit_code == 0, res.output
    # reference: the JSON document of the same run (same seed): the table shows its numbers
    doc = json.loads(invoke(files["a"], files["b"], "-f json").stdout)
    table = res.output.split("Comparisons", 1)[1].split("Findings", 1)[0]
    rows = [
        [c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if "@" in line
    ]
    assert len(rows) == len(doc["comparisons"]) == 2
    for c in doc["comparisons"]:
        (cells,) = [r for r in rows if r[0].startswith(f"{c['benchmark']} @")]
        assert cells[2] == f"{c['ratio']:.3f}×"
        assert cells[3] == f"{c['ci_low']:.3f}–{c['ci_high']:.3f}"
        assert cells[-1] == c["verdict"]
    # simulator truth: x is 10% slower in b, y unchanged
    assert {c["benchmark"]: c["verdict"] for c in doc["comparisons"]} == {
        "x": "slower",
        "y": "same",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "nope.parquet", "{a}"], "not a file"),
        (["compare", "{a}", "{a}"], "same run"),
        (["compare", "x", "zzz", "--in", "{a}"], "zzz"),
        (["compare", "x", "x", "--in", "{a}"], "same benchmark"),
    ],
)
def test_bad_input_exits_2(
    files: dict[str, Path], cli: Invoke, args: list[str], message: str
) -> None:
    res = cli(*(files["a"] if a == "{a}" else a for a in args))
    assert res.exit_code == 2, res.output
    assert message in res.output
