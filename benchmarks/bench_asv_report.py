"""The report over a real CI history of many small series, beside pandas (issue 24).

django/django-asv keeps one asv results file per (commit, machine, environment), ~10
samples per benchmark: the last ``--commits`` commits (by commit date) of one machine
and environment (default ``ubuntu-latest`` / ``conda-py3.10``: 100 commits, ~5,800 series
of 9-10 samples, 58,000 samples) are imported with ``tsanalyze import asv`` into
``--out`` (reused when it holds them), then timed, each in a fresh process, one after
the other so that both see the same load:

- *pandas*: read the run files and compute, per (run, benchmark), the median and the
  quartiles of the per-evaluation times (start-up and imports included, as for the
  report);
- *report*: ``tsanalyze report FILES --format json -q`` (all cores; the seed is the
  default, 0).

Best of ``--repeat`` wall times, and the CPU time (user + system of the process and its
workers) of the same runs: on a shared machine the CPU time says more. The load average
is printed before and after.

Run::

    git --git-dir=<django-asv mirror> archive HEAD results | tar x -C /tmp/djasv
    python benchmarks/bench_asv_report.py /tmp/djasv/results [--out DIR] [--repeat 3]

Nothing of the data is kept in the repository.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_scale import measure  # the same directory

PANDAS = """
import sys
import pandas as pd
files = sys.argv[1:]
df = pd.concat([pd.read_parquet(f, columns=["run", "benchmark", "ns", "evals"]) for f in files],
               ignore_index=True)
df["t"] = df["ns"] / df["evals"]
g = df.groupby(["run", "benchmark"], observed=True)["t"]
out = g.agg(["median", "mean"]).join(g.quantile([0.25, 0.75]).unstack())
print(len(out))
"""


def last_commits(results: Path, machine: str, env: str, n: int) -> list[Path]:
    """The results files of the ``n`` latest commits (by asv's ``date``, the commit's
    time; ties by name) of ``machine`` in environment ``env``."""
    files = sorted((results / machine).glob(f"*-{env}.json"))
    if not files:
        raise SystemExit(f"{results / machine}: no *-{env}.json results files")
    dated = sorted((json.loads(f.read_text()).get("date") or 0, f.name, f) for f in files)
    return [f for _, _, f in dated[-n:]]


def imported(sources: list[Path], out: Path) -> list[Path]:
    """The run files of ``sources`` in ``out``, imported unless already there."""
    out.mkdir(parents=True, exist_ok=True)
    marker = out / "sources.txt"
    listing = "\n".join(str(s) for s in sources)
    runs = sorted(out.glob("*.parquet"))
    if marker.exists() and marker.read_text() == listing and len(runs) == len(sources):
        return runs
    for old in runs:
        old.unlink()
    cmd = [sys.executable, "-m", "tsanalyze", "import", "asv", *map(str, sources), "-o", str(out)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    marker.write_text(listing)
    return sorted(out.glob("*.parquet"))


def best(args: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time (s) of ``repeat`` runs of ``args``."""
    wall = cpu = math.inf
    for _ in range(repeat):
        secs, _, used = measure(args)
        wall, cpu = min(wall, secs), min(cpu, used)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("results", type=Path, help="asv results directory (holds benchmarks.json)")
    ap.add_argument("--machine", default="ubuntu-latest")
    ap.add_argument("--env", default="conda-py3.10")
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--out", type=Path, default=None, help="where the run files are kept")
    ap.add_argument("--repeat", type=int, default=3, help="timings: best of this many")
    opts = ap.parse_args()
    out = opts.out or Path(tempfile.gettempdir()) / f"tsanalyze-asv-{opts.commits}"
    sources = last_commits(opts.results, opts.machine, opts.env, opts.commits)
    runs = imported(sources, out)
    print(f"{len(runs)} run files of {opts.machine}/{opts.env} in {out}")
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    py = sys.executable
    pd_wall, pd_cpu = best([py, "-c", PANDAS, *map(str, runs)], opts.repeat)
    rep_wall, rep_cpu = best(
        [py, "-m", "tsanalyze", "report", *map(str, runs), "--format", "json", "-q"], opts.repeat
    )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    print(f"\nbest of {opts.repeat}      wall (s)   CPU (s)")
    print(f"pandas          {pd_wall:>8.2f}  {pd_cpu:>8.2f}")
    print(f"report          {rep_wall:>8.2f}  {rep_cpu:>8.2f}")
    print(f"report/pandas   {rep_wall / pd_wall:>8.1f}  {rep_cpu / pd_cpu:>8.1f}")


if __name__ == "__main__":
    main()
