"""The dependence assessment made once per series (issue 24): kept assessments, the
variance-time fits made only when used, and assessments handed between processes.

Each shortcut must give exactly the assessment of the full computation: the reference
here is the assessment computed afresh with every fit of the variance-time curve made
up front (as before the shortcut), compared field by field through ``repr`` (floats to
the last bit, NaN included).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsanalyze.datasets import simulate_series
from tsanalyze.datasets_dependent import fgn
from tsanalyze.stats import dependence as dm
from tsanalyze.stats.dependence import assess_dependence, clear_memo, keep, kept
from tsanalyze.stats.variance_time import variance_time


def _ar1(n: int, phi: float, rng: int) -> np.ndarray:
    g = np.random.default_rng(rng)
    e = g.standard_normal(n)
    y = np.empty(n)
    y[0] = e[0]
    for t in range(1, n):
        y[t] = phi * y[t - 1] + math.sqrt(1 - phi * phi) * e[t]
    return y


def _series() -> dict[str, np.ndarray]:
    g = np.random.default_rng(5)
    two_levels = np.where(g.random(1500) < 0.5, 100.0, 130.0)
    switching = np.repeat(g.choice([100.0, 130.0], 30), 40) + g.normal(0, 1, 1200)
    return {
        "iid-2000": g.normal(size=2000),
        "iid-300": g.normal(size=300),
        "ar1-0.5-800": _ar1(800, 0.5, 1),
        "ar1-0.9-600": _ar1(600, 0.9, 2),
        "ar1-0.97-400": _ar1(400, 0.97, 3),
        "ar1-0.8-3000": _ar1(3000, 0.8, 4),
        "fgn-0.8-700": fgn(700, 0.8, rng=5),
        "fgn-0.9-900": fgn(900, 0.9, rng=6),
        "fgn-0.75-4000": fgn(4000, 0.75, rng=7),
        "walk-500": np.cumsum(g.normal(size=500)),
        "delay-1000": simulate_series(1000, noise="delay", rng=8).x,
        "mixture": two_levels + g.normal(0, 1, two_levels.size),
        "switching": switching,
        "ties-250": np.round(g.normal(100, 3, 250)),
        "short-25": g.normal(size=25),
        "too-few-10": g.normal(size=10),
        "constant": np.full(100, 3.0),
    }


class _EagerCurve(dm.CurveFits):
    """The curve with both fits made up front, from variance_time itself (the old path)."""

    def __init__(self, a: np.ndarray) -> None:
        super().__init__(a)
        vt = variance_time(a, min_blocks=8)
        self._power = (vt.slope, vt.hurst, vt.long_memory_rss)
        self._short = vt.short_memory_rss


@pytest.mark.parametrize("name", list(_series()))
def test_lazy_fits_and_memo_give_the_full_assessment(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = _series()[name]
    clear_memo()
    fast = assess_dependence(x)
    again = assess_dependence(x.copy())  # kept: the same object for equal samples
    assert again is fast
    with monkeypatch.context() as m:
        m.setattr(dm, "CurveFits", _EagerCurve)
        full = dm._assess(np.ascontiguousarray(x, np.float64), 0.1, 10, dm.MIN_EFFECTIVE_N)
    assert repr(fast) == repr(full)


def test_lazy_curve_is_variance_time() -> None:
    for name, x in _series().items():
        if x.size < 16 or np.ptp(x) == 0:
            continue
        vt = variance_time(x, min_blocks=8)
        c = dm.CurveFits(np.asarray(x, np.float64))
        np.testing.assert_array_equal(c.block_sizes, vt.block_sizes, err_msg=name)
        np.testing.assert_array_equal(c.variances, vt.variances, err_msg=name)
        np.testing.assert_array_equal(c.ratios, vt.ratios, err_msg=name)
        same = [(c.hurst, vt.hurst), (c.long_memory_rss, vt.long_memory_rss)]
        same.append((c.short_memory_rss, vt.short_memory_rss))
        for got, want in same:
            assert got == want or (math.isnan(got) and math.isnan(want)), name


def test_the_key_holds_the_samples_and_the_settings() -> None:
    clear_memo()
    x = _ar1(600, 0.6, 9)
    d1 = assess_dependence(x)
    d2 = assess_dependence(x, threshold=0.2)
    assert d2 is not d1 and d2.subsession_size != d1.subsession_size
    y = x.copy()
    y[17] = np.nextafter(y[17], np.inf)  # one bit of one sample
    assert assess_dependence(y) is not d1
    assert assess_dependence(x) is d1


def test_least_recently_used_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_memo()
    monkeypatch.setattr(dm._MEMO, "size", 3)
    xs = [np.random.default_rng(k).normal(size=100) for k in range(5)]
    first = assess_dependence(xs[0])
    for x in xs[1:3]:
        assess_dependence(x)
    assert assess_dependence(xs[0]) is first  # used again: now the most recent
    for x in xs[3:]:
        assess_dependence(x)
    assert len(dm._MEMO) == 3
    assert kept(xs[0]) is not None and kept(xs[1]) is None and kept(xs[2]) is None


def test_an_assessment_handed_over_is_not_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _ar1(1200, 0.7, 11)
    clear_memo()
    assert kept(x) is None
    dep = assess_dependence(x)
    entry = kept(x)
    assert entry is not None and entry[1] is dep
    clear_memo()  # another process: nothing kept

    def fail(*args: object) -> None:
        raise AssertionError("assessed again")

    monkeypatch.setattr(dm, "_assess", fail)
    keep([entry])
    assert assess_dependence(x) is dep
    with pytest.raises(AssertionError, match="assessed again"):
        assess_dependence(x[:-1])
    clear_memo()
