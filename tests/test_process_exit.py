"""How the ``tsanalyze`` process ends (issue 24): the console entry skips the
interpreter's teardown only when nothing else runs, and loses no output on the way; the
workers keep their freed memory on glibc.

Each check runs in a fresh interpreter: ``exit_now`` ends the process it runs in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUN = str(Path(__file__).resolve().parent / "data" / "golden-v1.parquet")


def _python(code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True, text=True, env=env, check=False, timeout=300, cwd=cwd,
    )  # fmt: skip


def _tsanalyze(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "tsanalyze", *args],
        capture_output=True, text=True, env=env, check=False, timeout=300, cwd=cwd,
    )  # fmt: skip


def test_report_output_and_files_are_whole_after_the_fast_exit(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    proc = _tsanalyze("report", RUN, "--format", "json", "--seed", "1", "--html", str(html))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # the whole document reached the pipe
    assert doc["series"]
    text = html.read_text()
    assert text.rstrip().endswith("</html>")


def test_bad_input_still_exits_2_with_its_message(tmp_path: Path) -> None:
    proc = _tsanalyze("report", str(tmp_path / "missing.parquet"))
    assert proc.returncode == 2
    assert "missing.parquet" in proc.stderr


def test_a_closed_standard_output_is_no_traceback(tmp_path: Path) -> None:
    # before: `tsanalyze report run.parquet >&-` (a cron job, a daemon) printed "internal
    # error ... 'NoneType' object has no attribute 'isatty'" and a traceback from exit_now
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    html = tmp_path / "r.html"
    cmd = f"exec {sys.executable} -m tsanalyze report {RUN} -q --html {html} >&-"
    proc = subprocess.run(
        ["bash", "-c", cmd], stderr=subprocess.PIPE, text=True, env=env, timeout=300,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")


@pytest.mark.parametrize(
    ("code", "status", "stderr"),
    [(None, 0, ""), (0, 0, ""), (3, 3, ""), ("a message", 1, "a message")],
)
def test_exit_now_is_sys_exit_and_runs_the_atexit_handlers(
    code: object, status: int, stderr: str
) -> None:
    proc = _python(f"""
        import atexit, sys
        from tsanalyze.cli.app import exit_now
        atexit.register(lambda: print("handler ran"))
        sys.stdout.write("buffered, not flushed")
        exit_now({code!r})
    """)
    assert proc.returncode == status
    assert proc.stdout == "buffered, not flushedhandler ran\n"
    assert proc.stderr.strip() == stderr


def test_exit_now_waits_for_a_running_thread() -> None:
    # a non-daemon thread still running: the ordinary exit, which joins it
    proc = _python("""
        import threading, time
        from tsanalyze.cli.app import exit_now
        def late():
            time.sleep(0.3)
            print("thread finished", flush=True)
        threading.Thread(target=late).start()
        exit_now(5)
    """)
    assert proc.returncode == 5
    assert proc.stdout == "thread finished\n"


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux only"
)
def test_held_memory_is_reused_instead_of_faulted_in_again() -> None:
    code = """
        import resource, sys
        import numpy as np
        from tsanalyze import _workers
        held = _workers.hold_freed_memory() if sys.argv[1] == "hold" else None
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for i in range(50):  # bootstrap-sized matrices, allocated and freed in turn
            a = np.ones(500_000 + 1000 * i)
            b = np.ones(300_000)
            del a, b
        print(held, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
    plain = _python(code, "plain")
    held = _python(code, "hold")
    assert plain.returncode == held.returncode == 0, plain.stderr + held.stderr
    flag, held_faults = held.stdout.split()
    if flag != "True":
        pytest.skip("this C library has no mallopt (not glibc)")
    plain_faults = int(plain.stdout.split()[1])
    # 50 rounds of 6.4 MB: ~40,000 page faults when each is mapped afresh
    assert plain_faults > 20_000
    assert int(held_faults) < plain_faults / 5


def test_a_profiled_run_still_writes_its_profile(tmp_path: Path) -> None:
    # cProfile dumps its data after the program returns: the fast exit would lose it
    out = tmp_path / "run.prof"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "tsanalyze", "--version"],
        capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
