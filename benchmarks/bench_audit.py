"""Speed of the outlier models, timer checks and the audit (issue 6).

Run: ``python benchmarks/bench_audit.py``. Prints the best of a few repetitions of:

- ``tukey_fences`` on 10^4, 10^6 and 10^7 samples;
- ``timer_check`` (overhead/precision/accuracy shares + quantisation) on 10^6 samples;
- ``outlier_variance`` per call (Boyer's σ-blowup model, seed 003 worked example);
- ``audit`` of seed 004's table (14 rows, 7 comparisons) and of 1000 generated rows
  (500 claimed comparisons).

Timings are wall-clock on a shared machine; other processes inflate them.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from _timing import best

from tsanalyze.analysis.audit import audit
from tsanalyze.io.audit_input import read_audit_input
from tsanalyze.stats.outliers import outlier_variance, tukey_fences
from tsanalyze.stats.timer import timer_check

ROOT = Path(__file__).resolve().parents[1]




def main() -> None:
    rng = np.random.default_rng(0)
    for n in (10**4, 10**6, 10**7):
        x = 1000.0 + rng.gamma(2.0, 10.0, n)
        t = best(functools.partial(tukey_fences, x), repeat=3)
        print(f"tukey_fences      n={n:>9,d}  {t * 1e3:9.2f} ms")
    x = np.round(5e4 + rng.gamma(2.0, 100.0, 10**6))
    t = best(lambda: timer_check(x, overhead_ns=25.0, precision_ns=1.0, accuracy_ns=30.0), 3)
    print(f"timer_check       n={10**6:>9,d}  {t * 1e3:9.2f} ms")
    t = best(lambda: outlier_variance(1.395522860870968, 0.0013859776344426547, 67108864), 200)
    print(f"outlier_variance  per call     {t * 1e6:9.2f} µs")
    rows = read_audit_input(ROOT / "tests" / "data" / "audit" / "seed004_atomic.yaml")
    t = best(lambda: audit(rows))
    print(f"audit seed 004    14 rows      {t * 1e3:9.2f} ms")
    means = 100.0 + rng.gamma(2.0, 50.0, 1000)
    big = [
        {
            "name": f"b{i}",
            "location": m,
            "spread": 3.0,
            "spread_unit": "%",
            "n": int(rng.integers(5, 60)),
            "evals": 100,
            "compare_to": f"b{i + 1}" if i % 2 == 0 else None,
        }
        for i, m in enumerate(means)
    ]
    t = best(lambda: audit(big), repeat=3)
    print(f"audit generated   1000 rows    {t * 1e3:9.2f} ms")


if __name__ == "__main__":
    main()
