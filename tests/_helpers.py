"""Helpers shared by test modules (``from _helpers import ...``; ``tests/`` is on the path
because ``tests/conftest.py`` sits there without an ``__init__.py``)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze.datasets import simulate_series

#: tests/data
DATA = Path(__file__).resolve().parent / "data"


def ar1(n: int, phi: float, seed: int) -> np.ndarray:
    """A Gaussian AR(1) series of ``n`` samples (lag-1 coefficient ``phi``, 1 % scale)."""
    return simulate_series(n, noise="gaussian", phi=phi, scale=0.01, rng=seed).x


def assert_same_json(
    actual: Any,
    expected: Any,
    *,
    rel_tol: float,
    abs_tol: float,
    ordered_keys: bool = True,
    path: str = "$",
) -> None:
    """Assert two JSON documents hold the same structure, strings and numbers.

    Dicts must have the same keys (in the same order unless ``ordered_keys`` is False),
    lists the same length; where either side is a float both must be numbers within
    ``rel_tol``/``abs_tol`` (``math.isclose``); anything else must be equal. The message
    names the first place that differs as a path (``$.series[2].estimate``).
    """
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {type(actual).__name__}, not an object"
        keys_match = (
            list(actual) == list(expected) if ordered_keys else set(actual) == set(expected)
        )
        assert keys_match, f"{path}: keys {list(actual)} != {list(expected)}"
        for k in expected:
            assert_same_json(
                actual[k],
                expected[k],
                rel_tol=rel_tol,
                abs_tol=abs_tol,
                ordered_keys=ordered_keys,
                path=f"{path}.{k}",
            )
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (
            f"{path}: lengths differ ({actual!r} != {expected!r})"
        )
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_same_json(
                a,
                e,
                rel_tol=rel_tol,
                abs_tol=abs_tol,
                ordered_keys=ordered_keys,
                path=f"{path}[{i}]",
            )
    elif isinstance(expected, float) or isinstance(actual, float):
        numbers = all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in (actual, expected)
        )
        assert numbers, f"{path}: {actual!r} != {expected!r}"
        assert math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol), (
            f"{path}: {actual!r} != {expected!r}"
        )
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


# ---------------------------------------------------------- tiny parsers of peer outputs
# Written independently of tsanalyze's importers, so tests that compare with a peer's
# recorded numbers do not read them through the code under test.


def go_bench(path: Path, unit: str = "ns/op") -> dict[str, np.ndarray]:
    """Go benchmark lines: name (without the ``-P`` suffix) -> the values of ``unit``."""
    out: dict[str, list[float]] = {}
    pat = re.compile(r"^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$")
    for line in path.read_text().splitlines():
        m = pat.match(line)
        if not m:
            continue
        fields = m.group(2).split()
        for v, u in zip(fields[::2], fields[1::2], strict=False):
            if u == unit:
                out.setdefault(m.group(1), []).append(float(v))
    return {k: np.array(v) for k, v in out.items()}


def benchstat_table(path: Path) -> dict[str, tuple[str, str, float | None, float]]:
    """The first (sec/op) table of a benchstat golden output: name -> (old median as
    printed, new median as printed, % change or None for ``~``, p)."""
    rows: dict[str, tuple[str, str, float | None, float]] = {}
    pat = re.compile(
        r"^(\S+?)-\d+\s+(\S+) ± \S+\s+(\S+) ± \S+\s+(~|[+-][\d.]+%) \(p=([\d.]+) n=\d+\)"
    )
    for line in path.read_text().splitlines():
        if line.startswith("geomean"):
            break  # first table (sec/op) only
        m = pat.match(line)
        if m:
            change = None if m.group(4) == "~" else float(m.group(4)[:-1])
            rows[m.group(1)] = (m.group(2), m.group(3), change, float(m.group(5)))
    return rows


def history_to_asv(df: Any, root: Path) -> Path:
    """Write a simulated history (:func:`tsanalyze.analysis.history.simulate.simulate_history`)
    as an asv (format 2) results directory of machine ``ci``, environment ``py3``;
    benchmark ``b`` becomes ``s.time_b``."""
    (root / "ci").mkdir(parents=True)
    (root / "ci" / "machine.json").write_text(json.dumps({"machine": "ci", "version": 1}))
    cols = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
            "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat",
            "samples"]  # fmt: skip
    for run, meta in df.attrs["runs"].items():
        rows = df[df["run"] == run]
        results = {}
        for b, g in rows.groupby("benchmark"):
            sec = (g["ns"] / 1e9).tolist()
            results[f"s.time_{b}"] = [[float(np.median(sec))], [], "v", None, None, None, None,
                                      None, None, [1], [len(sec)], [sec]]  # fmt: skip
        i = int(meta["commit"], 16)
        doc = {"version": 2, "commit_hash": meta["commit"], "env_name": "py3",
               "date": 1_700_000_000_000 + 3_600_000 * i, "params": {"machine": "ci"},
               "result_columns": cols, "results": results}  # fmt: skip
        (root / "ci" / f"{meta['commit'][-8:]}-py3.json").write_text(json.dumps(doc))
    return root
