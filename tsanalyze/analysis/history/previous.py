"""Appending runs does not move earlier changes without saying so.

A history is analysed again as commits are added. The changes found before the previous
analysis's newest commit can move (the new commits refine the noise fit, the calibration
and the false discovery rate's threshold), disappear or appear. :func:`against_previous`
compares an analysis with a previous one (a :class:`~tsanalyze.analysis.history.History`
or its ``tsanalyze-history`` JSON document) series by series and says which did, so that
a CI dashboard never rewrites its past silently.

A previous change is the *same* when a current change of its series starts at the same
commit; *moved* when the nearest current change of its series in the same direction (not
already matched) starts elsewhere and either its commit set overlaps the previous one's,
or no other previous change of the series is nearer to it; otherwise it *disappeared*. A current change that starts before the previous newest commit and matches
no previous change *appeared*. Changes at or after the previous newest commit are new data,
not revisions; previous changes at commits outside the current analysis (``--since``,
``--last``) are not compared.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from tsanalyze._result import Finding
from tsanalyze.errors import InvalidArgumentError

if TYPE_CHECKING:  # pragma: no cover
    from tsanalyze.analysis.history.api import History

__all__ = ["REVISION_COLUMNS", "against_previous"]

REVISION_COLUMNS = (
    "benchmark", "machine", "env", "status", "was_commit", "now_commit", "was_commits",
    "now_commits", "direction", "message",
)  # fmt: skip


def _short(commit: Any) -> str:
    return str(commit)[:10]


def _key(c: Any) -> tuple[Any, str, str]:
    """(benchmark, machine, env) of a change (a dict or a row)."""
    return (c.get("benchmark"), c.get("machine") or "", c.get("env") or "")


def _previous_doc(previous: History | Mapping[str, Any]) -> dict[str, Any]:
    doc = previous.to_dict() if hasattr(previous, "to_dict") else dict(previous)
    if doc.get("format") != "tsanalyze-history":
        raise InvalidArgumentError(
            f'previous: not a tsanalyze-history document (its "format" is {doc.get("format")!r})'
        )
    if not isinstance(doc.get("newest_commit"), str) or not isinstance(doc.get("changes"), list):
        raise InvalidArgumentError(
            "previous: the document has no newest_commit or no changes list (written by an "
            "older tsanalyze? analyse the earlier history again to compare with it)"
        )
    return doc


def against_previous(h: History, previous: History | Mapping[str, Any]) -> History:
    """``h`` with ``revisions`` (one row per moved, disappeared or appeared change; see
    the module docstring), a ``revision`` column in its changes (``"moved (was <commit>)"``,
    ``"appeared"``, or None) and a warning when any earlier change was revised."""
    doc = _previous_doc(previous)
    newest = doc["newest_commit"]
    pos = {c: i for i, c in enumerate(h.commits)}
    changes = h.changes.copy()
    changes["revision"] = None
    rows: list[dict[str, Any]] = []
    findings = list(h.warnings)
    if newest not in pos:
        findings.append(Finding("previous-not-compared", f"the previous analysis's newest commit "
                                f"{_short(newest)} is not among the commits analysed now; "
                                "its changes were not compared", "warning"))  # fmt: skip
        return dataclasses.replace(
            h, changes=changes, warnings=tuple(findings),
            revisions=pd.DataFrame(columns=list(REVISION_COLUMNS)),
        )  # fmt: skip
    cutoff = pos[newest]
    matched: set[int] = set()
    prev = [p for p in doc["changes"] if p.get("commit") in pos]  # others: outside, skipped
    pending = []
    for p in prev:  # first the changes that stayed where they were
        same = changes.index[
            (changes["benchmark"] == p.get("benchmark"))
            & (changes["machine"] == (p.get("machine") or ""))
            & (changes["env"] == (p.get("env") or ""))
            & (changes["commit"] == p["commit"])
        ]
        free = [int(i) for i in same if int(i) not in matched]
        if free:
            matched.add(free[0])
        else:
            pending.append(p)
    for p in pending:
        key = _key(p)
        at = pos[p["commit"]]
        was = list(p.get("commits") or [p["commit"]])
        was_set = {*was, p["commit"]}
        rivals = [pos[q["commit"]] for q in prev if q is not p and _key(q) == key]
        moved = None
        best = None
        for i, c in changes.iterrows():
            if int(i) in matched or _key(c) != key or c["direction"] != p.get("direction"):
                continue
            d = abs(pos[c["commit"]] - at)
            if best is None or d < best:
                near = all(abs(pos[c["commit"]] - r) > d for r in rivals)
                if near or was_set & {*c["commits"], c["commit"]}:
                    moved, best = (int(i), c), d
        base = {"benchmark": key[0], "machine": key[1], "env": key[2], "was_commit": p["commit"],
                "was_commits": was, "direction": p.get("direction")}  # fmt: skip
        if moved is not None:
            i, c = moved
            matched.add(i)
            message = (f"moved since the previous analysis: was commit {_short(p['commit'])}, "
                       f"now {_short(c['commit'])}")  # fmt: skip
            changes.at[i, "revision"] = f"moved (was {p['commit']})"
            rows.append({**base, "status": "moved", "now_commit": c["commit"],
                         "now_commits": list(c["commits"]), "message": message})  # fmt: skip
        else:
            message = (f"disappeared since the previous analysis: was a {p.get('direction')} "
                       f"at commit {_short(p['commit'])}")  # fmt: skip
            rows.append({**base, "status": "disappeared", "now_commit": None,
                         "now_commits": [], "message": message})  # fmt: skip
    for i, c in changes.iterrows():
        if int(i) in matched or pos.get(c["commit"], cutoff) >= cutoff:
            continue
        changes.at[i, "revision"] = "appeared"
        rows.append({
            "benchmark": c["benchmark"], "machine": c["machine"], "env": c["env"],
            "status": "appeared", "was_commit": None, "was_commits": [],
            "now_commit": c["commit"], "now_commits": list(c["commits"]),
            "direction": c["direction"],
            "message": f"appeared since the previous analysis, before its newest commit "
                       f"{_short(newest)}: at commit {_short(c['commit'])}",
        })  # fmt: skip
    revisions = pd.DataFrame(rows, columns=list(REVISION_COLUMNS))
    if len(revisions):
        n = revisions["status"].value_counts()
        findings.append(Finding("revised-changes", f"since the previous analysis (newest commit "
                                f"{_short(newest)}): {int(n.get('moved', 0))} earlier changes "
                                f"moved, {int(n.get('disappeared', 0))} disappeared, "
                                f"{int(n.get('appeared', 0))} appeared", "warning"))  # fmt: skip
    return dataclasses.replace(h, changes=changes, revisions=revisions, warnings=tuple(findings))
