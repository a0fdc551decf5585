"""The Dask engine at scale (issue 19): many runs x many samples on a 2-worker LocalCluster.

Target scenario: 10^3 runs x 10^5 samples of one benchmark (a CI history), the runs split
into two sides of trials (``old``: the first half, ``new``: the second, 1% slower), so the
report makes 10^3 series analyses, two trials summaries and one run-level comparison.
``--runs`` measures a fraction of it (the per-series work is linear in the number of
runs; the script prints the linear extrapolation to ``--target-runs``).

For each engine: wall time of :func:`tsanalyze.analysis.runset.analyze` (cluster start
excluded, printed apart), peak RSS of each Dask worker process (``ru_maxrss``, asked of
each worker after the analysis, minus the RSS it had before: the work's own share), and
the client's peak RSS. The local engine runs serially (``jobs=1``) for the
identical-results check and as a time reference; the JSON documents of both are compared.

The series are simulated here with numpy (AR(1) lognormal-ish noise plus rare delays;
columns ``benchmark``, ``run``, ``sample``, ``time_ns``), not read from files: the client
holds them, as ``report`` holds what it read (see docs/src/dask.md).

Run: ``nice -n 10 python benchmarks/bench_dask.py [--runs 40] [--samples 100000]
[--workers 2] [--target-runs 1000]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

# the local engine's reference in this process: single-threaded BLAS, as in its pool's
# workers and in Dask's (a multi-threaded dot product rounds differently)
for _k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def simulate(runs: int, samples: int, seed: int = 1) -> tuple[pd.DataFrame, dict[str, str]]:
    """``runs`` series of ``samples`` per-evaluation times, and each run's side."""
    rng = np.random.default_rng(seed)
    n = runs * samples
    level = np.repeat(np.where(np.arange(runs) < runs // 2, 1000.0, 1010.0), samples)
    noise = rng.lognormal(0.0, 0.01, n) * level
    delays = rng.random(n) < 0.005
    noise[delays] += rng.exponential(200.0, int(delays.sum()))
    names = [f"r{i:05d}" for i in range(runs)]
    df = pd.DataFrame(
        {
            "benchmark": pd.Categorical.from_codes(np.zeros(n, np.int8), ["bench"]),
            "run": pd.Categorical.from_codes(np.repeat(np.arange(runs), samples), names),
            "sample": np.tile(np.arange(samples, dtype=np.int64), runs),
            "time_ns": noise,
        }
    )
    sides = {r: ("old" if i < runs // 2 else "new") for i, r in enumerate(names)}
    return df, sides


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--target-runs", type=int, default=1000)
    args = ap.parse_args()

    import distributed

    from tsanalyze.analysis.runset import analyze

    print(f"load average before: {os.getloadavg()}")
    t0 = time.perf_counter()
    df, sides = simulate(args.runs, args.samples)
    print(
        f"{args.runs} runs x {args.samples} samples = {len(df):.3g} samples "
        f"({df.memory_usage(deep=True).sum() / 2**20:.0f} MiB frame), "
        f"simulated in {time.perf_counter() - t0:.1f} s"
    )

    t0 = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=args.workers, threads_per_worker=1, dashboard_address=None
    )
    client = distributed.Client(cluster)
    client.run(lambda: __import__("tsanalyze.analysis.runset").analysis.runset.analyze)
    start = time.perf_counter() - t0
    before = client.run(_rss_mb)
    t0 = time.perf_counter()
    dask = analyze(df, rng=1, sides=sides, engine="dask", client=client)
    t_dask = time.perf_counter() - t0
    peak = client.run(_maxrss_mb)
    client.close()
    cluster.close()

    t0 = time.perf_counter()
    local = analyze(df, rng=1, sides=sides, jobs=1)
    t_local = time.perf_counter() - t0
    same = json.dumps(dask.to_dict(), sort_keys=True) == json.dumps(local.to_dict(), sort_keys=True)

    scale = args.target_runs / args.runs
    print(f"cluster start ({args.workers} workers, tsanalyze imported): {start:.1f} s")
    print(f"dask engine, {args.workers} workers: {t_dask:.1f} s")
    for addr in sorted(peak):
        print(
            f"  worker {addr}: peak RSS {peak[addr]:.0f} MiB "
            f"(idle after imports {before[addr]:.0f} MiB)"
        )
    print(f"local engine, 1 process: {t_local:.1f} s")
    print(f"client peak RSS (both engines, the frame included): {_maxrss_mb():.0f} MiB")
    print(f"identical JSON documents: {same}")
    print(f"verdict: {[(c.benchmark, c.verdict, round(c.ratio, 4)) for c in dask.comparisons]}")
    print(
        f"linear extrapolation to {args.target_runs} runs: dask ~{t_dask * scale:.0f} s, "
        f"local ~{t_local * scale:.0f} s (series work is linear in runs; the trials and "
        f"comparison jobs hold a whole side, so compare two --runs for memory)"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
