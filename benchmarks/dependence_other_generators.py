"""Issue 20 on generators the tests do not use: is a quiet interval (no serious finding)
still right when the series comes from another long-memory, multi-scale or switching
process than ``tsanalyze.datasets_dependent`` makes?

Per row ``--reps`` series (standard normal scale, level 100); the mean's 95% interval
from ``estimate`` with the series' own assessment. Columns: the share of series with no
serious finding, how often those quiet intervals cover the true mean, and the share of
all series that get a quiet, wrong interval.

* ARFIMA(0, d, 0) and ARFIMA(1, d, 0): the MA(inf) weights of (1 - B)^-d truncated at
  5n (then an AR(1) filter), the long-memory process of Granger & Joyeux (1980);
* fGn at other Hurst exponents and lengths (Davies & Harte's method);
* sums of AR(1) processes at two or three time scales;
* three modes (0, +4, +9) with geometric sojourns of 150, 60 and 30 samples, plus AR(1)
  noise with phi 0.3 (the truth is the stationary mean of the modes);
* AR(1) with phi 0.97 and 0.99.

With ``--delays``, long memory and a cycle under heavy-tailed delays instead (the median's
interval; noise sd 2, level 1000): fGn H = 0.8 and ARFIMA(0, d, 0) (scaled to unit
variance) plus lognormal(2.5, 1) delays in 10% of the samples or Pareto(1.5) x 8 delays in
8%, and white noise plus a sine of half its sd with a period of 300 samples, with and
without delays; and white noise plus lognormal delays whose rate switches between 2% and
20% of the samples (a two-state Markov chain, mean sojourns of 200 or 500 samples in
each). The truth is the median of the marginal (4 * 10^6 independent draws; the marginal
does not depend on the dependence).

With ``--sweep``, classes an out-of-sample sweep (27 November 2026) found still quiet and
wrong, beside two it found fine (level 100, noise sd 1; the median, mean and trimmed
mean's intervals): a "noisy neighbour" (a level +1 sd for 10% of the time in two-state
Markov stretches of 100 or 30 samples), rare bursts (+3 sd, sojourns 1000 and 20),
Pareto(1.2) delays (x 2) on 20% of the samples (infinite variance), a random-walk level
(steps of 0.01 sd; the truth taken as its start), i.i.d. samples with 30% at +3 sd, and
interleaved ABAB code paths 2 sds apart. The truths are those of the marginal (4 * 10^6
independent draws; the Pareto mean analytic).

    python benchmarks/dependence_other_generators.py [--reps 150] [--seed 11] [--delays | --sweep] [--n 2000]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import signal

from tsanalyze.datasets_dependent import fgn, markov_modes
from tsanalyze.stats.dependence import assess_dependence
from tsanalyze.stats.estimators import estimate, trimmed_mean


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--delays", action="store_true", help="long memory and a cycle under delays")
    ap.add_argument("--sweep", action="store_true", help="the out-of-sample sweep's classes")
    ap.add_argument("--n", type=int, default=2000, help="series length for --sweep")
    args = ap.parse_args()
    if args.delays:
        under_delays(args.reps, np.random.default_rng(args.seed))
        return
    if args.sweep:
        sweep(args.n, args.reps, np.random.default_rng(args.seed))
        return
    rng = np.random.default_rng(args.seed)
    reps = args.reps

    def arfima(n: int, d: float, phi: float) -> np.ndarray:
        m = 5 * n
        k = np.arange(1, m)
        w = np.concatenate(([1.0], np.cumprod((k - 1 + d) / k)))
        y = signal.fftconvolve(rng.standard_normal((reps, m + n)), w[None, :], axes=1)
        y = y[:, m : m + n]
        return signal.lfilter([1.0], [1.0, -phi], y, axis=1) if phi else y

    def ar(n: int, phi: float) -> np.ndarray:
        z = rng.standard_normal((reps, n + 2000))
        return signal.lfilter([1.0], [1.0, -phi], z, axis=1)[:, 2000:]

    def switching(n: int) -> tuple[np.ndarray, float]:
        levels, soj = np.array([0.0, 4.0, 9.0]), np.array([150.0, 60.0, 30.0])
        pi = soj / soj.sum()
        out = np.empty((reps, n))
        for r in range(reps):
            s = rng.choice(3, p=pi)
            for t in range(n):
                out[r, t] = levels[s]
                if rng.random() < 1 / soj[s]:
                    s = rng.choice([j for j in range(3) if j != s])
        return out + ar(n, 0.3), float(levels @ pi)

    def ar_sum(n: int, phis: tuple[float, ...], sds: tuple[float, ...]) -> np.ndarray:
        return sum(s * ar(n, p) * math.sqrt(1 - p * p) for p, s in zip(phis, sds, strict=True))  # type: ignore[return-value]

    n = 2000
    cases: dict[str, tuple[np.ndarray, float]] = {
        "ARFIMA(0, 0.3, 0), n = 2000": (arfima(n, 0.3, 0.0), 0.0),
        "ARFIMA(1, 0.3, 0), phi 0.5, n = 2000": (arfima(n, 0.3, 0.5), 0.0),
        "ARFIMA(0, 0.2, 0), n = 2000": (arfima(n, 0.2, 0.0), 0.0),
        "fGn H = 0.9, n = 2000": (fgn(n, 0.9, size=reps, rng=rng), 0.0),
        "fGn H = 0.7, n = 2000": (fgn(n, 0.7, size=reps, rng=rng), 0.0),
        "fGn H = 0.8, n = 5000": (fgn(5000, 0.8, size=reps, rng=rng), 0.0),
        "AR(1) 0.5 + 0.99, n = 2000": (ar_sum(n, (0.5, 0.99), (1.0, 0.5)), 0.0),
        "AR(1) 0.3 + 0.9 + 0.999, n = 2000": (ar_sum(n, (0.3, 0.9, 0.999), (1.0, 0.5, 0.3)), 0.0),
        "three modes, n = 2000": switching(n),
        "three modes, n = 500": switching(500),
        "AR(1) 0.97, n = 2000": (ar(n, 0.97), 0.0),
        "AR(1) 0.99, n = 5000": (ar(5000, 0.99), 0.0),
        "ARFIMA(0, 0.1, 0), n = 2000": (arfima(n, 0.1, 0.0), 0.0),
        "ARFIMA(0, 0.1, 0), n = 10000": (arfima(10_000, 0.1, 0.0), 0.0),
    }
    print("| data | quiet | quiet coverage (mean) | quiet and wrong |")
    print("|---|---|---|---|")
    for name, (x, mu) in cases.items():
        quiet = covered = 0
        for i, row in enumerate(100.0 + np.atleast_2d(x)):
            dep = assess_dependence(row)
            e = estimate(row, "mean", dependence=dep, rng=i, n_resamples=200)
            if not dep.serious:
                quiet += 1
                covered += e.ci_low <= 100.0 + mu <= e.ci_high
        cov = f"{covered / quiet:.2f}" if quiet else "-"
        print(f"| {name} | {quiet / reps:.2f} | {cov} | {(quiet - covered) / reps:.3f} |", flush=True)


def under_delays(reps: int, rng: np.random.Generator) -> None:
    """The ``--delays`` table (see the module docstring)."""
    n = 2000

    def lognormal(shape: tuple[int, ...]) -> np.ndarray:
        return np.exp(rng.normal(2.5, 1.0, shape)) * (rng.random(shape) < 0.1)

    def pareto(shape: tuple[int, ...]) -> np.ndarray:
        return (rng.random(shape) < 0.08) * rng.pareto(1.5, shape) * 8.0

    def arfima(d: float) -> np.ndarray:
        m = 5 * n
        k = np.arange(1, m)
        w = np.concatenate(([1.0], np.cumprod((k - 1 + d) / k)))
        y = signal.fftconvolve(rng.standard_normal((reps, m + n)), w[None, :], axes=1)
        return y[:, m : m + n] / math.sqrt(float(w @ w))

    def sine() -> np.ndarray:
        phase = rng.uniform(0.0, 2.0 * math.pi, (reps, 1))
        return rng.standard_normal((reps, n)) + 0.5 * np.sin(2.0 * math.pi * np.arange(n) / 300 + phase)

    def cycle_marginal(size: int) -> np.ndarray:
        return rng.standard_normal(size) + 0.5 * np.sin(rng.uniform(0.0, 2.0 * math.pi, size))

    gauss = rng.standard_normal
    cases = {
        "fGn H = 0.8 + lognormal delays": (fgn(n, 0.8, size=reps, rng=rng), gauss, lognormal),
        "fGn H = 0.8 + Pareto delays": (fgn(n, 0.8, size=reps, rng=rng), gauss, pareto),
        "ARFIMA(0, 0.2, 0) + lognormal delays": (arfima(0.2), gauss, lognormal),
        "ARFIMA(0, 0.3, 0) + Pareto delays": (arfima(0.3), gauss, pareto),
        "sine (period 300) + noise": (sine(), cycle_marginal, None),
        "sine (period 300) + noise + lognormal delays": (sine(), cycle_marginal, lognormal),
    }
    print("| data (median, n = 2000) | quiet | quiet coverage | coverage | quiet and wrong |")
    print("|---|---|---|---|---|")
    for name, (x, marginal, delays) in cases.items():
        big = marginal(4_000_000)
        if delays is not None:
            x = 2.0 * x + delays(x.shape)
            big = 2.0 * big + delays(big.shape)
        else:
            x, big = 2.0 * x, 2.0 * big
        _median_row(name, 1000.0 + x, 1000.0 + float(np.median(big)))
    # bursty delays (their own stream: the rows above keep their numbers): white noise
    # plus lognormal delays whose rate switches between two values as a two-state Markov
    # chain with equal mean sojourns; the marginal is the noise plus delays at the mean rate
    burst = np.random.default_rng(rng.bit_generator.seed_seq.spawn(1)[0])  # type: ignore[attr-defined]
    for lo, hi, sojourn in ((0.02, 0.2, 200.0), (0.02, 0.2, 500.0)):
        state = markov_modes(n, (sojourn, sojourn), size=reps, rng=burst)
        rate = np.where(state == 1, hi, lo)
        x = 2.0 * burst.standard_normal((reps, n)) + lognormal_at(rate, burst)
        big = 2.0 * burst.standard_normal(4_000_000) + lognormal_at(
            np.full(4_000_000, (lo + hi) / 2.0), burst
        )
        name = f"white noise + lognormal delays at a rate switching {lo:.0%} <-> {hi:.0%} (sojourns {sojourn:.0f})"
        _median_row(name, 1000.0 + x, 1000.0 + float(np.median(big)))


def sweep(n: int, reps: int, rng: np.random.Generator) -> None:
    """The ``--sweep`` table (see the module docstring)."""
    big = 4_000_000

    def neighbour(shift: float, stay: float, share: float) -> tuple[np.ndarray, np.ndarray]:
        # level + shift in two-state Markov stretches of mean length ``stay``, ``share`` of
        # the time; the marginal: the shifted state with probability ``share``
        away = stay * (1.0 - share) / share
        state = markov_modes(n, (away, stay), size=reps, rng=rng)
        x = shift * state + rng.standard_normal((reps, n))
        return x, shift * (rng.random(big) < share) + rng.standard_normal(big)

    def pareto(shape: tuple[int, ...]) -> np.ndarray:
        return (rng.random(shape) < 0.2) * 2.0 * (1.0 + rng.pareto(1.2, shape))

    walk = np.cumsum(0.01 * rng.standard_normal((reps, n)), axis=1) + rng.standard_normal((reps, n))
    abab = 2.0 * ((np.arange(n)[None, :] + rng.integers(0, 2, (reps, 1))) % 2)
    cases: dict[str, tuple[np.ndarray, np.ndarray | None, dict[str, float]]] = {
        "noisy neighbour +1 sd, stretches of 100": (*neighbour(1.0, 100.0, 0.1), {}),
        "noisy neighbour +1 sd, stretches of 30": (*neighbour(1.0, 30.0, 0.1), {}),
        "rare bursts +3 sd (sojourns 1000, 20)": (*neighbour(3.0, 20.0, 20.0 / 1020.0), {}),
        "Pareto(1.2) delays on 20%": (
            rng.standard_normal((reps, n)) + pareto((reps, n)),
            rng.standard_normal(big) + pareto((big,)),
            {"mean": 0.2 * 2.0 * 1.2 / 0.2},
        ),
        "random-walk level": (walk, None, {"median": 0.0, "mean": 0.0, "trimmed_mean": 0.0}),
        "i.i.d., 30% at +3 sd (fine)": (
            3.0 * (rng.random((reps, n)) < 0.3) + rng.standard_normal((reps, n)),
            3.0 * (rng.random(big) < 0.3) + rng.standard_normal(big),
            {},
        ),
        "ABAB code paths 2 sd apart (fine)": (
            abab + rng.standard_normal((reps, n)),
            2.0 * rng.integers(0, 2, big) + rng.standard_normal(big),
            {},
        ),
    }
    locations = ("median", "mean", "trimmed_mean")
    print(f"| data (n = {n}) | quiet | quiet coverage: median / mean / trimmed mean | quiet and wrong (any) |")
    print("|---|---|---|---|")
    for name, (x, marginal, fixed) in cases.items():
        truth = {
            "median": float(np.median(marginal)) if marginal is not None else 0.0,
            "mean": float(np.mean(marginal)) if marginal is not None else 0.0,
            "trimmed_mean": float(trimmed_mean(marginal)) if marginal is not None else 0.0,
        } | fixed
        quiet = wrong = 0
        hits = dict.fromkeys(locations, 0)
        for i, row in enumerate(100.0 + x):
            dep = assess_dependence(row)
            if dep.serious:
                continue
            quiet += 1
            missed = False
            for e in locations:
                est = estimate(row, e, dependence=dep, rng=i)
                hit = est.ci_low <= 100.0 + truth[e] <= est.ci_high
                hits[e] += hit
                missed |= not hit
            wrong += missed
        cov = " / ".join(f"{hits[e] / quiet:.2f}" for e in locations) if quiet else "-"
        print(f"| {name} | {quiet / reps:.2f} | {cov} | {wrong / reps:.3f} |", flush=True)


def lognormal_at(rate: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """lognormal(2.5, 1) delays, each sample delayed with its own probability ``rate``."""
    return np.exp(rng.normal(2.5, 1.0, rate.shape)) * (rng.random(rate.shape) < rate)


def _median_row(name: str, x: np.ndarray, truth: float) -> None:
    """One row of the ``--delays`` table: the median's interval on each series of ``x``."""
    reps = x.shape[0]
    quiet = covered = quiet_covered = 0
    for i, row in enumerate(x):
        dep = assess_dependence(row)
        e = estimate(row, "median", dependence=dep, rng=i)
        hit = e.ci_low <= truth <= e.ci_high
        covered += hit
        if not dep.serious:
            quiet += 1
            quiet_covered += hit
    qc = f"{quiet_covered / quiet:.2f}" if quiet else "-"
    print(
        f"| {name} | {quiet / reps:.2f} | {qc} | {covered / reps:.2f} | "
        f"{(quiet - quiet_covered) / reps:.3f} |",
        flush=True,
    )


if __name__ == "__main__":
    main()
