"""Simulated benchmark histories with known changes, for tests and the accuracy harness.

Each benchmark's log time per evaluation at commit i and run j is

    level_i + wander_i + run_ij + sample noise,

with a piecewise-constant (or drifting) ``level``, an AR(1) ``wander`` from commit to
commit (the CI machine's speed moving between sessions), a white run-to-run term, and
within-run samples with their own spread. One-run spikes multiply one run's samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import signal

from tsanalyze import schema

__all__ = ["SimulatedChange", "simulate_history"]


@dataclass(frozen=True)
class SimulatedChange:
    """A known change: ``ratio`` from ``commit`` (index) on; ``length`` > 1 for a drift
    reaching the ratio after that many commits; ``until`` the index where it recovers."""

    benchmark: str
    commit: int
    ratio: float
    kind: str = "step"
    length: int = 1
    until: int | None = None


@dataclass(frozen=True)
class _Spec:
    changes: list[SimulatedChange] = field(default_factory=list)
    spikes: list[tuple[str, int, float]] = field(default_factory=list)


def simulate_history(
    n_commits: int = 150,
    benchmarks: Sequence[str] = ("bench",),
    *,
    changes: Sequence[SimulatedChange] = (),
    spikes: Sequence[tuple[str, int, float]] = (),
    samples: int = 10,
    runs_per_commit: int = 1,
    sd_wander: float = 0.015,
    phi: float = 0.7,
    sd_run: float = 0.013,
    sd_sample: float = 0.03,
    base_ns: float = 1e5,
    machine: str = "ci",
    env: str = "py3",
    rng: np.random.Generator | None = None,
) -> pd.DataFrame:
    """A history in the run format (``df.attrs["runs"]`` with commit metadata).

    Defaults: ~2% commit-to-commit noise (AR(1) wander, sd 1.5%, phi 0.7, plus 1.3%
    white run-to-run), 10 samples per run with 3% spread; commit ``i`` is named
    ``f"{i:040x}"`` and made at 2026-01-01 plus ``i`` hours.
    """
    rng = rng or np.random.default_rng()
    n_b = len(benchmarks)
    bidx = {b: k for k, b in enumerate(benchmarks)}
    shift = np.zeros((n_b, n_commits))
    for c in changes:
        k = bidx[c.benchmark]
        size = np.log(c.ratio)
        end = c.until if c.until is not None else n_commits
        if c.length > 1:
            ramp = np.clip((np.arange(n_commits) - c.commit + 1) / c.length, 0.0, 1.0)
            shift[k] += size * ramp * (np.arange(n_commits) < end)
        else:
            shift[k, c.commit : end] += size
    innov = rng.standard_normal((n_b, n_commits)) * sd_wander
    innov[:, 1:] *= np.sqrt(1.0 - phi * phi)
    wander = signal.lfilter([1.0], [1.0, -phi], innov, axis=1)
    spike = np.zeros((n_b, n_commits))
    for b, i, r in spikes:
        spike[bidx[b], i] += np.log(r)
    n_runs = n_commits * runs_per_commit
    run_level = np.repeat(shift + wander + spike, runs_per_commit, axis=1)
    run_level += rng.standard_normal((n_b, n_runs)) * sd_run
    y = run_level[:, :, None] + rng.standard_normal((n_b, n_runs, samples)) * sd_sample
    ns = base_ns * np.exp(y)
    run_ids = [f"run-{i:05d}-{j}" for i in range(n_commits) for j in range(runs_per_commit)]
    frame = pd.DataFrame(
        {
            "benchmark": np.repeat(np.array(benchmarks, dtype=object), n_runs * samples),
            "run": np.tile(np.repeat(np.array(run_ids, dtype=object), samples), n_b),
            "sample": np.tile(np.arange(samples), n_b * n_runs),
            "evals": 1,
            "ns": ns.ravel(),
        }
    )
    frame["time_ns"] = frame["ns"]
    t0 = pd.Timestamp("2026-01-01T00:00:00Z")
    runs = {}
    for i in range(n_commits):
        when = (t0 + pd.Timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        for j in range(runs_per_commit):
            runs[f"run-{i:05d}-{j}"] = {
                "run": f"run-{i:05d}-{j}", "commit": f"{i:040x}", "commit_time": when,
                "created_utc": when, "machine": machine, "env": env,
            }  # fmt: skip
    frame.attrs["runs"] = schema.RunsAttr(runs)
    return frame
