"""PELT / binary segmentation through ruptures, behind the common interface."""

from __future__ import annotations

import numpy as np
import pytest

from tsanalyze.stats.changepoints.ruptures_search import (
    default_penalty,
    robust_noise_sd,
    ruptures_search,
)


def optimal_partition_l2(x: np.ndarray, pen: float, m: int) -> list[int]:
    # independent reference: exact penalised least squares by dynamic programming
    n = x.size
    c1 = np.r_[0.0, np.cumsum(x)]
    c2 = np.r_[0.0, np.cumsum(x * x)]

    def cost(a: int, b: int) -> float:
        s = c1[b] - c1[a]
        return float(c2[b] - c2[a] - s * s / (b - a))

    best = np.full(n + 1, np.inf)
    best[0] = -pen
    last = np.zeros(n + 1, dtype=int)
    for b in range(m, n + 1):
        for a in [0, *range(m, b - m + 1)]:
            v = best[a] + cost(a, b) + pen
            if v < best[b]:
                best[b], last[b] = v, a
    out, at = [], n
    while at:
        at = int(last[at])
        if at:
            out.append(at)
    return sorted(out)


def step_signal(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(10, 1, 80), rng.normal(14, 1, 60), rng.normal(11, 1, 80)]


@pytest.mark.parametrize("seed", range(3))
def test_pelt_l2_equals_exact_optimal_partition(seed: int) -> None:
    x = step_signal(seed)
    pen = 3 * np.log(x.size)
    res = ruptures_search(x, search="pelt", cost="l2", min_size=10, penalty=pen)
    assert list(res.locations) == optimal_partition_l2(x, pen, 10)


@pytest.mark.parametrize("cost", ["l1", "l2", "rbf"])
@pytest.mark.parametrize("search", ["pelt", "binseg"])
def test_every_search_and_cost_finds_the_steps(search: str, cost: str) -> None:
    x = step_signal(7)
    res = ruptures_search(x, search=search, cost=cost, min_size=10)  # type: ignore[arg-type]
    assert res.method == f"{search}-{cost}"
    assert len(res.locations) == 2
    assert abs(res.locations[0] - 80) <= 3 and abs(res.locations[1] - 140) <= 3
    assert list(res.locations) == sorted(res.locations)
    assert res.segments["n"].sum() == x.size
    assert res.params["penalty"] == pytest.approx(default_penalty(x, cost))  # type: ignore[arg-type]


def test_robust_noise_sd_ignores_a_shift() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(0, 2.0, 5000)
    x[2500:] += 100.0
    assert robust_noise_sd(x) == pytest.approx(2.0, rel=0.05)


def test_edge_cases_and_validation() -> None:
    assert ruptures_search(np.arange(5.0)).locations == ()
    res = ruptures_search(np.full(100, 1.0), min_size=5)
    assert res.locations == () and "constant" in res.warning_codes
    x = step_signal(1)
    with pytest.raises(ValueError, match="cost"):
        ruptures_search(x, cost="l3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="search"):
        ruptures_search(x, search="dynp")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="penalty"):
        ruptures_search(x, penalty=-1.0)
    with pytest.raises(ValueError, match="jump"):
        ruptures_search(x, jump=0)
