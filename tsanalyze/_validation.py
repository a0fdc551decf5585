"""Input validation shared by the analysis functions (scipy's ``_xxx_iv`` habit).

Every check raises :class:`~tsanalyze.errors.InvalidArgumentError` (a ``ValueError`` and a
``TsanalyzeError``) whose message starts with the parameter's name, so that the CLI can
tell the user's mistake (exit 2) from a bug (exit 3).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze.errors import InvalidArgumentError, NotEnoughData

__all__ = [
    "MAX_MAGNITUDE",
    "MIN_MAGNITUDE",
    "as_series_array",
    "as_times",
    "check_confidence_level",
    "check_positive_int",
    "check_rng",
    "real_numbers",
]


#: Largest magnitude a series may hold: squares and sums of n values stay finite in float64
#: (an estimate of inf with a finite CI came from 1e308-scale data). Timings in any unit
#: are far below it; rescale anything that is not.
MAX_MAGNITUDE = 1e150
#: Smallest time a series of times may hold: below it squares and ratios reach
#: subnormal floats and zero (divisions by zero on 5e-324-scale data).
MIN_MAGNITUDE = 1e-150


def real_numbers(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a numpy array of real numbers (any shape, missing values as NaN), or an
    error naming it: booleans, complex numbers, datetimes, strings and masked values are
    refused rather than converted."""
    if isinstance(x, np.ma.MaskedArray):
        masked = np.ma.getmaskarray(x)
        if masked.any():
            raise InvalidArgumentError(
                f"{name}: a masked array with {int(masked.sum())} masked value(s) (first at "
                f"index {int(np.flatnonzero(masked)[0])}); drop them with x.compressed() (the "
                "series then has gaps in its time order) or fill them"
            )
        x = np.ma.getdata(x)
    dtype: Any = getattr(x, "dtype", None)
    if isinstance(x, (pd.Series, pd.Index)) or isinstance(dtype, pd.api.extensions.ExtensionDtype):
        if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_complex_dtype(dtype) or not (
            pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_object_dtype(dtype)
        ):
            raise InvalidArgumentError(f"{name}: expected real numbers, got dtype {dtype}")
        if not pd.api.types.is_object_dtype(dtype):
            x = pd.array(x).to_numpy(dtype=np.float64, na_value=np.nan)  # type: ignore[arg-type]
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{name}: cannot be read as numbers ({exc})") from None
    kind = arr.dtype.kind
    what = {
        "b": "booleans",
        "c": "complex numbers",
        "M": "datetimes",
        "m": "timedeltas (convert them first, e.g. x / np.timedelta64(1, 'ns'))",
        "U": "strings",
        "S": "bytes",
        "V": "structured records",
    }.get(kind)
    if what is not None:
        raise InvalidArgumentError(f"{name}: expected real numbers, got {what}")
    if kind == "O":
        flat = arr.ravel()
        for i, v in enumerate(flat):
            if v is None or v is pd.NA:
                continue  # missing: becomes NaN, refused below with its index
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise InvalidArgumentError(
                    f"{name}: value at index {i} is {v!r:.60}; expected a real number"
                )
        arr = np.asarray([np.nan if v is None or v is pd.NA else v for v in flat], dtype=np.float64).reshape(arr.shape)
    return arr


def as_series_array(
    x: ArrayLike, name: str = "x", *, min_size: int = 1, positive: bool = False
) -> Float64Array:
    """Return ``x`` as a contiguous 1-d float64 array, or raise an error naming it.

    The one check of series input for every entry point (the functions of
    :mod:`tsanalyze.stats`, :mod:`tsanalyze.analysis` and the ``.tsa`` accessor).

    Raises
    ------
    InvalidArgumentError
        If ``x`` is not real numbers (booleans, complex numbers, datetimes, strings and
        masked arrays with masked values are refused, not converted), not 1-d (a single
        number included), holds NaN or inf or a value beyond :data:`MAX_MAGNITUDE`, or
        (``positive=True``, times) a value <= 0 or below :data:`MIN_MAGNITUDE`.
    NotEnoughData
        If ``x`` has fewer than ``min_size`` values.
    """
    if type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == 1 and x.size >= max(min_size, 1):
        # issue 24: the series a report passes from function to function, checked with
        # two reductions; anything they do not clear gets the checks below and their message
        arr = np.ascontiguousarray(x)
        lo, hi = float(arr.min()), float(arr.max())
        if (lo >= MIN_MAGNITUDE if positive else lo >= -MAX_MAGNITUDE) and hi <= MAX_MAGNITUDE:
            return arr  # NaN fails both comparisons, inf the bounds
    raw = real_numbers(x, name)
    if raw.ndim != 1:
        got = "a single number" if raw.ndim == 0 else f"an array of shape {raw.shape}"
        raise InvalidArgumentError(f"{name}: expected a 1-d series, got {got}")
    try:
        arr = np.ascontiguousarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidArgumentError(f"{name}: cannot be read as numbers ({exc})") from None
    if arr.size < min_size:
        raise NotEnoughData(f"{name}: needs at least {min_size} value(s), got {arr.size}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidArgumentError(f"{name}: value at index {i} is {float(arr[i])!r}; times must be finite")
    big = np.abs(arr) > MAX_MAGNITUDE
    if big.any():
        i = int(np.flatnonzero(big)[0])
        raise InvalidArgumentError(
            f"{name}: value at index {i} is {float(arr[i])!r}; values beyond {MAX_MAGNITUDE:g} "
            "overflow the arithmetic of the estimates (rescale, e.g. to seconds)"
        )
    tiny = (arr < MIN_MAGNITUDE) & (arr > 0) if positive else None
    if tiny is not None and tiny.any():
        i = int(np.flatnonzero(tiny)[0])
        raise InvalidArgumentError(
            f"{name}: value at index {i} is {float(arr[i])!r}; times below {MIN_MAGNITUDE:g} "
            "underflow the arithmetic of the estimates (rescale, e.g. to nanoseconds)"
        )
    if positive and arr.size and (arr <= 0).any():
        i = int(np.flatnonzero(arr <= 0)[0])
        raise InvalidArgumentError(f"{name}: value at index {i} is {float(arr[i])!r}; times must be > 0")
    return arr


def as_times(x: ArrayLike, name: str = "x", *, min_size: int = 1) -> Float64Array:
    """:func:`as_series_array` for times: every value finite and > 0 (what ``estimate``,
    ``steady_state``, ``autocorrelation``, ``changepoints``, ``compare`` and ``.tsa``
    take)."""
    return as_series_array(x, name, min_size=min_size, positive=True)


def check_confidence_level(confidence_level: float, name: str = "confidence_level") -> float:
    """Check 0 < confidence_level < 1."""
    if not isinstance(confidence_level, numbers.Real) or not 0.0 < float(confidence_level) < 1.0:
        raise InvalidArgumentError(f"{name}: must be strictly between 0 and 1, got {confidence_level!r}")
    return float(confidence_level)


def check_positive_int(value: object, name: str, *, minimum: int = 1) -> int:
    """Check that ``value`` is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise InvalidArgumentError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_rng(rng: RNGType, name: str = "rng") -> tuple[np.random.Generator, int | None]:
    """Turn ``rng`` into a Generator plus the integer seed to record on the result.

    An int seeds a new PCG64 generator and is recorded; a Generator is used as is (its
    seed cannot be recovered, so ``None`` is recorded); ``None`` draws a fresh seed from
    OS entropy and records it, so every result can be replayed.
    """
    if rng is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
        return np.random.default_rng(seed), seed
    if isinstance(rng, np.random.Generator):
        return rng, None
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and int(rng) >= 0:
        return np.random.default_rng(int(rng)), int(rng)
    raise InvalidArgumentError(f"{name}: expected an int seed >= 0, a numpy Generator or None, got {rng!r}")
