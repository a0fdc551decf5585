"""BreakoutDetection-compatible EDM: reference cases, a naive re-implementation, twins."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import tsanalyze
from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.changepoints._edm_compat import edm_compat
from tsanalyze.stats.changepoints._numba import HAVE_NUMBA

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
EDM_REF = SHARED / "data" / "reference" / "edm"


def _reference() -> dict[str, Any]:
    path = EDM_REF / "expected.json"
    if not path.exists():
        pytest.skip(
            f"needs {path} (../shared checkout, present in CI; BreakoutDetection reference "
            "data has no permissive licence, so it is read in place, never copied)"
        )
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _case_data(name: str) -> np.ndarray:
    if name == "constant100":
        return np.ones(100)
    if name == "almost_constant100":
        a = np.ones(100)
        a[50] = 2.0
        return a
    return np.loadtxt(EDM_REF / name)


def _call_kwargs(call: str) -> dict[str, Any]:
    """Translate the R call recorded in expected.json into keyword arguments."""
    found = re.search(r"min\.size=(\d+)", call)
    kw: dict[str, Any] = {"min_size": int(found.group(1)) if found else 30}
    if "amoc" in call:
        kw["method"] = "edm-x"
    elif "percent" in call:
        kw["method"] = "edm-percent"
        kw["percent"] = float(re.search(r"percent=([\d.]+)", call).group(1))  # type: ignore[union-attr]
    else:
        kw["method"] = "edm-multi"
        beta = re.search(r"beta=([\d.]+)", call)
        if beta:
            kw["beta"] = float(beta.group(1))
    degree = re.search(r"degree=(\d)", call)
    if degree:
        kw["degree"] = int(degree.group(1))
    return kw


# ids of the cases in expected.json this mode must reproduce: every EDM-X, multi and
# percent case (the exact=FALSE EDM-tail cases and the Go interval-tree port are optional)
CASE_IDS = [f"edm-{i:02d}" for i in (1, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 18, 19, 20)]
ENGINES = ["python", "numba"] if HAVE_NUMBA else ["python"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_breakoutdetection_reference_cases(case_id: str, engine: str) -> None:
    ref = _reference()
    case = next(c for c in ref["cases"] if c["id"] == case_id)
    assert "exact=FALSE" not in case["call"]
    x = _case_data(case["data"])
    kw = _call_kwargs(case["call"])
    method = kw.pop("method")
    # expected locations: BreakoutDetection R breakout() / its C++ via ankane ports (file)
    res = tsanalyze.changepoints(x, method=method, compat="breakoutdetection", engine=engine, **kw)
    assert list(res.locations) == case["expected"], case["call"]


def test_every_non_tail_case_is_covered() -> None:
    ref = _reference()
    wanted = {
        c["id"]
        for c in ref["cases"]
        if "exact=FALSE" not in c["call"] and not c["call"].startswith("Go stats.EDM(")
    }
    assert wanted == set(CASE_IDS)


# --- an independent naive re-implementation, straight from the formulas -------------


def _g(k: int, degree: int) -> float:
    return [0.0, 1.0, 2.0 * k + 1.0][degree]


def naive_multi(z: np.ndarray, m: int, penalty: float, degree: int, percent: bool) -> list[int]:
    n = z.size
    prev = [0] * (n + 1)
    num = [0] * (n + 1)
    f = [0.0 if percent else -3.0] * (n + 1)
    for s in range(2 * m, n + 1):
        for t in range(m, s - m + 1):
            p = prev[t]
            d = float(np.median(z[p:t])) - float(np.median(z[t:s]))
            norm = float((t - p) * (s - t)) / float((s - p) ** 2)
            cand = f[t] + norm * (d * d) - (0.0 if percent else penalty * _g(num[t], degree))
            if cand > f[s]:
                f[s], prev[s], num[s] = cand, t, num[t] + 1
        if percent and prev[s]:
            ps = prev[s]
            if f[s] - f[ps] < penalty * _g(num[ps], degree) * f[ps]:
                num[s], f[s], prev[s] = num[ps], f[ps], prev[ps]
    out, at = [], n
    while at:
        if prev[at]:
            out.append(prev[at])
        at = prev[at]
    return sorted(out)


def naive_x(z: np.ndarray, m: int) -> tuple[int, float]:
    n = z.size
    best, loc = -3.0, -1
    for t1 in range(m, n - m + 1):
        ml = float(np.median(z[:t1]))
        for t2 in range(t1 + m, n + 1):
            d = ml - float(np.median(z[t1:t2]))
            stat = d * d
            stat *= float(t1) * (t2 - t1) / t2
            if stat > best:
                best, loc = stat, t1
    return loc, best


def _scaled(x: np.ndarray) -> np.ndarray:
    return (x - x.min()) / (x.max() - x.min())


series_strategy = st.lists(st.integers(0, 6), min_size=12, max_size=40).filter(
    lambda v: len(set(v)) > 1
)


@settings(max_examples=40, deadline=None)
@given(v=series_strategy, m=st.integers(2, 5), degree=st.sampled_from([0, 1, 2]))
def test_multi_matches_naive_formula(v: list[int], m: int, degree: int) -> None:
    # integer data: many ties, the hard case for running medians
    x = np.asarray(v, dtype=float)
    res = edm_compat(x, method="edm-multi", min_size=m, beta=0.01, degree=degree, engine="python")
    assert list(res.locations) == naive_multi(_scaled(x), m, 0.01, degree, percent=False)


@settings(max_examples=40, deadline=None)
@given(v=series_strategy, m=st.integers(2, 5), q=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_percent_matches_naive_formula(v: list[int], m: int, q: float) -> None:
    x = np.asarray(v, dtype=float)
    res = edm_compat(x, method="edm-percent", min_size=m, percent=q, engine="python")
    assert list(res.locations) == naive_multi(_scaled(x), m, q, 1, percent=True)


@settings(max_examples=40, deadline=None)
@given(v=series_strategy, m=st.integers(2, 5))
def test_edmx_matches_naive_formula(v: list[int], m: int) -> None:
    x = np.asarray(v, dtype=float)
    res = edm_compat(x, method="edm-x", min_size=m, engine="python")
    loc, best = naive_x(_scaled(x), m)
    assert list(res.locations) == ([loc] if loc >= 0 and best > 0 else [])
    if loc >= 0:
        assert res.statistic[0] == best


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba (extra 'fast') not installed")
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ["edm-x", "edm-multi", "edm-percent"])
def test_numba_twin_identical(seed: int, method: str) -> None:
    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_t(3, 300), 1)  # ties and heavy tails
    x[150:] += 1.5 * (seed % 2)
    kw: dict[str, Any] = {"method": method, "min_size": 10}
    if method == "edm-percent":
        kw["percent"] = 0.3
    a = edm_compat(x, engine="python", **kw)
    b = edm_compat(x, engine="numba", **kw)
    assert a.locations == b.locations
    assert a.statistic == b.statistic


@pytest.mark.parametrize("step", [1, -1])
def test_list_sweep_reads_every_window_median_and_undoes(step: int) -> None:
    from tsanalyze.stats.changepoints._edm_compat import _link, _ranks, _sweep

    rng = np.random.default_rng(11)
    z = np.round(rng.normal(size=41), 1)  # ties
    n, m = z.size, 5
    order, rank = _ranks(z)
    nxt = np.zeros(n + 1, dtype=np.int64)
    prv = np.zeros(n + 1, dtype=np.int64)
    lo, count = _link(order, m, n, nxt, prv)
    assert count == n - m and z[lo] == np.sort(z[m:])[(count - 1) // 2]
    links = nxt.copy(), prv.copy()
    out = np.full(n + 1, np.nan)
    k = n - 2 * m
    if step == 1:  # from the left, as the dynamic programme: out[t] = median(z[t:n])
        got = _sweep(z, rank, nxt, prv, lo, count, m, 1, k, 0, out, True)
        expected = [np.median(z[t:]) for t in range(m, m + k)]
        assert list(out[m : m + k]) == expected
    else:  # from the right, as EDM-X: out[t2] = median(z[m:t2])
        got = _sweep(z, rank, nxt, prv, lo, count, n - 1, -1, k, 1, out, True)
        expected = [np.median(z[m:t2]) for t2 in range(n, n - k, -1)]
        assert list(out[n : n - k : -1]) == expected
    assert got == (lo, count)
    np.testing.assert_array_equal(nxt, links[0])
    np.testing.assert_array_equal(prv, links[1])
    # without undo the deletions stay: the list holds the rest, its median pointer right
    lo2, count2 = _sweep(z, rank, nxt, prv, lo, count, m, 1, 3, 0, out, False)
    assert count2 == count - 3 and z[lo2] == np.sort(z[m + 3 :])[(count2 - 1) // 2]


def test_permutation_test_pvalue_and_seed() -> None:
    rng = np.random.default_rng(3)
    x = np.r_[rng.normal(0, 1, 60), rng.normal(3, 1, 60)]
    res = edm_compat(x, method="edm-x", min_size=10, nperm=49, rng=7)
    # 49 permutations: the smallest attainable p-value is 1/50
    assert res.pvalue == (pytest.approx(1 / 50),)
    assert res.seed == 7
    assert res.locations and abs(res.locations[0] - 60) <= 3
    again = edm_compat(x, method="edm-x", min_size=10, nperm=49, rng=7)
    assert again.pvalue == res.pvalue


def test_permutation_test_drops_change_on_noise() -> None:
    # i.i.d. series are exchangeable, so the permutation p-value (1 + #perm >= observed) /
    # (nperm + 1) is uniform on {1/20, ..., 20/20} with 19 permutations: the change is kept
    # (p <= 0.05) in 1 of 20 series and the p-values spread evenly. 400 series: the kept
    # share lies in [2%, 9%] with probability 0.998 (binomial), and a chi-square test of
    # the 20 p-value cells against uniform must not reject at 0.1%.
    reps = 400
    kept = 0
    cells = np.zeros(20)
    for seed in range(reps):
        x = np.random.default_rng(seed).normal(0, 1, 80)
        res = edm_compat(x, method="edm-x", min_size=10, nperm=19, rng=seed)
        p = res.pvalue[0]
        assert (len(res.locations) == 0) == (p > 0.05)
        kept += len(res.locations)
        cells[round(p * 20) - 1] += 1
    assert 0.02 <= kept / reps <= 0.09
    assert stats.chisquare(cells).pvalue > 0.001


def test_scale_invariance_of_compat() -> None:
    rng = np.random.default_rng(5)
    x = np.r_[rng.normal(0, 1, 50), rng.normal(1, 1, 50)]
    a = edm_compat(x, method="edm-multi", min_size=8)
    b = edm_compat(1e9 + 1e3 * x, method="edm-multi", min_size=8)  # nanosecond-like values
    assert a.locations == b.locations


@pytest.mark.parametrize("x", [[], [1.0], [1.0, 2.0]])
def test_short_series_gives_no_change_with_warning(x: list[float]) -> None:
    res = edm_compat(np.asarray(x), method="edm-multi", min_size=2)
    assert res.locations == ()
    assert "too-short" in res.warning_codes


def test_constant_series() -> None:
    res = edm_compat(np.full(100, 7.0), method="edm-percent", percent=1.0)
    assert res.locations == () and "constant" in res.warning_codes


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_size": 1},
        {"min_size": 2.5},
        {"method": "amoc"},
        {"method": "edm-percent"},
        {"degree": 3},
        {"nperm": -1},
        {"sig_level": 1.0},
        {"engine": "fortran"},
    ],
)
def test_invalid_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs)).split("_")[0]):
        edm_compat(np.arange(50.0), **kwargs)


def test_nan_and_inf_are_rejected() -> None:
    x = np.arange(60.0)
    x[3] = np.nan
    with pytest.raises(ValueError, match="x"):
        edm_compat(x, method="edm-multi")
    x[3] = np.inf
    with pytest.raises(ValueError, match="x"):
        edm_compat(x, method="edm-x")
    assert issubclass(NotEnoughData, ValueError)
