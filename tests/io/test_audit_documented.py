"""Audit input in the shapes other tools really export (hand-made in the layout of each
tool's serialiser; the numbers are our own)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tsanalyze.io.audit_input import read_audit_file

# hyperfine --export-csv (hyperfine src/export/csv.rs): seconds, one parameter column per
# --parameter-scan parameter
_HYPERFINE_CSV = """\
command,mean,stddev,median,user,system,min,max,parameter_delay
sleep 0.1,0.10229957766,0.0012345,0.1021,0.0005,0.0010,0.1010,0.1050,0.1
sleep 0.2,0.20229957766,0.0011111,0.2021,0.0005,0.0010,0.2010,0.2050,0.2
"""


def test_hyperfine_export_csv_is_read_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "hf.csv"
    path.write_text(_HYPERFINE_CSV)
    got = read_audit_file(path)
    rows = {r["name"]: r for r in got.rows}
    assert set(rows) == {"sleep 0.1", "sleep 0.2"}
    r = rows["sleep 0.1"]
    # the digits as exported, in seconds (they were read as ns: 0.102 ns per command run)
    assert r["unit"] == "s"
    assert (r["mean"], r["spread"], r["spread_kind"]) == ("0.10229957766", "0.0012345", "sd")
    assert (r["min"], r["median"], r["max"]) == ("0.1010", "0.1021", "0.1050")
    assert r["location_kind"] == "mean" and r["evals"] == 1 and r["tool"] == "hyperfine"
    # the parameter is in the command already: no note about an unknown column
    assert not any("parameter_delay" in n.message for n in got.notes)


def test_a_csv_with_a_unit_column_is_not_taken_for_hyperfine(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("command,mean,sd,unit\nls,2.5,0.1,ms\n")
    (r,) = read_audit_file(path).rows
    assert (r["mean"], r["unit"]) == ("2.5", "ms") and "tool" not in r


def test_importing_a_hyperfine_csv_points_to_json_and_audit(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tsanalyze.cli.app import app

    path = tmp_path / "hf.csv"
    path.write_text(_HYPERFINE_CSV)
    got = CliRunner().invoke(app, ["import", "auto", str(path), "-o", str(tmp_path / "o.parquet")])
    assert got.exit_code == 2
    msg = got.stderr.strip()
    assert "\n" not in msg and str(path) in msg
    assert "--export-json" in msg and "tsanalyze audit" in msg


def _gbench_aggregate(name: str, agg: str, value: float, unit: str = "time") -> dict[str, object]:
    """An aggregate entry as Google Benchmark's JSONReporter writes it."""
    return {
        "name": f"{name}_{agg}", "family_index": 0, "per_family_instance_index": 0,
        "run_name": name, "run_type": "aggregate", "repetitions": 5, "threads": 1,
        "aggregate_name": agg, "aggregate_unit": unit, "iterations": 5,
        "real_time": value, "cpu_time": value, "time_unit": "us",
    }  # fmt: skip


def test_gbench_json_with_aggregates_only_is_audited(tmp_path: Path) -> None:
    # --benchmark_repetitions=5 --benchmark_report_aggregates_only=true: no repetition in
    # the file, so nothing to import; the summaries are what the audit reads
    import json

    path = tmp_path / "gb.json"
    entries = [
        _gbench_aggregate("BM_sort/1024", "mean", 44.25),
        _gbench_aggregate("BM_sort/1024", "median", 44.1),
        _gbench_aggregate("BM_sort/1024", "stddev", 0.75),
        _gbench_aggregate("BM_sort/1024", "cv", 0.0169, unit="percentage"),
    ]
    path.write_text(json.dumps({"context": {"num_cpus": 8}, "benchmarks": entries}))
    (r,) = read_audit_file(path).rows
    assert r["name"] == "BM_sort/1024" and r["unit"] == "us" and r["n"] == 5
    assert (float(r["location"]), float(r["spread"]), float(r["median"])) == (44.25, 0.75, 44.1)
    assert r["spread_kind"] == "sd" and r["location_kind"] == "mean"
    # and the importer's error says where to go instead of a dead end
    from tsanalyze.errors import ImportFormatError
    from tsanalyze.io.importers import load_table

    with pytest.raises(ImportFormatError, match="tsanalyze audit"):
        load_table(path)


def test_benchmarktools_estimates_only_is_explained_by_import_and_audit(tmp_path: Path) -> None:
    # BenchmarkTools.save("est.json", median(results)): TrialEstimates in a group, no Trial
    import json

    from tsanalyze.errors import AuditInputError, ImportFormatError
    from tsanalyze.io.importers import load_table

    params = ["Parameters", {"evals": 10, "samples": 10000, "seconds": 5.0, "overhead": 0.0}]
    est = ["TrialEstimate", {"allocs": 1, "time": 40.1, "gctime": 0.0, "memory": 96, "params": params}]
    group = ["BenchmarkGroup", {"data": {"sum": est}, "tags": []}]
    path = tmp_path / "est.json"
    path.write_text(json.dumps([{"Julia": "1.10.0", "BenchmarkTools": "1.4.0"}, [group]]))
    with pytest.raises(ImportFormatError, match=r"TrialEstimate.*BenchmarkTools\.save\(file, results\)"):
        load_table(path)
    # the audit used to send the user to `tsanalyze report`, which fails on this file
    with pytest.raises(AuditInputError, match="TrialEstimate") as err:
        read_audit_file(path)
    assert "tsanalyze report" not in str(err.value)


_JMH_TABLE = """\
Benchmark                  (size)    Mode     Cnt     Score     Error   Units
MyBench.avg                   100    avgt      10     1.504 ±   0.031   us/op
MyBench.smp                   N/A  sample  154021    99.512 ±   1.200   ns/op
MyBench.smp:p0.50             N/A  sample           100.000             ns/op
MyBench.thr                   N/A   thrpt      10  2493.123 ±  45.210  ops/ms
MyBench.thr:gc.alloc.rate     N/A   thrpt      10   512.300 ±  10.100  MB/sec
"""


def test_jmh_benchmarks_without_parameters_are_named_without_n_a(tmp_path: Path) -> None:
    # JMH prints N/A in the (size) column for benchmarks that have no such @Param
    path = tmp_path / "jmh.txt"
    path.write_text(_JMH_TABLE)
    rows = {r["name"]: r for r in read_audit_file(path).rows}
    assert set(rows) == {"MyBench.avg(100)", "MyBench.smp", "MyBench.thr"}
    assert rows["MyBench.thr"]["unit"] == "ops/s"  # a rate, converted to per second
    assert rows["MyBench.smp"]["n"] == 154021


@pytest.mark.parametrize(
    ("text", "named"),
    [
        # Google Benchmark console, state.SkipWithError
        (
            "Benchmark           Time             CPU   Iterations\n"
            "------------------------------------------------------\n"
            "BM_memcpy/8      12.5 ns         12.4 ns     56000000\n"
            "BM_read/4096   ERROR OCCURRED: 'could not open file'\n",
            "'BM_read/4096' failed ('could not open file')",
        ),
        # go test -bench: a failing benchmark prints no result line
        (
            "BenchmarkHash-8   1000000   1052 ns/op\n"
            "--- FAIL: BenchmarkBroken-8\n"
            "    x_test.go:41: unexpected result\n"
            "FAIL\n",
            "'Broken-8' failed",
        ),
        # hyperfine -i: the command's times are of a failing run
        (
            "Benchmark 1: grep -q needle file\n"
            "  Time (mean ± σ):      10.2 ms ±   0.1 ms    [User: 1.2 ms, System: 3.1 ms]\n"
            "  Range (min … max):    10.1 ms …  10.3 ms    3 runs\n"
            "\n"
            "  Warning: Ignoring non-zero exit code.\n",
            "'grep -q needle file' exited with a non-zero code",
        ),
        # JMH run log: the benchmark's iteration threw, so the final table omits it
        (
            "# Benchmark: org.sample.MyBench.broken\n"
            "# Warmup Iteration   1: <failure>\n\n"
            "java.lang.IllegalStateException: boom\n"
            "Benchmark          Mode  Cnt  Score   Error  Units\n"
            "MyBench.ok         avgt   10  1.504 ± 0.031  us/op\n",
            "'org.sample.MyBench.broken' failed (JMH '<failure>')",
        ),
    ],
    ids=["gbench", "go", "hyperfine", "jmh"],
)
def test_failed_benchmarks_in_pasted_text_are_named(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "out.txt"
    path.write_text(text)
    got = read_audit_file(path)
    (note,) = [n for n in got.notes if n.code == "benchmark-failed"]
    assert named in note.message and note.message.startswith(f"{path}:")
    assert note.severity == "warning"


# criterion.rs src/report.rs: with a Throughput the change is printed as "change:" alone,
# then "time: [...] (p = ...)" and "thrpt: [...]" lines
_CRITERION_THROUGHPUT = """\
Benchmarking parse/json/1024: Analyzing
parse/json/1024         time:   [1.4912 µs 1.5005 µs 1.5101 µs]
                        thrpt:  [646.68 MiB/s 650.81 MiB/s 654.88 MiB/s]
                 change:
                        time:   [-2.1234% -1.0012% +0.1234%] (p = 0.09 > 0.05)
                        thrpt:  [-0.1232% +1.0113% +2.1695%]
                        No change in performance detected.
Found 3 outliers among 100 measurements (3.00%)
"""


def test_criterion_change_of_a_benchmark_with_throughput_is_read(tmp_path: Path) -> None:
    path = tmp_path / "crit.txt"
    path.write_text(_CRITERION_THROUGHPUT)
    (r,) = read_audit_file(path).rows
    assert (r["ci_low"], r["location"], r["ci_high"], r["unit"]) == ("1.4912", "1.5005", "1.5101", "µs")
    assert (r["claimed_change_low"], r["claimed_change"], r["claimed_change_high"]) == (
        "-2.1234%",
        "-1.0012%",
        "+0.1234%",
    )
    assert r["claimed_pvalue"] == "0.09" and r["n"] == 100


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        # --benchmark_out_format=csv: it failed with "field 'location': missing"
        (
            "gb.csv",
            "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,"
            'label,error_occurred,error_message\n"BM_memcpy/8",56000000,12.5,12.4,ns,,,,,\n',
            "Google Benchmark result",
        ),
        # criterion's raw.csv (src/csv_report.rs)
        (
            "raw.csv",
            "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,"
            "iteration_count\nfib,,20,,,26000.5,ns,1\n",
            "criterion.rs result",
        ),
    ],
    ids=["gbench", "criterion"],
)
def test_raw_timing_csv_is_sent_to_report_not_misread(
    tmp_path: Path, name: str, text: str, what: str
) -> None:
    from tsanalyze.errors import AuditInputError

    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(AuditInputError, match=rf"{re.escape(what)}.*tsanalyze report"):
        read_audit_file(path)
