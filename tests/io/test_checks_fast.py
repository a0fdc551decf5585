"""The duplicate check's fast path (a bitmap of keys, or a sort when the keys are sparse)
against a direct count of distinct (group, sample) pairs."""

from __future__ import annotations

import numpy as np
import pytest

from tsanalyze.io.checks import _distinct_fast


@pytest.mark.parametrize("spread", [1, 10**6, 10**12])  # bitmap, bitmap, sort
@pytest.mark.parametrize("seed", range(20))
def test_distinct_fast_agrees_with_a_direct_count(spread: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    group = rng.integers(0, 4, n)
    sample = rng.integers(0, max(2, n // 2 if seed % 2 else 4 * n), n) * spread
    want = len(set(zip(group.tolist(), sample.tolist(), strict=True))) == n
    assert _distinct_fast(group.astype(np.int64), sample.astype(np.int64)) is want
