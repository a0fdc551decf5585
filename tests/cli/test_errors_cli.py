"""How the CLI ends: the user's mistakes exit 2 with one line, bugs exit 3 saying so.

Before, every ``ValueError`` was reported as bad input (exit 2), so a bug inside an
analysis looked like the user's mistake. Now only the project's own errors
(``tsanalyze.errors``) and unreadable/unwritable files are the user's; anything else is
an internal error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tsanalyze.cli._errors import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, TRACEBACK_ENV
from tsanalyze.cli.app import app

runner = CliRunner()
DATA = Path(__file__).resolve().parents[1] / "data"
RUN = str(DATA / "golden-v1.parquet")
CSV = str(DATA / "importers" / "handmade" / "timings.csv")


def _one_line_error(res: object, code: int, *needles: str) -> str:
    assert res.exit_code == code, res.output  # type: ignore[attr-defined]
    err = res.stderr  # type: ignore[attr-defined]
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return str(err)


@pytest.mark.parametrize("exc", [ValueError("boom"), ZeroDivisionError("boom"), KeyError("boom")])
def test_a_bug_in_the_library_is_an_internal_error_exit_3(
    monkeypatch: pytest.MonkeyPatch, exc: Exception
) -> None:
    import tsanalyze.report.info as info_module

    def broken(df: object) -> object:
        raise exc

    monkeypatch.setattr(info_module, "info_document", broken)
    monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    res = runner.invoke(app, ["info", RUN])
    err = _one_line_error(res, EXIT_INTERNAL_ERROR, "internal error", "Please report", "boom")
    assert err.startswith("tsanalyze: internal error") and type(exc).__name__ in err
    assert TRACEBACK_ENV in err


def test_the_traceback_is_shown_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    import tsanalyze.report.info as info_module

    def broken(df: object) -> object:
        raise ValueError("boom")

    monkeypatch.setattr(info_module, "info_document", broken)
    monkeypatch.setenv(TRACEBACK_ENV, "1")
    res = runner.invoke(app, ["info", RUN])
    assert res.exit_code == EXIT_INTERNAL_ERROR
    assert "Traceback" in res.stderr and "in broken" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("tsanalyze: internal error")


def test_internal_error_through_the_console_script(tmp_path: Path) -> None:
    # a plain ValueError raised by the library is not "bad input" any more
    code = (
        "import sys, tsanalyze.report.info as m\n"
        "def broken(df): raise ValueError('boom')\n"
        "m.info_document = broken\n"
        "from tsanalyze.cli.app import main\n"
        f"sys.argv = ['tsanalyze', 'info', {RUN!r}]\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == EXIT_INTERNAL_ERROR, proc.stderr
    assert "internal error" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["report", RUN, "--confidence-level", "2"], ["confidence_level"]),
        (["report", RUN, "--jobs", "0"], ["jobs"]),
        (["report", RUN, "--baseline", "nope"], ["baseline", "nope"]),
        (["report", RUN, "--baseline-benchmark", "nope"], ["baseline_benchmark"]),
        (["report", RUN, "--reference", "nope"], ["reference"]),
        (["audit", "--alpha", "2", str(DATA / "audit" / "clean.csv")], ["--alpha"]),
        (["import", "csv", CSV, "-o", "x.parquet", "--map", "time=a,total=b"], ["not both"]),
        (["import", "csv", CSV, "-o", "x.parquet", "--map", "time=a,unit=weeks"], ["unit"]),
        (["import", "csv", CSV, "-o", "x.parquet", "--map", "nonsense"], ["--map"]),
    ],
)
def test_bad_options_are_the_users_mistake_exit_2(
    args: list[str], needles: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, args)
    err = _one_line_error(res, EXIT_BAD_INPUT, *needles)
    assert err.startswith("tsanalyze: error: ")
    assert not (tmp_path / "x.parquet").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--tau-acc", "0"], "--tau-acc"),
        (["--tau-prec", "0"], "--tau-prec"),
        (["--tau-acc", "5", "--tau-prec", "10"], "tau_acc"),
        (["--time-budget", "inf"], "--time-budget"),
        (["--min-sample-ns", "inf"], "--min-sample-ns"),
    ],
)
def test_bad_collector_options_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    out = tmp_path / "c.parquet"
    res = runner.invoke(app, ["collect", str(out), "-p", "a=math:sqrt", "--rounds", "2", *args])
    _one_line_error(res, EXIT_BAD_INPUT, needle)
    assert not out.exists()


def test_a_missing_file_is_the_users_mistake(tmp_path: Path) -> None:
    res = runner.invoke(app, ["info", str(tmp_path / "missing.parquet")])
    _one_line_error(res, EXIT_BAD_INPUT, "missing.parquet")


# ------------------------------------------------------------------ issue 18: messages
@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["info"], ["info: Missing argument 'files'", "--help"]),
        (["report", RUN, "--bogus"], ["report: No such option: --bogus"]),
        (["report", RUN, "-j", "x"], ["report: Invalid value for '--jobs'"]),
        (["import", "bogus", RUN, "-o", "x.parquet"], ["import: Invalid value for 'format'"]),
        (["nocmd"], ["No such command 'nocmd'"]),
    ],
)
def test_usage_errors_are_one_line_exit_2(
    args: list[str], needles: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: click's usage block, three lines or more ("Usage: ...", "Try ...", "Error: ...")
    monkeypatch.chdir(tmp_path)
    err = _one_line_error(runner.invoke(app, args), EXIT_BAD_INPUT, *needles)
    assert err.startswith("tsanalyze: error: ") and "Usage:" not in err


def test_usage_errors_through_the_console_script() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tsanalyze", "report", "--bogus"], capture_output=True, text=True
    )
    assert proc.returncode == EXIT_BAD_INPUT
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "No such option: --bogus" in proc.stderr


def _broken_pool_error() -> BaseException:
    """The exception a pool raises when a worker dies (as the OOM killer makes it die)."""
    import os
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1) as pool:
        try:
            pool.submit(os._exit, 9).result()
        except BrokenProcessPool as exc:
            return exc
    raise AssertionError("the worker did not die")  # pragma: no cover


@pytest.mark.parametrize("kind", ["memory", "worker", "dask"])
def test_out_of_memory_and_dead_workers_are_one_line_errors(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # before: a BrokenProcessPool traceback (report -j 2 on 10^7 rows), now one line, exit 2
    import tsanalyze.io.inventory as inventory_module

    if kind == "memory":
        exc: BaseException = MemoryError("Unable to allocate 7.11 PiB")
    elif kind == "worker":
        exc = _broken_pool_error()
    else:
        exc = type("KilledWorker", (Exception,), {})("worker died")

    def fails(*args: object, **kwargs: object) -> object:
        raise exc

    monkeypatch.setattr(inventory_module, "inventory", fails)  # what info calls
    err = _one_line_error(runner.invoke(app, ["info", RUN]), EXIT_BAD_INPUT, "more memory", "-j 1")
    assert ("out of memory" in err) == (kind == "memory")
    assert "internal error" not in err


def test_a_dead_worker_in_the_runner_is_a_broken_pool() -> None:
    # the executor's pool really raises the class the CLI maps
    import os
    from concurrent.futures.process import BrokenProcessPool

    from tsanalyze.analysis.runset.executor import Runner

    runner_ = Runner(2, 10**6)
    try:
        with pytest.raises(BrokenProcessPool):
            runner_.map(os._exit, [9, 9], lambda: None)
    finally:
        runner_.close()


@pytest.mark.parametrize("command", ["report", "info", "compare"])
def test_1e308_scale_data_is_a_one_line_error_naming_the_file(tmp_path: Path, command: str) -> None:
    # before: `report` on 1e308-scale data failed with a message naming no file (or gave
    # an inf estimate with a finite CI)
    p = tmp_path / "hf.json"
    p.write_text('{"results": [{"command": "a", "times": [1e308, 1.0, 2.0]}]}')
    args = [command, str(p), *([str(p)] if command == "compare" else [])]
    _one_line_error(runner.invoke(app, args), EXIT_BAD_INPUT, str(p), "column ns")
