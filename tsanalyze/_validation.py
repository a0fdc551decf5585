"""Input validation shared by the analysis functions (scipy's ``_xxx_iv`` habit).

Every check raises :class:`~tsanalyze.errors.InvalidArgumentError` (a ``ValueError`` and a
``TsanalyzeError``) whose message starts with the parameter's name, so that the CLI can
tell the user's mistake (exit 2) from a bug (exit 3).
"""

from __future__ import annotations

import numbers

import numpy as np

from tsanalyze._typing import ArrayLike, Float64Array, RNGType
from tsanalyze.errors import InvalidArgumentError, NotEnoughData

__all__ = ["as_series_array", "check_confidence_level", "check_positive_int", "check_rng"]


def as_series_array(
    x: ArrayLike, name: str = "x", *, min_size: int = 1, positive: bool = False
) -> Float64Array:
    """Return ``x`` as a contiguous 1-d float64 array, or raise an error naming it.

    Raises
    ------
    InvalidArgumentError
        If ``x`` is not numbers, not 1-d, holds NaN or inf, or (``positive=True``) a
        value <= 0.
    NotEnoughData
        If ``x`` has fewer than ``min_size`` values.
    """
    try:
        arr = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{name}: cannot be read as numbers ({exc})") from None
    if arr.ndim != 1:
        raise InvalidArgumentError(f"{name}: expected a 1-d series, got an array of shape {arr.shape}")
    if arr.size < min_size:
        raise NotEnoughData(f"{name}: needs at least {min_size} value(s), got {arr.size}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidArgumentError(f"{name}: value at index {i} is {float(arr[i])!r}; times must be finite")
    if positive and arr.size and (arr <= 0).any():
        i = int(np.flatnonzero(arr <= 0)[0])
        raise InvalidArgumentError(f"{name}: value at index {i} is {float(arr[i])!r}; times must be > 0")
    return arr


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
