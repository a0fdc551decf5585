"""Scale of ``tsanalyze.history``: 10^3 commits x 100 benchmarks (asv-sized), 10 samples
per run (issue 25 target: under a minute locally), and 10^4 runs through the Dask engine.

    python benchmarks/history/scale.py [--commits 1000] [--benchmarks 100]
    python benchmarks/history/scale.py --engine dask --workers 2 --runs-per-commit 10 \\
        --benchmarks 10 [--compare]

Prints the time of the analysis (the simulation and, with Dask, the cluster's start are
not counted), the peak resident memory of this process and, with Dask, of each worker
(``ru_maxrss``), and with ``--compare`` whether the local engine gives the same document.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from typing import Any

import numpy as np

import tsanalyze
from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--benchmarks", type=int, default=100)
    ap.add_argument("--runs-per-commit", type=int, default=1)
    ap.add_argument("--engine", choices=("local", "dask"), default="local")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--compare", action="store_true", help="also run the local engine")
    ap.add_argument("--dask-malloc", action="store_true",
                    help="keep the Dask nanny's malloc settings (dask_engine.WORKER_ENV not applied)")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    names = [f"b{i:03d}" for i in range(args.benchmarks)]
    changes = [
        SimulatedChange(b, int(rng.integers(50, args.commits - 50)), 1.1) for b in names[::5]
    ]
    df = simulate_history(
        args.commits, names, changes=changes, runs_per_commit=args.runs_per_commit, rng=rng
    )
    n_runs = args.commits * args.runs_per_commit
    what = (
        f"{args.commits} commits x {args.runs_per_commit} run(s) x {args.benchmarks} benchmarks "
        f"({n_runs} runs, {n_runs * args.benchmarks} benchmark runs, {len(df)} samples)"
    )
    client: Any = None
    if args.engine == "dask":
        import dask
        import distributed

        from tsanalyze.analysis.runset.dask_engine import WORKER_ENV

        t0 = time.perf_counter()
        env = {} if args.dask_malloc else WORKER_ENV
        with dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v
                              for k, v in env.items()}):  # fmt: skip
            cluster = distributed.LocalCluster(
                n_workers=args.workers, threads_per_worker=1, dashboard_address=":0"
            )
        client = distributed.Client(cluster)
        # warm: imports and first calls (compiled kernels) on every worker, not counted
        warm = simulate_history(40, [f"w{i}" for i in range(2 * args.workers)], rng=rng)
        tsanalyze.history(warm, engine="dask", client=client)
        print(f"cluster of {args.workers} workers started in {time.perf_counter() - t0:.1f} s")
    tsanalyze.history(simulate_history(40, ["w"], rng=rng))  # warm here too, not counted
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    w0 = client.run(time.process_time) if client is not None else {}
    t0, c0 = time.perf_counter(), time.process_time()
    h = tsanalyze.history(df, seed=0, engine=args.engine, client=client)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if client is not None:
        w1 = client.run(time.process_time)
        print("worker CPU (s):", ", ".join(f"{w1[k] - w0[k]:.1f}" for k in w0))
    print(f"{what}, engine {args.engine}: {elapsed:.1f} s ({cpu:.1f} s CPU in this process), "
          f"{len(h.changes)} changes, load average after {os.getloadavg()[0]:.1f}")
    if client is not None:
        peaks = client.run(
            lambda: __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss
        )
        print("worker peak RSS (MiB):", ", ".join(f"{v / 1024:.0f}" for v in peaks.values()))
        client.close()
        cluster.close()
    print(f"client peak RSS: {_peak_mib():.0f} MiB")
    if args.compare:
        t0, c0 = time.perf_counter(), time.process_time()
        local = tsanalyze.history(df, seed=0)
        same = json.dumps(local.to_dict(), sort_keys=True) == json.dumps(h.to_dict(), sort_keys=True)
        print(f"local engine: {time.perf_counter() - t0:.1f} s ({time.process_time() - c0:.1f} s "
              f"CPU); documents identical: {same}")


if __name__ == "__main__":
    main()
