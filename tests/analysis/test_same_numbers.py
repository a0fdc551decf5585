"""The report's numbers do not change when its code is made faster (issue 24).

``tests/data/golden/same-numbers.json`` holds the JSON report documents of a few run sets
and series analysed with fixed seeds by the code *before* the speed work of issue 24
(commit a2c33bf). Every number of the documents produced now must be the same: the
vectorised mode search, the bootstrap resampling, the shared sort and the reading path
may change how fast the report is computed, never what it says.

A deliberate change of a statistic (a new method, a corrected formula) changes these
numbers too: regenerate the file with ``python tests/analysis/test_same_numbers.py`` and
say in the commit message which numbers moved and why.

The third round of issue 24 changed two computations on purpose: the Whittle long-memory
fits (the scale profiled out, a grid of starts, projected Newton steps: the same
likelihood, optimised more closely) and the i.i.d. bootstrap of a ratio of medians or
minima (order statistics drawn from their Beta distributions instead of resampling
indices: the same distribution, another random stream). Neither moved a number of the
cases recorded before (none of them resamples a side i.i.d. in an unpaired comparison,
and no long-memory decision changed). The ``iid-runs-median`` case, recorded with the
new code, pins the second; the first shows in a report only through its decisions (pinned
here) and its findings' rounded p-values, and is checked in ``tests/stats/test_longmemory.py``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsanalyze.analysis.runset import analyze
from tsanalyze.datasets import simulate_run, simulate_series, simulate_trials
from tsanalyze.report.document import report_document

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "same-numbers.json"


def _mixture() -> np.ndarray:
    rng = np.random.default_rng(21)
    a = simulate_series(700, noise="gaussian", scale=0.01, rng=rng).x
    b = simulate_series(1300, noise="gaussian", t0=1080.0, scale=0.01, rng=rng).x
    return rng.permutation(np.concatenate([a, b]))


@functools.cache
def _cases() -> dict[str, Any]:
    """name -> (data, keyword arguments of analyze)."""
    trials = simulate_trials(
        4, benchmarks={"a": 1000.0, "b": 1300.0}, n_rounds=600, phi=0.6, warmup=(60, 0.3),
        rng=11,
    ).frame  # fmt: skip
    paired = simulate_run({"a": 1000.0, "b": 1020.0, "c": 1500.0}, n_rounds=800, rng=5).frame
    coarse = simulate_run(
        {"x": 300.0, "y": 330.0}, n_rounds=400, evals=10, timer_resolution_ns=30.0, rng=8
    ).frame
    long_dependent = simulate_series(20_000, noise="delay", phi=0.9, rng=4).x
    # independent runs of 1000 rounds: comparisons of runs resample each side i.i.d.
    # (the medians drawn directly as order statistics) and every series gets the Whittle
    # long-memory test (added in the third round of issue 24)
    iid_runs = simulate_trials(
        3, benchmarks={"a": 1000.0, "b": 1300.0}, n_rounds=1000, phi=0.0, rng=12
    ).frame
    return {
        "trials-median": (trials, {"rng": 7}),
        "trials-mean": (trials, {"rng": 7, "estimator": "mean"}),
        "paired-median": (paired, {"rng": 3}),
        "paired-min": (paired, {"rng": 3, "estimator": "min"}),
        "coarse-timer-evals": (coarse, {"rng": 5}),
        "mixture": (_mixture(), {"rng": 3}),
        "long-dependent": (long_dependent, {"rng": 9}),
        "long-dependent-trimmed": (long_dependent, {"rng": 9, "estimator": "trimmed_mean"}),
        "iid-runs-median": (iid_runs, {"rng": 2}),
    }


def _document(data: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    doc = report_document(analyze(data, jobs=1, **kwargs))
    doc.pop("tsanalyze_version", None)
    return json.loads(json.dumps(doc, allow_nan=False))  # type: ignore[no-any-return]


def _same(now: Any, before: Any, where: str) -> None:
    # imported here: tests/ is on the path under pytest, not when this file is run as a
    # script to regenerate the golden file
    from _helpers import assert_same_json

    # identical in practice; 1e-12 leaves room only for an FFT's last bit on another
    # platform, never for a different resample or a different rule
    assert_same_json(now, before, rel_tol=1e-12, abs_tol=1e-300, path=where)


@pytest.mark.parametrize("name", list(_cases()))
def test_report_numbers_are_those_from_before_the_speed_work(name: str) -> None:
    before = json.loads(GOLDEN.read_text(encoding="utf-8"))[name]
    data, kwargs = _cases()[name]
    _same(_document(data, kwargs), before, name)


def test_the_comparison_fails_on_a_changed_number() -> None:
    before = json.loads(GOLDEN.read_text(encoding="utf-8"))["paired-median"]
    changed = json.loads(json.dumps(before))
    changed["series"][0]["ci_high"] *= 1 + 1e-9
    with pytest.raises(AssertionError, match="ci_high"):
        _same(changed, before, "paired-median")


if __name__ == "__main__":  # regenerate (only for a deliberate change of a statistic)
    out = {name: _document(data, kwargs) for name, (data, kwargs) in _cases().items()}
    GOLDEN.write_text(json.dumps(out, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
