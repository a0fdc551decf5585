"""Malformed and truncated input: ImportFormatError naming file, line or JSON path, and
what was expected; and the registry/sniffing edge cases."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from tsanalyze.errors import ImportFormatError, InvalidRunError
from tsanalyze.io.importers import FORMATS, load, sniff

DATA = Path(__file__).resolve().parents[2] / "data" / "importers"
H = DATA / "handmade"


def _truncate(src: Path, dst: Path, keep: float = 0.6) -> Path:
    raw = src.read_bytes()
    dst.write_bytes(raw[: int(len(raw) * keep)])
    return dst


@pytest.mark.parametrize(
    ("fmt", "src"),
    [
        ("pyperf", DATA / "pyperf" / "telco.json"),
        ("hyperfine", H / "hyperfine.json"),
        ("gbench", H / "gbench.json"),
        ("pytest-benchmark", H / "pytest-benchmark-data.json"),
        ("benchmarktools", H / "benchmarktools.json"),
        ("jmh", H / "jmh.json"),
        ("criterion", H / "criterion" / "fib" / "20" / "new" / "sample.json"),
    ],
)
def test_truncated_json(tmp_path: Path, fmt: str, src: Path) -> None:
    bad = _truncate(src, tmp_path / src.name)
    with pytest.raises(ImportFormatError) as err:
        load(bad, fmt)
    msg = str(err.value)
    assert msg.startswith(str(bad) + ": line ")
    assert re.search(r"line \d+ column \d+: expected valid JSON", msg)
    assert "truncated" in msg


def test_truncated_gzip(tmp_path: Path) -> None:
    bad = _truncate(DATA / "pyperf" / "py2.json.gz", tmp_path / "py2.json.gz", 0.5)
    with pytest.raises(ImportFormatError, match=r"py2\.json\.gz: expected a complete gzip stream"):
        load(bad, "pyperf")
    # auto-detection still recognises the format, and the error says what is wrong
    assert sniff(bad) == "pyperf"
    with pytest.raises(ImportFormatError, match=r"py2\.json\.gz: expected a complete gzip stream"):
        load(bad)


def test_truncated_go_line(tmp_path: Path) -> None:
    lines = (DATA / "benchstat" / "old.txt").read_text().splitlines()
    bad = tmp_path / "old.txt"
    # cut inside line 6 ("BenchmarkEncode/format=json-48  \t  692130\t  ...") after the iterations
    bad.write_text("\n".join(lines[:5]) + "\n" + lines[5].split("\t")[0] + "\t  692130\t")
    with pytest.raises(
        ImportFormatError, match=rf"^{re.escape(str(bad))}: line 6: expected '<value> <unit>' pairs"
    ):
        load(bad)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("BenchmarkX-8 lots 12 ns/op", "expected the iteration count"),
        ("BenchmarkX-8 0 12 ns/op", "expected an iteration count from 1 to"),
        ("BenchmarkX-8 10 fast ns/op", "expected a number before unit 'ns/op'"),
        ("BenchmarkX-8 10 -3 ns/op", "expected a time > 0"),
        ("BenchmarkX-8 10 NaN ns/op", "expected a finite number"),
    ],
)
def test_malformed_go_lines(tmp_path: Path, line: str, expected: str) -> None:
    p = tmp_path / "b.txt"
    p.write_text(f"goos: linux\nBenchmarkOK 10 5 ns/op\n{line}\n")
    with pytest.raises(ImportFormatError, match=rf"b\.txt: line 3: {re.escape(expected)}"):
        load(p, "gobench")


def test_go_file_without_benchmarks(tmp_path: Path) -> None:
    p = tmp_path / "empty.txt"
    p.write_text("goos: linux\nPASS\n")
    with pytest.raises(ImportFormatError, match="expected Go benchmark lines"):
        load(p, "gobench")


@pytest.mark.parametrize(
    ("fmt", "doc", "path", "expected"),
    [
        (
            "pyperf",
            {
                "version": "1.0",
                "benchmarks": [{"runs": [{"values": [0.1, "x"]}]}],
                "metadata": {"loops": 1},
            },
            "$.benchmarks[0].runs[0].values[1]",
            "expected a finite number",
        ),
        (
            "pyperf",
            {"version": "1.0", "benchmarks": [{"runs": [{"values": [0.1]}]}], "metadata": {}},
            "$.benchmarks[0].runs[0]",
            "expected a 'loops' metadata key",
        ),
        (
            "pyperf",
            {
                "version": "1.0",
                "benchmarks": [{"runs": [{"warmups": [[1]], "values": [0.1]}]}],
                "metadata": {"loops": 1},
            },
            "$.benchmarks[0].runs[0].warmups[0]",
            "expected a [loops, value] pair",
        ),
        (
            "pyperf",
            {
                "version": "1.0",
                "benchmarks": [{"runs": [{"values": [1000]}]}],
                "metadata": {"loops": 1, "unit": "byte"},
            },
            "$.benchmarks[0].runs[0]",
            "expected unit 'second'",
        ),
        (
            "pyperf",
            {"version": "2.0", "benchmarks": []},
            "$.version",
            "expected pyperf format version",
        ),
        (
            "hyperfine",
            {"results": [{"command": "a", "times": [0.1, -1]}]},
            "$.results[0].times[1]",
            "expected a finite number > 0",
        ),
        ("hyperfine", {"results": [{"command": "a"}]}, "$.results[0]", "expected key 'times'"),
        ("hyperfine", {"result": []}, "$", "expected key 'results'"),
        (
            "gbench",
            {
                "benchmarks": [
                    {
                        "name": "BM",
                        "run_type": "iteration",
                        "iterations": 5,
                        "real_time": 1,
                        "time_unit": "fortnights",
                    }
                ]
            },
            "$.benchmarks[0].time_unit",
            "expected one of",
        ),
        (
            "gbench",
            {"benchmarks": [{"name": "BM", "run_type": "iteration", "real_time": 1}]},
            "$.benchmarks[0]",
            "expected key 'iterations'",
        ),
        (
            "gbench",
            {"benchmarks": [{"name": "BM_mean", "run_type": "aggregate", "real_time": 1}]},
            "$.benchmarks",
            "expected at least one entry",
        ),
        (
            "pytest-benchmark",
            {"benchmarks": [{"fullname": "t", "stats": {"data": [1e-6, None], "iterations": 1}}]},
            "$.benchmarks[0].stats.data[1]",
            "expected a finite number",
        ),
        (
            "benchmarktools",
            [
                {"BenchmarkTools": "1.5.0"},
                [["Trial", {"params": ["Parameters", {}], "times": [1.0]}]],
            ],
            "$[1][0][1].params[1]",
            "expected key 'evals'",
        ),
        ("benchmarktools", [{"BenchmarkTools": "1.5.0"}], "$", "expected [versions, [objects]]"),
        (
            "benchmarktools",
            [{"BenchmarkTools": "1.5.0"}, [["BenchmarkGroup", {"data": {"a": [1, 2, 3]}}]]],
            "$[1][0][1].data['a']",
            "expected a [type name, {fields}] pair",
        ),
        (
            "criterion",
            {"iters": [1.0, 2.0], "times": [5.0]},
            "$.times",
            "expected as many times as iters",
        ),
        ("criterion", {"iters": [1.5], "times": [5.0]}, "$.iters[0]", "expected a whole number"),
    ],
)
def test_json_paths_in_errors(
    tmp_path: Path, fmt: str, doc: object, path: str, expected: str
) -> None:
    p = tmp_path / ("sample.json" if fmt == "criterion" else "x.json")
    p.write_text(json.dumps(doc))
    with pytest.raises(ImportFormatError) as err:
        load(p, fmt)
    msg = str(err.value)
    assert msg.startswith(f"{p}: {path}: "), msg
    assert expected in msg


@pytest.mark.parametrize(
    ("text", "mapping", "expected"),
    [
        ("a,b\n1,2\n", None, "line 1: expected a time column (time_ns, ns or time); map one with"),
        ("t\n1\nx\n", "time=t", "line 3: expected a finite number in column 't', got 'x'"),
        ("t\n1\n0\n", "time=t", "line 3: expected a time > 0"),
        (
            "t,e\n1,2\n1,0.5\n",
            "time=t,evals=e",
            "line 3: expected a whole number >= 1 in column 'e'",
        ),
        ("t\n1\n", "time=nope", "line 1: expected a column 'nope' for time"),
        ("t\n", "time=t", "line 2: expected at least one data row"),
        ("", "time=t", "line 1: expected a header row"),
    ],
)
def test_csv_errors(tmp_path: Path, text: str, mapping: str | None, expected: str) -> None:
    p = tmp_path / "t.csv"
    p.write_text(text)
    with pytest.raises(ImportFormatError, match=rf"^{re.escape(str(p))}: {re.escape(expected)}"):
        load(p, "csv", mapping=mapping)


def test_csv_parser_errors_fit_on_one_line(tmp_path: Path) -> None:
    # pandas' tokenizer message ends in a newline; the error must stay one line (issue 18)
    p = tmp_path / "t.csv"
    p.write_text("benchmark,time\na,1\nb,2,3\n")
    with pytest.raises(ImportFormatError) as err:
        load(p, "csv", mapping="time=time,benchmark=benchmark")
    assert "\n" not in str(err.value) and str(p) in str(err.value)
    assert "Expected 2 fields in line 3, saw 3" in str(err.value)


def test_a_bom_prefixed_csv_is_read(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeffbenchmark,time\na,1\nb,2\n".encode())
    (run,) = load(p, "csv", mapping="time=time,benchmark=benchmark")
    assert sorted(set(run.frame["benchmark"])) == ["a", "b"]


def test_csv_bad_unit_and_option(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text("t\n1\n")
    with pytest.raises(ValueError, match="unit must be"):
        load(p, "csv", mapping="time=t,unit=hours")
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        load(p, "csv", colour="red")


def test_criterion_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match=r"no new/sample\.json below"):
        load(tmp_path, "criterion")
    assert sniff(tmp_path) is None


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "b.txt"
    p.write_bytes(b"BenchmarkA 1 2 ns/op\n\xff\xfe\n")
    with pytest.raises(ImportFormatError, match=r"b\.txt: line 2: expected UTF-8 text"):
        load(p, "gobench")


def test_sniff_and_auto(tmp_path: Path) -> None:
    # every fixture is recognised by content
    assert sniff(DATA / "pyperf" / "py2.json.gz") == "pyperf"
    assert sniff(DATA / "benchstat" / "crc-new.txt") == "gobench"
    assert sniff(DATA / "benchstat" / "crcIgnore.stdout") is None  # a benchstat report, not input
    assert sniff(tmp_path / "missing.json") is None
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert sniff(empty) is None
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": [1, 2, 3]}))
    assert sniff(other) is None
    with pytest.raises(ImportFormatError, match="could not recognise it"):
        load(other)
    with pytest.raises(ImportFormatError, match="no such file"):
        load(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="format: must be 'auto' or one of"):
        load(DATA / "pyperf" / "telco.json", "pyperf2")
    with pytest.raises(ValueError, match="takes no options"):
        load(DATA / "pyperf" / "telco.json", "pyperf", colour="red")
    # a gzip-compressed copy of a text format is sniffed through the compression
    gz = tmp_path / "old.txt.gz"
    gz.write_bytes(gzip.compress((DATA / "benchstat" / "old.txt").read_bytes()))
    assert sniff(gz) == "gobench"
    assert len(load(gz)[0].frame) == 20
    # a Parquet file is not an import
    pq = tmp_path / "x.parquet"
    pq.write_bytes(b"PAR1" + b"\0" * 16)
    assert sniff(pq) is None
    copy = tmp_path / "telco-copy.json"
    shutil.copy(DATA / "pyperf" / "telco.json", copy)
    # ids depend on the file's path: two copies do not collide
    a = {r.metadata["run"] for r in load(copy)}
    b = {r.metadata["run"] for r in load(DATA / "pyperf" / "telco.json")}
    assert not a & b


def test_registry() -> None:
    assert set(FORMATS) == {
        "pyperf",
        "hyperfine",
        "gobench",
        "gbench",
        "criterion",
        "pytest-benchmark",
        "benchmarktools",
        "jmh",
        "values",
        "csv",
    }
    for name, importer in FORMATS.items():
        assert importer.name == name and importer.description
    assert issubclass(ImportFormatError, InvalidRunError)


def test_sniff_does_not_take_benchmarktools_text_for_go(tmp_path: Path) -> None:
    # BenchmarkTools' printed output starts lines with "BenchmarkTools.Trial: 10000 samples ..."
    p = tmp_path / "bt.txt"
    p.write_text(
        "BenchmarkTools.Trial: 10000 samples with 998 evaluations.\n Range (min … max):  14.8 ns … 44.2 ns\n"
    )
    assert sniff(p) is None
    with pytest.raises(ImportFormatError, match=r"bt\.txt: line 1: expected a number before unit"):
        load(p, "gobench")
    go = tmp_path / "go.txt"
    go.write_text("Benchmark 100 1.5e+03 ns/op\nBenchmark_x-8 7 .5 ns/op\n")
    assert sniff(go) == "gobench"
    f = load(go)[0].frame
    assert f["benchmark"].tolist() == ["Benchmark", "_x-8"]
    assert (f["ns"] / f["evals"]).tolist() == [1500.0, 0.5]
