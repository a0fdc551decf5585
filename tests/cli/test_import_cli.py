"""`tsanalyze import FORMAT|auto FILES… -o OUTPUT`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from tsanalyze.cli.app import app
from tsanalyze.cli.import_ import output_paths
from tsanalyze.io.importers import load
from tsanalyze.io.runs import read_runs

runner = CliRunner()
DATA = Path(__file__).resolve().parents[1] / "data" / "importers"


def _import(*args: str | Path) -> Result:
    """Run ``tsanalyze import ARGS...``."""
    return runner.invoke(app, ["import", *map(str, args)])


def test_single_run_to_file(tmp_path: Path) -> None:
    out = tmp_path / "old.parquet"
    res = _import("auto", DATA / "benchstat" / "old.txt", "-o", out)
    assert res.exit_code == 0, res.output
    assert "imported 1 run(s), 20 samples" in res.output
    df = read_runs(out)
    direct = read_runs(DATA / "benchstat" / "old.txt")
    assert df["time_ns"].tolist() == direct["time_ns"].tolist()
    (meta,) = df.attrs["runs"].values()
    assert meta["clock"]["source"] == "imported:go"
    assert meta["source"]["file"].endswith("old.txt")


def test_many_runs_in_the_one_file_named(tmp_path: Path) -> None:
    # issue 15: `-o run.parquet` means that file, holding all 41 runs of telco.json (40
    # worker processes and the calibration run), not run-001 ... run-041
    out = tmp_path / "run.parquet"
    res = _import("auto", DATA / "pyperf" / "telco.json", "-o", out)
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.parquet"]
    assert "imported 41 run(s)" in res.output
    df = read_runs(out)
    direct = read_runs(DATA / "pyperf" / "telco.json")
    assert list(df.attrs["runs"]) == list(direct.attrs["runs"])
    assert {m["file"] for m in df.attrs["runs"].values()} == {str(out)}  # one side
    # the values survive the round trip through Parquet: pyperf `stats` median 22.5 ms
    assert len(df) == 120 and f"{df['time_ns'].median() / 1e6:.1f}" == "22.5"
    np.testing.assert_array_equal(df["time_ns"], direct["time_ns"])
    with_warmups = read_runs(out, include_warmups=True)
    assert set(with_warmups["kind"]) == {"value", "warmup", "calibration"}
    # the calibration-only run is in the file and never read as a run of its own
    assert df.groupby("run", observed=True).size().size == 40
    # several inputs and one output file: refused, nothing written
    two = tmp_path / "two.parquet"
    res = _import("auto", DATA / "pyperf" / "telco.json", DATA / "benchstat" / "old.txt", "-o", two)
    assert res.exit_code == 2 and "give a directory" in res.output
    assert not two.exists()


def test_directory_output_and_csv_map(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    csv = DATA / "handmade" / "timings.csv"
    mapping = ("--map", "time=time_us,unit=us,benchmark=bench,evals=iterations,run=trial")
    res = _import("csv", csv, DATA / "benchstat" / "new.txt", "-o", out, *mapping)
    # --map is for CSV only, and new.txt is Go text: refused, nothing written
    assert res.exit_code == 2
    assert not out.exists()
    res = _import("auto", csv, "-o", out, *mapping)
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == ["timings.parquet"]
    df = read_runs(out)
    assert len(df.attrs["runs"]) == 2
    assert sorted(df["benchmark"].unique()) == ["parse", "render"]
    assert "host" in df.columns


def test_malformed_input_exit_2_nothing_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    raw = (DATA / "pyperf" / "telco.json").read_bytes()
    bad.write_bytes(raw[: len(raw) // 2])
    out = tmp_path / "out"
    res = _import("auto", DATA / "benchstat" / "old.txt", bad, "-o", out)
    assert res.exit_code == 2
    # one line naming the file, the line and column, and what was expected
    assert f"{bad}: line " in res.output and "expected valid JSON" in res.output
    assert not out.exists()
    go = tmp_path / "bad.txt"
    go.write_text("BenchmarkA 10 5 ns/op\nBenchmarkA 10\n")
    res = _import("gobench", go, "-o", tmp_path / "x.parquet")
    assert res.exit_code == 2
    assert f"{go}: line 2: expected '<value> <unit>' pairs" in res.output
    assert not (tmp_path / "x.parquet").exists()


def test_unrecognised_and_summary_only(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    res = _import("auto", other, "-o", tmp_path / "o.parquet")
    assert res.exit_code == 2 and "could not recognise it" in res.output
    summary = sorted((DATA / "pytest-benchmark").glob("*.json"))[0]
    res = _import("auto", summary, "-o", tmp_path / "o.parquet")
    assert res.exit_code == 2 and "tsanalyze audit" in res.output
    assert not (tmp_path / "o.parquet").exists()


def test_a_run_file_given_to_import_is_named_as_one(tmp_path: Path) -> None:
    # before: "expected a file in a known format (...); could not recognise it"
    run = tmp_path / "run.parquet"
    assert _import("auto", DATA / "benchstat" / "old.txt", "-o", run).exit_code == 0
    res = _import("auto", run, "-o", tmp_path / "again.parquet")
    assert res.exit_code == 2
    assert "Parquet" in res.output and "nothing to import" in res.output, res.output
    assert "tsanalyze report" in res.output


def test_existing_output_refused(tmp_path: Path) -> None:
    out = tmp_path / "old.parquet"
    out.write_bytes(b"keep me")
    args = ["import", "auto", str(DATA / "benchstat" / "old.txt"), "-o", str(out)]
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "already exists" in res.output
    assert out.read_bytes() == b"keep me"
    res = runner.invoke(app, [*args, "--overwrite"])
    assert res.exit_code == 0, res.output
    assert len(read_runs(out)) == 20


def test_criterion_baseline_option(tmp_path: Path) -> None:
    out = tmp_path / "base.parquet"
    res = _import("auto", DATA / "handmade" / "criterion", "-o", out, "--baseline", "base")
    assert res.exit_code == 0, res.output
    df = read_runs(out)
    raw = json.loads(
        (DATA / "handmade" / "criterion" / "fib" / "20" / "base" / "sample.json").read_text()
    )
    np.testing.assert_array_equal(df.loc[df["benchmark"] == "fib/20", "ns"], raw["times"])


@pytest.mark.parametrize(
    ("output", "sources", "names"),
    [
        ("a.parquet", ["x.json"], ["a.parquet"]),
        ("d", ["x.json", "y.txt"], ["d/x.parquet", "d/y.parquet"]),
        ("d", ["p/x.json", "q/x.json"], ["d/x.parquet", "d/x_2.parquet"]),
        # only data extensions go: asv's file names carry the environment's version
        ("d", ["r/0010721e-conda-py3.10.json", "r/0010721e-conda-py3.8.json"],
         ["d/0010721e-conda-py3.10.parquet", "d/0010721e-conda-py3.8.parquet"]),
        ("d", ["bench.json.gz", "crcOldNew.stdout", ".json", "v1.2"],
         ["d/bench.parquet", "d/crcOldNew.parquet", "d/.json.parquet", "d/v1.2.parquet"]),
    ],
)
def test_output_paths(output: str, sources: list[str], names: list[str]) -> None:
    got = output_paths(Path(output), [Path(s) for s in sources])
    assert [p.as_posix() for p in got] == names


def test_long_input_names_give_run_files_the_file_system_can_hold(tmp_path: Path) -> None:
    # before: a JMH series named after its parameters (253 characters, real data of
    # Beseda et al.) gave `<name>.parquet` of 261 bytes: "File name too long", and a
    # directory of such files could not be imported at all
    stem = "netty__netty#io.netty.ByteBufCopyBenchmark.setBytes#" + "é" * 92 + "&size=36"
    names = [f"{stem}.json_0", f"{stem}-2.json_0", "short.json"]
    for name in names:
        (tmp_path / name).write_text(json.dumps([1.5, 2.5]))
    got = output_paths(tmp_path / "out", [tmp_path / n for n in names])
    assert all(len(p.name.encode()) <= 255 and p.suffix == ".parquet" for p in got)
    assert len({p.name for p in got}) == 3 and got[2].name == "short.parquet"
    assert got[0].name.startswith(stem[:100]) and got[0].name != got[1].name
    res = _import("values", *(tmp_path / n for n in names), "-o", tmp_path / "out", "--unit", "s")
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in got)


def test_output_suffix_in_capitals_names_a_file(tmp_path: Path) -> None:
    # before: -o OUT.PARQUET made a directory OUT.PARQUET holding old.parquet
    out = tmp_path / "OUT.PARQUET"
    res = _import("auto", DATA / "benchstat" / "old.txt", "-o", out)
    assert res.exit_code == 0, res.output
    assert out.is_file() and len(read_runs(out)) == 20


def test_output_that_is_a_file_but_not_a_run_file_is_named(tmp_path: Path) -> None:
    # before: "notes/old.parquet: cannot write (File exists)"
    notes = tmp_path / "notes"
    notes.write_text("mine")
    res = _import("auto", DATA / "benchstat" / "old.txt", "-o", notes)
    assert res.exit_code == 2
    assert f"--output {notes}: " in res.output and "not a directory" in res.output, res.output
    assert notes.read_text() == "mine"


def test_read_runs_accepts_every_format() -> None:
    # read_runs sniffs and imports other tools' files on the fly
    paths = [
        DATA / "pyperf" / "py3.json.gz",
        DATA / "benchstat" / "crc-new.txt",
        DATA / "handmade" / "hyperfine.json",
        DATA / "handmade" / "gbench.json",
        DATA / "handmade" / "criterion",
        DATA / "handmade" / "benchmarktools.json",
        DATA / "handmade" / "pytest-benchmark-data.json",
    ]
    df = read_runs(paths)
    tools = {m["source"]["tool"] for m in df.attrs["runs"].values()}
    assert tools == {
        "pyperf",
        "go",
        "hyperfine",
        "google-benchmark",
        "criterion.rs",
        "BenchmarkTools.jl",
        "pytest-benchmark",
    }
    expected = sum(len(r.frame[r.frame["kind"] == "value"]) for p in paths for r in load(p))
    assert len(df) == expected
    assert isinstance(df, pd.DataFrame) and (df["time_ns"] > 0).all()


@pytest.mark.parametrize(
    ("fmt", "src"),
    [
        ("pyperf", "pyperf/telco.json"),
        ("gobench", "benchstat/crc-old.txt"),
        ("hyperfine", "handmade/hyperfine.json"),
        ("gbench", "handmade/gbench.json"),
        ("criterion", "handmade/criterion"),
        ("pytest-benchmark", "handmade/pytest-benchmark-data.json"),
        ("benchmarktools", "handmade/benchmarktools.json"),
        ("csv", "handmade/timings.csv"),
    ],
)
def test_truncated_input_of_every_format(tmp_path: Path, fmt: str, src: str) -> None:
    original = DATA / src
    if original.is_dir():
        bad = tmp_path / "criterion"
        shutil.copytree(original, bad)
        victim = bad / "fib" / "20" / "new" / "sample.json"
        victim.write_bytes(victim.read_bytes()[:-40])
        where = str(victim)
    else:
        bad = tmp_path / original.name
        raw = original.read_bytes()
        cut = raw[: int(len(raw) * 0.7)]
        if fmt == "csv":  # a CSV cut inside a row: a number cut short or a missing field
            cut = raw.splitlines(keepends=True)
            cut = b"".join(cut[:5]) + cut[5].split(b",")[0] + b",a,12.5x\n"
        elif fmt == "gobench":  # cut after the iteration count of a line
            lines = raw.splitlines(keepends=True)
            cut = b"".join(lines[:12]) + lines[12].split(b"\t")[0] + b"\t 3000000\t"
        bad.write_bytes(cut)
        where = str(bad)
    out = tmp_path / "out"
    args = ["import", fmt, str(bad), "-o", str(out)]
    if fmt == "csv":
        args += ["--map", "time=time_us,unit=us,benchmark=bench,evals=iterations"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    message = res.output.strip().splitlines()[-1]
    assert message.startswith(f"tsanalyze: error: {where}: ")
    assert "expected" in message
    assert re.search(r": (line \d+|\$[^:]*)", message.removeprefix(f"tsanalyze: error: {where}"))
    assert not out.exists()


def test_unwritable_output_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    out = blocker / "sub" / "out"  # a path below a regular file cannot be created
    res = _import("auto", DATA / "pyperf" / "py2.json.gz", "-o", out)
    assert res.exit_code == 2
    assert "cannot write" in res.output and "nothing written" in res.output
    assert blocker.read_text() == "not a directory"


def test_failure_midway_removes_what_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tsanalyze.io.runs as runs_module

    real = runs_module.write_runs
    calls = {"n": 0}

    def flaky(*args: object, **kwargs: object) -> Path:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runs_module, "write_runs", flaky)
    out = tmp_path / "new" / "dir"
    inputs = [
        DATA / "benchstat" / "old.txt",
        DATA / "benchstat" / "new.txt",
        DATA / "pyperf" / "telco.json",
    ]
    res = _import("auto", *inputs, "-o", out)
    assert res.exit_code == 2
    assert "No space left on device" in res.output and "nothing written" in res.output
    assert not (tmp_path / "new").exists()


def test_a_json_list_of_times_and_a_list_of_forks(tmp_path: Path) -> None:
    # issue 15: the shape of many papers' artefacts and of JMH's rawData, read with --unit
    flat = tmp_path / "times.json"
    flat.write_text(json.dumps([1.5, 2.5, 1.75]))
    forks = tmp_path / "forks.json"
    forks.write_text(json.dumps([[1.5, 2.5], [3.0], [2.0, 2.25, 2.5]]))
    out = tmp_path / "out"
    res = _import("auto", flat, forks, "-o", out, "--unit", "us")
    assert res.exit_code == 0, res.output
    one = read_runs(out / "times.parquet")
    assert one["time_ns"].tolist() == [1500.0, 2500.0, 1750.0]
    assert set(one["benchmark"]) == {"times"} and len(one.attrs["runs"]) == 1
    many = read_runs(out / "forks.parquet")
    assert len(many.attrs["runs"]) == 3  # one run per fork: the trials of one side
    assert many.groupby("run", observed=True).size().tolist() == [2, 1, 3]
    assert many["time_ns"].tolist() == [1500.0, 2500.0, 3000.0, 2000.0, 2250.0, 2500.0]


@pytest.mark.parametrize(
    ("content", "args", "needle"),
    [
        ([1.5, 2.5], [], "does not say its unit"),
        ([1.5, 2.5], ["--unit", "weeks"], "unit: must be one of ns, us, ms, s"),
        ([[1.5], 2.5], ["--unit", "s"], "$[1]: expected an array of times"),
        ([[1.5], []], ["--unit", "s"], "$[1]: expected at least one time"),
        ([1.5, "2.5"], ["--unit", "s"], "$[1]: expected a finite number, got a string"),
        ([1.5, -2.5], ["--unit", "s"], "$[1]: expected a finite number > 0"),
        ([1.5, 1e12], ["--unit", "s"], "beyond 9.223e+18 ns"),
    ],
)
def test_a_json_list_refused_on_one_line(
    tmp_path: Path, content: object, args: list[str], needle: str
) -> None:
    p = tmp_path / "times.json"
    p.write_text(json.dumps(content))
    out = tmp_path / "o.parquet"
    res = _import("values", p, "-o", out, *args)
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr, res.stderr
    assert not out.exists()


def test_unit_option_for_csv_and_refused_elsewhere(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("benchmark,time\na,1.5\na,2\n")
    out = tmp_path / "c.parquet"
    res = _import("csv", csv, "-o", out, "--unit", "ms")
    assert res.exit_code == 0, res.output
    assert read_runs(out)["time_ns"].tolist() == [1.5e6, 2e6]
    res = _import(
        "auto", DATA / "benchstat" / "old.txt", "-o", tmp_path / "g.parquet", "--unit", "ms"
    )
    assert res.exit_code == 2 and "--unit applies to" in res.stderr
