"""False alarms and power of the change-point methods on stationary dependent series.

Run: ``python benchmarks/changepoint_calibration.py [--reps 200] [--n 1000]
[--methods edm,edm-multi,binseg-l2] [--baseline-edm PATH]``.

For every stationary class of issue 22 (rare delays on 1 ns ticks, i.i.d. Student-t(3),
AR(1) with phi 0.5 / 0.9 / 0.97, fGn H = 0.8, three AR(1) time scales, two Markov modes)
it prints, per method,

- the share of series with a shift reported although none exists ("invented"),
- the power at a one-sd step at the middle (found within 50 samples),
- for the default ``edm``: how often drift and modes are named,

then the required steps (1-sd AR(1) 0.5, 3% rare delays, 5% fGn), the drift and the
steady state's false cuts. ``edm-multi`` is BreakoutDetection's EDM reproduced exactly
(R defaults: min.size 30, beta 0.008, degree 1); ``binseg-l2`` is ruptures' binary
segmentation with an L2 cost and a BIC penalty. ``--baseline-edm`` loads another version
of ``edm.py`` (e.g. the first release's, from a checkout of main) as method
``edm-before``. Output is Markdown, for docs/src/methods.md. About 4 minutes with the
defaults on one core.
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable

import numpy as np

from tsanalyze.analysis.steady_state import steady_state
from tsanalyze.datasets import simulate_rare_delays, simulate_series
from tsanalyze.stats.changepoints import ChangePoints
from tsanalyze.stats.changepoints.api import changepoints

Gen = np.random.Generator


def _rows(make: Callable[[Gen], np.ndarray], reps: int, gen: Gen) -> np.ndarray:
    return np.vstack([make(gen) for _ in range(reps)])


def classes(n: int) -> dict[str, tuple[Callable[[int, Gen], np.ndarray], float]]:
    """name -> (maker(reps, gen) of stationary rows, one noise sd in the units of x)."""
    # fGn, sums of AR(1) and Markov modes: issue 20's simulators (branch i20-dependence)
    from tsanalyze.datasets_dependent import simulate_dependent

    def ar(phi: float) -> Callable[[int, Gen], np.ndarray]:
        return lambda r, g: _rows(
            lambda h: simulate_series(n, noise="gaussian", scale=0.01, phi=phi, rng=h).x, r, g
        )

    return {
        "rare delays (1 ns ticks)": (lambda r, g: simulate_rare_delays(n, size=r, rng=g), 2.0),
        "i.i.d. t(3)": (
            lambda r, g: _rows(lambda h: simulate_series(n, noise="t3", scale=0.01, rng=h).x, r, g),
            10.0 * np.sqrt(3.0),
        ),
        "AR(1) 0.5": (ar(0.5), 10.0),
        "AR(1) 0.9": (ar(0.9), 10.0),
        "AR(1) 0.97": (ar(0.97), 10.0),
        "fGn H = 0.8": (lambda r, g: simulate_dependent(n, "fgn", size=r, rng=g).x, 10.0),
        "three AR(1) scales": (
            lambda r, g: simulate_dependent(n, "ar-sum", size=r, rng=g).x,
            10.0,
        ),
        "Markov modes 5%": (
            lambda r, g: simulate_dependent(n, "markov-modes", size=r, rng=g).x,
            10.0,
        ),
    }


def methods(
    names: list[str], baseline: str | None
) -> dict[str, Callable[[np.ndarray], ChangePoints]]:
    out: dict[str, Callable[[np.ndarray], ChangePoints]] = {}
    for name in names:
        if name == "edm-multi":
            out[name] = lambda x: changepoints(x, "edm-multi", beta=0.008, degree=1)
        else:
            out[name] = lambda x, m=name: changepoints(x, m)  # type: ignore[misc]
    if baseline:
        spec = importlib.util.spec_from_file_location("edm_before", baseline)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out["edm-before"] = mod.edm
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--methods", default="edm,edm-multi,binseg-l2")
    ap.add_argument("--baseline-edm", default=None)
    ap.add_argument("--seed", type=int, default=2022)
    args = ap.parse_args()
    n, reps, at = args.n, args.reps, args.n // 2
    meths = methods(args.methods.split(","), args.baseline_edm)
    print(f"n = {n}, {reps} series per cell; step at sample {at}, found = within 50 samples\n")
    print(
        "| stationary class | "
        + " | ".join(f"{m}: invented / 1-sd power" for m in meths)
        + " | edm: drift / modes named |"
    )
    print("|---|" + "---|" * (len(meths) + 1))
    for cname, (make, sd) in classes(n).items():
        gen = np.random.default_rng(args.seed)
        null = make(reps, gen)
        alt = make(reps, gen)
        alt[:, at:] += sd
        cells = []
        drift = modes = 0
        for mname, f in meths.items():
            inv = found = 0
            for row in null:
                res = f(row)
                inv += res.n_changes > 0
                if mname == "edm":
                    drift += res.drift is not None
                    modes += res.modes is not None
            for row in alt:
                found += any(abs(v - at) <= 50 for v in f(row).locations)
            cells.append(f"{inv / reps:.0%} / {found / reps:.0%}")
        extra = f"{drift / reps:.0%} / {modes / reps:.0%}" if "edm" in meths else ""
        print(f"| {cname} | " + " | ".join(cells) + f" | {extra} |", flush=True)

    from tsanalyze.datasets_dependent import simulate_dependent

    gen = np.random.default_rng(args.seed + 1)
    steps = {
        "1-sd step, AR(1) 0.5": _rows(
            lambda g: (
                simulate_series(
                    n, noise="gaussian", scale=0.01, phi=0.5, shifts=((at, 0.01),), rng=g
                ).x
            ),
            reps,
            gen,
        ),
        "3% step, rare delays": simulate_rare_delays(n, shifts=((at, 0.03),), size=reps, rng=gen),
        "5% step, fGn H = 0.8": simulate_dependent(n, "fgn", size=reps, rng=gen).x
        * np.r_[np.ones(at), np.full(n - at, 1.05)],
    }
    print("\n| required step | " + " | ".join(meths) + " |")
    print("|---|" + "---|" * len(meths))
    for sname, x in steps.items():
        cells = [
            f"{np.mean([any(abs(v - at) <= 50 for v in f(row).locations) for row in x]):.0%}"
            for f in meths.values()
        ]
        print(f"| {sname} | " + " | ".join(cells) + " |", flush=True)

    drift = _rows(
        lambda g: simulate_series(n, noise="gaussian", scale=0.01, drift=0.02, rng=g).x, reps, gen
    )
    res = [changepoints(row) for row in drift]
    print(
        f"\n2% drift, noise 1%: drift named {np.mean([r.drift is not None for r in res]):.0%}, "
        f"mean shifts {np.mean([r.n_changes for r in res]):.2f}"
    )
    print("\nsteady state (default rule) on the stationary classes: share cutting > 5% of the run")
    for cname, (make, _sd) in classes(n).items():
        x = make(reps, np.random.default_rng(args.seed + 2))
        cut = 0
        for row in x:
            ss = steady_state(row)
            cut += ss.start is None or ss.start + (ss.cooldown_samples or 0) > 0.05 * n
        print(f"- {cname}: {cut / reps:.1%}", flush=True)


if __name__ == "__main__":
    main()
