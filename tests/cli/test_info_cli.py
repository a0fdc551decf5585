"""`tsanalyze info` and the CLI's error handling."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tsanalyze import __version__
from tsanalyze.cli.app import app

runner = CliRunner()
DATA = Path(__file__).resolve().parents[1] / "data"


def test_version() -> None:
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert __version__ in res.output


def test_info_table_and_json() -> None:
    res = runner.invoke(app, ["info", str(DATA / "golden-v1.parquet")])
    assert res.exit_code == 0, res.output
    assert "00000000-0000-4000-8000-000000000001" in res.output
    assert "alpha" in res.output and "simulated" in res.output
    res = runner.invoke(app, ["info", "--format", "json", str(DATA / "golden-v1.parquet")])
    doc = json.loads(res.output)
    (run,) = doc["runs"]
    assert run["clock_source"] == "simulated" and run["overhead_ns"] == 25.0
    benches = {b["benchmark"]: b for b in run["benchmarks"]}
    assert benches["alpha"]["samples"] == 40 and benches["beta"]["samples"] == 40
    (f,) = doc["files"]
    assert f["rows"] == 80 and f["columns"]["evals"] == {"min": 8, "max": 8, "nulls": 0}
    # issue 19: the footer's statistics are the samples' own range
    from tsanalyze.io.runs import read_runs

    df = read_runs(DATA / "golden-v1.parquet")
    assert (f["columns"]["ns"]["min"], f["columns"]["ns"]["max"]) == (df["ns"].min(), df["ns"].max())
    start = df["start_ticks"].astype("int64")
    assert run["time_span_s"] == (start.max() - start.min()) / run["clock_hz"]


def test_info_bad_input_exit_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet at all")
    proc = subprocess.run([sys.executable, "-m", "tsanalyze", "info", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "bad.parquet" in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "tsanalyze", "info", str(tmp_path / "x*.parquet")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "matches no file" in proc.stderr


def test_info_markup_in_names_is_not_interpreted(tmp_path: Path) -> None:
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    sim = simulate_run({"[bold red]evil[/]": 100.0}, n_rounds=5, rng=1)
    p = write_run(sim.frame, tmp_path / "m.parquet", next(iter(sim.frame.attrs["runs"].values())))
    res = runner.invoke(app, ["info", str(p)])
    assert res.exit_code == 0
    assert "[bold red]evil[/]" in res.output


def test_info_json_is_strict_json(tmp_path: Path) -> None:
    # issue 18: a NaN in a tool's metadata (or anywhere) printed `NaN`, which is not JSON
    import json as _json

    doc = {"version": "1.0", "metadata": {"loops": 1},
           "benchmarks": [{"metadata": {"name": "x"}, "runs": [{"values": [1.0, 2.0]}]}]}  # fmt: skip
    p = tmp_path / "p.json"
    p.write_text(_json.dumps(doc).replace('"loops": 1', '"loops": 1, "x": NaN'), encoding="utf-8")
    res = runner.invoke(app, ["info", str(p), "--format", "json"])
    assert res.exit_code == 0, res.output

    def no_constants(name: str) -> float:
        raise AssertionError(f"{name} in info JSON")

    out = _json.loads(res.stdout, parse_constant=no_constants)
    assert out["runs"][0]["source"]["metadata"]["x"] is None
