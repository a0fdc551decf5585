"""The report's run files read in a child process while the report process imports the
analysis (issue 24): the same frame, the same errors and warnings, no child left behind."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

_CHECK = """
import os, sys, warnings
from pathlib import Path
import pandas as pd
from tsanalyze import _workers
from tsanalyze.cli import _options as opt
from tsanalyze.cli import report as rep
from tsanalyze.datasets import simulate_run
from tsanalyze.io.runs import read_runs, write_run

assert _workers.fork_ready(), "a fresh interpreter runs another thread"
_workers.EARLY_BYTES = 0  # these few small files are worth reading aside here
d = Path(sys.argv[1])
for k in range(3):
    sim = simulate_run({"a": 1000.0, "b": 1200.0}, n_rounds=200, rng=k, run=f"r{k}")
    (meta,) = sim.frame.attrs["runs"].values()
    write_run(sim.frame, d / f"r{k}.parquet", meta)

# the frame the child sends back is the frame read here, metadata included
aside = rep._ReadAside.start([str(d)], opt.Engine.local, None)
assert aside is not None
got = aside.result()
aside.close()
want = read_runs([str(d)])
pd.testing.assert_frame_equal(got, want)
assert got.attrs == want.attrs and list(got.attrs["runs"]) == ["r0", "r1", "r2"]
assert aside.pid == 0  # reaped

# what reading raises is raised here, the same error with the same message
bad = d / "bad"
bad.mkdir()
(bad / "x.parquet").write_bytes(b"not parquet")
try:
    read_runs([str(bad)])
except Exception as exc:
    want_err = (type(exc), str(exc))
aside = rep._ReadAside.start([str(bad)], opt.Engine.local, None)
try:
    aside.result()
except Exception as exc:
    assert (type(exc), str(exc)) == want_err, (exc, want_err)
else:
    raise AssertionError("no error")

# one job asked for: nothing is forked
assert rep._ReadAside.start([str(d)], opt.Engine.local, 1) is None

# a result never taken (an error came first): the child is stopped and reaped
aside = rep._ReadAside.start([str(d)], opt.Engine.local, None)
pid = aside.pid
aside.close()
try:
    os.waitpid(pid, os.WNOHANG)
except ChildProcessError:
    pass
else:
    raise AssertionError("the child was not reaped")
print("ok")
"""


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_the_files_read_aside_are_the_files_read_here(tmp_path: Path) -> None:
    # in a fresh interpreter: under pytest-xdist the runner's threads rightly stop the fork
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(tmp_path)], capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
