"""Speed of comparisons (issue 7).

Run: ``python benchmarks/bench_compare.py``. Prints the best of a few repetitions of:

- ``compare`` of two unpaired series with the defaults (median; bootstrap with 1000
  resamples up to 5000 samples per side, per-side CIs combined above) at n = 10^3,
  10^4, 10^5 and 10^6, and the bootstrap forced at 10^4;
- ``compare`` of one interleaved run, paired by round (n = 10^4 rounds, bootstrap);
- ``compare`` on the fast path (mean, Welch, t CI) at n = 30 and 10^4;
- ``mann_whitney`` exact with ties at n = 25 per side;
- ``compare_runs`` over 200 benchmarks x 200 rounds (fast path and bootstrap path).

Timings are wall-clock on a shared machine; other processes inflate them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from tsanalyze.analysis.compare import compare, compare_runs
from tsanalyze.datasets import simulate_run, simulate_series
from tsanalyze.stats.two_sample import mann_whitney


def best(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    for n in (1_000, 10_000, 100_000, 1_000_000):
        x = simulate_series(n, phi=0.5, rng=1).x
        y = simulate_series(n, phi=0.5, rng=2).x
        c = compare(x, y, rng=0)
        t = best(lambda x=x, y=y: compare(x, y, rng=0), repeat=2 if n > 10_000 else 3)
        print(f"compare unpaired, median, defaults ({c.ci_method}), n={n:>7}: {t * 1e3:9.1f} ms")
        if n == 10_000:
            t = best(lambda x=x, y=y: compare(x, y, ci_method="bootstrap", rng=0), repeat=2)
            print(f"compare unpaired, median, bootstrap 1000, n={n:>7}: {t * 1e3:9.1f} ms")
    run = simulate_run({"a": 1000.0, "b": 1010.0}, n_rounds=10_000, rng=3).frame
    fa, fb = run[run["benchmark"] == "a"], run[run["benchmark"] == "b"]
    t = best(lambda: compare(fa, fb, rng=0))
    print(f"compare paired (frames), median, bootstrap 1000, 10^4 rounds: {t * 1e3:9.1f} ms")
    for n in (30, 10_000):
        x = simulate_series(n, rng=4).x
        y = simulate_series(n, rng=5).x
        t = best(lambda x=x, y=y: compare(x, y, estimator="mean", ci_method="t"), repeat=20)
        print(f"compare fast path (mean, Welch, t CI), n={n:>6}: {t * 1e3:9.3f} ms")
    gen = np.random.default_rng(6)
    xa, xb = gen.integers(0, 10, 25).astype(float), gen.integers(2, 12, 25).astype(float)
    t = best(lambda: mann_whitney(xa, xb, method="exact"), repeat=10)
    print(f"mann_whitney exact with ties, 25 vs 25: {t * 1e3:9.3f} ms")
    names = [f"b{i:03d}" for i in range(200)]
    base = simulate_run(names, n_rounds=200, rng=7).frame
    cand = simulate_run(names, n_rounds=200, rng=8).frame
    t = best(lambda: compare_runs(base, cand, estimator="mean", ci_method="t"), repeat=2)
    print(f"compare_runs 200 benchmarks x 200 rounds, fast path: {t:9.2f} s")
    t = best(lambda: compare_runs(base, cand, rng=0), repeat=1)
    print(f"compare_runs 200 benchmarks x 200 rounds, median + bootstrap 1000: {t:9.2f} s")


if __name__ == "__main__":
    main()
