"""Scale of ``tsanalyze.history``: 10^3 commits x 100 benchmarks (asv-sized), 10 samples
per run (issue 25 target: under a minute locally).

    python benchmarks/history/scale.py [--commits 1000] [--benchmarks 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tsanalyze
from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--benchmarks", type=int, default=100)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    names = [f"b{i:03d}" for i in range(args.benchmarks)]
    changes = [
        SimulatedChange(b, int(rng.integers(50, args.commits - 50)), 1.1) for b in names[::5]
    ]
    df = simulate_history(args.commits, names, changes=changes, rng=rng)
    t0 = time.perf_counter()
    h = tsanalyze.history(df, seed=0)
    elapsed = time.perf_counter() - t0
    print(
        f"{args.commits} commits x {args.benchmarks} benchmarks ({len(df)} samples): "
        f"{elapsed:.1f} s, {len(h.changes)} changes"
    )


if __name__ == "__main__":
    main()
