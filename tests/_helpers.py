"""Helpers shared by test modules (``from _helpers import ...``; ``tests/`` is on the path
because ``tests/conftest.py`` sits there without an ``__init__.py``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tsanalyze.datasets import simulate_series


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
