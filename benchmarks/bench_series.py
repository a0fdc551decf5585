"""Speed of the per-series analysis (``analyze_series``, the step ``tsanalyze report`` runs
once per series) at large n.

Run: ``python benchmarks/bench_series.py [--quick]``. Prints the best of two wall-clock
times per case: i.i.d. Gaussian noise and the delay-factor model with lag-1 dependence and
a warm-up, at 10^4, 2·10^5 and 10^6 samples. What the analysis says at this size is
tested in ``tests/analysis/test_series.py::test_huge_n_gives_the_right_answer_by_the_right_path``;
this script only times it.

Target: 10^6 samples in under 10 s on the 2-core CI machine (the steady-state search
alone has the same target in bench_changepoints.py). Timings on a shared machine are
inflated by other load; say so when quoting them.
"""

from __future__ import annotations

import sys
import time

from tsanalyze.analysis.series import analyze_series
from tsanalyze.datasets import simulate_series

TARGET_S = 10.0


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = (10_000, 200_000) if quick else (10_000, 200_000, 1_000_000)
    cases = {
        "gaussian i.i.d.": {"noise": "gaussian"},
        "delay, phi 0.5, warm-up": {"noise": "delay", "phi": 0.5, "warmup": (0.05, 0.5)},
    }
    worst = 0.0
    for n in sizes:
        for label, kw in cases.items():
            options = dict(kw)
            if "warmup" in options:
                share, height = options["warmup"]  # type: ignore[misc]
                options["warmup"] = (int(share * n), height)
            x = simulate_series(n, rng=1, **options).x  # type: ignore[arg-type]
            times = []
            for _ in range(2):
                t = time.perf_counter()
                sa = analyze_series(x, rng=1)
                times.append(time.perf_counter() - t)
            best = min(times)
            if n == max(sizes):
                worst = max(worst, best)
            print(
                f"analyze_series n={n:>9,} {label:<26} {best:6.2f} s  "
                f"({sa.classification}, CI {sa.ci_method}, subsession {sa.subsession_size})"
            )
    if not quick:
        verdict = "OK" if worst < TARGET_S else "MISSED"
        print(f"target: n=10^6 under {TARGET_S:g} s -> {verdict} (worst {worst:.2f} s)")


if __name__ == "__main__":
    main()
