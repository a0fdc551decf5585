"""Steps injected into a real history: django/django-asv (issue 25).

Reads one environment of an asv results directory (default ``conda-py3.10`` of
``ubuntu-latest``: ~960 commits, 10 samples per commit), multiplies every sample of one
benchmark by 1.10 from a random commit on (between 10% and 90% of its history), for every
benchmark at once (a different commit each), and counts the injected steps found: a
reported regression whose commit set holds the injected commit. Repeated ``--rounds``
times with new commits. The real history has changes of its own; they are left alone.

    python benchmarks/history/django_injected.py RESULTS_DIR [--env conda-py3.10]

RESULTS_DIR: ``git --git-dir=<django-asv mirror> archive HEAD results | tar x``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import tsanalyze
from tsanalyze.analysis.history.series import run_table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("results", type=Path)
    ap.add_argument("--machine", default="ubuntu-latest")
    ap.add_argument("--env", default="conda-py3.10")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ratio", type=float, default=1.10)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / args.machine).mkdir()
        os.symlink(args.results / "benchmarks.json", root / "benchmarks.json")
        src = args.results / args.machine
        os.symlink(src / "machine.json", root / args.machine / "machine.json")
        for f in src.glob(f"*-{args.env}.json"):
            os.symlink(f, root / args.machine / f.name)
        t0 = time.perf_counter()
        df = tsanalyze.read_runs(root)
        print(f"read {df['run'].nunique()} runs, {df['benchmark'].nunique()} benchmarks "
              f"in {time.perf_counter() - t0:.1f} s")  # fmt: skip
    table = run_table(df)
    runs = df.attrs["runs"]
    order = sorted({m["commit"]: m.get("commit_time", "") for m in runs.values()}.items(),
                   key=lambda kv: kv[1])  # fmt: skip
    pos = {c: i for i, (c, _) in enumerate(order)}
    run_pos = df["run"].astype(str).map(lambda r: pos[runs[r]["commit"]]).to_numpy()
    bench = df["benchmark"].astype(str).to_numpy()
    names = sorted(set(table["benchmark"]))
    found = total = 0
    sets: list[int] = []
    base_real = tsanalyze.history(df, seed=0)
    print(f"real history alone: {len(base_real.changes)} changes in {len(names)} benchmarks")
    for _ in range(args.rounds):
        inj = df.copy()
        inj.attrs = df.attrs
        truth = {}
        factor = np.ones(len(df))
        for b in names:
            commits_b = sorted(
                {pos[runs[r]["commit"]] for r in table.loc[table["benchmark"] == b, "run"]}
            )
            if len(commits_b) < 50:
                continue
            at = commits_b[int(rng.integers(len(commits_b) // 10, 9 * len(commits_b) // 10))]
            truth[b] = order[at][0]
            factor[(bench == b) & (run_pos >= at)] = args.ratio
        inj["time_ns"] = df["time_ns"].to_numpy() * factor
        t0 = time.perf_counter()
        h = tsanalyze.history(inj, seed=rng)
        elapsed = time.perf_counter() - t0
        for b, c in truth.items():
            rows = h.changes[
                (h.changes["benchmark"] == b) & (h.changes["direction"] == "regression")
            ]
            hit = [len(cs) for cs in rows["commits"] if c in cs]
            total += 1
            if hit:
                found += 1
                sets.append(min(hit))
        print(f"round: {len(truth)} injected, history in {elapsed:.1f} s")
    print(
        f"injected x{args.ratio} steps found with the true commit in the set: {found}/{total} "
        f"= {found / max(total, 1):.2f}; median set {np.median(sets) if sets else float('nan'):.0f} commits"
    )


if __name__ == "__main__":
    main()
