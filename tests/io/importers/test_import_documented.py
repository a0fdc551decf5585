"""Files in each tool's real, documented output shape: every benchmark and parameter is
read, the numbers agree with the tool's own summary in the file, and what the tool
reports as failed is said, not passed over.

The files are hand-made here in the layouts of the tools' serialisers (hyperfine
``src/export/json.rs``; Google Benchmark ``src/json_reporter.cc``; ``go test -bench``
output as described by golang.org/x/perf ``benchfmt``); the numbers are our own.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from tsanalyze.cli.app import app
from tsanalyze.io.importers import load_table

runner = CliRunner()


def _hyperfine_result(command: str, times: list[float], codes: list[Any]) -> dict[str, Any]:
    """One entry of ``results`` as hyperfine ``--export-json`` writes it (seconds)."""
    return {
        "command": command,
        "mean": statistics.mean(times),
        "stddev": statistics.stdev(times),
        "median": statistics.median(times),
        "user": 0.0012,
        "system": 0.0031,
        "min": min(times),
        "max": max(times),
        "times": times,
        "exit_codes": codes,
    }


def test_hyperfine_ignore_failure_commands_are_reported(tmp_path: Path) -> None:
    # `hyperfine -i 'grep -q needle file' 'true'`: grep exits 1 in 2 of 3 runs, one run
    # killed by a signal (hyperfine writes null for its exit code)
    path = tmp_path / "hf.json"
    results = [
        _hyperfine_result("grep -q needle file", [0.0101, 0.0103, 0.0102], [1, 0, 1]),
        _hyperfine_result("true", [0.0011, 0.0012, 0.0013], [0, None, 0]),
        _hyperfine_result("ls", [0.0021, 0.0022, 0.0023], [0, 0, 0]),
    ]
    path.write_text(json.dumps({"results": results}))
    table = load_table(path)
    assert len(table.notes) == 2
    assert "'grep -q needle file'" in table.notes[0] and "2 of 3 runs" in table.notes[0]
    assert "'true'" in table.notes[1] and "1 of 3 runs" in table.notes[1]
    assert all(n.startswith(str(path)) for n in table.notes)
    # the times are still imported, and agree with hyperfine's own mean and stddev
    for res in results:
        ns = table.frame.loc[table.frame["benchmark"] == res["command"], "ns"].to_numpy()
        assert np.mean(ns) / 1e9 == pytest.approx(res["mean"], rel=1e-12)
        assert np.std(ns, ddof=1) / 1e9 == pytest.approx(res["stddev"], rel=1e-9)
    out = tmp_path / "hf.parquet"
    got = runner.invoke(app, ["import", "auto", str(path), "-o", str(out)])
    assert got.exit_code == 0, got.output
    assert got.stderr.count("tsanalyze: warning:") == 2
    assert "'grep -q needle file' failed" in got.stderr


def test_hyperfine_clean_file_has_no_notes(tmp_path: Path) -> None:
    path = tmp_path / "hf.json"
    res = _hyperfine_result("sleep 0.1", [0.1003, 0.1011, 0.1007], [0, 0, 0])
    res["parameters"] = {"delay": "0.1"}
    path.write_text(json.dumps({"results": [res]}))
    table = load_table(path)
    assert table.notes == ()
    assert set(table.frame["param_delay"]) == {"0.1"}


def _gbench_entry(name: str, real: float, **more: Any) -> dict[str, Any]:
    """One ``benchmarks`` entry as Google Benchmark's JSONReporter writes it."""
    return {
        "name": name,
        "family_index": 0,
        "per_family_instance_index": 0,
        "run_name": name,
        "run_type": "iteration",
        "repetitions": 1,
        "repetition_index": 0,
        "threads": 1,
        "iterations": 1000,
        "real_time": real,
        "cpu_time": real,
        "time_unit": "ns",
        **more,
    }


_GBENCH_CONTEXT = {
    "date": "2024-03-01T10:00:00+01:00",
    "host_name": "box",
    "executable": "./bench",
    "num_cpus": 8,
    "mhz_per_cpu": 3600,
    "cpu_scaling_enabled": False,
    "library_build_type": "release",
}


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        # state.SkipWithError("could not open file"): error_occurred, no timing
        ({"error_occurred": True, "error_message": "could not open file"},
         "'BM_read/4096' failed (could not open file)"),
        # state.SkipWithMessage (Google Benchmark 1.8): skipped, zero iterations
        ({"skipped": True, "skip_message": "no GPU"}, "'BM_read/4096' skipped (no GPU)"),
    ],
    ids=["error", "skip"],
)  # fmt: skip
def test_gbench_errors_and_skips_are_reported(
    tmp_path: Path, fields: dict[str, Any], said: str
) -> None:
    path = tmp_path / "gb.json"
    failed = _gbench_entry("BM_read/4096", 0.0, iterations=0, cpu_time=0.0, **fields)
    path.write_text(
        json.dumps({"context": _GBENCH_CONTEXT, "benchmarks": [_gbench_entry("BM_ok", 12.5), failed]})
    )
    table = load_table(path)
    assert set(table.frame["benchmark"]) == {"BM_ok"}
    (note,) = table.notes
    assert note.startswith(str(path)) and said in note
    out = tmp_path / "gb.parquet"
    got = runner.invoke(app, ["import", "auto", str(path), "-o", str(out)])
    assert got.exit_code == 0, got.output
    assert "tsanalyze: warning:" in got.stderr and "BM_read/4096" in got.stderr


_GO_OUTPUT = """\
goos: linux
goarch: amd64
pkg: example.com/strs
cpu: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz
BenchmarkJoin/n=10-8         	 5000000	       245.3 ns/op	     128 B/op	       2 allocs/op
BenchmarkJoin/n=10-8         	 5000000	       249.1 ns/op	     128 B/op	       2 allocs/op
--- FAIL: BenchmarkParse/json-8
    parse_test.go:41: unexpected token "x"
    parse_test.go:42: second line
--- BENCH: BenchmarkLogs-8
    logs_test.go:60: hello
BenchmarkLogs-8              	  300000	      4020 ns/op
BenchmarkHash-8              	 1000000	      1052 ns/op	 973.21 MB/s
--- FAIL: BenchmarkBroken-8
FAIL
exit status 1
FAIL	example.com/strs	12.345s
"""


def test_go_test_failed_benchmarks_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "bench.txt"
    path.write_text(_GO_OUTPUT)
    table = load_table(path)
    assert sorted(set(table.frame["benchmark"])) == ["Hash-8", "Join/n=10-8", "Logs-8"]
    assert table.frame.loc[table.frame["benchmark"] == "Hash-8", "mb_per_s"].tolist() == [973.21]
    first, second = table.notes
    assert first.startswith(str(path)) and "'Parse/json-8'" in first
    assert 'unexpected token "x"' in first and "second line" not in first
    assert "'Broken-8'" in second
    # a --- BENCH: log block is not a failure
    assert not any("Logs-8" in n for n in table.notes)


# --benchmark_out_format=csv (google/benchmark src/csv_reporter.cc): the context goes to
# stderr; a skipped run is its name, 7 empty fields, true (error) or false (message), the
# message; "Comparisons" is a user counter
_GBENCH_CSV = """\
name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"Comparisons"
"BM_memcpy/8",56000000,12.5,12.4,ns,6.4e+08,,,,,
"BM_memcpy/8",56000000,12.7,12.6,ns,6.3e+08,,,,,
"BM_memcpy/8_mean",2,12.6,12.5,ns,6.35e+08,,,,,
"BM_memcpy/8_median",2,12.6,12.5,ns,6.35e+08,,,,,
"BM_memcpy/8_stddev",2,0.141421,0.141421,ns,7.07107e+06,,,,,
"BM_memcpy/8_cv",2,0.0112239,0.0113137,,0.0111359,,,,,
"BM_sort/1024",15000,45.1,45,us,,2.2e+07,"sorted",,,10240
"BM_read/4096",,,,,,,,true,"could not open file"
"BM_gpu",,,,,,,,false,"no GPU"
"""


def test_gbench_csv_output_is_imported(tmp_path: Path) -> None:
    path = tmp_path / "gb.csv"
    path.write_text(_GBENCH_CSV)
    table = load_table(path)
    f = table.frame
    assert list(dict.fromkeys(f["benchmark"])) == ["BM_memcpy/8", "BM_sort/1024"]
    m = f[f["benchmark"] == "BM_memcpy/8"]
    per_eval = (m["ns"] / m["evals"]).to_numpy()
    # the file's own mean and stddev aggregates, to the digits printed
    assert np.mean(per_eval) == pytest.approx(12.6, abs=5e-7)
    assert np.std(per_eval, ddof=1) == pytest.approx(0.141421, abs=5e-7)
    s = f[f["benchmark"] == "BM_sort/1024"].iloc[0]
    assert s["ns"] / s["evals"] == pytest.approx(45.1e3) and s["cpu_ns"] == pytest.approx(45e3)
    assert s["comparisons"] == 10240.0 and s["items_per_second"] == 2.2e7
    assert len(table.notes) == 2
    assert "'BM_read/4096' failed (could not open file)" in table.notes[0]
    assert "'BM_gpu' skipped (no GPU)" in table.notes[1]


def test_gbench_csv_bad_cell_names_line_and_column(tmp_path: Path) -> None:
    from tsanalyze.errors import ImportFormatError

    path = tmp_path / "gb.csv"
    path.write_text(_GBENCH_CSV.replace("45.1,45,us", "fast,45,us"))
    with pytest.raises(ImportFormatError, match=r"gb\.csv.*line 8.*real_time"):
        load_table(path)


def _test2json(outputs: list[tuple[str | None, str]], package: str = "example.com/strs") -> str:
    """``go test -bench . -json`` output: one test2json event a line (cmd/test2json)."""
    events: list[dict[str, Any]] = [{"Time": "2024-03-01T10:00:00Z", "Action": "start", "Package": package}]
    for test, out in outputs:
        e = {"Time": "2024-03-01T10:00:00.5Z", "Action": "output", "Package": package, "Output": out}
        if test is not None:
            e["Test"] = test
        events.append(e)
    events.append({"Time": "2024-03-01T10:00:01Z", "Action": "fail", "Package": package, "Elapsed": 1.2})
    return "".join(json.dumps(e) + "\n" for e in events)


def test_go_test_json_output_is_imported(tmp_path: Path) -> None:
    join = "BenchmarkJoin/n=10"
    path = tmp_path / "bench.json"
    path.write_text(
        _test2json(
            [
                (None, "goos: linux\n"),
                (None, "pkg: example.com/strs\n"),
                (join, f"=== RUN   {join}\n"),
                (join, f"{join}\n"),
                # test2json splits a result line: the name, then the measurements
                (join, f"{join}-8         \t"),
                (join, " 5000000\t       245.3 ns/op\t     128 B/op\t       2 allocs/op\n"),
                (join, f"{join}-8         \t"),
                (join, " 5000000\t       249.1 ns/op\t     128 B/op\t       2 allocs/op\n"),
                ("BenchmarkBroken", "--- FAIL: BenchmarkBroken-8\n"),
                ("BenchmarkBroken", "    x_test.go:9: boom\n"),
                (None, "FAIL\n"),
            ]
        )
    )
    table = load_table(path)
    f = table.frame
    assert set(f["benchmark"]) == {"Join/n=10-8"}
    assert (f["ns"] / f["evals"]).tolist() == pytest.approx([245.3, 249.1])
    assert f["bytes_per_op"].tolist() == [128.0, 128.0] and set(f["evals"]) == {5000000}
    (meta,) = table.metadata.values()
    assert meta["source"]["metadata"]["configuration"]["pkg"] == "example.com/strs"
    (note,) = table.notes
    assert "'Broken-8' failed" in note and "boom" in note


def test_report_on_a_tool_file_prints_its_failures_as_warnings(tmp_path: Path) -> None:
    # `tsanalyze report hf.json` reads the file directly: the same one-line warnings as
    # `tsanalyze import`, on stderr, and the report itself
    path = tmp_path / "hf.json"
    results = [_hyperfine_result("false || true", [0.0101, 0.0103, 0.0102, 0.0104], [1, 1, 1, 1])]
    path.write_text(json.dumps({"results": results}))
    got = runner.invoke(app, ["report", str(path), "-f", "json"])
    assert got.exit_code in (0, 1), got.output
    lines = [ln for ln in got.stderr.splitlines() if ln.startswith("tsanalyze: warning:")]
    assert len(lines) == 1 and "'false || true' failed" in lines[0]
    assert "Warning" not in got.stderr  # not Python's warning format
    # the Python API: a warning of its own category
    from tsanalyze.errors import ImportNoteWarning
    from tsanalyze.io.runs import read_runs

    with pytest.warns(ImportNoteWarning, match=re.escape("'false || true' failed")):
        read_runs(path)


def test_criterion_raw_csv_matches_sample_json(tmp_path: Path) -> None:
    # criterion writes target/criterion/<id>/new/{sample.json, raw.csv} from the same
    # samples (src/fs.rs, src/csv_report.rs): both must import to the same rows
    new = tmp_path / "criterion" / "parse" / "json" / "1024" / "new"
    new.mkdir(parents=True)
    iters = [10.0 * k for k in range(1, 11)]
    times = [i * (1500.0 + 7.0 * (k % 3)) for k, i in enumerate(iters)]  # ns per sample
    (new / "sample.json").write_text(
        json.dumps({"sampling_mode": "Linear", "iters": iters, "times": times})
    )
    (new / "benchmark.json").write_text(
        json.dumps({"group_id": "parse", "function_id": "json", "value_str": "1024",
                    "throughput": {"Bytes": 1024}, "full_id": "parse/json/1024",
                    "directory_name": "parse/json/1024", "title": "parse/json/1024"})
    )  # fmt: skip
    rows = [
        f"parse,json,1024,1024,bytes,{t},ns,{int(i)}" for t, i in zip(times, iters, strict=True)
    ]
    header = "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count"
    (new / "raw.csv").write_text("\n".join([header, *rows]) + "\n")
    from_json = load_table(new.parent).frame
    from_csv = load_table(new / "raw.csv").frame
    assert set(from_csv["benchmark"]) == {"parse/json/1024"} == set(from_json["benchmark"])
    assert from_csv["ns"].to_numpy() == pytest.approx(from_json["ns"].to_numpy(), rel=1e-12)
    assert from_csv["evals"].tolist() == from_json["evals"].tolist()
    # a function-less benchmark (c.bench_function("fib 20", ...)) is named by its group
    (tmp_path / "raw.csv").write_text(f"{header}\nfib 20,,,,,26000.5,ns,1\n")
    assert set(load_table(tmp_path / "raw.csv").frame["benchmark"]) == {"fib 20"}


def test_go_output_where_every_benchmark_failed_says_so(tmp_path: Path) -> None:
    from tsanalyze.errors import ImportFormatError

    path = tmp_path / "bench.txt"
    path.write_text(
        "goos: linux\npkg: example.com/strs\n--- FAIL: BenchmarkParse-8\n"
        "    parse_test.go:41: boom\nFAIL\nexit status 1\nFAIL\texample.com/strs\t0.012s\n"
    )
    with pytest.raises(ImportFormatError, match=r"1 failed benchmark\(s\): 'Parse-8'"):
        load_table(path)


def test_gbench_file_where_every_benchmark_failed_names_them(tmp_path: Path) -> None:
    from tsanalyze.errors import ImportFormatError

    path = tmp_path / "gb.json"
    bad = _gbench_entry("BM_read", 0.0, iterations=0, error_occurred=True, error_message="no file")
    path.write_text(json.dumps({"context": _GBENCH_CONTEXT, "benchmarks": [bad]}))
    with pytest.raises(ImportFormatError, match=r"'BM_read' failed \(no file\)"):
        load_table(path)
