"""The oracle function (seed 000, Eq. 11) and Algorithm 1."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsanalyze.collector.evals import choose_evals, oracle, oracle_j

# seed 000, Fig. 5: tau_acc ~ 1000 ns, tau_prec ~ 1 ns, a = 0.009/tau_prec, b = 0.5
PAPER = {"tau_prec": 1.0, "tau_acc": 1000.0}


def _eq11(t: float, j: int, a: float, b: float, tau_acc: float) -> int:
    # seed 000 Eq. 11 written out independently: Y(t) = ceil(1 + (j-1)/(1+exp(a(t - b tau_acc))))
    return math.ceil(1 + (j - 1) / (1 + math.exp(a * (t - b * tau_acc))))


def test_nu_at_tau_prec_is_about_j() -> None:
    j = oracle_j(**PAPER)
    assert j == 1000
    n = oracle(PAPER["tau_prec"], **PAPER)
    # seed 000 §IV-C: nu(tau_prec) ~ j; Eq. 11 at the Fig. 5 parameters gives 989
    assert n == _eq11(1.0, 1000, 0.009, 0.5, 1000.0)
    assert abs(n - j) / j < 0.02


@pytest.mark.parametrize("t", [1000.0, 1000.5, 2000.0, 1e6, 1e12, math.inf])
def test_nu_is_one_from_tau_acc_on(t: float) -> None:
    assert oracle(t, **PAPER) == 1


@pytest.mark.parametrize("t", [0.5, 10.0, 100.0, 400.0, 500.0, 600.0, 900.0, 999.0])
def test_follows_eq11_below_tau_acc(t: float) -> None:
    assert oracle(t, **PAPER) == _eq11(t, 1000, 0.009, 0.5, 1000.0)


def test_custom_a_b_and_cap() -> None:
    assert oracle(300.0, tau_prec=1.0, tau_acc=1000.0, a=0.02, b=0.4) == _eq11(
        300.0, 1000, 0.02, 0.4, 1000.0
    )
    assert oracle(1.0, tau_prec=1.0, tau_acc=1000.0, j_max=50) <= 50
    assert oracle_j(1.0, 1000.0, j_max=50) == 50
    # tau_acc == tau_prec: j = 1, a single evaluation whatever t
    assert oracle(0.0, tau_prec=5.0, tau_acc=5.0) == 1


def test_non_positive_t_is_treated_as_zero() -> None:
    assert oracle(-10.0, **PAPER) == oracle(0.0, **PAPER)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"tau_prec": 0.0, "tau_acc": 1.0}, "tau_prec"),
        ({"tau_prec": 1.0, "tau_acc": math.nan}, "tau_acc"),
        ({"tau_prec": 2.0, "tau_acc": 1.0}, "tau_acc"),
        ({"tau_prec": 1.0, "tau_acc": 10.0, "b": 1.5}, "b must"),
        ({"tau_prec": 1.0, "tau_acc": 10.0, "a": -1.0}, "a must"),
        ({"tau_prec": 1.0, "tau_acc": 10.0, "j_max": 0}, "j_max"),
    ],
)
def test_invalid_parameters(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        oracle(1.0, **kwargs)  # type: ignore[arg-type]


def test_nan_t_rejected() -> None:
    with pytest.raises(ValueError, match="NaN"):
        oracle(math.nan, **PAPER)


@settings(max_examples=200, deadline=None)
@given(
    t1=st.floats(-1e3, 1e7, allow_nan=False),
    t2=st.floats(-1e3, 1e7, allow_nan=False),
    prec=st.floats(0.01, 100.0),
    ratio=st.floats(1.0, 5000.0),
    b=st.floats(0.05, 0.95),
)
def test_monotone_non_increasing_and_in_range(
    t1: float, t2: float, prec: float, ratio: float, b: float
) -> None:
    acc = prec * ratio
    lo, hi = sorted((t1, t2))
    n_lo = oracle(lo, tau_prec=prec, tau_acc=acc, b=b)
    n_hi = oracle(hi, tau_prec=prec, tau_acc=acc, b=b)
    j = oracle_j(prec, acc)
    assert 1 <= n_hi <= n_lo <= j


# ---------------------------------------------------------------- Algorithm 1
def _fake_target(t_ns: float, overhead_noise: float = 0.0):  # type: ignore[no-untyped-def]
    calls: list[int] = []

    def measure(i: int) -> float:
        calls.append(i)
        # delay model (seed 000): noise only adds time; the i-th measurement gets i*t + noise
        return i * t_ns + overhead_noise * ((i * 7919) % 13) / 13

    return measure, calls


def test_algorithm1_faster_target_gets_more_evals() -> None:
    fast, _ = _fake_target(5.0, overhead_noise=20.0)
    slow, _ = _fake_target(450.0, overhead_noise=20.0)
    very_slow, _ = _fake_target(5000.0, overhead_noise=20.0)
    c_fast = choose_evals(fast, **PAPER)
    c_slow = choose_evals(slow, **PAPER)
    c_vslow = choose_evals(very_slow, **PAPER)
    assert c_fast.evals > c_slow.evals > c_vslow.evals == 1
    # t_hat = min_i T_i / i is the true time here (noise >= 0 and zero at some i)
    assert c_fast.t_hat_ns == pytest.approx(5.0)
    assert c_fast.evals == oracle(5.0, **PAPER)


def test_algorithm1_measures_i_up_to_j() -> None:
    measure, calls = _fake_target(1.0)
    c = choose_evals(measure, tau_prec=1.0, tau_acc=50.0)
    assert calls == list(range(1, 51))
    assert c.j == 50 and c.i_measured == 50


def test_algorithm1_time_limit_stops_early() -> None:
    measure, calls = _fake_target(1e6)  # 1 ms per evaluation
    c = choose_evals(measure, **PAPER, max_time_ns=5e6)
    assert c.i_measured == len(calls) < 1000
    assert c.evals == 1


def test_algorithm1_validation() -> None:
    measure, _ = _fake_target(1.0)
    with pytest.raises(ValueError, match="max_time_ns"):
        choose_evals(measure, **PAPER, max_time_ns=0)


def test_min_sample_floor_raises_evals_to_the_sample_length() -> None:
    # 2 us per evaluation: the paper's oracle gives 1 evaluation (t >= tau_acc);
    # a 20 us floor needs ceil(20000 / 2000) = 10
    measure, _ = _fake_target(2000.0)
    plain = choose_evals(measure, **PAPER)
    floored = choose_evals(measure, **PAPER, min_sample_ns=20_000.0)
    assert plain.evals == plain.oracle_evals == oracle(2000.0, **PAPER) == 1
    assert floored.oracle_evals == 1
    assert floored.evals == math.ceil(20_000 / 2000) == 10
    assert floored.to_dict()["min_sample_ns"] == 20_000.0
    # a floor already met by the oracle's choice changes nothing
    fast, _ = _fake_target(5.0)
    assert choose_evals(fast, **PAPER, min_sample_ns=100.0).evals == oracle(5.0, **PAPER)
    with pytest.raises(ValueError, match="min_sample_ns"):
        choose_evals(measure, **PAPER, min_sample_ns=-1.0)


def test_min_sample_floor_ignores_the_noisy_small_i() -> None:
    # after overhead subtraction T_1 / 1 can be ~0 for a fast target; the floor must use
    # the long measurements (here the true 20 ns), not divide by that ~0
    def measure(i: int) -> float:
        return 0.0 if i <= 3 else 20.0 * i

    c = choose_evals(measure, tau_prec=1.0, tau_acc=50.0, min_sample_ns=10_000.0)
    assert c.t_hat_ns == 0.0 and c.oracle_evals == oracle(0.0, tau_prec=1.0, tau_acc=50.0)
    assert c.evals == 10_000 // 20
