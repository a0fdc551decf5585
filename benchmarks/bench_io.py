"""Reading and writing runs: the targets of issue 2 (reading) and issue 19 (writing).

Writing (issue 19): ``write_run`` of n samples (a simulated run of 2 interleaved
benchmarks, as ``read_runs`` returns it) against ``pyarrow.parquet.write_table`` of the
same arrow table, for n = 10^5, 10^6, 10^7; best of k, the three writes alternated so
that a change of load hits all of them. Three ratios:

- against ``write_table`` as pyarrow writes by default: what the issue asks (<= 1.3x);
- against ``write_table`` followed by the two fsyncs a durable write needs (the file,
  then its directory after the rename): what write_run costs beyond durability;
- against ``write_table`` with write_run's own options (dictionary encoding only for
  few-valued columns) and the same fsyncs: the cost of the checks and the conversion.

Reading (issue 2): ``read_runs`` on 100 files x 100,000 samples in < 10 s and < 2 GB,
in a fresh child process (wall time, peak resident memory).

Run: ``python benchmarks/bench_io.py [--write-sizes 1e5 1e6 1e7] [--no-read]
[--files 100] [--samples 100000]``
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHILD = """
import sys, time
import tsanalyze
t = time.perf_counter()
df = tsanalyze.read_runs(sys.argv[1])
dt = time.perf_counter() - t
print(f"{len(df)} {len(df.attrs['runs'])} {dt:.3f}")
"""


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_ratios(frame: Any, meta: dict[str, Any], directory: Path, repeats: int) -> dict[str, float]:
    """Best-of-``repeats`` seconds of write_run and of the three pyarrow baselines, and of
    write_run's conversion and checks alone, for one frame."""
    import pyarrow.parquet as pq

    from tsanalyze.io import runs
    from tsanalyze.io.checks import check_rows

    table = runs._to_arrow(frame, directory)
    table = table.replace_schema_metadata(
        {runs.schema.METADATA_KEY: runs.schema.encode_metadata(meta)}
    )
    rid = meta["run"]

    def ours(k: int) -> None:
        runs.write_run(frame, directory / f"w{k}.parquet", meta)

    def plain(k: int) -> None:
        pq.write_table(table, directory / f"p{k}.parquet", compression="zstd")

    def durable(k: int, **options: Any) -> None:
        path = directory / f"d{k}.parquet"
        pq.write_table(table, path, compression="zstd", **options)
        _fsync_path(path)
        _fsync_path(directory)

    def same_options(k: int) -> None:
        durable(k, use_dictionary=getattr(runs, "_DICTIONARY_COLUMNS", True))  # before issue 19: default

    def convert_and_check(k: int) -> None:
        t = runs._to_arrow(frame, directory)
        check_rows(directory, t, [rid])

    steps: dict[str, Callable[[int], None]] = {
        "write_run": ours,
        "write_table": plain,
        "write_table+fsyncs": lambda k: durable(k),
        "same options+fsyncs": same_options,
        "convert+check": convert_and_check,
    }
    best = dict.fromkeys(steps, float("inf"))
    for k in range(repeats):
        for name, step in steps.items():
            t0, c0 = time.perf_counter(), time.process_time()
            step(k)
            best[name] = min(best[name], time.perf_counter() - t0)
            cpu = f"{name} cpu"
            best[cpu] = min(best.get(cpu, float("inf")), time.process_time() - c0)
        for f in directory.glob("*.parquet"):
            f.unlink()
    return best


def simulated(n: int) -> tuple[Any, dict[str, Any]]:
    """n samples of 2 interleaved benchmarks, as read_runs returns them, and the metadata."""
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import read_runs, write_run

    sim = simulate_run({"a": 1000.0, "b": 1500.0}, n_rounds=n // 2, phi=0.3, rng=1, run="r")
    (meta,) = sim.frame.attrs["runs"].values()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_run(sim.frame, Path(tmp) / "r.parquet", meta)
        frame = read_runs(path)
    return frame, {k: v for k, v in frame.attrs["runs"]["r"].items() if k != "file"}


def write_benchmark(sizes: list[int], directory: Path | None) -> list[tuple[int, dict[str, float]]]:
    rows = []
    print("write_run against pyarrow.parquet.write_table of the same table (best of k; wall, "
          "then CPU time: on a loaded machine the CPU ratio is the steadier one, but an fsync "
          "waits without CPU)")
    for n in sizes:
        frame, meta = simulated(n)
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            best = write_ratios(frame, meta, Path(tmp), repeats=5 if n <= 10**6 else 3)
        del frame
        w = best["write_run"]
        print(
            f"  n = {n:>10,}: write_run {w * 1e3:8.1f} ms | write_table {best['write_table'] * 1e3:8.1f} ms "
            f"({w / best['write_table']:.2f}x) | + 2 fsyncs {best['write_table+fsyncs'] * 1e3:8.1f} ms "
            f"({w / best['write_table+fsyncs']:.2f}x) | same options + 2 fsyncs "
            f"{best['same options+fsyncs'] * 1e3:8.1f} ms ({w / best['same options+fsyncs']:.2f}x) | "
            f"conversion and checks {best['convert+check'] * 1e3:7.1f} ms",
            flush=True,
        )
        c = best["write_run cpu"]
        print(
            f"  {'cpu:':>17} write_run {c * 1e3:8.1f} ms | write_table {best['write_table cpu'] * 1e3:8.1f} ms "
            f"({c / best['write_table cpu']:.2f}x) | same options + 2 fsyncs "
            f"{best['same options+fsyncs cpu'] * 1e3:8.1f} ms ({c / best['same options+fsyncs cpu']:.2f}x) | "
            f"conversion and checks {best['convert+check cpu'] * 1e3:7.1f} ms",
            flush=True,
        )
        rows.append((n, best))
    worst = max(b["write_run"] / b["write_table"] for _, b in rows)
    print(f"  worst write_run / write_table: {worst:.2f}x (<= 1.3: {'met' if worst <= 1.3 else 'NOT met'})")
    return rows


def read_benchmark(files: int, samples: int) -> None:
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        base = simulate_run({"bench-a": 1000.0, "bench-b": 1500.0}, n_rounds=samples // 2, rng=1)
        frame = base.frame.drop(columns=["time_ns", "time_ns_raw"])
        meta = next(iter(base.frame.attrs["runs"].values()))
        for i in range(files):
            rid = f"00000000-0000-4000-8000-{i:012d}"
            write_run(frame.assign(run=rid), Path(tmp) / f"run{i:03d}.parquet", {**meta, "run": rid})
        print(f"wrote {files} files x {samples} samples in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD, tmp], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
        rows, nruns, inner = out.stdout.split()
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"read_runs: {rows} rows from {nruns} runs in {float(inner):.2f} s "
            f"(child process wall {wall:.2f} s incl. imports), peak RSS {peak_mb:.0f} MB"
        )
        print("target: < 10 s and < 2048 MB ->", "OK" if float(inner) < 10 and peak_mb < 2048 else "MISSED")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--write-sizes", type=float, nargs="*", default=[1e5, 1e6, 1e7])
    ap.add_argument("--dir", type=Path, default=None, help="where to write (default: the temp dir)")
    ap.add_argument("--no-read", action="store_true", help="skip the read_runs benchmark")
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--samples", type=int, default=100_000)
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    if args.write_sizes:
        write_benchmark([int(s) for s in args.write_sizes], args.dir)
    if not args.no_read:
        read_benchmark(args.files, args.samples)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
