"""Speed of estimate() on 10^6 samples (issue 5 target: block bootstrap under 5 s).

Run: ``python benchmarks/bench_estimators.py``. Prints one line per case with the best
of three wall-clock times. Timings on a shared machine are inflated by other load.
"""

from __future__ import annotations

from _timing import best as _best

from tsanalyze.datasets import simulate_series
from tsanalyze.stats.autocorrelation import autocorrelation
from tsanalyze.stats.bootstrap import optimal_block_length
from tsanalyze.stats.estimators import estimate

N = 1_000_000
TARGET_S = 5.0




def main() -> None:
    data = {
        "ar1-0.7": simulate_series(N, noise="gaussian", phi=0.7, rng=1).x,
        "delay-phi0.7": simulate_series(N, noise="delay", phi=0.7, rng=1).x,
        "iid-t3": simulate_series(N, noise="t3", rng=1).x,
    }
    estimate(data["iid-t3"][:1000])  # warm imports
    cases = [
        ("median", "percentile-stationary-block"),
        ("median", "auto"),
        ("mean", "auto"),
        ("trimmed_mean", "auto"),
        ("trimmed_mean", "percentile-circular-block"),
        ("sd", "bca-stationary-block"),
    ]
    print(f"estimate() on n = {N:,} samples (best of 3; shared machine, times inflated)")
    for name, x in data.items():
        bl = optimal_block_length(x)
        t_pw = _best(lambda x=x: optimal_block_length(x))
        t_ac = _best(lambda x=x: autocorrelation(x), repeat=1)
        print(
            f"  {name}: Politis-White block length {bl:.1f} in {t_pw:.2f} s; "
            f"autocorrelation() {t_ac:.2f} s"
        )
        for est, method in cases:
            e = estimate(x, est, method=method, rng=1)  # type: ignore[arg-type]
            t = _best(lambda x=x, est=est, method=method: estimate(x, est, method=method, rng=1))
            flag = "ok" if t < TARGET_S else "SLOW"
            print(f"    {est:>12} {method:<28} -> {e.method:<28} {t:6.2f} s  {flag}")


if __name__ == "__main__":
    main()
