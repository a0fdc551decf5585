"""Rendering of :class:`~tsanalyze.analysis.history.History`: a terminal table (most
important changes first) and the ``tsanalyze-history`` JSON document."""

from __future__ import annotations

import json
from typing import Any

from tsanalyze.analysis.history import History

__all__ = ["history_json", "history_text"]

#: benchmarks listed with their outlier runs in the terminal (all are in the JSON)
MAX_OUTLIER_LINES = 20


def _short(commit: str) -> str:
    return commit[:10]


def _commits(cs: list[str]) -> str:
    if len(cs) == 1:
        return _short(cs[0])
    return f"{_short(cs[0])}..{_short(cs[-1])} ({len(cs)})"


def history_text(h: History, width: int = 120) -> str:
    """Plain-text table of the changes, then outlier runs and findings."""
    lines = []
    n_series = len(h.series)
    tested = int(h.series["p_value"].notna().sum()) if n_series else 0
    lines.append(
        f"history: {n_series} series ({tested} tested), {len(h.changes)} changes at false "
        f"discovery rate {h.fdr:g}, {len(h.outliers)} outlier runs"
    )
    if len(h.changes):
        head = f"{'benchmark':<44} {'kind':<5} {'first commit':<12} {'may be at':<28} " \
               f"{'ratio [95% CI]':<24} {'direction':<11} status"  # fmt: skip
        lines += ["", head, "-" * min(width, len(head) + 12)]
        for _, c in h.changes.iterrows():
            name = str(c["benchmark"])
            if c["machine"] or c["env"]:
                name += f" [{c['machine']}/{c['env']}]"
            ci = f"{c['ratio']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}]"
            status = (
                f"recovered at {_short(c['recovered_at'])}"
                if isinstance(c["recovered_at"], str)
                else "present"
            )
            if c["environment_shift"]:
                status += ", probable environment shift"
            lines.append(
                f"{name[:44]:<44} {c['kind']:<5} {_short(c['commit']):<12} "
                f"{_commits(list(c['commits'])):<28} {ci:<24} {c['direction']:<11} {status}"
            )
    if len(h.outliers):
        env = h.outliers[h.outliers["environment"].astype(bool)]
        own = h.outliers[~h.outliers["environment"].astype(bool)]
        if len(env):
            commits = list(dict.fromkeys(env["commit"]))
            lines += ["", f"environment outliers: {len(commits)} commits where most benchmarks "
                      f"were off at once: {', '.join(_short(c) for c in commits[:8])}"
                      + (" ..." if len(commits) > 8 else "")]  # fmt: skip
        if len(own):
            per = own.groupby("benchmark", sort=False).size().sort_values(ascending=False)
            lines += ["", "outlier runs (one-commit excursions, not changes):"]
            for name, count in per.head(MAX_OUTLIER_LINES).items():
                g = own[own["benchmark"] == name]
                worst = g.iloc[int(g["z"].abs().to_numpy().argmax())]
                lines.append(f"  {str(name)[:60]:<60} {count:>4} run(s), largest "
                             f"x{worst['ratio']:.3f} at {_short(worst['commit'])}")  # fmt: skip
            if len(per) > MAX_OUTLIER_LINES:
                lines.append(f"  ... and {len(per) - MAX_OUTLIER_LINES} more benchmarks")
    for f in h.warnings:
        lines.append(f"{f.severity}: {f.message}")
    return "\n".join(lines) + "\n"


def history_json(h: History) -> str:
    """The ``{"format": "tsanalyze-history", ...}`` document (strict JSON)."""
    doc: dict[str, Any] = h.to_dict()
    return json.dumps(doc, indent=1, allow_nan=False)
