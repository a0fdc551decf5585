"""Speed of the change-point methods and the steady-state analysis (issue 4).

Run: ``python benchmarks/bench_changepoints.py [--quick]``. Prints the best of a few
repetitions (wall clock, seconds) of:

- BreakoutDetection-compatible ``edm-multi`` (min_size 24, beta 0.001) and ``edm-x`` on
  10^4 samples, numba kernel and (for n = 2000) its pure-Python twin. Reference: the
  package's C++ ``edm-multi`` takes 43 s at 10^4 (issue 4); target at least 10x faster.
- the robust default ``edm`` on 10^4, 10^5 and 10^6 samples (stationary t3 + spikes, and
  with a warm-up plus a level shift); target under 10 s at 10^6 on the 2-core machine.
- ``e-divisive`` (199 permutations) on 2000 samples with one change.
- ``steady_state`` on 10^6 samples.

Timings are wall-clock on a shared 2-core machine; other processes inflate them.
"""

from __future__ import annotations

import sys

from _timing import best as best_of

from tsanalyze.analysis.steady_state import steady_state
from tsanalyze.datasets import simulate_series
from tsanalyze.stats.changepoints import _numba
from tsanalyze.stats.changepoints._edm_compat import edm_compat
from tsanalyze.stats.changepoints.api import changepoints


def main() -> None:
    quick = "--quick" in sys.argv
    rep = 1 if quick else 3
    print(f"numba available: {_numba.HAVE_NUMBA}")
    x4 = simulate_series(10_000, noise="t3-spikes", shifts=((5000, 0.05),), rng=1).x
    edm_compat(x4[:200], method="edm-multi", min_size=24)  # compile once
    edm_compat(x4[:200], method="edm-x", min_size=24)
    for method in ("edm-multi", "edm-percent", "edm-x"):
        kw = {"beta": 0.001} if method == "edm-multi" else {}
        if method == "edm-percent":
            kw = {"percent": 0.5}
        t = best_of(lambda m=method, k=kw: edm_compat(x4, method=m, min_size=24, **k), rep)
        print(f"compat {method:12s} n=10^4 numba : {t:7.2f} s  ({43.0 / t:5.1f}x faster than 43 s)")
    x2 = x4[:2000]
    for method in ("edm-multi", "edm-x"):
        t = best_of(lambda m=method: edm_compat(x2, method=m, min_size=24, engine="python"), 1)
        print(f"compat {method:12s} n=2000 pure Python twin: {t:7.2f} s")
    for n in (10_000, 100_000, 1_000_000):
        flat = simulate_series(n, noise="t3-spikes", rng=2).x
        shaped = simulate_series(
            n, noise="t3-spikes", warmup=(n // 10, 1.0), shifts=((6 * n // 10, 0.05),), rng=3
        ).x
        t_flat = best_of(lambda v=flat: changepoints(v), rep)
        t_shaped = best_of(lambda v=shaped: changepoints(v), rep)
        k = len(changepoints(shaped).locations)
        print(
            f"edm (robust)  n={n:>9,d}: stationary {t_flat:6.2f} s, "
            f"warm-up + shift {t_shaped:6.2f} s ({k} changes)"
        )
    big = simulate_series(
        1_000_000, noise="t3-spikes", warmup=(100_000, 1.0), shifts=((600_000, 0.05),), rng=4
    ).x
    t = best_of(lambda: steady_state(big), rep)
    print(f"steady_state  n=1,000,000: {t:6.2f} s")
    xe = simulate_series(2000, noise="gaussian", shifts=((1000, 0.05),), rng=5).x
    t = best_of(lambda: changepoints(xe, "e-divisive", rng=1), 1)
    print(f"e-divisive    n=2000, 199 permutations: {t:6.2f} s")


if __name__ == "__main__":
    main()
