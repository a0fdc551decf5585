"""One test per kind of pasted text: the numbers read, as printed, and the conventions
attached to them. Fixtures in tests/data/audit/formats/ (see the README there: hand-made
in each tool's documented layout, except benchstat v1's golden output, copied)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tsanalyze.errors import AuditInputError
from tsanalyze.io.audit_input import read_audit_file
from tsanalyze.io.audit_text import read_text

FORMATS = Path(__file__).resolve().parents[1] / "data" / "audit" / "formats"
AUDIT = FORMATS.parent


def _rows(name: str) -> dict[str, dict[str, Any]]:
    got = read_audit_file(FORMATS / name)
    return {r["name"]: r for r in got.rows}


def _vals(row: dict[str, Any], *keys: str) -> tuple[Any, ...]:
    return tuple(row.get(k) for k in keys)


def test_benchstat_v1_golden_output() -> None:
    rows = _rows("benchstat_v1_oldnew.golden")
    # golang/perf testdata oldnew.golden (benchstat v1), first line:
    # "46.9ns ± 8%  44.5ns ± 3%  -5.01%  (p=0.008 n=10+10)"
    base = rows["CRC32/poly=IEEE/size=15/align=0-8 [base]"]
    new = rows["CRC32/poly=IEEE/size=15/align=0-8 [new]"]
    assert _vals(base, "location", "unit", "spread", "spread_unit", "n") == (
        "46.9",
        "ns",
        "8",
        "%",
        10,
    )
    assert _vals(base, "location_kind", "spread_kind") == ("mean", "range")
    assert _vals(new, "location", "claimed_change", "claimed_pvalue", "n") == (
        "44.5",
        "-5.01%",
        "0.008",
        10,
    )
    # "n=8+10": the two sides' counts; "±11%" without a space
    assert rows["CRC32/poly=IEEE/size=40/align=0-8 [base]"]["n"] == 8
    assert rows["CRC32/poly=Koopman/size=15/align=0-8 [base]"]["spread"] == "11"
    assert len(rows) == 72  # 36 pairs; the speed table is derived and skipped


def test_benchstat_v1_benchmem_tables() -> None:
    got = read_audit_file(FORMATS / "benchstat_v1_benchmem.txt")
    rows = {r["name"]: r for r in got.rows}
    # "Decode-4  1.89GB ± 0%  1.88GB ± 0%  -0.11%": bytes with decimal prefixes
    assert _vals(rows["alloc/op: Decode-4 [base]"], "location", "unit", "spread") == (
        "1.89",
        "GB",
        "0",
    )
    assert rows["alloc/op: Decode-4 [new]"]["claimed_change"] == "-0.11%"
    # allocs/op "1.23M": the prefix becomes an exponent, keeping the printed digits
    assert _vals(rows["allocs/op: Decode-4 [base]"], "location", "unit") == ("1.23e6", "allocs")
    assert rows["allocs/op: Encode-4 [new]"]["claim"] == "same"  # "~ (all equal)"
    assert _vals(rows["Decode-4 [base]"], "location", "unit") == ("1.82", "s")
    assert [n.code for n in got.notes] == ["table-skipped"]  # the speed table


def test_benchstat_v2_two_tables() -> None:
    rows = _rows("benchstat_v2_two_tables.txt")
    # v2 prints SI-prefixed seconds and binary-prefixed bytes
    assert _vals(rows["Decode-4 [old.txt]"], "location", "unit", "spread_kind", "location_kind") == (
        "12.21", "m", "ci", "median",
    )  # fmt: skip
    assert _vals(rows["B/op: Decode-4 [old.txt]"], "location", "unit") == ("1.802", "MiB")
    assert _vals(rows["allocs/op: Decode-4 [new.txt]"], "location", "claimed_pvalue") == (
        "12.10e3",
        "0.000",
    )
    assert rows["B/op: Encode-4 [new.txt]"]["claim"] == "same"
    assert len(rows) == 12


def test_go_test_lines_are_summarised_per_benchmark() -> None:
    got = read_audit_file(FORMATS / "go_test.txt")
    rows = {r["name"]: r for r in got.rows}
    dec = rows["Decode-4"]
    values = [12113428, 12298017, 12051233, 12540980, 12210002]
    # reference: the five printed ns/op values; b.N of the smallest batch
    assert dec["location"] == pytest.approx(sum(values) / 5)
    assert (dec["n"], dec["evals"], dec["min"], dec["max"]) == (5, 98, 12051233, 12540980)
    assert (
        rows["Decode-4 [B/op]"]["unit"] == "B" and rows["Decode-4 [allocs/op]"]["location"] == 12301
    )
    # the truncated line "2b93 ns/op" is skipped and named
    assert rows["Encode-4"]["n"] == 4
    (note,) = got.notes
    assert "go_test.txt:14" in note.message and "2b93" in note.message


def test_ipython_and_python_timeit() -> None:
    rows = _rows("ipython_timeit.txt")
    s = rows["x.sum()"]
    # "1.21 µs ± 8.34 ns per loop (mean ± std. dev. of 7 runs, 1,000,000 loops each)"
    assert _vals(s, "location", "unit", "spread", "spread_unit", "n", "evals") == (
        "1.21", "µs", "8.34", "ns", 7, 1_000_000,
    )  # fmt: skip
    assert rows["sorted(x)"]["evals"] == 10 and rows["sorted(x)"]["n"] == 3
    # "200000 loops, best of 5: 1.17 usec per loop": the minimum of 5 runs
    best = rows["sorted(x) #4"]
    assert _vals(best, "location", "unit", "location_kind", "n", "evals") == (
        "1.17",
        "usec",
        "min",
        5,
        200000,
    )


def test_pyperf_compare_and_show_lines() -> None:
    got = read_audit_file(FORMATS / "pyperf_compare.txt")
    rows = {r["name"]: r for r in got.rows}
    new = rows["benchmark 1 [py312]"]
    # "709 ms +- 62 ms -> [py312] 674 ms +- 59 ms: 1.05x faster"
    assert _vals(rows["benchmark 1 [py311]"], "location", "spread", "unit") == ("709", "62", "ms")
    assert _vals(new, "location", "spread", "claim", "compare_to") == (
        "674",
        "59",
        "1.05x faster",
        "benchmark 1 [py311]",
    )
    assert rows["json_dumps [changed]"]["claim"] == "1.05x slower"
    assert rows["nbody [changed]"]["claim"] == "1.23x faster"
    assert rows["benchmark 2"]["location"] == "22.5"  # pyperf show
    assert all(r["scope"] == "pooled-processes" for r in rows.values())
    assert any("telco" in n.message for n in got.notes)


def test_hyperfine_markdown() -> None:
    rows = _rows("hyperfine.md")
    go = rows["go brute_force"]
    # "| `go brute_force` | 1.9 ± 0.1 | 1.7 | 2.6 | 1.02 ± 0.07 |", Mean [ms]
    assert _vals(go, "location", "spread", "spread_kind", "min", "max", "unit") == (
        "1.9",
        "0.1",
        "sd",
        "1.7",
        "2.6",
        "ms",
    )
    assert _vals(go, "compare_to", "claim") == ("rust brute_force", "1.02x slower")
    assert "compare_to" not in rows["rust brute_force"]  # the reference row: "1.00"
    assert rows["python brute_force"]["claim"] == "26.17x slower"
    assert "n" not in go  # hyperfine's Markdown does not print n


def test_hyperfine_console() -> None:
    rows = _rows("hyperfine_console.txt")
    fd = rows["fd -e jpg"]
    assert _vals(fd, "location", "spread", "min", "max", "n", "unit") == (
        "302.5",
        "4.3",
        "296.0",
        "310.9",
        10,
        "ms",
    )
    find = rows["find . -iname '*.jpg'"]
    # "fd -e jpg ran 27.12 ± 0.45 times faster than find": the find row is 27.12× slower
    assert _vals(find, "compare_to", "claim", "unit") == ("fd -e jpg", "27.12x slower", "s")


def test_jmh_console_table() -> None:
    got = read_audit_file(FORMATS / "jmh.txt")
    rows = {r["name"]: r for r in got.rows}
    ll = rows["ListBench.linkedList(10)"]
    # "ListBench.linkedList  10  avgt  25  31.208 ± 0.415  ns/op": Error = 99.9% CI
    assert _vals(ll, "location", "spread", "spread_kind", "ci_level", "n", "unit") == (
        "31.208", "0.415", "ci", 0.999, 25, "ns",
    )  # fmt: skip
    # thrpt in ops/s; ss times one operation per sample
    assert _vals(rows["ListBench.arrayList(10)"], "location", "unit") == ("38402113.117", "ops/s")
    assert rows["ListBench.warm(10)"]["evals"] == 1 and rows["ListBench.warm(10)"]["unit"] == "ms"
    # Cnt 1: no Error printed
    assert "spread" not in rows["ListBench.once(10)"]
    assert not any(":" in name for name in rows)
    assert any("secondary" in n.message for n in got.notes)


def test_criterion_console() -> None:
    rows = _rows("criterion.txt")
    fib = rows["fib 20"]
    # "time: [26.029 µs 26.251 µs 26.505 µs]", "change: [-7.0921% -6.3184% -5.5218%] (p = 0.00 < 0.05)"
    assert _vals(fib, "ci_low", "location", "ci_high", "unit", "n") == (
        "26.029",
        "26.251",
        "26.505",
        "µs",
        100,
    )
    assert _vals(fib, "claimed_change_low", "claimed_change", "claimed_change_high", "claimed_pvalue") == (
        "-7.0921%", "-6.3184%", "-5.5218%", "0.00",
    )  # fmt: skip
    # a long id is printed on its own line above "time:"
    assert rows["a_rather_long_benchmark_name/1024"]["location"] == "1.0288"
    assert "n" not in rows["parse/json"]


def test_pytest_benchmark_terminal_table() -> None:
    rows = _rows("pytest_benchmark.txt")
    noisy = rows["test_noisy"]
    # "31.3120 (1.50)  1,904.5440 (25.32)  52.9120 (2.37)  43.3890 (17.33) ... 418  1"
    assert _vals(noisy, "min", "max", "mean", "spread", "median", "n", "evals", "unit") == (
        "31.3120", "1904.5440", "52.9120", "43.3890", "33.1300", "418", "1", "us",
    )  # fmt: skip
    assert noisy["location_kind"] == "mean" and noisy["spread_kind"] == "sd"
    assert len(rows) == 3


def test_rust_libtest() -> None:
    rows = _rows("libtest.txt")
    e = rows["argon::energy"]
    # "bench:     156,449 ns/iter (+/- 10,025)": median of 50, ± = max − min, truncated
    assert _vals(e, "location", "spread", "spread_kind", "location_kind", "n", "rounding") == (
        "156449", "10025", "span", "median", 50, "down",
    )  # fmt: skip
    assert rows["tiny::add"]["spread"] == "0"


def test_benchmarktools_old_display() -> None:
    rows = _rows("benchmarktools_old.txt")
    alog = rows["alog(x)"]
    # "minimum time: 212.000 ns (0.00% GC)" ... "maximum time: 2.704 μs (96.03% GC)"
    assert _vals(alog, "min", "median", "mean", "unit", "n", "evals") == (
        "212.000",
        "248.000",
        "290.132",
        "ns",
        10000,
        512,
    )
    # the maximum printed in μs, written in the row's ns keeping its digits
    assert alog["max"] == "2.704e3"
    assert _vals(alog, "gc_share", "gc_max") == ("3.21%", "96.03%")
    assert "spread" not in alog  # the old display prints no sd


def test_btime_lines() -> None:
    rows = _rows("btime.txt")
    assert _vals(rows["fast_sum($x)"], "location", "unit", "location_kind") == (
        "4.123",
        "μs",
        "min",
    )
    assert rows["slow_sum($x)"]["location"] == "112.560"


def test_google_benchmark_console() -> None:
    rows = _rows("gbench.txt")
    m = rows["BM_memcpy/8"]
    # aggregates: "_mean 2.53 ns ... 3", "_stddev 0.070 ns", "_median 2.50 ns"
    assert _vals(m, "location", "spread", "median", "n", "evals", "unit") == (
        "2.53",
        "0.070",
        "2.50",
        3,
        280000000,
        "ns",
    )
    one = rows["BM_StringCreation"]
    assert _vals(one, "location", "n", "evals") == ("5.12", 1, 136440611)


def test_pyperf_json_points_to_the_right_command() -> None:
    telco = AUDIT.parent / "importers" / "pyperf" / "telco.json"
    with pytest.raises(AuditInputError, match=r"telco\.json: a pyperf.*tsanalyze report"):
        read_audit_file(telco)


def test_two_pasted_tables_with_the_same_names_become_prefixed_groups() -> None:
    text = (
        "name  time/op\nA-8  10.0ns ± 1%\nB-8  20.0ns ± 2%\n\n"
        "name  time/op\nA-8  11.0ns ± 1%\nB-8  21.0ns ± 2%\n"
    )
    got = read_text(text, "two.txt")
    assert [r["name"] for r in got.rows] == ["A-8", "B-8", "table 2: A-8", "table 2: B-8"]


def test_many_formats_in_one_paste() -> None:
    text = "\n".join(
        (FORMATS / f).read_text(encoding="utf-8")
        for f in ("libtest.txt", "criterion.txt", "hyperfine.md", "btime.txt")
    )
    got = read_text(text, "mix.txt")
    assert set(got.formats) == {
        "libtest",
        "criterion",
        "hyperfine markdown",
        "BenchmarkTools @btime",
    }
    assert len(got.rows) == 3 + 3 + 3 + 2
    assert got.notes == ()


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in FORMATS.iterdir() if p.name != "README.md"),
)
def test_every_fixture_is_audited_without_error(name: str) -> None:
    from tsanalyze import audit

    got = read_audit_file(FORMATS / name)
    a = audit(got.rows, notes=got.notes)
    assert len(a.rows) == len(got.rows)
    assert all(len(f.message.splitlines()) == 1 for f in a.findings)
