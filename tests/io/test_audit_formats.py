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


def _assert_fields(row: dict[str, Any], **expected: Any) -> None:
    """The row has exactly these values in these fields (a missing field is None)."""
    assert {k: row.get(k) for k in expected} == expected


def test_benchstat_v1_golden_output() -> None:
    rows = _rows("benchstat_v1_oldnew.golden")
    # golang/perf testdata oldnew.golden (benchstat v1), first line:
    # "46.9ns ± 8%  44.5ns ± 3%  -5.01%  (p=0.008 n=10+10)"
    base = rows["CRC32/poly=IEEE/size=15/align=0-8 [base]"]
    new = rows["CRC32/poly=IEEE/size=15/align=0-8 [new]"]
    _assert_fields(base, location="46.9", unit="ns", spread="8", spread_unit="%", n=10)
    _assert_fields(base, location_kind="mean", spread_kind="range")
    _assert_fields(new, location="44.5", claimed_change="-5.01%", claimed_pvalue="0.008", n=10)
    # "n=8+10": the two sides' counts; "±11%" without a space
    assert rows["CRC32/poly=IEEE/size=40/align=0-8 [base]"]["n"] == 8
    assert rows["CRC32/poly=Koopman/size=15/align=0-8 [base]"]["spread"] == "11"
    assert len(rows) == 72  # 36 pairs; the speed table is derived and skipped


def test_benchstat_v1_benchmem_tables() -> None:
    got = read_audit_file(FORMATS / "benchstat_v1_benchmem.txt")
    rows = {r["name"]: r for r in got.rows}
    # "Decode-4  1.89GB ± 0%  1.88GB ± 0%  -0.11%": bytes with decimal prefixes
    _assert_fields(rows["alloc/op: Decode-4 [base]"], location="1.89", unit="GB", spread="0")
    assert rows["alloc/op: Decode-4 [new]"]["claimed_change"] == "-0.11%"
    # allocs/op "1.23M": the prefix becomes an exponent, keeping the printed digits
    _assert_fields(rows["allocs/op: Decode-4 [base]"], location="1.23e6", unit="allocs")
    assert rows["allocs/op: Encode-4 [new]"]["claim"] == "same"  # "~ (all equal)"
    _assert_fields(rows["Decode-4 [base]"], location="1.82", unit="s")
    assert [n.code for n in got.notes] == ["table-skipped"]  # the speed table


def test_benchstat_v2_two_tables() -> None:
    rows = _rows("benchstat_v2_two_tables.txt")
    # v2 prints SI-prefixed seconds and binary-prefixed bytes
    _assert_fields(
        rows["Decode-4 [old.txt]"],
        location="12.21",
        unit="m",
        spread_kind="ci",
        location_kind="median",
    )
    _assert_fields(rows["B/op: Decode-4 [old.txt]"], location="1.802", unit="MiB")
    _assert_fields(
        rows["allocs/op: Decode-4 [new.txt]"], location="12.10e3", claimed_pvalue="0.000"
    )
    assert rows["B/op: Encode-4 [new.txt]"]["claim"] == "same"
    assert len(rows) == 12


def test_benchstat_v2_custom_unit_tables_are_skipped_not_read_as_times() -> None:
    # benchstat v2 with custom units (its own test output zero.stdout, -col note): the
    # unit row "a-bytes | a-bytes vs base" was taken for labels, and 1.150Gi for a time
    text = (
        "               │    before    │           after            │\n"
        "               │   a-bytes    │   a-bytes     vs base      │\n"
        "Imperceptible    1.150Gi ± 0%   1.150Gi ± 0%   0.00% (n=1)\n"
        "geomean          1.150Gi        1.150Gi       +0.00%\n"
        "\n"
        "               │    before    │           after            │\n"
        "               │    sec/op    │   sec/op     vs base       │\n"
        "Decode-4         12.21m ± 1%    11.10m ± 1%  -9.09% (p=0.000 n=10)\n"
    )
    got = read_text(text, "zero.stdout")
    names = [r["name"] for r in got.rows]
    assert names == ["Decode-4 [before]", "Decode-4 [after]"], names
    assert any("a-bytes table skipped" in f.message for f in got.notes)


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
    _assert_fields(
        s, location="1.21", unit="µs", spread="8.34", spread_unit="ns", n=7, evals=1_000_000
    )
    assert rows["sorted(x)"]["evals"] == 10 and rows["sorted(x)"]["n"] == 3
    # "200000 loops, best of 5: 1.17 usec per loop": the minimum of 5 runs
    best = rows["sorted(x) #4"]
    _assert_fields(best, location="1.17", unit="usec", location_kind="min", n=5, evals=200000)


def test_pyperf_compare_and_show_lines() -> None:
    got = read_audit_file(FORMATS / "pyperf_compare.txt")
    rows = {r["name"]: r for r in got.rows}
    new = rows["benchmark 1 [py312]"]
    # "709 ms +- 62 ms -> [py312] 674 ms +- 59 ms: 1.05x faster"
    _assert_fields(rows["benchmark 1 [py311]"], location="709", spread="62", unit="ms")
    _assert_fields(
        new, location="674", spread="59", claim="1.05x faster", compare_to="benchmark 1 [py311]"
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
    _assert_fields(
        go, location="1.9", spread="0.1", spread_kind="sd", min="1.7", max="2.6", unit="ms"
    )
    _assert_fields(go, compare_to="rust brute_force", claim="1.02x slower")
    assert "compare_to" not in rows["rust brute_force"]  # the reference row: "1.00"
    assert rows["python brute_force"]["claim"] == "26.17x slower"
    assert "n" not in go  # hyperfine's Markdown does not print n


def test_hyperfine_console() -> None:
    rows = _rows("hyperfine_console.txt")
    fd = rows["fd -e jpg"]
    _assert_fields(fd, location="302.5", spread="4.3", min="296.0", max="310.9", n=10, unit="ms")
    find = rows["find . -iname '*.jpg'"]
    # "fd -e jpg ran 27.12 ± 0.45 times faster than find": the find row is 27.12× slower
    _assert_fields(find, compare_to="fd -e jpg", claim="27.12x slower", unit="s")


def test_jmh_console_table() -> None:
    got = read_audit_file(FORMATS / "jmh.txt")
    rows = {r["name"]: r for r in got.rows}
    ll = rows["ListBench.linkedList(10)"]
    # "ListBench.linkedList  10  avgt  25  31.208 ± 0.415  ns/op": Error = 99.9% CI
    _assert_fields(
        ll, location="31.208", spread="0.415", spread_kind="ci", ci_level=0.999, n=25, unit="ns"
    )
    # thrpt in ops/s; ss times one operation per sample
    _assert_fields(rows["ListBench.arrayList(10)"], location="38402113.117", unit="ops/s")
    assert rows["ListBench.warm(10)"]["evals"] == 1 and rows["ListBench.warm(10)"]["unit"] == "ms"
    # Cnt 1: no Error printed
    assert "spread" not in rows["ListBench.once(10)"]
    assert not any(":" in name for name in rows)
    assert any("secondary" in n.message for n in got.notes)


def test_criterion_console() -> None:
    rows = _rows("criterion.txt")
    fib = rows["fib 20"]
    # "time: [26.029 µs 26.251 µs 26.505 µs]", "change: [-7.0921% -6.3184% -5.5218%] (p = 0.00 < 0.05)"
    _assert_fields(fib, ci_low="26.029", location="26.251", ci_high="26.505", unit="µs", n=100)
    _assert_fields(
        fib,
        claimed_change_low="-7.0921%",
        claimed_change="-6.3184%",
        claimed_change_high="-5.5218%",
        claimed_pvalue="0.00",
    )
    # a long id is printed on its own line above "time:"
    assert rows["a_rather_long_benchmark_name/1024"]["location"] == "1.0288"
    assert "n" not in rows["parse/json"]


def test_pytest_benchmark_terminal_table() -> None:
    rows = _rows("pytest_benchmark.txt")
    noisy = rows["test_noisy"]
    # "31.3120 (1.50)  1,904.5440 (25.32)  52.9120 (2.37)  43.3890 (17.33) ... 418  1"
    _assert_fields(
        noisy,
        min="31.3120",
        max="1904.5440",
        mean="52.9120",
        spread="43.3890",
        median="33.1300",
        n="418",
        evals="1",
        unit="us",
    )
    assert noisy["location_kind"] == "mean" and noisy["spread_kind"] == "sd"
    assert len(rows) == 3


def test_rust_libtest() -> None:
    rows = _rows("libtest.txt")
    e = rows["argon::energy"]
    # "bench:     156,449 ns/iter (+/- 10,025)": median of 50, ± = max − min, truncated
    _assert_fields(
        e,
        location="156449",
        spread="10025",
        spread_kind="span",
        location_kind="median",
        n=50,
        rounding="down",
    )
    assert rows["tiny::add"]["spread"] == "0"


def test_benchmarktools_old_display() -> None:
    rows = _rows("benchmarktools_old.txt")
    alog = rows["alog(x)"]
    # "minimum time: 212.000 ns (0.00% GC)" ... "maximum time: 2.704 μs (96.03% GC)"
    _assert_fields(
        alog, min="212.000", median="248.000", mean="290.132", unit="ns", n=10000, evals=512
    )
    # the maximum printed in μs, written in the row's ns keeping its digits
    assert alog["max"] == "2.704e3"
    _assert_fields(alog, gc_share="3.21%", gc_max="96.03%")
    assert "spread" not in alog  # the old display prints no sd


def test_btime_lines() -> None:
    rows = _rows("btime.txt")
    _assert_fields(rows["fast_sum($x)"], location="4.123", unit="μs", location_kind="min")
    assert rows["slow_sum($x)"]["location"] == "112.560"


def test_google_benchmark_console() -> None:
    rows = _rows("gbench.txt")
    m = rows["BM_memcpy/8"]
    # aggregates: "_mean 2.53 ns ... 3", "_stddev 0.070 ns", "_median 2.50 ns"
    _assert_fields(
        m, location="2.53", spread="0.070", median="2.50", n=3, evals=280000000, unit="ns"
    )
    one = rows["BM_StringCreation"]
    _assert_fields(one, location="5.12", n=1, evals=136440611)


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
