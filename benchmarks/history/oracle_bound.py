"""How much recall do the accuracy harness's histories allow at all? An oracle bound
(issue 25).

The harness (``accuracy.py``) asks for steps of 3–10% found with the true commit inside
a 95% set of at most 15 commits. Here everything a method has to estimate is given:

* the noise model is the simulator's own (AR(1) wander sd 1.5%, phi 0.7, plus the white
  run-to-run and sampling variance of 10 samples per run with 3% spread), and the
  likelihood-ratio (GLS) scan of one step under it is used;
* a series counts as detected when its scan exceeds the 97.5% quantile of the same scan
  on null series of that model (about the Benjamini–Hochberg threshold when half the
  benchmarks of a history changed);
* the set is the profile-likelihood set {t: max − profile²(t) ≤ c}, with ``c`` the exact
  95% quantile of the drop at the true commit *among series with a step of the same size*
  (1%-wide bins), which no method that must estimate the step's size can know.

The share of steps detected with the true commit in a set of at most 15 commits is then
an upper bound for any detector whose sets hold the true commit 95% of the time on these
histories (up to the choice of the profile, which is the efficient one for one step).

    python benchmarks/history/oracle_bound.py [--series 6000] [--seed 1]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import signal

from tsanalyze.analysis.history.scan import GlsScan, despike

N = 150
PHI, SD_WANDER = 0.7, 0.015
WHITE_VAR = 0.013**2 + 0.03**2 / 10  # run-to-run, and a 10-sample run's mean at 3% spread
MAX_SET = 15


def noise(m: int, rng: np.random.Generator) -> np.ndarray:
    innov = rng.standard_normal((m, N)) * SD_WANDER
    innov[:, 1:] *= np.sqrt(1.0 - PHI * PHI)
    wander = signal.lfilter([1.0], [1.0, -PHI], innov, axis=1)
    return wander + rng.standard_normal((m, N)) * np.sqrt(WHITE_VAR)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    gls = GlsScan(SD_WANDER, PHI, np.full(N, WHITE_VAR))
    crit_detect = float(np.quantile(gls.scan(despike(noise(4000, rng)), 2).statistic, 0.975))
    m = args.series
    size = rng.uniform(0.03, 0.10, m)
    at = rng.integers(10, N - 10, m)
    x = noise(m, rng) + (size * rng.choice([-1.0, 1.0], m))[:, None] * (
        np.arange(N)[None, :] >= at[:, None]
    )
    sc = gls.scan(despike(x), 2)
    prof2 = sc.profile**2
    valid = np.zeros(N - 1, dtype=bool)
    valid[1 : N - 2] = True
    top = np.max(np.where(valid, prof2, -np.inf), axis=1)
    drop_true = top - prof2[np.arange(m), at - 1]
    detected = sc.statistic > crit_detect
    found = np.zeros(m, dtype=bool)
    print(
        "| step | detected | exact commit | set's critical value | recall (set ≤ 15) | median set |"
    )
    print("|---|---|---|---|---|---|")
    bins = np.minimum(((size - 0.03) / 0.01).astype(int), 6)
    for b in range(7):
        sel = bins == b
        c = float(np.quantile(drop_true[sel], 0.95))
        n_set = (valid[None, :] & (top[sel, None] - prof2[sel] <= c)).sum(axis=1)
        found[sel] = detected[sel] & (drop_true[sel] <= c) & (n_set <= MAX_SET)
        print(f"| {3 + b}–{4 + b}% | {detected[sel].mean():.3f} | "
              f"{np.mean(sc.best[sel] == at[sel]):.3f} | {c:.2f} | {found[sel].mean():.3f} | "
              f"{np.median(n_set[detected[sel]]):.0f} |")  # fmt: skip
    print(f"| all | {detected.mean():.3f} | {np.mean(sc.best == at):.3f} | | "
          f"**{found.mean():.3f}** | |")  # fmt: skip
    print(f"<!-- {m} series, seed {args.seed} -->")


if __name__ == "__main__":
    main()
