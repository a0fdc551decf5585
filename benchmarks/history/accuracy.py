"""Accuracy of ``tsanalyze.history`` beside asv's step detection and a no-change baseline
(issue 25).

Simulated histories (``--histories`` of 20 benchmarks, 150 commits): half the benchmarks
have one step of 3-10% (either sign) at a random commit, the others none; three carry a
one-run spike (x1.3 or x0.7); commit-to-commit noise ~2% (AR(1) wander sd 1.5%, phi 0.7,
plus 1.3% white run-to-run), 10 (or 1) samples per run with 3% spread.

A step is *found* when a reported change's set holds the true commit and has at most 15
commits (10% of the history); asv gives one commit per step, found when it is the true
one (and, more leniently, within 2 commits: for ours, a set of at most 15 commits one of
which lies within 2 commits of the true one). Precision = reported changes that are a true
step's (found as above, so a set of more than 15 commits counts as a false report) / all
reported changes; *precision (any width)* counts a change as a true step's when its set
holds the true commit (or, leniently, one within 2 commits of it) whatever the set's
width: a wide set is a true change honestly located, not a false alarm (for asv's single
commits the two are the same). ``False/stationary`` = changes reported in stationary
benchmarks per benchmark; ``spike`` = changes whose set of at most 15 commits holds a
spike's commit and no true step's (for asv: a change at a spike's commit that is not a
true step's).

With ``--kinds``, the other kinds of change instead (drifts, regressions that recovered,
machine changes). Each history has 20 benchmarks of 150 commits with the same noise, 10
samples per run:

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

    python benchmarks/history/accuracy.py [--histories 10] [--samples 10]
    python benchmarks/history/accuracy.py --kinds [--histories 10] [--seed 2026]
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
N_BENCH = 20


def one_history(rng: np.random.Generator, samples: int, **noise: float) -> tuple:  # type: ignore[type-arg]
    names = [f"b{i:02d}" for i in range(N_BENCH)]
    steps = {}
    changes = []
    for b in names[: N_BENCH // 2]:
        at = int(rng.integers(10, N_COMMITS - 10))
        size = float(rng.uniform(0.03, 0.10)) * rng.choice([-1, 1])
        steps[b] = at
        changes.append(SimulatedChange(b, at, float(np.exp(size))))
    spikes = [(b, int(rng.integers(5, N_COMMITS - 5)), float(rng.choice([1.3, 0.7])))
              for b in rng.choice(names, 3, replace=False)]  # fmt: skip
    df = simulate_history(
        N_COMMITS, names, changes=changes, spikes=spikes, samples=samples, rng=rng, **noise
    )
    sizes = {c.benchmark: abs(float(np.log(c.ratio))) for c in changes}
    return df, steps, spikes, sizes


def score_ours(h, steps, spikes, tol, sizes=None, by_size=None):  # type: ignore[no-untyped-def]
    """Found, reported, true positives, false changes in stationary benchmarks, spike
    hits and set sizes; with ``sizes`` (|log ratio| per benchmark), whether each step
    was found is added to ``by_size`` per 1%-wide bin (0: 3-4%, ..., 6: 9-10%)."""
    found, sets, tp, tp_any, fp_stat, spike_hits = 0, [], 0, 0, 0, 0
    spike_at = {(b, i) for b, i, _ in spikes}

    def holds_step(commits, at):  # type: ignore[no-untyped-def]
        return min(abs(int(c, 16) - at) for c in commits) <= tol

    def holds(commits, at):  # type: ignore[no-untyped-def]
        return len(commits) <= 15 and holds_step(commits, at)

    for _, c in h.changes.iterrows():
        true = steps.get(c["benchmark"])
        commits = list(c["commits"])
        ok = true is not None and holds(commits, true)
        tp += ok
        tp_any += true is not None and holds_step(commits, true)
        if true is None:
            fp_stat += 1
        # a spike reported as a change: a set of at most 15 commits holds a spike's
        # commit and no true step's (a true step found with a set wide enough to reach a
        # spike is not one, nor is a false change whose set spans 40 commits)
        if (
            len(commits) <= 15
            and any((c["benchmark"], int(x, 16)) in spike_at for x in commits)
            and not (true is not None and holds_step(commits, true))
        ):
            spike_hits += 1
    for b, at in steps.items():
        rows = h.changes[h.changes["benchmark"] == b]
        hit = [len(cs) for cs in rows["commits"] if holds(cs, at)]
        if by_size is not None:
            by_size.setdefault(min(int((sizes[b] - 0.03) / 0.01), 6), []).append(bool(hit))
        if hit:
            found += 1
            sets.append(min(hit))
    return found, len(h.changes), tp, fp_stat, spike_hits, tp_any, sets


def score_asv(df, steps, spikes, tol):  # type: ignore[no-untyped-def]
    series, _ = build_series(df)
    found = reported = tp = fp_stat = spike_hits = 0
    spike_at = {(b, i) for b, i, _ in spikes}
    for s in series:
        y = np.exp(s.x)
        w = 1.0 / np.sqrt(np.maximum(s.within_var, 1e-12)) if np.any(s.within_var > 0) else None
        pieces = step_detect.detect_steps(list(y), None if w is None else list(w))
        cps = [p[0] for p in pieces[1:]]
        true = steps.get(s.benchmark)
        reported += len(cps)
        hit = False
        for c in cps:
            ok = true is not None and abs(c - true) <= tol
            tp += ok
            hit |= ok
            fp_stat += true is None
            spike_hits += any((s.benchmark, c + d) in spike_at for d in (0, -1)) and not ok
        found += hit
    return found, reported, tp, fp_stat, spike_hits


def kinds_history(rng: np.random.Generator, machine: bool) -> tuple:  # type: ignore[type-arg]
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


def run_kinds(histories: int, seed: int) -> None:
    """The table of the other kinds of change (drifts, recovered regressions, machine
    changes): see the module docstring."""
    rng = np.random.default_rng(seed)
    n = {k: 0 for k in ("drift", "drift_steps", "drifts", "rec", "rec_asv", "recs",
                        "env", "env_of", "env_wrong", "other")}  # fmt: skip
    t0 = time.perf_counter()
    for i in range(histories):
        df, truth, shift = kinds_history(rng, machine=i % 2 == 1)
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
    print(f"<!-- {histories} histories x 20 benchmarks, {elapsed:.0f} s -->")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--histories", type=int, default=10)
    ap.add_argument("--samples", type=int, nargs="+", default=[10, 1])
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--fdr", type=float, default=0.05, help="tsanalyze.history's fdr")
    # other readings of "~2% run-to-run noise that wanders" (defaults: the simulator's)
    ap.add_argument("--sd-wander", type=float, default=0.015)
    ap.add_argument("--phi", type=float, default=0.7)
    ap.add_argument("--sd-run", type=float, default=0.013)
    ap.add_argument("--kinds", action="store_true", help="the other kinds of change")
    args = ap.parse_args()
    if args.kinds:
        run_kinds(args.histories, args.seed)
        return
    noise = {"sd_wander": args.sd_wander, "phi": args.phi, "sd_run": args.sd_run}
    print(
        "| samples | method | recall | precision | precision (any width) | false/stationary "
        "| spikes as changes | median set |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for samples in args.samples:
        rng = np.random.default_rng(args.seed)
        tot = {k: np.zeros(6) for k in ("ours", "ours2", "asv", "asv2")}
        by_size: dict[int, list[bool]] = {}
        sets: list[int] = []
        n_steps = n_stat = 0
        t0 = time.perf_counter()
        for _ in range(args.histories):
            df, steps, spikes, sizes = one_history(rng, samples, **noise)
            h = tsanalyze.history(df, seed=rng, fdr=args.fdr)
            *score, st = score_ours(h, steps, spikes, 0, sizes, by_size)
            tot["ours"] += score
            sets += st
            tot["ours2"] += score_ours(h, steps, spikes, 2)[:6]
            for key, tol in (("asv", 0), ("asv2", 2)):
                a = score_asv(df, steps, spikes, tol)
                tot[key] += [*a, a[2]]  # a point's commit is its whole "set"
            n_steps += len(steps)
            n_stat += N_BENCH - len(steps)
        elapsed = time.perf_counter() - t0
        for name, label in (("ours", "tsanalyze.history"),
                            ("ours2", "tsanalyze.history (set within 2 commits)"),
                            ("asv", "asv step_detect (exact commit)"),
                            ("asv2", "asv step_detect (within 2 commits)")):  # fmt: skip
            f, r, tp, fp, sp, tp_any = tot[name]
            med = (
                f"{np.median(sets):.0f}"
                if name == "ours" and sets
                else ("1" if name.startswith("asv") else "-")
            )
            print(f"| {samples} | {label} | {f / n_steps:.2f} | {tp / max(r, 1):.2f} | "
                  f"{tp_any / max(r, 1):.2f} | {fp / n_stat:.3f} | {int(sp)} | {med} |")  # fmt: skip
        print(f"| {samples} | no-change baseline | 0.00 | - | - | 0.000 | 0 | - |")
        by = ", ".join(f"{3 + k}-{4 + k}% {np.mean(v):.2f}" for k, v in sorted(by_size.items()))
        print(f"<!-- ours (exact set) by step size: {by} -->")
        print(f"<!-- {args.histories} histories x {N_BENCH} benchmarks, {elapsed:.0f} s -->")


if __name__ == "__main__":
    main()
