"""hyperfine, Google Benchmark, criterion.rs, BenchmarkTools.jl and CSV importers.

The fixtures in tests/data/importers/handmade/ are hand-made from each tool's
documented format (see the README there); each test re-reads the raw JSON/CSV with the
standard library and checks that the imported samples carry exactly those numbers.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsanalyze import schema
from tsanalyze.io.importers import load, parse_mapping, sniff

H = Path(__file__).resolve().parents[2] / "data" / "importers" / "handmade"


def _per_eval(frame: pd.DataFrame) -> np.ndarray:
    return (frame["ns"] / frame["evals"]).to_numpy()


def test_hyperfine() -> None:
    path = H / "hyperfine.json"
    doc = json.loads(path.read_text())
    assert sniff(path) == "hyperfine"
    runs = load(path)
    assert len(runs) == 1
    f = runs[0].frame
    for res in doc["results"]:
        rows = f[f["benchmark"] == res["command"]]
        np.testing.assert_allclose(rows["ns"], np.asarray(res["times"]) * 1e9, rtol=1e-15)
        assert (rows["evals"] == 1).all()
        assert rows["exit_code"].tolist() == res["exit_codes"]
        assert rows["max_rss_bytes"].tolist() == res["memory_usage_byte"]
        assert set(rows["param_delay"]) == {res["parameters"]["delay"]}
    # per-run user/system arrays are absent in hyperfine's JSON: no all-NaN columns
    assert "user_ns" not in f.columns and "sys_ns" not in f.columns
    spec = runs[0].metadata["target"]["spec"]
    assert spec[0]["user"] == doc["results"][0]["user"] and spec[0]["parameters"] == {
        "delay": "0.01"
    }
    assert runs[0].metadata["clock"]["source"] == "imported:hyperfine"


def test_hyperfine_per_run_user_sys(tmp_path: Path) -> None:
    p = tmp_path / "hf.json"
    p.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "command": "true",
                        "times": [0.002, 0.003],
                        "user": [0.001, 0.0012],
                        "system": [0.0005, 0.0004],
                        "exit_codes": [0, None],
                    }
                ]
            }
        )
    )
    f = load(p)[0].frame
    np.testing.assert_allclose(f["user_ns"], [1e6, 1.2e6])
    np.testing.assert_allclose(f["sys_ns"], [5e5, 4e5])
    assert f["exit_code"].iloc[0] == 0 and np.isnan(f["exit_code"].iloc[1])


def test_google_benchmark() -> None:
    path = H / "gbench.json"
    doc = json.loads(path.read_text())
    assert sniff(path) == "gbench"
    run = load(path)[0]
    f = run.frame
    iters = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
    assert len(f) == len(iters) == 6
    scale = {"ns": 1.0, "us": 1e3}
    np.testing.assert_allclose(
        _per_eval(f), [b["real_time"] * scale[b["time_unit"]] for b in iters], rtol=1e-14
    )
    np.testing.assert_allclose(
        f["cpu_ns"], [b["cpu_time"] * scale[b["time_unit"]] for b in iters], rtol=1e-14
    )
    assert f["evals"].tolist() == [b["iterations"] for b in iters]
    # user counters become columns (NaN where a benchmark has none)
    counters = [b.get("bytes_per_second", np.nan) for b in iters]
    np.testing.assert_array_equal(f["bytes_per_second"], counters)
    assert "threads" not in f.columns
    # aggregates are kept apart, never mixed with the repetitions
    aggs = run.metadata["source"]["metadata"]["aggregates"]
    assert sorted({a["aggregate_name"] for a in aggs}) == ["mean", "median", "stddev"]
    assert run.metadata["created_utc"] == "2026-11-20T13:03:51.000000Z"
    assert run.metadata["source"]["version"] == "v1.8.3"


def test_google_benchmark_errors_skipped(tmp_path: Path) -> None:
    p = tmp_path / "gb.json"
    p.write_text(
        json.dumps(
            {
                "context": {},
                "benchmarks": [
                    {
                        "name": "BM_a",
                        "run_type": "iteration",
                        "iterations": 10,
                        "real_time": 5.0,
                        "cpu_time": 5.0,
                        "time_unit": "ms",
                        "threads": 4,
                        "ns": 7,
                    },
                    {
                        "name": "BM_b",
                        "run_type": "iteration",
                        "error_occurred": True,
                        "error_message": "boom",
                        "iterations": 0,
                        "real_time": 0,
                        "cpu_time": 0,
                        "time_unit": "ns",
                    },
                ],
            }
        )
    )
    run = load(p, "gbench")[0]
    assert run.frame["benchmark"].tolist() == ["BM_a"]
    assert run.frame["threads"].tolist() == [4.0]
    assert run.frame["counter_ns"].tolist() == [7.0]  # a counter named like a run-format column
    assert run.frame["ns"].iloc[0] == pytest.approx(5e6 * 10)
    assert run.metadata["source"]["metadata"]["errors"] == [{"name": "BM_b", "message": "boom"}]


def test_criterion_directory() -> None:
    root = H / "criterion"
    assert sniff(root) == "criterion"
    run = load(root)[0]
    f = run.frame
    assert sorted(f["benchmark"].unique()) == ["fib/20", "sum/1024"]
    for bench in ("fib/20", "sum/1024"):
        group, value = bench.split("/")
        raw = json.loads((root / group / value / "new" / "sample.json").read_text())
        rows = f[f["benchmark"] == bench]
        np.testing.assert_array_equal(rows["ns"], raw["times"])
        np.testing.assert_array_equal(rows["evals"], raw["iters"])
    spec = {s["benchmark"]: s for s in run.metadata["target"]["spec"]}
    assert spec["sum/1024"]["throughput"] == {"Bytes": 4096}
    assert spec["fib/20"]["sampling_mode"] == "Linear"


def test_criterion_baseline_and_single_file() -> None:
    root = H / "criterion"
    base = load(root, baseline="base")[0]
    new = load(root)[0]
    assert base.metadata["run"] != new.metadata["run"]
    raw = json.loads((root / "fib" / "20" / "base" / "sample.json").read_text())
    rows = base.frame[base.frame["benchmark"] == "fib/20"]
    np.testing.assert_array_equal(rows["ns"], raw["times"])
    one = load(root / "fib" / "20" / "new" / "sample.json")[0]
    assert one.frame["benchmark"].unique().tolist() == ["fib/20"]


def test_benchmarktools() -> None:
    path = H / "benchmarktools.json"
    assert sniff(path) == "benchmarktools"
    doc = json.loads(path.read_text())
    run = load(path)[0]
    f = run.frame
    data = doc[1][0][1]["data"]
    trials = {"sum": data["sum"][1], "sort/100": data["sort"][1]["data"]["100"][1]}
    for name, trial in trials.items():
        rows = f[f["benchmark"] == name]
        np.testing.assert_allclose(_per_eval(rows), trial["times"], rtol=1e-14)
        assert (rows["evals"] == trial["params"][1]["evals"]).all()
        np.testing.assert_array_equal(rows["gc_ns"], trial["gctimes"])
    assert run.metadata["source"]["version"] == "1.5.0"
    assert run.metadata["clock"]["source"] == "imported:BenchmarkTools.jl"


def test_csv_mapping() -> None:
    path = H / "timings.csv"
    assert sniff(path) == "csv"
    runs = load(path, mapping="time=time_us,unit=us,benchmark=bench,evals=iterations,run=trial")
    assert len(runs) == 2  # trials a and b
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    imported = pd.concat([r.frame for r in runs], ignore_index=True)
    np.testing.assert_allclose(
        _per_eval(imported), [float(r["time_us"]) * 1e3 for r in rows], rtol=1e-14
    )
    assert imported["benchmark"].tolist() == [r["bench"] for r in rows]
    assert (imported["evals"] == 100).all()
    assert set(imported["host"]) == {"box1"}
    assert runs[0].metadata["source"]["metadata"]["run_key"] == "a"


def test_csv_total_column_and_tsv(tmp_path: Path) -> None:
    p = tmp_path / "t.tsv"
    p.write_text("name\ttotal_ms\tn\nx\t2.0\t4\nx\t3.0\t4\n")
    f = load(p, mapping={"total": "total_ms", "unit": "ms", "evals": "n"})[0].frame
    np.testing.assert_allclose(f["ns"], [2e6, 3e6])
    np.testing.assert_allclose(_per_eval(f), [5e5, 7.5e5])
    assert f["benchmark"].tolist() == ["x", "x"]  # "name" column picked up by default


def test_csv_default_columns(tmp_path: Path) -> None:
    p = tmp_path / "plain.csv"
    p.write_text("time_ns\n10\n12\n")
    f = load(p)[0].frame
    assert f["benchmark"].tolist() == ["plain", "plain"] and f["ns"].tolist() == [10.0, 12.0]


def test_parse_mapping() -> None:
    assert parse_mapping("time=t, benchmark=b,unit=us") == {
        "time": "t",
        "benchmark": "b",
        "unit": "us",
    }
    with pytest.raises(ValueError, match="unknown key 'colour'"):
        parse_mapping("colour=red")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_mapping("time")


@pytest.mark.parametrize(
    "name",
    [
        "hyperfine.json",
        "gbench.json",
        "criterion",
        "benchmarktools.json",
        "pytest-benchmark-data.json",
        "jmh.json",
        "timings.csv",
    ],
)
def test_metadata_valid_and_ids_deterministic(name: str) -> None:
    opts = (
        {"mapping": "time=time_us,unit=us,benchmark=bench,evals=iterations"}
        if name.endswith(".csv")
        else {}
    )
    runs = load(H / name, **opts)
    again = load(H / name, **opts)
    for r, r2 in zip(runs, again, strict=True):
        assert schema.validate_metadata(r.metadata) == []
        assert r.metadata["run"] == r2.metadata["run"]
        assert r.metadata["timer"]["overhead_ns"] == 0
        assert r.metadata["target"]["kind"] == "imported"
        assert r.metadata["source"]["file"].endswith(name)
        assert list(r.frame.columns[: len(schema.REQUIRED_COLUMNS)]) == list(
            schema.REQUIRED_COLUMNS
        )
        assert (r.frame["round"] == r.frame["sample"]).all() and (r.frame["position"] == 0).all()
        assert (r.frame["ns"] > 0).all() and (r.frame["evals"] >= 1).all()
        assert set(r.frame["kind"]) == {"value"}


def test_csv_work_column_and_reserved_names(tmp_path: Path) -> None:
    p = tmp_path / "w.csv"
    p.write_text("benchmark,ns,work,kind,sample,note\nx,100,2,warmup,9,a\nx,150,3,value,8,b\n")
    run = load(p)[0]
    f = run.frame
    # work is the run format's work column; kind and sample from the file are not trusted
    assert f["work"].tolist() == [2.0, 3.0]
    assert f["kind"].tolist() == ["value", "value"] and f["sample"].tolist() == [0, 1]
    assert f["note"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="either time"):
        load(p, mapping="time=ns,total=ns")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            # up to 1e5 s x 1e4 evaluations: below the run format's 2**63 ns per sample
            st.floats(1e-3, 1e5, allow_nan=False),
            st.integers(1, 10**4),
        ),
        min_size=1,
        max_size=25,
    ),
    st.sampled_from(["ns", "us", "ms", "s"]),
)
def test_csv_roundtrip_property(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, float, int]], unit: str
) -> None:
    # invariant: every row becomes one sample of its benchmark, in file order, with the
    # per-evaluation time converted to ns and ns = time * evals
    p = tmp_path_factory.mktemp("csv") / "t.csv"
    p.write_text("b,t,e\n" + "".join(f"{b},{t!r},{e}\n" for b, t, e in rows))
    f = load(p, mapping=f"benchmark=b,time=t,evals=e,unit={unit}")[0].frame
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]
    for name in {b for b, _, _ in rows}:
        mine = [(t, e) for b, t, e in rows if b == name]
        got = f[f["benchmark"] == name]
        assert got["sample"].tolist() == list(range(len(mine)))
        assert got["evals"].tolist() == [e for _, e in mine]
        np.testing.assert_allclose(
            got["ns"] / got["evals"], [t * scale for t, _ in mine], rtol=1e-13
        )
