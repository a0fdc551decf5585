"""Many small runs, fast (issue 24): the report over 10, 100 and 1000 runs beside pandas.

A CI history is many small runs: here runs of 5 interleaved benchmarks x 1000 rounds
each, simulated once into ``--dir`` (kept for the next call). For each number of runs,
two commands run in fresh processes, one after the other, so both see the same load:

- *pandas*: read the run files and compute the median and mean per (run, benchmark),
  the least anyone would do (start-up and imports included, as for the report);
- *report*: ``tsanalyze report DIR --format json --seed 1 -q`` (all cores).

Then the time per series of ``analyze_series`` at 10^3, 10^4 and 10^5 samples, and the
start-up (best of 3): ``python -c "import tsanalyze"`` and ``tsanalyze --help``.

Targets (issue 24): report over 100 runs <= 10x pandas over the same files; report over
1000 runs <= 11x the report over 100; ``import tsanalyze`` and ``--help`` <= 0.3 s.
The machine may be shared: the load average is printed before and after, and only the
ratios measured within one call mean anything.

With ``--tiny``: 5,000 runs of one benchmark x 5 samples, written once as one file
(``write_runs``) and once as 200 files of 25 runs; ``tsanalyze report`` of each (wall,
CPU, peak memory of the process tree) and what it says: 5 samples are too few for a
stable segment or dependence, which must be a result with findings, not a crash. Then in
Python, ``read_runs`` of the one file and a loop over ``df.groupby("run")`` (a
statistician's first step; target: under a second, where pandas' deep copy of the 5,000
runs' metadata in ``df.attrs`` for every group took about 8 minutes before 27 November).

Run: ``python benchmarks/bench_many_runs.py [--dir DIR] [--runs 10 100 1000] [--repeat 1]``
or ``python benchmarks/bench_many_runs.py --tiny``
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from bench_scale import measure  # the same directory

BENCHMARKS = 5
ROUNDS = 1000

PANDAS = """
import glob, sys
import pandas as pd
files = sorted(glob.glob(sys.argv[1] + "/*.parquet"))
df = pd.concat([pd.read_parquet(f, columns=["run", "benchmark", "ns", "evals"]) for f in files],
               ignore_index=True)
df["t"] = df["ns"] / df["evals"]
out = df.groupby(["run", "benchmark"], observed=True)["t"].agg(["median", "mean"])
print(len(out))
"""


def make_runs(directory: Path, n_runs: int) -> Path:
    """``n_runs`` run files of 5 benchmarks x 1000 rounds in ``directory/runs-N`` (reused)."""
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    out = directory / f"runs-{n_runs}"
    if out.is_dir() and len(list(out.glob("*.parquet"))) == n_runs:
        return out
    out.mkdir(parents=True, exist_ok=True)
    bench = {f"b{i}": 1000.0 * (1 + i / 4) for i in range(BENCHMARKS)}
    for k in range(n_runs):
        path = out / f"run{k:04d}.parquet"
        if path.exists():
            continue
        sim = simulate_run(bench, n_rounds=ROUNDS, rng=1000 + k, run=f"run{k:04d}")
        (meta,) = sim.frame.attrs["runs"].values()
        write_run(sim.frame, path, meta)
    return out


TINY_RUNS, TINY_SAMPLES, TINY_FILES = 5000, 5, 200


def make_tiny(directory: Path) -> tuple[Path, Path]:
    """5,000 runs x 5 samples: ``tiny/one.parquet`` (all runs) and ``tiny/files/`` (200
    files of 25 runs); reused when present."""
    import pandas as pd

    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_runs

    out = directory / "tiny"
    one, many = out / "one.parquet", out / "files"
    if one.exists() and many.is_dir() and len(list(many.glob("*.parquet"))) == TINY_FILES:
        return one, many
    many.mkdir(parents=True, exist_ok=True)
    frames, metas = [], []
    for k in range(TINY_RUNS):
        sim = simulate_run({"a": 1000.0}, n_rounds=TINY_SAMPLES, rng=k, run=f"run{k:05d}")
        frames.append(sim.frame)
        metas.extend(sim.frame.attrs["runs"].values())
    per = TINY_RUNS // TINY_FILES
    for f in range(TINY_FILES):
        part = pd.concat(frames[f * per : (f + 1) * per], ignore_index=True)
        write_runs(part, many / f"runs{f:03d}.parquet", metas[f * per : (f + 1) * per], overwrite=True)
    write_runs(pd.concat(frames, ignore_index=True), one, metas, overwrite=True)
    return one, many


def tiny(directory: Path) -> None:
    """report of 5,000 runs of 5 samples: one file, then 200 files (``--tiny``)."""
    import json
    import subprocess
    from collections import Counter

    t0 = time.perf_counter()
    one, many = make_tiny(directory)
    print(f"{TINY_RUNS} runs x {TINY_SAMPLES} samples ready in {time.perf_counter() - t0:.0f} s")
    cli = [sys.executable, "-m", "tsanalyze"]
    for name, target in (("one file", one), (f"{TINY_FILES} files", many)):
        args = [*cli, "report", str(target), "--format", "json", "--seed", "1", "-q"]
        secs, peak, cpu = measure(args)
        doc = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
        codes = Counter(
            f["code"] for u in doc.get("trials", []) + doc.get("series", []) for f in u.get("findings", [])
        )
        print(
            f"  report, {name}: {secs:6.1f} s wall, {cpu:6.1f} s cpu, peak {peak / 1e9:5.2f} GB; "
            f"document keys {sorted(doc)}; findings {dict(codes.most_common(6))}",
            flush=True,
        )
    import tsanalyze

    t0 = time.perf_counter()
    df = tsanalyze.read_runs(one)
    t1 = time.perf_counter()
    medians = [float(g["time_ns"].median()) for _, g in df.groupby("run", observed=True)]
    t2 = time.perf_counter()
    print(
        f"  python: read_runs {t1 - t0:.1f} s; df.groupby('run') over {len(medians)} runs, "
        f"median of each: {t2 - t1:.2f} s",
        flush=True,
    )


#: CPU seconds (user + system) of the last command timed, its workers included: on a
#: shared machine the load changes the wall time between commands, not the CPU time
LAST_CPU = [0.0]


def timed(args: list[str]) -> float:
    secs, _, LAST_CPU[0] = measure(args)  # the process tree, as bench_scale measures it
    return secs


def best_of(args: list[str], k: int = 3) -> float:
    return min(timed(args) for _ in range(k))


def per_series() -> list[tuple[int, float]]:
    from tsanalyze.analysis.series import analyze_series
    from tsanalyze.datasets import simulate_series

    out = []
    for n in (1_000, 10_000, 100_000):
        xs = [simulate_series(n, noise="delay", rng=k).x for k in range(3)]
        # warm (imports, compiled kernels) on another series: the dependence assessment
        # of a series already seen is kept (assess_dependence), which would time less
        analyze_series(simulate_series(n, noise="delay", rng=99).x, rng=1)
        times = []
        for x in xs:
            t0 = time.perf_counter()
            analyze_series(x, rng=1)
            times.append(time.perf_counter() - t0)
        out.append((n, min(times)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dir", type=Path, default=None, help="where the run files are kept")
    ap.add_argument("--runs", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--repeat", type=int, default=1, help="report timings: best of this many")
    ap.add_argument("--skip-series", action="store_true")
    ap.add_argument("--tiny", action="store_true", help="5,000 runs of 5 samples")
    opts = ap.parse_args()
    directory = opts.dir or Path(tempfile.gettempdir()) / "tsanalyze-bench-many-runs"
    if opts.tiny:
        print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
        tiny(directory)
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
        return
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    py = sys.executable
    cli = [py, "-m", "tsanalyze"]

    t0 = time.perf_counter()
    dirs = {n: make_runs(directory, n) for n in opts.runs}
    print(f"run files ready in {time.perf_counter() - t0:.1f} s ({directory})")

    print("\nruns  series  pandas (s)  report (s)  report/pandas  |  CPU s: pandas  report  ratio")
    report_time: dict[int, float] = {}
    report_cpu: dict[int, float] = {}
    ratio: dict[int, float] = {}
    for n, d in dirs.items():
        pd_s, pd_cpu = math.inf, math.inf
        for _ in range(opts.repeat):
            pd_s = min(pd_s, timed([py, "-c", PANDAS, str(d)]))
            pd_cpu = min(pd_cpu, LAST_CPU[0])
        rep_s, rep_cpu = math.inf, math.inf
        for _ in range(opts.repeat):
            rep_s = min(
                rep_s, timed([*cli, "report", str(d), "--format", "json", "--seed", "1", "-q"])
            )
            rep_cpu = min(rep_cpu, LAST_CPU[0])
        report_time[n], report_cpu[n], ratio[n] = rep_s, rep_cpu, rep_s / pd_s
        print(
            f"{n:>4}  {n * BENCHMARKS:>6}  {pd_s:>10.2f}  {rep_s:>10.2f}  {rep_s / pd_s:>13.1f}"
            f"  |  {pd_cpu:>12.2f}  {rep_cpu:>6.1f}  {rep_cpu / pd_cpu:>5.1f}",
            flush=True,
        )

    if not opts.skip_series:
        print("\nanalyze_series, best of 3 (delay noise):")
        for n, secs in per_series():
            print(f"  n = {n:>7,}: {secs * 1000:8.1f} ms per series")

    imp = best_of([py, "-c", "import tsanalyze"])
    hlp = best_of([*cli, "--help"])
    bare = best_of([py, "-c", "pass"])
    print(
        f"\nstart-up, best of 3: import tsanalyze {imp:.3f} s, tsanalyze --help {hlp:.3f} s "
        f"(python -c pass: {bare:.3f} s)"
    )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")

    print("\nissue 24, done when:")
    if 100 in ratio:
        print(
            f"  report(100 runs) / pandas = {ratio[100]:.1f} (<= 10: {'met' if ratio[100] <= 10 else 'NOT met'})"
        )
    if 100 in report_time and 1000 in report_time:
        g = report_time[1000] / report_time[100]
        gc = report_cpu[1000] / report_cpu[100]
        print(
            f"  report(1000 runs) / report(100 runs) = {g:.1f}, CPU time {gc:.1f} "
            f"(<= 11: {'met' if g <= 11 else 'NOT met'})"
        )
    ok = imp <= 0.3 and hlp <= 0.3
    print(f"  import {imp:.2f} s, --help {hlp:.2f} s (<= 0.3 s: {'met' if ok else 'NOT met'})")


if __name__ == "__main__":
    main()
