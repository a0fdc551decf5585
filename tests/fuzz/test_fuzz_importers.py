"""Fuzzing every importer (issue 18): hostile values and keys in documents of each tool's
documented format, Go benchmark lines with any units, colliding counter and parameter
names, BenchmarkTools group trees. Each property is one a fuzzer broke before: wrong
data written with exit 0, a traceback, a message without the file name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _fuzz_hostile import FUZZ, HOSTILE_KEYS, Raw, dumps, import_or_refuse, mutated
from hypothesis import given
from hypothesis import strategies as st

from tsanalyze.errors import TsanalyzeError
from tsanalyze.io.importers import load_table

# Templates: small files of each tool's documented format (the tool's own docs and
# serialisation code; see tests/io/importers for the real files they mirror).
_PYPERF = {
    "version": "1.0",
    "metadata": {"loops": 4, "unit": "second", "name": "telco"},
    "benchmarks": [
        {
            "metadata": {"name": "telco"},
            "runs": [
                {"metadata": {"loops": 2}, "warmups": [[2, 0.5]], "values": [1.0, 2.0, 1.5]},
                {"values": [1.1, 2.1]},
            ],
        }
    ],
}
_HYPERFINE = {
    "results": [
        {
            "command": "a",
            "times": [1.0, 2.0, 1.5],
            "parameters": {"n": "1"},
            "exit_codes": [0, 0, 0],
        },
        {"command": "b", "times": [3.0, 2.0], "parameters": {"n": "2"}},
    ]
}
_PYTEST = {
    "machine_info": {"cpu": {"brand_raw": "x"}},
    "benchmarks": [
        {"fullname": "t::a", "name": "a", "stats": {"data": [1.0, 2.0, 1.5], "iterations": 3}},
        {"fullname": "t::b", "name": "b", "stats": {"data": [0.5, 0.6], "iterations": 1}},
    ],
}
_GBENCH = {
    "context": {"num_cpus": 2, "library_build_type": "release"},
    "benchmarks": [
        {"name": "BM_a/8", "run_type": "iteration", "iterations": 10, "real_time": 1.5,
         "cpu_time": 1.4, "time_unit": "ns", "bytes_per_second": 3.0, "items": 7.0},
        {"name": "BM_a/8", "run_type": "iteration", "iterations": 10, "real_time": 1.6,
         "cpu_time": 1.5, "time_unit": "us"},
        {"name": "BM_a/8_mean", "run_type": "aggregate", "aggregate_name": "mean",
         "iterations": 2, "real_time": 1.55, "cpu_time": 1.45, "time_unit": "ns"},
    ],
}  # fmt: skip
_JMH = [
    {"benchmark": "b.avg", "mode": "avgt", "forks": 2,
     "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[1.0, 2.0], [1.5, 2.5]]}},
    {"benchmark": "b.thr", "mode": "thrpt",
     "primaryMetric": {"scoreUnit": "ops/s", "rawData": [[3.376e9, 3.3e9]]}},
    {"benchmark": "b.smp", "mode": "sample",
     "primaryMetric": {"scoreUnit": "ns/op", "rawDataHistogram": [[[[10.0, 3], [12.0, 2]]]]}},
]  # fmt: skip


def _trial(times: list[Any], evals: Any = 1) -> list[Any]:
    return ["Trial", {"params": ["Parameters", {"evals": evals, "samples": 100}], "times": times, "gctimes": [0] * len(times), "memory": 0, "allocs": 0}]  # fmt: skip


_BT = [
    {"Julia": "1.9", "BenchmarkTools": "1.0"},
    [
        [
            "BenchmarkGroup",
            {
                "data": {
                    "sum": _trial([1.0, 2.0, 3.0], 10),
                    "g": ["BenchmarkGroup", {"data": {"x": _trial([4.0, 5.0])}, "tags": []}],
                },
                "tags": [],
            },
        ]
    ],
]

TEMPLATES: dict[str, Any] = {
    "pyperf": _PYPERF,
    "hyperfine": _HYPERFINE,
    "pytest-benchmark": _PYTEST,
    "gbench": _GBENCH,
    "jmh": _JMH,
    "benchmarktools": _BT,
}


@pytest.mark.parametrize("fmt", sorted(TEMPLATES))
def test_templates_import(tmp_path: Path, fmt: str) -> None:
    # the fuzz below starts from files that import: a mutation is what breaks them
    p = tmp_path / f"t.{fmt}.json"
    p.write_text(dumps(TEMPLATES[fmt]))
    assert import_or_refuse(p, fmt, tmp_path / "o.parquet") is not None


@pytest.mark.parametrize("fmt", sorted(TEMPLATES))
def test_fuzz_json_importers(tmp_path: Path, fmt: str) -> None:
    # found before: 1e308 / 5e-324 ops/s written as inf, numeric strings taken as times,
    # int64 wrap-around of counts, OverflowError on 400-digit integers, RecursionError on
    # deep JSON, pyperf "unit": [1], BenchmarkTools "params": [], NaN in tool metadata,
    # reserved keys replacing run-format columns
    @FUZZ
    @given(doc=mutated(TEMPLATES[fmt]), auto=st.booleans())
    def run(doc: Any, auto: bool) -> None:
        p = tmp_path / f"f.{fmt}.json"
        p.write_text(dumps(doc), encoding="utf-8")
        import_or_refuse(p, "auto" if auto else fmt, tmp_path / "o.parquet")

    run()


# ------------------------------------------------------------------ Go benchmark text
_GO_UNITS = ["ns/op", "B/op", "allocs/op", "MB/s", *HOSTILE_KEYS, "ns", "x/op", "op"]
_GO_NUMBER = st.one_of(
    st.integers(1, 10**6).map(str),
    st.sampled_from(["0", "-3", "1e300", "99999999999999999999999", "١٢", "NaN", "+Inf", "0x10"]),
)


@st.composite
def _go_line(draw: st.DrawFn) -> tuple[str, int | None, float | None]:
    n = draw(_GO_NUMBER)
    t = draw(st.floats(1e-3, 1e9, allow_nan=False).map(lambda v: float(f"{v:.4g}")))
    parts = [
        f"Benchmark{draw(st.sampled_from(['X', 'Y', 'Ünï', 'A/b=1', '_z']))}-8",
        n,
        f"{t:g}",
        "ns/op",
    ]
    for _ in range(draw(st.integers(0, 3))):
        parts += [draw(_GO_NUMBER), draw(st.sampled_from(_GO_UNITS))]
    cut = draw(st.integers(2, 12))
    if cut < len(parts) and draw(st.integers(0, 4)) == 0:  # a truncated line
        parts = parts[:cut]
    return " ".join(parts), (int(n) if n.isascii() and n.isdigit() else None), t


@FUZZ
@given(lines=st.lists(_go_line(), min_size=1, max_size=4))
def test_fuzz_go_benchmark_text(
    tmp_path: Path, lines: list[tuple[str, int | None, float | None]]
) -> None:
    # found before: custom units named ns/evals/benchmark/kind/run replaced columns or gave
    # tracebacks; a truncated line wrote null times; 1e300 ns/op x b.N wrote inf
    p = tmp_path / "go.txt"
    p.write_text("goos: linux\n" + "\n".join(line for line, _, _ in lines) + "\nPASS\n")
    df = import_or_refuse(p, "gobench", tmp_path / "o.parquet")
    if df is None:
        return
    assert len(df) == len(lines)  # every line is a sample or the file is refused
    expected: dict[str, list[tuple[int | None, float | None]]] = {}
    for line, n, t in lines:
        expected.setdefault(line.split()[0][len("Benchmark") :], []).append((n, t))
    got = {
        str(name): list(zip(g["evals"], g["time_ns"], strict=True))
        for name, g in df.sort_values("sample").groupby("benchmark", observed=True)
    }
    assert set(got) == set(expected)
    for name, rows in expected.items():  # in file order within each benchmark
        for (n, t), (evals, time_ns) in zip(rows, got[name], strict=True):
            assert evals == n  # the iteration count, never a custom unit's value
            assert time_ns == pytest.approx(t, rel=1e-12)  # ns/op, never a custom unit's


# ------------------------------------------------------------------ colliding names
_NAMES = st.lists(
    st.sampled_from([*HOSTILE_KEYS, "bytes_per_second", "items_per_second"]),
    min_size=1,
    max_size=5,
    unique=True,
)


def _values_kept(df: Any, values: list[float]) -> None:
    held = np.concatenate([np.asarray(df[c], dtype=object) for c in df.columns])
    for v in values:
        assert any(
            isinstance(h, (int, float, str)) and str(h) in (str(v), repr(v)) for h in held
        ), v


@FUZZ
@given(names=_NAMES)
def test_fuzz_gbench_counters_never_drop_a_value(tmp_path: Path, names: list[str]) -> None:
    # found before: counters "B/s" and "B_per_s" went to one column, one value lost
    bench = {"name": "a", "run_type": "iteration", "iterations": 10, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"}  # fmt: skip
    counters = {k: 1000.0 + i for i, k in enumerate(names) if k not in bench}
    p = tmp_path / "g.json"
    p.write_text(json.dumps({"context": {}, "benchmarks": [{**bench, **counters}]}))
    df = import_or_refuse(p, "gbench", tmp_path / "o.parquet")
    if df is not None:
        assert df["time_ns"].tolist() == [1.0] and df["evals"].tolist() == [10]
        _values_kept(df, list(counters.values()))


@FUZZ
@given(names=_NAMES)
def test_fuzz_hyperfine_parameters_never_drop_a_value(tmp_path: Path, names: list[str]) -> None:
    # found before: parameters "a b" and "a_b" went to one column, one value lost
    params = {k: f"v{i}" for i, k in enumerate(names)}
    p = tmp_path / "h.json"
    p.write_text(
        json.dumps({"results": [{"command": "c", "times": [1.0, 2.0], "parameters": params}]})
    )
    df = import_or_refuse(p, "hyperfine", tmp_path / "o.parquet")
    if df is not None:
        assert df["time_ns"].tolist() == [1e9, 2e9]
        _values_kept(df, list(params.values()))


@st.composite
def _bt_group(draw: st.DrawFn, depth: int = 0) -> tuple[Any, int]:
    keys = draw(st.lists(st.sampled_from(["a", "b", "a/b", "b/a", "/", "", "a→b"]), min_size=1, max_size=3, unique=True))  # fmt: skip
    data: dict[str, Any] = {}
    leaves = 0
    for k in keys:
        if depth < 2 and draw(st.booleans()):
            sub, n = draw(_bt_group(depth + 1))
            data[k], leaves = sub, leaves + n
        else:
            data[k], leaves = _trial([1.0 + leaves, 2.0 + leaves]), leaves + 1
    return ["BenchmarkGroup", {"data": data, "tags": []}], leaves


@FUZZ
@given(tree=_bt_group())
def test_fuzz_benchmarktools_groups_never_merge(tmp_path: Path, tree: tuple[Any, int]) -> None:
    # found before: groups "a/b" and "a" -> "b" merged into one benchmark
    group, leaves = tree
    p = tmp_path / "bt.json"
    p.write_text(json.dumps([{"Julia": "1.9", "BenchmarkTools": "1.0"}, [group]]))
    df = import_or_refuse(p, "benchmarktools", tmp_path / "o.parquet")
    assert df is not None
    assert df["benchmark"].nunique() == leaves and len(df) == 2 * leaves


# ------------------------------------------------------------------ CSV and plain values
_CELLS = st.sampled_from(["1", "2.5", "1e308", "5e-324", "-1", "0", "", "NaN", "inf", "x", "9" * 400, '"', "1,5", "\x00"])  # fmt: skip


@FUZZ
@given(
    header=st.sampled_from(
        [
            "benchmark,time",
            "benchmark,ns,evals",
            "benchmark,time_ns,kind",
            "benchmark,total,evals",
            "a;b",
            "",
        ]
    ),
    rows=st.lists(
        st.tuples(st.sampled_from(["a", "b", "", "\x1b[31m"]), _CELLS, _CELLS), max_size=5
    ),
    bom=st.booleans(),
)
def test_fuzz_csv(tmp_path: Path, header: str, rows: list[tuple[str, str, str]], bom: bool) -> None:
    # found before: 1e308 times written, evals wrapped to int64's minimum, two-line parser
    # errors, a BOM-prefixed header not recognised
    p = tmp_path / "t.csv"
    p.write_text(
        ("\ufeff" if bom else "") + header + "\n" + "\n".join(",".join(r) for r in rows) + "\n"
    )
    import_or_refuse(p, "csv", tmp_path / "o.parquet")


@FUZZ
@given(
    doc=st.one_of(
        st.lists(
            st.sampled_from(
                [
                    1.0,
                    2.5,
                    1e308,
                    5e-324,
                    -1.0,
                    0.0,
                    "1",
                    True,
                    None,
                    [1.0],
                    Raw("NaN"),
                    Raw("9" * 400),
                ]
            ),
            max_size=6,
        ),
        st.lists(st.lists(st.floats(1e-3, 1e6), min_size=1, max_size=3), min_size=1, max_size=3),
    ),
    unit=st.sampled_from(["ns", "us", "ms", "s"]),
)
def test_fuzz_plain_json_lists(tmp_path: Path, doc: Any, unit: str) -> None:
    p = tmp_path / "v.json"
    p.write_text(dumps(doc))
    import_or_refuse(p, "values", tmp_path / "o.parquet", unit=unit)


def test_a_deep_document_is_refused_by_every_json_importer(tmp_path: Path) -> None:
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    for fmt in (*TEMPLATES, "auto"):
        with pytest.raises(TsanalyzeError) as err:
            load_table(p, fmt)
        assert "\n" not in str(err.value) and str(p) in str(err.value)
