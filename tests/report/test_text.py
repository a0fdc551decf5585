"""Terminal safety (issue 18): control characters in names and metadata are shown escaped
by every renderer (info, report, compare, audit, error lines), JSON stays strict JSON with
the data exact, HTML and SVG stay valid."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tsanalyze.cli.app import app
from tsanalyze.datasets import simulate_run
from tsanalyze.io.runs import write_run
from tsanalyze.report.text import html_text, json_text, printable, safe_text

#: what fuzzing found reaching the terminal raw: an OSC sequence that sets the window
#: title, a CSI sequence (7-bit and the C1 byte), NUL, BEL, backspace, a bidirectional
#: override and a line separator
EVIL = "ev\x1b]0;owned\x07il\x1b[2J\x9b31m\x00\x08\u202e\u2028x"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\u2028]")


def test_printable_escapes_every_control_character() -> None:
    assert printable(EVIL) == "ev\\x1b]0;owned\\x07il\\x1b[2J\\x9b31m\\x00\\x08\\u202e\\u2028x"
    assert printable("plain µs – naïve") == "plain µs – naïve"  # printable text untouched
    assert printable("tab\tnew\nline") == "tab\\x09new\\x0aline"  # names are one line
    assert safe_text("[bold]x[/]").plain == "[bold]x[/]"  # never markup
    assert html_text('<a href="x">\x1b') == "&lt;a href=&quot;x&quot;&gt;\\x1b"


def test_json_text_is_strict_json_with_the_data_exact() -> None:
    doc = {"name": EVIL, "n": [1, 2.5, None], "ok": "µ"}
    text = json_text(doc)
    assert not RAW.search(text.replace("\n", ""))  # only the indentation's newlines
    assert json.loads(text) == doc  # the name reads back exactly
    assert "µ" in text  # non-ASCII text stays readable
    with pytest.raises(ValueError):
        json_text({"x": float("nan")})


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two runs of a benchmark named EVIL (and a plain one), host metadata holding EVIL."""
    d = tmp_path_factory.mktemp("hostile")
    out = {}
    for i, label in enumerate(("old", "new")):
        sim = simulate_run(
            {EVIL: 1000.0 * (1 + 0.05 * i), "plain": 800.0}, n_rounds=120, noise="gaussian",
            scale=0.01, rng=30 + i,
        )  # fmt: skip
        (meta,) = sim.frame.attrs["runs"].values()
        meta = {**meta, "host": {"cpu_model": EVIL, "kernel": "6.1\x1b[31m"}}
        out[label] = write_run(sim.frame, d / f"{label}.parquet", meta)
    audit = d / "published.csv"
    audit.write_text(
        "name,location,location_kind,spread,spread_kind,unit,n,evals,compare_to\n"
        f'"{EVIL}",1.718,mean,0.004,sd,us,30,1000,parse\n'
        "parse,1.834,mean,0.005,sd,us,30,1000,\n",
        encoding="utf-8",
    )
    out["audit"] = audit
    return out


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.mark.parametrize(
    "command",
    [
        ["info", "{old}"],
        ["report", "{old}", "{new}", "-q", "-j", "1"],
        ["compare", "{old}", "{new}", "-q", "-j", "1"],
        ["compare", EVIL, "plain", "--in", "{old}", "-q", "-j", "1"],
        ["audit", "{audit}"],
    ],
    ids=["info", "report", "compare", "compare-in", "audit"],
)
def test_no_renderer_prints_a_control_character(
    hostile: dict[str, Path], command: list[str]
) -> None:
    args = [a.format(**{k: str(v) for k, v in hostile.items()}) if "{" in a else a for a in command]
    text = _run(args)
    assert not RAW.search(text), repr(RAW.search(text))
    assert "\\x1b]0;owned\\x07il" in text  # the name is shown, escaped


def _strings(doc: object) -> set[str]:
    if isinstance(doc, dict):
        return {str(k) for k in doc} | {s for v in doc.values() for s in _strings(v)}
    if isinstance(doc, list):
        return {s for v in doc for s in _strings(v)}
    return {doc} if isinstance(doc, str) else set()


def test_json_report_and_info_stay_json_with_the_name_exact(hostile: dict[str, Path]) -> None:
    for args in (
        ["report", str(hostile["old"]), str(hostile["new"]), "-f", "json", "-q", "-j", "1"],
        ["info", str(hostile["old"]), "-f", "json"],
        ["audit", str(hostile["audit"]), "-f", "json"],
    ):
        text = _run(args)
        assert not RAW.search(text.replace("\n", "")), args[0]
        # the name reads back exactly (the audit's CSV reader splits lines at U+2028)
        names = _strings(json.loads(text))
        assert EVIL in names or any(EVIL[:20] in n for n in names), args[0]


def test_html_report_and_figures_are_escaped_and_valid(
    hostile: dict[str, Path], tmp_path: Path
) -> None:
    page, plots = tmp_path / "r.html", tmp_path / "plots"
    old, new = str(hostile["old"]), str(hostile["new"])
    _run(["report", old, new, "-q", "-j", "1", "--html", str(page), "--plots", str(plots)])
    text = page.read_text(encoding="utf-8")
    assert not RAW.search(text.replace("\n", ""))
    assert "\\x1b]0;owned\\x07il" in text
    for svg in plots.glob("*.svg"):
        ET.fromstring(svg.read_text(encoding="utf-8"))  # valid XML: no raw NUL or ESC


def test_an_error_line_naming_a_file_is_escaped(tmp_path: Path) -> None:
    bad = tmp_path / "x\x1b[2Jy.parquet"
    bad.write_text("not parquet")
    result = CliRunner().invoke(app, ["info", str(bad)])
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "x\\x1b[2Jy.parquet" in result.output
