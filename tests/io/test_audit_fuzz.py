"""Hostile input to every audit reader (issue 18): nothing but a one-line error naming the
file, never a traceback, never a hang. Bounded hypothesis fuzzing (small max_examples,
no deadline) plus the cases fuzzing found."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tsanalyze import audit
from tsanalyze.errors import AuditInputError, AuditInputWarning
from tsanalyze.io.audit_input import read_audit_file
from tsanalyze.io.audit_text import read_text

FORMATS = Path(__file__).resolve().parents[1] / "data" / "audit" / "formats"
_FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
#: lines of every format, for the fuzzer to splice and mutate
_LINES = [
    ln
    for p in sorted(FORMATS.iterdir())
    if p.name != "README.md"
    for ln in p.read_text(encoding="utf-8").splitlines()
    if ln.strip()
]
_TOKENS = st.sampled_from(
    ["±", "+-", "+/-", "│", "|", "ns", "µs", "ms", "s", "%", "~", "(p=0.0 n=3)", "ns/op",
     "time:", "[", "]", "bench:", "1e309", "-0", "nan", "∞", "¹", "\x1b", "\x00", ",", "…",
     "BenchmarkTools.Trial:", "Mean +- std dev:", "name", "Benchmark", "(size)", "avgt", "x"]
)  # fmt: skip
_WORD = st.one_of(
    _TOKENS, st.from_regex(r"[0-9][0-9.,e+-]{0,12}", fullmatch=True), st.text(max_size=6)
)


def _mutated_line() -> st.SearchStrategy[str]:
    def mutate(line: str, i: int, word: str) -> str:
        parts = line.split()
        if not parts:
            return word
        i %= len(parts)
        return " ".join([*parts[:i], word, *parts[i + 1 :]])

    return st.builds(mutate, st.sampled_from(_LINES), st.integers(0, 20), _WORD)


_TEXT = st.lists(
    st.one_of(st.sampled_from(_LINES), _mutated_line(), st.lists(_WORD, max_size=8).map(" ".join)),
    min_size=1,
    max_size=12,
).map("\n".join)


def _one_line_naming(exc: BaseException, source: str) -> None:
    msg = str(exc)
    assert "\n" not in msg, msg
    assert source in msg, msg


def _check_audit(rows: list[dict[str, Any]], notes: Any, source: str) -> None:
    try:
        a = audit(rows, notes=notes)
    except AuditInputError as exc:
        _one_line_naming(exc, source)
        return
    assert all("\n" not in f.message for f in a.findings)
    json.dumps(a.to_dict(), allow_nan=False)
    assert a.comparisons["pvalue_bound"].dropna().between(0.0, 1.0).all()


def _read_and_audit(p: Path) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AuditInputWarning)
            got = read_audit_file(p)
    except AuditInputError as exc:
        _one_line_naming(exc, str(p))
        return
    _check_audit(got.rows, got.notes, str(p))


@_FUZZ
@given(_TEXT)
def test_text_reader_fuzz(text: str) -> None:
    try:
        got = read_text(text, "fuzz.txt")
    except AuditInputError as exc:
        _one_line_naming(exc, "fuzz.txt")
        return
    assert all("\n" not in n.message and "fuzz.txt" in n.message for n in got.notes)
    _check_audit(got.rows, got.notes, "fuzz.txt")


@_FUZZ
@given(st.binary(max_size=400), st.sampled_from([".csv", ".txt", ".json", ".yaml"]))
def test_file_reader_fuzz_on_bytes(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, suffix: str
) -> None:
    p = tmp_path_factory.mktemp("fuzz") / f"input{suffix}"
    p.write_bytes(data)
    _read_and_audit(p)


_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    st.sampled_from(
        ["1.9", "± 7%", "4.65µs", "1e30", "27x faster", "~10× slower", "50%", "ci", "range"]
    ),
)
_FIELDS = st.sampled_from(
    ["name", "location", "mean", "median", "min", "max", "spread", "spread_kind", "spread_unit",
     "unit", "n", "n_min", "evals", "ci_low", "ci_high", "ci_level", "claim", "claimed_change",
     "claimed_pvalue", "gc_share", "compare_to", "rounding", "scope", "batched", "StdDev", "Rounds"]
)  # fmt: skip
_RECORDS = st.lists(st.dictionaries(_FIELDS, _SCALAR, max_size=10), min_size=1, max_size=5)


@_FUZZ
@given(_RECORDS, st.sampled_from([".json", ".yaml", ".csv"]))
def test_structured_reader_fuzz(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, Any]], suffix: str
) -> None:
    p = tmp_path_factory.mktemp("fuzz") / f"rows{suffix}"
    if suffix == ".csv":
        keys = sorted({k for r in records for k in r})
        lines = [",".join(keys)] + [
            ",".join(str(r.get(k, "")).replace(",", ";").replace("\n", " ") for k in keys)
            for r in records
        ]
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        # JSON is YAML too: the same text exercises both parsers
        text = json.dumps(records, default=str)
        p.write_text(text, encoding="utf-8")
    _read_and_audit(p)


# ------------------------------------------------------------ cases fuzzing found
def test_a_131073_character_csv_field_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "big.csv"
    p.write_text("name,location\na," + "1" * 131_073 + "\n", encoding="utf-8")
    with pytest.raises(AuditInputError, match=r"big\.csv:2: cannot read as CSV") as err:
        read_audit_file(p)
    _one_line_naming(err.value, "big.csv")


@pytest.mark.parametrize("suffix", [".csv", ".yaml", ".json"])
def test_n_of_1e30_is_an_error_naming_the_field(tmp_path: Path, suffix: str) -> None:
    p = tmp_path / f"n{suffix}"
    content = {
        ".csv": "name,location,n\na,1,1e30\n",
        ".yaml": "- {name: a, location: 1, n: 1e30}\n",
        ".json": '[{"name": "a", "location": 1, "n": 1e30}]',
    }[suffix]
    p.write_text(content, encoding="utf-8")
    got = read_audit_file(p)
    with pytest.raises(AuditInputError, match=r"field 'n': must be at most 2\*\*53") as err:
        audit(got.rows)
    _one_line_naming(err.value, p.name)
    # the largest exact count is accepted, and the order-statistic coverage copes with it
    big = [{"name": "a", "location": 1.0, "spread": 1, "spread_kind": "ci", "location_kind": "median",
            "n": 2**53}]  # fmt: skip
    assert audit(big).rows["n"].iloc[0] == 2**53


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo (POSIX)")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    # nobody writes to it: reading would block forever
    with pytest.raises(AuditInputError, match=r"pipe\.txt: not a regular file"):
        read_audit_file(fifo)
    with pytest.raises(AuditInputError, match=r"a directory"):
        read_audit_file(tmp_path)


def test_a_bom_prefixed_csv_is_read(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeffname,location,spread,n\na,1.5,0.1,20\n".encode())
    (row,) = read_audit_file(p).rows
    assert row["name"] == "a" and row["location"] == "1.5"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("quote.csv", 'name,location\n"a,1\nb,2\n'),
        ("nul.csv", "name,location\na,1\x00\n"),
        ("bad.json", "[{"),
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.yaml", "[" * 5_000 + "]" * 5_000),
        ("int.json", '[{"name": "a", "location": ' + "9" * 400 + "}]"),
        ("latin1.txt", "name time/op\nA  1ns \xb1 1%\n"),
        ("empty.txt", ""),
    ],
)
def test_every_error_names_the_file_on_one_line(tmp_path: Path, name: str, content: str) -> None:
    p = tmp_path / name
    if name == "latin1.txt":
        p.write_bytes(content.encode("latin-1"))
    else:
        p.write_text(content, encoding="utf-8")
    try:
        got = read_audit_file(p)
        audit(got.rows, notes=got.notes)
    except AuditInputError as exc:
        _one_line_naming(exc, name)
    else:  # read: then nothing was wrong enough to stop (e.g. a NUL inside a value)
        assert got.rows


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminal escapes")
def test_control_characters_never_reach_the_terminal_raw(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tsanalyze.cli.app import app

    p = tmp_path / "evil.txt"
    p.write_text("name  time/op\nA\x1b]0;pwned\x07-8  1ns ± 1%\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["audit", str(p)])
    assert "\x1b]0;" not in res.output and "\\x1b" in res.output
