"""Append-stability of ``tsanalyze.history``: how often do changes found before the
previous newest commit move, disappear or appear when commits are appended?

Simulated histories as in ``accuracy.py`` (20 benchmarks, half with one step of 3-10% of
either sign at a random commit in 10..140, three one-run spikes; ~2% noise between
commits, 10 samples per run) of 150 + ``--append`` commits. Each is analysed on its
first 150 commits, then on all of them with ``previous=`` the first analysis; the
revisions (:mod:`tsanalyze.analysis.history.previous`) are counted. "same seed" is the
design (each series' seed depends on its name only); "other seed" analyses the longer
history with another root seed, which shows how much of the movement is Monte-Carlo
noise of the calibration rather than the new data.

    python benchmarks/history/append.py [--histories 20] [--append 10]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
import pandas as pd

import tsanalyze
from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history

N = 150


def _first(df: pd.DataFrame, n: int) -> pd.DataFrame:
    keep = {r for r, m in df.attrs["runs"].items() if int(m["commit"], 16) < n}
    out = df[df["run"].isin(keep)].copy()
    out.attrs["runs"] = {r: m for r, m in df.attrs["runs"].items() if r in keep}
    return out


def _history(rng: np.random.Generator, n: int) -> pd.DataFrame:
    names = [f"b{i:02d}" for i in range(20)]
    changes = [
        SimulatedChange(b, int(rng.integers(10, 140)),
                        float(np.exp(rng.choice([-1, 1]) * np.log(rng.uniform(1.03, 1.10)))))
        for b in names[::2]
    ]  # fmt: skip
    spikes = [(b, int(rng.integers(10, 140)), float(rng.choice([1.3, 0.7]))) for b in names[1:7:2]]
    return simulate_history(n, names, changes=changes, spikes=spikes, rng=rng)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--histories", type=int, default=20)
    ap.add_argument("--append", type=int, default=10)
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    counts = {"same seed": Counter(), "other seed": Counter()}
    shifts: list[int] = []
    qs: dict[str, list[float]] = {"kept": [], "disappeared": [], "appeared": []}
    t0 = time.perf_counter()
    for _ in range(args.histories):
        df = _history(rng, N + args.append)
        before = tsanalyze.history(_first(df, N), seed=0)
        for label, seed in (("same seed", 0), ("other seed", 1)):
            after = tsanalyze.history(df, seed=seed, previous=before)
            c = counts[label]
            c["earlier"] += len(before.changes)
            rev = after.revisions if after.revisions is not None else pd.DataFrame()
            for status in ("moved", "disappeared", "appeared"):
                c[status] += int((rev["status"] == status).sum()) if len(rev) else 0
            if label != "same seed":
                continue
            # the calibrated p-value of the scan that found each change: borderline ones?
            q_before = before.changes.set_index(["benchmark", "commit"])["p_value"]
            q_after = after.changes.set_index(["benchmark", "commit"])["p_value"]
            gone = set()
            for _, r in rev.iterrows() if len(rev) else ():
                if r["status"] == "moved":
                    shifts.append(abs(int(r["now_commit"], 16) - int(r["was_commit"], 16)))
                elif r["status"] == "disappeared":
                    qs["disappeared"].append(float(q_before[(r["benchmark"], r["was_commit"])]))
                    gone.add((r["benchmark"], r["was_commit"]))
                else:
                    qs["appeared"].append(float(q_after[(r["benchmark"], r["now_commit"])]))
            qs["kept"] += [float(q) for k, q in q_before.items() if k not in gone]
    print(f"{args.histories} histories x 20 benchmarks, {N} -> {N + args.append} commits "
          f"({time.perf_counter() - t0:.0f} s)")  # fmt: skip
    print("| seed of the longer analysis | earlier changes | same commit | moved | disappeared "
          "| appeared |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for label, c in counts.items():
        e = c["earlier"]
        same = e - c["moved"] - c["disappeared"]
        print(f"| {label} | {e} | {same} ({same / max(e, 1):.2f}) | {c['moved']} "
              f"({c['moved'] / max(e, 1):.2f}) | {c['disappeared']} "
              f"({c['disappeared'] / max(e, 1):.2f}) | {c['appeared']} |")  # fmt: skip
    if shifts:
        print(f"moved by (commits, same seed): median {np.median(shifts):g}, max {max(shifts)}")
    for k, v in qs.items():
        if v:
            print(f"p-value of the scan that found it, {k}: median {np.median(v):.2g}, "
                  f"share above 0.01: {np.mean(np.array(v) > 0.01):.2f} (of {len(v)})")


if __name__ == "__main__":
    main()
