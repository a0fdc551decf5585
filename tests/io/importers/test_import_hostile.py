"""Hostile input to the importers (issue 18): every case a fuzzer found, each either a
one-line error naming the file or data that passes the run format's checks -- never a
traceback, never wrong data written with exit 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsanalyze.errors import ImportFormatError, InvalidRunError
from tsanalyze.io.importers import load_table
from tsanalyze.io.runs import read_runs, write_runs


def _write(tmp_path: Path, name: str, content: Any) -> Path:
    p = tmp_path / name
    p.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return p


def _refused(p: Path, *needles: str, fmt: str = "auto", **options: Any) -> str:
    with pytest.raises(ImportFormatError) as err:
        load_table(p, fmt, **options)
    msg = str(err.value)
    assert "\n" not in msg and str(p) in msg, msg
    for n in needles:
        assert n in msg, msg
    return msg


def _round_trip(tmp_path: Path, p: Path, **options: Any) -> Any:
    """Import, write, read back: the three paths agree (one validation)."""
    t = load_table(p, **options)
    out = write_runs(t.frame, tmp_path / "out.parquet", t.metadata.values())
    return read_runs(out)


# ------------------------------------------------------------------ Go benchmark text
@pytest.mark.parametrize("unit", ["ns", "evals", "benchmark", "kind", "run", "sample", "round", "work"])
def test_go_units_named_like_run_format_columns_get_their_own_column(
    tmp_path: Path, unit: str
) -> None:
    # before: "3 ns" replaced the ns column (time 0.3 ns/op written, exit 0); evals,
    # benchmark, run gave tracebacks; kind dropped every row; sample gave a false
    # duplicate error on reading
    p = _write(tmp_path, "go.txt", f"BenchmarkX-8 10 5 ns/op 3 {unit}\nBenchmarkX-8 10 6 ns/op 4 {unit}\n")
    df = _round_trip(tmp_path, p)
    assert df["time_ns"].tolist() == [5.0, 6.0]
    assert df["evals"].tolist() == [10, 10]
    assert df[f"unit_{unit}"].tolist() == [3.0, 4.0]


def test_go_units_with_one_identifier_keep_both_columns(tmp_path: Path) -> None:
    p = _write(tmp_path, "go.txt", "BenchmarkX 10 5 ns/op 3 a/b 4 a_per_b\n")
    f = load_table(p).frame
    assert f["a_per_b"].tolist() == [3.0] and f["unit_a_per_b"].tolist() == [4.0]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("BenchmarkX-8 99999999999999999999999 5 ns/op", "iteration count from 1 to"),
        ("BenchmarkX-8 ١٢ 5 ns/op", "expected the iteration count"),  # Arabic-Indic digits
        ("BenchmarkX-8 10 5 ns/op 3", "line truncated?"),
        ("BenchmarkX-8 10", "line truncated?"),
        ("BenchmarkX-8 1000000 1e300 ns/op", "beyond 9.223e+18 ns"),
    ],
)
def test_go_hostile_lines(tmp_path: Path, line: str, needle: str) -> None:
    p = _write(tmp_path, "go.txt", f"BenchmarkX-8 10 5 ns/op\n{line}\n")
    _refused(p, needle, fmt="gobench")


# ------------------------------------------------------------------ JSON formats
_PYPERF = {"version": "1.0", "metadata": {"loops": 1}, "benchmarks": [{"metadata": {"name": "x"}, "runs": [{"values": [1.0, 2.0]}]}]}  # fmt: skip
_HYPERFINE = {"results": [{"command": "a", "times": [1.0, 2.0]}]}
_PYTEST = {"machine_info": {}, "benchmarks": [{"fullname": "a", "stats": {"data": [1.0, 2.0], "iterations": 1}}]}  # fmt: skip
_GBENCH = {"context": {}, "benchmarks": [{"name": "a", "run_type": "iteration", "iterations": 10, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"}]}  # fmt: skip
_JMH = [{"benchmark": "b", "mode": "avgt", "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[1.0, 2.0]]}}]


def _bt(*objects: Any) -> list[Any]:
    return [{"Julia": "1.9", "BenchmarkTools": "1.0"}, list(objects)]


def _trial(times: list[Any], evals: Any = 1) -> list[Any]:
    return ["Trial", {"params": ["Parameters", {"evals": evals}], "times": times, "gctimes": [0] * len(times), "memory": 0, "allocs": 0}]  # fmt: skip


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    cur = doc
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value
    return doc


_TIMES = {
    "pyperf": (_PYPERF, ("benchmarks", 0, "runs", 0, "values", 0)),
    "hyperfine": (_HYPERFINE, ("results", 0, "times", 0)),
    "pytest-benchmark": (_PYTEST, ("benchmarks", 0, "stats", "data", 0)),
    "gbench": (_GBENCH, ("benchmarks", 0, "real_time")),
    "jmh": (_JMH, (0, "primaryMetric", "rawData", 0, 0)),
    "benchmarktools": (_bt(_trial([1.0, 2.0])), (1, 0, 1, "times", 0)),
}


@pytest.mark.parametrize("fmt", sorted(_TIMES))
@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (1e308, "ns"),  # overflows to inf, or beyond 2**63 ns: never written
        ("1.5", "got a string ('1.5')"),  # JSON has numbers: a string is not a time
        (True, "got a boolean"),
        (10**400, "an integer of 401 digits"),  # OverflowError before
    ],
)
def test_json_times_must_be_finite_json_numbers(
    tmp_path: Path, fmt: str, value: Any, needle: str
) -> None:
    doc, path = _TIMES[fmt]
    if fmt == "gbench" and value == 1e308:
        doc = _set(doc, ("benchmarks", 0, "time_unit"), "s")
    p = _write(tmp_path, f"{fmt}.json", _set(doc, path, value))
    _refused(p, needle, fmt=fmt)


_COUNTS = {
    "pyperf": (_PYPERF, ("metadata", "loops")),
    "pytest-benchmark": (_PYTEST, ("benchmarks", 0, "stats", "iterations")),
    "gbench": (_GBENCH, ("benchmarks", 0, "iterations")),
    "benchmarktools": (_bt(_trial([1.0, 2.0])), (1, 0, 1, "params", 1, "evals")),
}


@pytest.mark.parametrize("fmt", sorted(_COUNTS))
@pytest.mark.parametrize("value", [2**63, 2**64 + 5, 10**30])
def test_counts_beyond_int64_are_refused_not_wrapped(tmp_path: Path, fmt: str, value: int) -> None:
    # before: OverflowError tracebacks, or evals = -9223372036854775808 written
    doc, path = _COUNTS[fmt]
    p = _write(tmp_path, f"{fmt}.json", _set(doc, path, value))
    _refused(p, "9223372036854775807", fmt=fmt)


def test_criterion_iterations_beyond_int64_are_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, "sample.json", {"sampling_mode": "Linear", "iters": [1.0, 1e30], "times": [5.0, 6.0]})
    _refused(p, "evaluations per sample must be a whole number from 1 to", fmt="criterion")


@pytest.mark.parametrize(
    ("text", "needle"),
    [("[" * 100_000 + "]" * 100_000, "nested at most"), ('{"x": ' + "9" * 5000 + "}", "valid JSON")],
)
def test_criterion_benchmark_json_deep_or_huge_is_a_one_line_error(
    tmp_path: Path, text: str, needle: str
) -> None:
    # before: RecursionError / ValueError from criterion's benchmark.json beside the
    # sample: an internal error instead of the file's name
    p = _write(tmp_path, "sample.json", {"sampling_mode": "Linear", "iters": [1.0, 2.0], "times": [5.0, 6.0]})  # fmt: skip
    bj = tmp_path / "benchmark.json"
    bj.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        load_table(p, "criterion")
    msg = str(err.value)
    assert "\n" not in msg and str(bj) in msg and needle in msg, msg


def test_jmh_tiny_throughput_is_refused_not_written_as_inf(tmp_path: Path) -> None:
    doc = [{"benchmark": "b", "mode": "thrpt", "primaryMetric": {"scoreUnit": "ops/s", "rawData": [[5e-324, 1.0]]}}]  # fmt: skip
    _refused(_write(tmp_path, "jmh.json", doc), "column ns", "not finite")


def test_jmh_histogram_of_1e15_is_refused_before_allocating(tmp_path: Path) -> None:
    # before: MemoryError asking for 7.11 PiB
    doc = [{"benchmark": "b", "mode": "sample", "primaryMetric": {"scoreUnit": "ns/op", "rawDataHistogram": [[[[10.0, 1e15]]]]}}]  # fmt: skip
    _refused(_write(tmp_path, "jmh.json", doc), "more than 50,000,000 sampled operations")


@pytest.mark.parametrize("bins", [[[10.0, 1], [2.0]], [[10.0, 1], 5], [[10.0, 1, 3]]])
def test_jmh_ragged_histograms_name_the_bin(tmp_path: Path, bins: list[Any]) -> None:
    doc = [{"benchmark": "b", "mode": "sample", "primaryMetric": {"scoreUnit": "ns/op", "rawDataHistogram": [[bins]]}}]  # fmt: skip
    _refused(_write(tmp_path, "jmh.json", doc), "rawDataHistogram[0][0][", "[value, count] pair")


def test_benchmarktools_empty_params_is_an_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "bt.json", _bt(["Trial", {"params": [], "times": [1.0], "gctimes": [0]}]))
    _refused(p, "$[1][0][1].params: expected at least 2 element(s), got 0")


def test_benchmarktools_a_slash_key_and_a_nested_group_stay_two_benchmarks(tmp_path: Path) -> None:
    # before: "a/b" and "a" -> "b" were merged into one benchmark of 4 samples
    group = ["BenchmarkGroup", {"tags": [], "data": {
        "a/b": _trial([1.0, 2.0]),
        "a": ["BenchmarkGroup", {"tags": [], "data": {"b": _trial([3.0, 4.0])}}],
        "c": _trial([5.0]),
    }}]  # fmt: skip
    df = _round_trip(tmp_path, _write(tmp_path, "bt.json", _bt(group)))
    sizes = df.groupby("benchmark", observed=True).size().to_dict()
    assert sizes == {'["a/b"]': 2, '["a", "b"]': 2, "c": 1}


def test_colliding_gbench_counters_keep_every_value(tmp_path: Path) -> None:
    doc = _set(_GBENCH, ("benchmarks", 0, "B/s"), 1.0)
    doc = _set(doc, ("benchmarks", 0, "B_per_s"), 2.0)
    doc = _set(doc, ("benchmarks", 0, "evals"), 7.0)  # a counter named like a column
    doc = _set(doc, ("benchmarks", 0, "big"), 10**400)  # kept (as inf), not a traceback
    f = load_table(_write(tmp_path, "gb.json", doc)).frame
    assert f["b_per_s"].tolist() == [1.0] and f["counter_b_per_s"].tolist() == [2.0]
    assert f["evals"].tolist() == [10] and f["counter_evals"].tolist() == [7.0]
    assert f["big"].tolist() == [np.inf]


def test_colliding_hyperfine_parameters_and_commands_keep_every_value(tmp_path: Path) -> None:
    doc = {"results": [
        {"command": "sleep", "times": [1.0, 2.0], "parameters": {"a b": "1", "a_b": "2"}},
        {"command": "sleep", "times": [3.0], "parameters": {"a b": "3", "a_b": "4"}},
    ]}  # fmt: skip
    df = _round_trip(tmp_path, _write(tmp_path, "hf.json", doc))
    assert df["param_a_b"].tolist() == ["1", "1", "3"]
    assert df["x_param_a_b"].tolist() == ["2", "2", "4"]
    assert df["benchmark"].astype(str).tolist() == ["sleep", "sleep", "sleep #2"]


def test_pyperf_unit_that_is_not_a_string(tmp_path: Path) -> None:
    p = _write(tmp_path, "p.json", _set(_PYPERF, ("metadata", "unit"), [1]))
    _refused(p, "expected unit 'second'", "got [1]")


def test_pyperf_nan_in_tool_metadata_is_stored_as_null(tmp_path: Path) -> None:
    # before: ValueError "Out of range float values are not JSON compliant" on writing
    text = json.dumps(_PYPERF).replace('"loops": 1', '"loops": 1, "x": NaN, "y": Infinity')
    df = _round_trip(tmp_path, _write(tmp_path, "p.json", text))
    meta = next(iter(df.attrs["runs"].values()))["source"]["metadata"]
    assert meta["x"] is None and meta["y"] is None


def test_pyperf_warmups_are_json_numbers(tmp_path: Path) -> None:
    doc = _set(_PYPERF, ("benchmarks", 0, "runs", 0, "warmups"), [[1, "0.5"]])
    _refused(_write(tmp_path, "p.json", doc), "warmups[0][1]", "got a string")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"results": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested at most"),
        ('{"results": [{"command": "a", "times": [' + "9" * 400 + "]}]}", "integer of 400 digits"),
        ('{"results": [{"command": "a", "times": [' + "9" * 5000 + "]}]}", "expected valid JSON"),
    ],
)
def test_deep_or_huge_json_is_a_one_line_error(tmp_path: Path, text: str, needle: str) -> None:
    # before: RecursionError and OverflowError tracebacks
    _refused(_write(tmp_path, "hf.json", text), needle, fmt="hyperfine")


# ------------------------------------------------------------------ CSV
def test_csv_time_of_1e308_is_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.csv", "benchmark,time\na,1e308\na,1\n")
    _refused(p, "column ns", "beyond 9.223e+18 ns")


def test_csv_unit_column_is_not_ignored(tmp_path: Path) -> None:
    # before: times of 100 and 120 ms in a column "time", with "ms" in a column "unit",
    # were written as 100 and 120 ns with exit 0 (a million times too fast)
    p = _write(tmp_path, "t.csv", "benchmark,time,unit\na,100,ms\na,120,ms\n")
    _refused(p, "column 'unit' says the times are in ms", "--unit ms")
    mixed = _write(tmp_path, "m.csv", "benchmark,time,unit\na,100,ms\nb,120,us\n")
    _refused(mixed, "column 'unit' holds several units (ms, us)")
    # given, the unit is applied; a unit column that agrees with ns changes nothing
    assert load_table(p, mapping={"unit": "ms"}).frame["ns"].tolist() == [1e8, 1.2e8]
    ns = _write(tmp_path, "n.csv", "benchmark,time,unit\na,100,ns\n")
    assert load_table(ns).frame["ns"].tolist() == [100.0]


def test_csv_evals_beyond_int64_are_refused_not_wrapped(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.csv", "benchmark,time,evals\na,1,1e30\n")
    _refused(p, "from 1 to 9223372036854775807")


def test_csv_on_a_json_list_is_one_short_line(tmp_path: Path) -> None:
    # issue 15: `import csv` on a JSON list printed ~100 kB (every "column")
    p = _write(tmp_path, "list.csv", [1.5, 2.5, 3.5] * 3000)
    msg = _refused(p, "looks like JSON", "import values", fmt="csv")
    assert len(msg.replace(str(p), "")) < 300


def test_csv_error_lists_a_few_columns_only(tmp_path: Path) -> None:
    p = _write(tmp_path, "wide.csv", ",".join(f"c{i}" for i in range(5000)) + "\n" + ",".join("1" * 5000) + "\n")
    msg = _refused(p, "expected a time column", "(4992 more)")
    assert len(msg.replace(str(p), "")) < 400


@pytest.mark.parametrize(
    "text",
    ['benchmark,time\n"a,1\nb,2\n', "benchmark,time\na,1,2,3\nb\n", "benchmark,time\n\x00a,1\n"],
)
def test_csv_parser_errors_are_one_line(tmp_path: Path, text: str) -> None:
    # before: pandas' parser errors ("Error tokenizing data. C error: ...\n") took two lines
    p = _write(tmp_path, "bad.csv", text)
    try:
        _round_trip(tmp_path, p, format="csv")
    except ImportFormatError as exc:
        assert "\n" not in str(exc) and str(p) in str(exc)


def test_an_import_error_quoting_the_file_stays_on_one_line(tmp_path: Path) -> None:
    # fuzz (issue 18): a header with a newline inside quotes was listed raw in the message
    p = _write(tmp_path, "q.csv", 'a,"x\ny",\x1b]0;t\x07\n1,2,3\n')
    msg = _refused(p, "expected a time column", fmt="csv")
    assert "\x1b" not in msg and "\\x1b" in msg


def test_read_runs_refuses_what_the_importer_refuses(tmp_path: Path) -> None:
    # one validation path: read_runs imports other tools' files through the same checks
    p = _write(tmp_path, "hf.json", _set(_HYPERFINE, ("results", 0, "times", 0), 1e308))
    with pytest.raises(InvalidRunError, match=r"hf\.json: column ns: time inf"):
        read_runs(p)
