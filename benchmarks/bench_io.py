"""Speed target (issue 2): read_runs on 100 files x 100,000 samples in < 10 s and < 2 GB.

Run: python benchmarks/bench_io.py [--files 100] [--samples 100000]
Writes the files to a temporary directory, then reads them in a fresh child process
and reports its wall time and peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import sys, time
import tsanalyze
t = time.perf_counter()
df = tsanalyze.read_runs(sys.argv[1])
dt = time.perf_counter() - t
print(f"{len(df)} {len(df.attrs['runs'])} {dt:.3f}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--samples", type=int, default=100_000)
    args = ap.parse_args()
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        base = simulate_run(
            {"bench-a": 1000.0, "bench-b": 1500.0}, n_rounds=args.samples // 2, rng=1
        )
        frame = base.frame.drop(columns=["time_ns", "time_ns_raw"])
        meta = next(iter(base.frame.attrs["runs"].values()))
        for i in range(args.files):
            rid = f"00000000-0000-4000-8000-{i:012d}"
            write_run(
                frame.assign(run=rid), Path(tmp) / f"run{i:03d}.parquet", {**meta, "run": rid}
            )
        print(
            f"wrote {args.files} files x {args.samples} samples in {time.perf_counter() - t:.1f} s"
        )
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, tmp], capture_output=True, text=True, check=True
        )
        wall = time.perf_counter() - t
        rows, nruns, inner = out.stdout.split()
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"read_runs: {rows} rows from {nruns} runs in {float(inner):.2f} s "
            f"(child process wall {wall:.2f} s incl. imports), peak RSS {peak_mb:.0f} MB"
        )
        print(
            "target: < 10 s and < 2048 MB ->",
            "OK" if float(inner) < 10 and peak_mb < 2048 else "MISSED",
        )


if __name__ == "__main__":
    main()
