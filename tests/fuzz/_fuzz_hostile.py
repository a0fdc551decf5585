"""What every fuzz test of issue 18 checks: an input is either refused with one line
naming the file, or what comes out passes the run format's checks after a write and a
read back. Any other exception (a traceback) fails the test and hypothesis shrinks it."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tsanalyze import schema
from tsanalyze.errors import TsanalyzeError
from tsanalyze.io.importers import load_table
from tsanalyze.io.runs import read_runs, write_runs

#: Deterministic (the conftest profile) and bounded: the whole fuzz suite stays near a
#: minute of one core. HYPOTHESIS_PROFILE=explore TSANALYZE_FUZZ_EXAMPLES=5000 searches
#: further (fresh examples each time).
FUZZ = settings(
    max_examples=int(os.environ.get("TSANALYZE_FUZZ_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class Raw(str):
    """A JSON token written as is (NaN, Infinity, a 400-digit integer, deep nesting)."""


#: Values that broke importers somewhere (issue 18): overflow, subnormal, sign, strings
#: that look like numbers, booleans, nulls, containers, integers beyond int64 and beyond
#: what float() converts, JSON's non-standard NaN/Infinity.
HOSTILE_VALUES: list[Any] = [
    1e308, -1e308, 5e-324, 1e-300, -1.0, 0.0, -0.0, 2**63, 2**64 + 5, -(2**63) - 1,
    "1.5", "", "NaN", True, False, None, [1], {}, [], Raw("NaN"), Raw("Infinity"),
    Raw("-Infinity"), Raw("9" * 400), Raw("1e400"), 1.5, 3, "ns", "\x1b]0;pwned\x07",
]  # fmt: skip

#: Keys that collide with run-format columns or with each other once normalised.
HOSTILE_KEYS = [
    "ns", "evals", "benchmark", "kind", "run", "sample", "round", "position", "work",
    "time_ns", "B/s", "B_per_s", "b/s", "a b", "a_b", "a-b", "", "\x00", "ns/op",
]  # fmt: skip


def dumps(doc: Any) -> str:
    """JSON text of ``doc``, with :class:`Raw` values written as they are."""
    if isinstance(doc, Raw):
        return str(doc)
    if isinstance(doc, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{dumps(v)}" for k, v in doc.items()) + "}"
    if isinstance(doc, list):
        return "[" + ",".join(dumps(v) for v in doc) + "]"
    return json.dumps(doc)


def paths(
    doc: Any, prefix: tuple[Any, ...] = ()
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(leaf paths, dict paths) of a JSON document."""
    leaves: list[tuple[Any, ...]] = []
    dicts: list[tuple[Any, ...]] = []
    if isinstance(doc, dict):
        dicts.append(prefix)
        items = list(doc.items())
    elif isinstance(doc, list):
        items = list(enumerate(doc))
    else:
        return [prefix], []
    for k, v in items:
        sub_leaves, sub_dicts = paths(v, (*prefix, k))
        leaves += sub_leaves
        dicts += sub_dicts
    return leaves, dicts


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


@st.composite
def mutated(draw: st.DrawFn, template: Any) -> Any:
    """``template`` with a few leaves replaced by hostile values and a few hostile keys
    added to its objects (and, rarely, the whole document nested deeply)."""
    doc = json.loads(json.dumps(template))
    leaves, dicts = paths(doc)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(leaves))
        if path:
            _at(doc, path[:-1])[path[-1]] = draw(st.sampled_from(HOSTILE_VALUES))
    for _ in range(draw(st.integers(0, 2))):
        where = _at(doc, draw(st.sampled_from(dicts))) if dicts else None
        if isinstance(where, dict):
            where[draw(st.sampled_from(HOSTILE_KEYS))] = draw(st.sampled_from(HOSTILE_VALUES))
    if draw(st.integers(0, 19)) == 0:  # 100,000-deep JSON: RecursionError before
        return Raw("[" * 100_000 + dumps(doc) + "]" * 100_000)
    return doc


def assert_one_line_naming(exc: BaseException, path: Path) -> None:
    msg = str(exc)
    assert "\n" not in msg and "\r" not in msg, msg
    assert str(path) in msg, msg
    assert len(msg) < 2000, msg[:300]


def assert_valid_runs(df: pd.DataFrame) -> None:
    """What read_runs gives passes the run format's value checks."""
    ns = df["ns"].to_numpy(dtype=np.float64)
    assert np.isfinite(ns).all() and (ns >= schema.MIN_SAMPLE_NS).all()
    assert (ns < schema.MAX_SAMPLE_NS).all()
    evals = df["evals"].to_numpy()
    assert evals.dtype.kind == "i" and (evals >= 1).all()
    t = df["time_ns"].to_numpy(dtype=np.float64)
    assert np.isfinite(t).all() and (t > 0).all()
    assert (df["sample"].to_numpy() >= 0).all()


def import_or_refuse(path: Path, fmt: str, out: Path, **options: Any) -> pd.DataFrame | None:
    """Import ``path``; a refusal is one line naming it; what is accepted is written and
    read back (one validation path) and returned."""
    try:
        table = load_table(path, fmt, **options)
    except TsanalyzeError as exc:
        assert_one_line_naming(exc, path)
        return None
    if out.exists():
        out.unlink()
    try:
        written = write_runs(table.frame, out, table.metadata.values())
    except TsanalyzeError as exc:  # the importer must have refused it itself
        raise AssertionError(f"imported but not writable: {exc}") from None
    df = read_runs(written)
    kind = table.frame["kind"] if "kind" in table.frame else pd.Series(["value"] * len(table.frame))
    assert len(df) == int((kind.fillna("value") == "value").sum())  # no row lost
    assert_valid_runs(df)
    return df


def finite(x: float) -> bool:
    return isinstance(x, float) and math.isfinite(x)
