"""The other kinds of change of issue 25 on simulated histories: drifts, regressions that
recovered, and machine changes, beside asv's step detection.

Each history has 20 benchmarks of 150 commits with the accuracy harness's noise (AR(1)
wander sd 1.5%, phi 0.7, plus 1.3% white run-to-run; 10 samples per run with 3% spread):

* 5 benchmarks drift by 6-12% (either sign) over 20-50 commits from a random commit;
* 5 regress by 5-12% for 20-60 commits and then recover;
* 10 are stationary, and in every other history all 20 shift by x1.06 at one commit
  (a machine change: the runner's speed, not the code).

Scores:

* *drift*: reported as a drift whose commits overlap the true ramp; *as steps*: reported
  only as steps inside the ramp (the change is seen, not its kind);
* *recovered*: the regression found with its first commit in a set of at most 15
  commits, and ``recovered_at`` within 5 commits of the true recovery; asv: a step
  within 2 commits of each edge;
* *machine change*: the stationary benchmarks' changes at the machine's commit marked
  ``environment_shift``, and the changes of the other kinds (not at that commit) that
  are marked so wrongly.

    python benchmarks/history/kinds.py [--histories 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from asv import step_detect

import tsanalyze
from tsanalyze.analysis.history.series import build_series
from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history

N_COMMITS = 150


def one_history(rng: np.random.Generator, machine: bool) -> tuple:  # type: ignore[type-arg]
    names = [f"d{i}" for i in range(5)] + [f"r{i}" for i in range(5)] + [f"s{i:02d}" for i in range(10)]
    truth: dict[str, tuple[str, int, int]] = {}
    changes = []
    for b in names[:5]:
        length = int(rng.integers(20, 51))
        at = int(rng.integers(10, N_COMMITS - 10 - length))
        ratio = float(np.exp(rng.uniform(0.06, 0.12) * rng.choice([-1, 1])))
        truth[b] = ("drift", at, at + length)
        changes.append(SimulatedChange(b, at, ratio, length=length))
    for b in names[5:10]:
        length = int(rng.integers(20, 61))
        at = int(rng.integers(10, N_COMMITS - 10 - length))
        truth[b] = ("recovered", at, at + length)
        changes.append(SimulatedChange(b, at, float(np.exp(rng.uniform(0.05, 0.12))), until=at + length))
    shift = int(rng.integers(20, N_COMMITS - 20)) if machine else -1
    if machine:
        changes += [SimulatedChange(b, shift, 1.06) for b in names]
    df = simulate_history(N_COMMITS, names, changes=changes, rng=rng)
    return df, truth, shift


def _at(commits: list[str]) -> list[int]:
    return [int(c, 16) for c in commits]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--histories", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    n = {k: 0 for k in ("drift", "drift_steps", "drifts", "rec", "rec_asv", "recs",
                        "env", "env_of", "env_wrong", "other")}  # fmt: skip
    t0 = time.perf_counter()
    for i in range(args.histories):
        df, truth, shift = one_history(rng, machine=i % 2 == 1)
        h = tsanalyze.history(df, seed=rng)
        ch = h.changes
        for b, (kind, a, e) in truth.items():
            rows = ch[ch["benchmark"] == b]
            if kind == "drift":
                n["drifts"] += 1
                hit = [r for _, r in rows.iterrows() if set(_at(r["commits"])) & set(range(a, e + 1))]
                n["drift"] += any(r["kind"] == "drift" for r in hit)
                n["drift_steps"] += bool(hit) and not any(r["kind"] == "drift" for r in hit)
            else:
                n["recs"] += 1
                n["rec"] += any(
                    r["direction"] == "regression" and a in _at(r["commits"]) and len(r["commits"]) <= 15
                    and r["recovered_at"] is not None and abs(int(r["recovered_at"], 16) - e) <= 5
                    for _, r in rows.iterrows()
                )  # fmt: skip
        for _, r in ch.iterrows():
            at_shift = shift in _at(r["commits"])
            if r["benchmark"].startswith("s") and at_shift:
                n["env"] += bool(r["environment_shift"])
            elif not at_shift:
                n["other"] += 1
                n["env_wrong"] += bool(r["environment_shift"])
        if shift >= 0:
            n["env_of"] += 10
        series, _ = build_series(df)
        for s in series:
            if s.benchmark.startswith("r"):
                _, a, e = truth[s.benchmark]
                pieces = step_detect.detect_steps(list(np.exp(s.x)), None)
                cps = [p[0] for p in pieces[1:]]
                n["rec_asv"] += any(abs(c - a) <= 2 for c in cps) and any(abs(c - e) <= 2 for c in cps)
    elapsed = time.perf_counter() - t0
    print("| kind | tsanalyze.history | asv step_detect |")
    print("|---|---|---|")
    print(f"| drift reported as a drift | {n['drift'] / n['drifts']:.2f} | – |")
    print(f"| drift reported as steps only | {n['drift_steps'] / n['drifts']:.2f} | – |")
    print(f"| regression that recovered: both found | {n['rec'] / n['recs']:.2f} | "
          f"{n['rec_asv'] / n['recs']:.2f} (within 2 commits) |")  # fmt: skip
    print(f"| machine change marked environmental (stationary benchmarks) | "
          f"{n['env'] / max(n['env_of'], 1):.2f} | – |")  # fmt: skip
    print(f"| other changes marked environmental (wrongly) | "
          f"{n['env_wrong'] / max(n['other'], 1):.2f} | – |")  # fmt: skip
    print(f"<!-- {args.histories} histories x 20 benchmarks, {elapsed:.0f} s -->")


if __name__ == "__main__":
    main()
