"""The shared input checks (``tsanalyze._validation``): what they accept, what they turn
it into, and that every refusal is an InvalidArgumentError (a ValueError and a
TsanalyzeError) naming the parameter first."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsanalyze._validation import (
    as_series_array,
    check_confidence_level,
    check_positive_int,
    check_rng,
)
from tsanalyze.errors import InvalidArgumentError, NotEnoughData, TsanalyzeError


def _refused(call: object, *args: object, match: str, **kwargs: object) -> InvalidArgumentError:
    with pytest.raises(InvalidArgumentError, match=match) as info:
        call(*args, **kwargs)  # type: ignore[operator]
    assert isinstance(info.value, ValueError) and isinstance(info.value, TsanalyzeError)
    return info.value


# ------------------------------------------------------------------- as_series_array
@pytest.mark.parametrize(
    "x",
    [[1, 2, 3], (1.0, 2.0, 3.0), np.array([1, 2, 3], dtype=np.int32), pd.Series([1.0, 2.0, 3.0])],
)
def test_series_becomes_contiguous_float64(x: object) -> None:
    a = as_series_array(x)
    assert a.dtype == np.float64 and a.ndim == 1 and a.flags.c_contiguous
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])


def test_a_strided_view_is_copied_contiguous() -> None:
    base = np.arange(10.0)
    a = as_series_array(base[::2])
    assert a.flags.c_contiguous and list(a) == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_series_refusals_name_the_parameter_and_the_place() -> None:
    _refused(as_series_array, ["a", "b"], "times", match=r"^times: expected real numbers, got strings")
    _refused(as_series_array, np.ones((2, 3)), match=r"^x: expected a 1-d series.*\(2, 3\)")
    _refused(as_series_array, [1.0, 2.0, np.nan], match=r"^x: value at index 2 is nan")
    _refused(as_series_array, [np.inf, 1.0], match=r"^x: value at index 0 is inf")
    _refused(as_series_array, [1.0, 0.0, -1.0], positive=True, match=r"^x: value at index 1 is 0")
    assert list(as_series_array([1.0, 0.0, -1.0])) == [1.0, 0.0, -1.0]  # only when positive


def test_float64_arrays_get_the_same_checks_and_messages() -> None:
    # issue 24: a 1-d float64 array is cleared by its min and max; whatever they do not
    # clear must still be refused with the message naming the first bad value
    f = np.array
    _refused(as_series_array, f([1.0, 2.0, np.nan]), match=r"^x: value at index 2 is nan")
    _refused(as_series_array, f([1.0, -np.inf]), match=r"^x: value at index 1 is -inf")
    _refused(as_series_array, f([1.0, 2e150]), match=r"^x: value at index 1 is 2e\+150")
    _refused(as_series_array, f([-2e150, 1.0]), match=r"^x: value at index 0 is -2e\+150")
    _refused(as_series_array, f([1.0, 1e-200]), positive=True, match=r"^x: value at index 1 is 1e-200")
    _refused(as_series_array, f([3.0, 0.0]), positive=True, match=r"^x: value at index 1 is 0")
    ok = f([1e-150, 1.0, 1e150])
    assert as_series_array(ok, positive=True) is ok  # no copy of a checked array
    assert as_series_array(f([-1e150, 0.0]))[0] == -1e150


def test_too_few_values_is_not_enough_data() -> None:
    with pytest.raises(NotEnoughData, match=r"^y: needs at least 3 value\(s\), got 2"):
        as_series_array([1.0, 2.0], "y", min_size=3)
    assert as_series_array([], min_size=0).size == 0


# ---------------------------------------------------------- confidence level, ints
@pytest.mark.parametrize("level", [0.5, 0.95, np.float64(0.99), 1e-9])
def test_confidence_levels_inside_zero_one(level: float) -> None:
    assert check_confidence_level(level) == float(level)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, float("nan"), "0.95", None])
def test_confidence_levels_outside_are_refused(level: object) -> None:
    _refused(check_confidence_level, level, match=r"^confidence_level: must be strictly between")
    _refused(check_confidence_level, level, "alpha", match=r"^alpha: ")


@pytest.mark.parametrize("value", [1, 7, np.int64(3)])
def test_positive_ints(value: int) -> None:
    assert (
        check_positive_int(value, "n") == int(value) and type(check_positive_int(value, "n")) is int
    )


@pytest.mark.parametrize("value", [0, -1, 1.0, True, "2", None])
def test_non_positive_or_non_ints_are_refused(value: object) -> None:
    _refused(check_positive_int, value, "jobs", match=r"^jobs: must be an integer >= 1")


def test_minimum_is_respected() -> None:
    assert check_positive_int(64, "grid", minimum=64) == 64
    _refused(check_positive_int, 63, "grid", minimum=64, match=r"^grid: must be an integer >= 64")


# -------------------------------------------------------------------------- rng
def test_int_seed_is_recorded_and_replays() -> None:
    gen, seed = check_rng(42)
    assert seed == 42
    assert gen.random() == np.random.default_rng(42).random()


def test_none_draws_a_fresh_seed_that_replays() -> None:
    gen, seed = check_rng(None)
    assert isinstance(seed, int) and 0 <= seed < 2**32
    assert gen.random() == np.random.default_rng(seed).random()
    assert len({check_rng(None)[1] for _ in range(5)}) > 1  # fresh entropy each time


def test_a_generator_is_used_as_is_and_no_seed_recorded() -> None:
    g = np.random.default_rng(1)
    gen, seed = check_rng(g)
    assert gen is g and seed is None


@pytest.mark.parametrize("rng", [-1, 1.5, True, "7", np.random.RandomState(1)])
def test_other_rngs_are_refused(rng: object) -> None:
    _refused(check_rng, rng, match=r"^rng: expected an int seed >= 0, a numpy Generator or None")


# ------------------------------------------------------------------- issue 18: hostile input
@pytest.mark.parametrize(
    ("x", "match"),
    [
        (np.array([1.0, 2.0]) + 1j, "got complex numbers"),
        (np.array([True, False, True]), "got booleans"),
        (np.arange(3).astype("datetime64[ns]"), "got datetimes"),
        (np.arange(1, 4).astype("timedelta64[ns]"), "got timedeltas"),
        (np.array(["1.5", "2.5"]), "got strings"),
        (np.array([1.0, True], dtype=object), "index 1 is True"),
        (np.array([1.0, "2"], dtype=object), "index 1 is '2'"),
        (np.float64(5.0), "expected a 1-d series, got a single number"),
        (np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False]), "masked array with 1 masked value"),
        (pd.Series([1.0, 2.0]).astype(bool), "got dtype bool"),
        (pd.Series([1 + 1j, 2 + 0j]), "got dtype complex"),
        (np.array([1.0, 1e151]), r"index 1 is 1e\+151; values beyond 1e\+150"),
    ],
)
def test_series_of_the_wrong_kind_are_refused_not_converted(x: object, match: str) -> None:
    # before: complex lost its imaginary part, booleans became 0/1, datetimes their ns
    # counts, strings were parsed, a 0-d value became a series of one, a masked array lost
    # its mask
    _refused(as_series_array, x, match=match)


def test_masked_arrays_without_masked_values_and_nullable_series_are_read() -> None:
    assert list(as_series_array(np.ma.array([1.0, 2.0], mask=[False, False]))) == [1.0, 2.0]
    _refused(as_series_array, pd.Series([1.0, None, 3.0], dtype="Float64"), match="index 1 is nan")
    assert list(as_series_array(np.array([1, 2.5], dtype=object))) == [1.0, 2.5]


ENTRY_POINTS = {
    "estimate": lambda x: __import__("tsanalyze").estimate(x, rng=1),
    "steady_state": lambda x: __import__("tsanalyze").steady_state(x),
    "autocorrelation": lambda x: __import__("tsanalyze").autocorrelation(x),
    "changepoints": lambda x: __import__("tsanalyze").changepoints(x),
    "compare": lambda x: __import__("tsanalyze").compare(x, np.full(40, 100.0) + np.arange(40), rng=1),
    ".tsa.estimate": lambda x: pd.Series(x).tsa.estimate(rng=1),
    ".tsa.steady_state": lambda x: pd.Series(x).tsa.steady_state(),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("bad", [-1096.8, 0.0])
def test_every_entry_point_refuses_times_at_or_below_zero(entry: str, bad: float) -> None:
    # before: estimate gave -1096.8 ns, steady_state, autocorrelation, changepoints and
    # .tsa accepted it silently while compare refused it
    x = np.full(40, 100.0) + np.arange(40)
    x[7] = bad
    with pytest.raises(InvalidArgumentError, match=rf"value at index 7 is {bad!r}; times must be > 0"):
        ENTRY_POINTS[entry](x)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_1e308_scale_data(entry: str) -> None:
    # before: the median of 1e308-scale data was inf with a finite CI
    x = (np.full(40, 1.0) + np.arange(40) / 100) * 1e308
    with pytest.raises(InvalidArgumentError, match="values beyond 1e\\+150"):
        ENTRY_POINTS[entry](x)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_subnormal_scale_data(entry: str) -> None:
    # before: 5e-324-scale times divided by zero in the timer check (RuntimeWarnings, a
    # grid step of 0) while 1e-150-scale ones were fine
    x = (np.full(40, 1.0) + np.arange(40)) * 5e-324
    with pytest.raises(InvalidArgumentError, match="times below 1e-150 underflow"):
        ENTRY_POINTS[entry](x)


def test_small_but_normal_data_gives_the_scaled_estimate() -> None:
    import tsanalyze

    x = np.full(60, 1.0) + np.random.default_rng(1).random(60)
    a, b = tsanalyze.estimate(x, rng=1), tsanalyze.estimate(x * 1e-149, rng=1)
    assert np.allclose([b.estimate, b.ci_low, b.ci_high], np.array([a.estimate, a.ci_low, a.ci_high]) * 1e-149)


def test_large_but_representable_data_gives_finite_estimates() -> None:
    import tsanalyze

    x = (np.full(60, 1.0) + np.random.default_rng(1).random(60)) * 1e149
    e = tsanalyze.estimate(x, rng=1)
    assert np.isfinite([e.estimate, e.ci_low, e.ci_high]).all()
    assert e.ci_low <= e.estimate <= e.ci_high
