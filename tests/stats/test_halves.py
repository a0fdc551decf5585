"""The split-half check of the level (tsanalyze.stats.halves)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tsanalyze.datasets_dependent import fgn
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.estimators import estimate
from tsanalyze.stats.halves import HALVES_Z, halves


def test_z_is_the_difference_over_the_halves_standard_errors() -> None:
    # reference: recomputed by hand from the whole series' median interval
    x = np.random.default_rng(1).lognormal(6.9, 0.05, 1001)
    e = estimate(x, "median")
    h = halves(x, e.ci_low, e.ci_high, unit="ns")
    q = stats.norm.ppf(0.975)
    se = (e.ci_high - e.ci_low) / (2 * q) * math.sqrt(2)
    assert h.first == np.median(x[:500]) and h.second == np.median(x[500:])
    assert h.z == pytest.approx((h.second - h.first) / (se * math.sqrt(2)))
    assert h.disagree == (abs(h.z) > HALVES_Z)
    assert math.isnan(halves(x, -math.inf, math.inf).z)


def test_a_step_between_the_halves_is_found_and_said() -> None:
    # the interval of the steady series (what a segment's interval is when the step is
    # too small for the dependence assessment to widen it), the halves of the stepped one
    rng = np.random.default_rng(2)
    x = 1000.0 * (1 + 0.001 * rng.standard_normal(2000))
    e = estimate(x, "median")
    assert not halves(x, e.ci_low, e.ci_high).disagree
    x[1000:] *= 1.002  # 2 sigma of one sample, ~45 standard errors of a half's median
    h = halves(x, e.ci_low, e.ci_high, unit="ns")
    assert h.disagree and h.z > 10
    (w,) = h.warnings
    assert w.code == "halves-disagree" and w.severity == "warning"
    assert "+0.199%" in w.message and "not a repeat of the run" in w.message


def test_bad_input_names_the_parameter() -> None:
    with pytest.raises(InvalidArgumentError, match="x: needs at least 40"):
        halves(np.ones(39), 0.9, 1.1)
    with pytest.raises(InvalidArgumentError, match="z_threshold"):
        halves(np.arange(1.0, 100.0), 40.0, 60.0, z_threshold=-1.0)


def _ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0] / math.sqrt(1 - phi**2)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + e[i]
    return 1000.0 + 10.0 * x


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["iid", "ar1-0.9", "fgn-0.85"])
def test_false_alarms_on_a_steady_level_are_rare(kind: str) -> None:
    # Monte Carlo: 200 stationary series of 3000 samples; the check's threshold is 1%
    # two-sided under N(0, 1); allow binomial noise (P(X >= 7 | n=200, p=0.01) ~ 0.005)
    rng = np.random.default_rng(11)
    alarms = 0
    for s in range(200):
        if kind == "iid":
            x = rng.lognormal(6.9, 0.02, 3000)
        elif kind == "ar1-0.9":
            x = _ar1(rng, 3000, 0.9)
        else:
            x = 1000.0 + 10.0 * fgn(3000, 0.85, rng=s)
        e = estimate(x, "median")
        alarms += halves(x, e.ci_low, e.ci_high).disagree
    assert alarms <= 6
