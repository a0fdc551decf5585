"""Recompute the critical values of the self-normalised change and trend statistics.

Run: ``python benchmarks/calibrate_selfnorm.py [--reps 20000] [--length 1024]``.
Simulates fractional Gaussian noise (exact, circulant embedding) for every Hurst
exponent of the grid, computes

- the maximum over λ ∈ [ε, 1 − ε] of the standardised self-normalised CUSUM
  (:func:`tsanalyze.stats.changepoints._selfnorm.sn_change_scan`) for each ε of the grid,
- the self-normalised trend statistic (:func:`~._selfnorm.sn_trend_statistic`),

takes their upper quantiles at the tabulated levels, fits log(quantile) linearly in
H − 1/2 per level (and per ε) and prints the tables that ``_selfnorm.py`` holds, with the
raw quantiles beside them. About 10 minutes on one core with the defaults.
"""

from __future__ import annotations

import argparse

import numpy as np

from tsanalyze.stats.changepoints._selfnorm import (
    _ALPHAS,
    _EPS,
    sn_change_scan,
    sn_trend_statistic,
)

HURSTS = np.array([0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99])


def main() -> None:
    # issue 20's exact fGn simulator (branch i20-dependence)
    from tsanalyze.datasets_dependent import fgn

    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20_000)
    ap.add_argument("--length", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    length = args.length
    probs = 1.0 - _ALPHAS
    change_q = np.empty((HURSTS.size, _ALPHAS.size, _EPS.size))
    trend_q = np.empty((HURSTS.size, _ALPHAS.size))
    for i, h in enumerate(HURSTS):
        maxima: list[list[np.ndarray]] = [[] for _ in _EPS]
        trends: list[float] = []
        done = 0
        while done < args.reps:
            k = min(500, args.reps - done)
            x = fgn(length, float(h), size=k, rng=rng)
            g = sn_change_scan(x)
            for j, e in enumerate(_EPS):
                a = max(1, int(np.ceil(e * length)))
                maxima[j].append(g[:, a - 1 : length - a].max(axis=1))
            trends.extend(sn_trend_statistic(row) for row in x)
            done += k
        for j in range(_EPS.size):
            change_q[i, :, j] = np.quantile(np.concatenate(maxima[j]), probs)
        trend_q[i] = np.quantile(np.asarray(trends), probs)
        print(
            f"H={h:.2f} change q95 by eps {np.round(change_q[i, 4], 1)} trend q99 {trend_q[i, 2]:.1f}",
            flush=True,
        )
    x = HURSTS - 0.5
    ca = np.empty((_ALPHAS.size, _EPS.size))
    cb = np.empty_like(ca)
    for a in range(_ALPHAS.size):
        for j in range(_EPS.size):
            cb[a, j], ca[a, j] = np.polyfit(x, np.log(change_q[:, a, j]), 1)
    ta = np.empty(_ALPHAS.size)
    tb = np.empty(_ALPHAS.size)
    for a in range(_ALPHAS.size):
        tb[a], ta[a] = np.polyfit(x, np.log(trend_q[:, a]), 1)
    np.set_printoptions(precision=3, suppress=True, linewidth=120)
    print("_CHANGE_A =", repr(np.round(ca, 3)))
    print("_CHANGE_B =", repr(np.round(cb, 3)))
    print("_TREND_A =", repr(np.round(ta, 3)))
    print("_TREND_B =", repr(np.round(tb, 3)))
    worst = np.max(np.abs(np.exp(ca[None] + cb[None] * x[:, None, None]) / change_q - 1.0))
    print(f"largest relative error of the fitted change table: {worst:.1%}")
    worst_t = np.max(np.abs(np.exp(ta[None] + tb[None] * x[:, None]) / trend_q - 1.0))
    print(f"largest relative error of the fitted trend table: {worst_t:.1%}")
    print("raw change quantiles [H, alpha, eps]:", repr(np.round(change_q, 1)))
    print("raw trend quantiles [H, alpha]:", repr(np.round(trend_q, 1)))


if __name__ == "__main__":
    main()
