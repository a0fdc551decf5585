"""From runs to history series: one commit-ordered series per (benchmark, machine, env).

Two levels. Within a run, the samples give the run's level (the median of log time per
evaluation) and its sampling variance; across runs, the run levels of one commit are
trials of that commit and are averaged. The commit-level series keeps, per commit, the
mean run level ``x``, the number of runs ``r`` and the mean sampling variance ``w`` of a
run's median; the noise model (:mod:`.noise`) adds the run-to-run variance on top.

Commits are ordered by ``commit_time`` (then by the earliest ``created_utc`` of their
runs); runs without a ``commit`` are their own commit, named by the run id, ordered by
``created_utc``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._typing import Float64Array
from tsanalyze.stats.robust_scale import MAD_TO_SD

__all__ = ["HistorySeries", "build_series", "run_table"]



@dataclass(frozen=True)
class HistorySeries:
    """One benchmark's commit-level history on one machine and environment.

    ``x`` mean log(time per evaluation, ns) of the commit's runs; ``runs`` runs per
    commit; ``within_var`` mean sampling variance of a run's median (0 with one sample);
    ``commits`` commit ids in history order; ``samples`` samples per run (median).
    """

    benchmark: str
    machine: str
    env: str
    commits: tuple[str, ...]
    x: Float64Array
    runs: Float64Array
    within_var: Float64Array
    samples: float


def _meta(runs: Mapping[str, Mapping[str, Any]], rid: str, key: str) -> str:
    v = (runs.get(rid) or {}).get(key)
    return str(v) if isinstance(v, str) and v else ""


def run_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (benchmark, run): level (median log time), its sampling variance,
    sample count and the run's commit, commit order key, machine and env.

    The sampling variance of a median of n samples is (π/2) σ²/n with σ the robust sd
    (MAD) of the run's log times (the asymptotic variance of the median under a normal
    shape; Hampel et al. 1986 §2.5).
    """
    runs: Mapping[str, Mapping[str, Any]] = df.attrs.get("runs", {})
    time = df["time_ns"] if "time_ns" in df.columns else df["ns"] / df["evals"]
    t = np.asarray(time, dtype=np.float64)
    keep = np.isfinite(t) & (t > 0)
    if "kind" in df.columns:
        keep &= df["kind"].isna().to_numpy() | (df["kind"].astype(object) == "value").to_numpy()
    frame = pd.DataFrame(
        {
            "benchmark": df["benchmark"].astype(str).to_numpy()[keep],
            "run": df["run"].astype(str).to_numpy()[keep],
            "y": np.log(t[keep]),
        }
    )
    g = frame.groupby(["benchmark", "run"], sort=False, observed=True)["y"]
    level = g.median()
    n = g.size()
    dev = (frame["y"] - g.transform("median")).abs()
    mad = dev.groupby([frame["benchmark"], frame["run"]], sort=False).median()
    sd = MAD_TO_SD * mad
    within = np.where(n > 1, (math.pi / 2.0) * sd**2 / n, 0.0)
    out = pd.DataFrame({"level": level, "within": within, "n": n}).reset_index()
    rids = out["run"].to_numpy()
    uniq = pd.unique(rids)
    info = {
        r: (
            _meta(runs, r, "commit") or r,
            _meta(runs, r, "commit_time"),
            _meta(runs, r, "created_utc"),
            _meta(runs, r, "machine"),
            _meta(runs, r, "env"),
        )
        for r in uniq
    }
    cols = list(zip(*(info[r] for r in rids), strict=True)) if len(rids) else [()] * 5
    for name, col in zip(("commit", "commit_time", "created", "machine", "env"), cols, strict=True):
        out[name] = list(col)
    return out


def _commit_order(table: pd.DataFrame) -> dict[str, int]:
    """Position of every commit in history order (commit time, then first run time)."""
    ct = pd.to_datetime(table["commit_time"].replace("", None), utc=True, format="ISO8601")
    cr = pd.to_datetime(table["created"].replace("", None), utc=True, format="ISO8601")
    keys = pd.DataFrame({"commit": table["commit"], "ct": ct, "cr": cr})
    first = keys.groupby("commit", sort=False).agg(ct=("ct", "min"), cr=("cr", "min"))
    first = first.sort_values(["ct", "cr"], kind="stable", na_position="last")
    return {c: i for i, c in enumerate(first.index)}


def build_series(df: pd.DataFrame) -> tuple[list[HistorySeries], list[str]]:
    """The commit-level series of every (benchmark, machine, env) in ``df``, and every
    benchmarked commit in history order."""
    table = run_table(df)
    if table.empty:
        return [], []
    order = _commit_order(table)
    table["pos"] = table["commit"].map(order)
    agg = (
        table.groupby(["benchmark", "machine", "env", "pos"], sort=True)
        .agg(x=("level", "mean"), r=("level", "size"), w=("within", "mean"), n=("n", "median"))
        .reset_index()
    )
    commits = np.array(sorted(order, key=order.__getitem__), dtype=object)
    out = []
    for (bench, machine, env), g in agg.groupby(["benchmark", "machine", "env"], sort=True):
        out.append(
            HistorySeries(
                benchmark=str(bench),
                machine=str(machine),
                env=str(env),
                commits=tuple(commits[g["pos"].to_numpy()]),
                x=g["x"].to_numpy(dtype=np.float64),
                runs=g["r"].to_numpy(dtype=np.float64),
                within_var=g["w"].to_numpy(dtype=np.float64),
                samples=float(g["n"].median()),
            )
        )
    return out, list(commits)
