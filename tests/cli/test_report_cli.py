"""`tsanalyze report`: every output mode and exit code, through typer's CliRunner."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import Result

Cli = Callable[..., Result]  # the `cli` fixture of conftest.py


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory, write_sim: Callable[..., Path]
) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("runs")
    base = {"parse": 1000.0, "[red]render[/]": 2000.0}
    return {
        "old": write_sim(d / "old.parquet", base, rng=1, warmup=(80, 0.5)),
        "same": write_sim(d / "same.parquet", base, rng=2),
        "slower": write_sim(d / "slower.parquet", {**base, "[red]render[/]": 2200.0}, rng=3),
        "pair": write_sim(d / "pair.parquet", {"old_impl": 1000.0, "new_impl": 950.0}, rng=4),
    }


def test_table_output(runs: dict[str, Path], cli: Cli) -> None:
    res = cli("report", runs["old"], runs["same"], "--seed 1 -j 1")
    assert res.exit_code == 0, res.output
    assert "Summary: median with 95% CI" in res.output
    assert "Comparisons" in res.output
    assert "[red]render[/]" in res.output  # markup in a name is shown, not interpreted
    assert "warm-up of" in res.output


def test_json_output_is_the_document(runs: dict[str, Path], cli: Cli) -> None:
    res = cli("report", runs["old"], runs["slower"], "--format json --seed 1 -j 1")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["format"] == "tsanalyze-report" and doc["version"] == 1
    assert doc["settings"]["seed"] == 1
    assert doc["runs"][0]["file"].endswith("old.parquet")
    verdicts = {c["benchmark"]: c["verdict"] for c in doc["comparisons"]}
    assert verdicts["[red]render[/]"] == "slower"
    assert doc["regression"] is True


def test_fail_on_regression_exit_codes(runs: dict[str, Path], cli: Cli) -> None:
    slower = cli("report", runs["old"], runs["slower"], "--fail-on regression -q -j 1 --seed 1")
    assert slower.exit_code == 1, slower.output
    same = cli("report", runs["old"], runs["same"], "--fail-on regression -q -j 1 --seed 1")
    assert same.exit_code == 0, same.output
    # without --fail-on a regression does not fail the command
    plain = cli("report", runs["old"], runs["slower"], "-q -j 1 --seed 1")
    assert plain.exit_code == 0


def test_baseline_option(runs: dict[str, Path], cli: Cli) -> None:
    slower = runs["slower"]
    res = cli("report", runs["old"], slower, "--baseline", slower, "-f json -j 1 --seed 1")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    verdicts = {c["benchmark"]: c["verdict"] for c in doc["comparisons"]}
    assert verdicts["[red]render[/]"] == "faster"
    assert doc["settings"]["baseline_run"] == doc["runs"][1]["file"]


def test_interleaved_benchmarks_compared(runs: dict[str, Path], cli: Cli) -> None:
    res = cli("report", runs["pair"], "--baseline-benchmark old_impl -f json -j 1 --seed 1")
    assert res.exit_code == 0, res.output
    (c,) = json.loads(res.stdout)["comparisons"]
    assert (c["benchmark"], c["baseline_benchmark"], c["paired"]) == ("new_impl", "old_impl", True)
    assert c["verdict"] == "faster"


def test_raw_and_estimator_options(runs: dict[str, Path], cli: Cli) -> None:
    res = cli("report", runs["old"], "--raw --estimator min -f json -j 1 --seed 1")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["settings"]["raw"] is True and doc["settings"]["estimator"] == "min"
    for s in doc["series"]:
        assert (s["start"], s["stop"], s["classification"]) == (0, s["n"], "raw")
        assert s["estimate"] == s["minimum"]


def test_no_progress_bar_when_piped(runs: dict[str, Path], cli: Cli) -> None:
    res = cli("report", runs["old"], "-j 1 --seed 1")
    assert res.exit_code == 0
    assert "analysing series" not in res.output


def test_reference_noise_floor(runs: dict[str, Path], cli: Cli) -> None:
    res = cli("report", runs["pair"], "--reference old_impl -f json -j 1 --seed 1")
    assert res.exit_code == 0, res.output
    floor = json.loads(res.stdout)["noise_floor"]
    assert floor["reference"] == "old_impl"
    assert [row["benchmark"] for row in floor["table"]] == ["new_impl"]
    bad = cli("report", runs["pair"], "--reference nope")
    assert bad.exit_code == 2 and "reference" in bad.output


def test_files_with_several_runs_are_sides_of_trials(cli: Cli) -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "pyperformance"
    res = cli("report", data / "py36.json", data / "py38.json", "-f json -q --seed 1")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    # each pyperf file holds 20 runs (processes): they are the trials of one side
    assert len(doc["runs"]) == 40
    assert [(t["benchmark"], t["n_trials"]) for t in doc["trials"]] == [("telco", 20)] * 2
    (c,) = doc["comparisons"]
    assert c["kind"] == "run" and c["baseline_run"].endswith("py36.json")
    assert c["test"].startswith("run")  # compared at the run level, not sample by sample
    # pyperformance's published answer for telco, py36 -> py38: "1.49x faster"
    assert 1 / c["ratio"] == pytest.approx(1.49, rel=0.02)
    assert c["verdict"] == "faster"


def test_html_and_plots(runs: dict[str, Path], tmp_path: Path, cli: Cli) -> None:
    html = tmp_path / "out" / "report.html"
    plots = tmp_path / "plots"
    res = cli(
        "report", runs["old"], runs["slower"], "--html", html, "--plots", plots, "-q -j 1 --seed 1"
    )
    assert res.exit_code == 0, res.output
    text = html.read_text(encoding="utf-8")
    assert len(re.findall(r'<figure class="series"', text)) == 4
    assert not re.search(r'(src|href)\s*=\s*["\']?https?:', text)
    svgs = sorted(p.name for p in plots.iterdir())
    assert len(svgs) == 4 * 3 + 1 and all(name.endswith(".svg") for name in svgs)
    assert "comparisons-forest.svg" in svgs
    assert all(not set(name) & set("[]/ ") for name in svgs)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "no-such-file.parquet"], "no-such-file"),
        (["report", "{old}", "--estimator", "mode"], "mode"),
        (["report", "{old}", "--baseline", "nope"], "baseline"),
        (["report", "{old}", "--baseline-benchmark", "nope"], "baseline_benchmark"),
        (["report", "{old}", "--confidence-level", "2"], "confidence_level"),
        (["report", "{old}", "--jobs", "0"], "jobs"),
    ],
)
def test_bad_input_exits_2(runs: dict[str, Path], cli: Cli, args: list[str], message: str) -> None:
    res = cli(*(runs["old"] if a == "{old}" else a for a in args))
    assert res.exit_code == 2, res.output
    assert message in res.output


def test_unwritable_html_exits_2(runs: dict[str, Path], tmp_path: Path, cli: Cli) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = cli("report", runs["old"], "--html", blocker / "r.html", "-q -j 1")
    assert res.exit_code == 2
    assert "cannot write the report" in res.output


def test_html_never_replaces_an_input_or_a_run_file(
    runs: dict[str, Path], tmp_path: Path, cli: Cli
) -> None:
    # before: `report run.parquet --html run.parquet` replaced the run with the HTML page
    # (exit 0, the run lost); so did --html naming another run file or a pasted input
    victim = tmp_path / "victim.parquet"
    victim.write_bytes(runs["old"].read_bytes())
    other = tmp_path / "other.parquet"
    other.write_bytes(runs["same"].read_bytes())
    for args in (
        ("report", victim, "--html", victim),
        ("report", victim, "--html", other),
        ("compare", victim, runs["slower"], "--html", victim),
    ):
        res = cli(*args, "-q -j 1")
        assert res.exit_code == 2, res.output
        assert "--html" in res.output and "nothing written" in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1, res.output
    assert victim.read_bytes() == runs["old"].read_bytes()
    assert other.read_bytes() == runs["same"].read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.parquet", "victim.parquet"]


def test_html_naming_a_directory_fails_before_the_analysis(
    runs: dict[str, Path], tmp_path: Path, cli: Cli
) -> None:
    res = cli("report", runs["old"], "--html", tmp_path, "-q -j 1")
    assert res.exit_code == 2
    assert res.output.startswith("tsanalyze: error: --html") and "directory" in res.output


def test_html_with_a_long_name_is_written(runs: dict[str, Path], tmp_path: Path, cli: Cli) -> None:
    # before: its temporary file (".<name>.<pid>.tmp") was too long: "File name too long"
    html = tmp_path / ("é" * 120 + ".html")
    res = cli("report", runs["old"], "--html", html, "-q -j 1")
    assert res.exit_code == 0, res.output
    assert [p.name for p in tmp_path.iterdir()] == [html.name]


def test_not_a_run_file_exits_2(tmp_path: Path, cli: Cli) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    res = cli("report", bad)
    assert res.exit_code == 2
    assert "bad.parquet" in res.output
    assert "Traceback" not in res.output


def _switching_forks(n_forks: int, n: int, rng: int) -> list[list[float]]:
    """JMH-like forks in seconds (as Traini et al.'s series are): the level switches
    between 0.8724 and 1.236 µs in stretches of ~120 iterations, 1% noise (made here, the
    shape of log4j2's AsyncLoggersBenchmark.throughput2Params)."""
    g = np.random.default_rng(rng)
    forks = []
    for _ in range(n_forks):
        state, states = int(g.random() < 0.8), []
        while len(states) < n:
            states += [state] * int(g.geometric(1 / 120))
            state = 1 - state
        level = np.where(np.array(states[:n]) == 1, 1.236e-6, 0.8724e-6)
        forks.append((level * (1 + 0.01 * g.standard_normal(n))).tolist())
    return forks


def _levels_in(message: str, after: str) -> tuple[list[float], str]:
    """The numbers quoted as ``after a and b UNIT`` in a message, and the unit."""
    words = message.split(after, 1)[1].split()
    values = [float(words[0].rstrip(",")), float(words[2])]
    assert words[1] == "and", message
    return values, words[3].rstrip("),")


def test_switching_levels_of_a_jmh_series_carry_their_unit(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "forks.json"
    src.write_text(json.dumps(_switching_forks(2, 1200, rng=1)))
    run = tmp_path / "forks.parquet"
    res = cli("import", "values", src, "--unit s -o", run)
    assert res.exit_code == 0, res.output
    res = cli("report", run, "--format json --seed 1 -j 1")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    said = [f["message"] for s in doc["series"] for f in s["warnings"]]
    quoted = {
        "regime-switching": [_levels_in(m, "levels (") for m in said if "switches between" in m],
        "mode-switching": [_levels_in(m, "alternates between ") for m in said if "alternates" in m],
    }
    for code, found in quoted.items():
        assert found, code  # both findings are made on these series
        for values, unit in found:
            # before: bare ns ("872.4, 1236", "884.574 and 1241.66")
            assert unit == "µs", (code, values, unit)
            assert values == pytest.approx([0.8724, 1.236], rel=0.01), code
    # the terminal says the same
    text = cli("report", run, "--seed 1 -j 1").output
    assert " µs) and stays on one side" in text.replace("\n", " ")
