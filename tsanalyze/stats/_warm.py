"""Importing this module compiles the numba kernels of ``stats`` (or loads them from
numba's cache) on tiny inputs, so that a worker process forked after it starts warm."""

from __future__ import annotations

import numpy as np

from tsanalyze.stats import _rowstats, longmemory, two_sample


def _warm() -> None:
    x = np.array([3.0, 1.0, 2.0, 2.0])
    idx = np.array([[0, 1, 2, 3], [3, 3, 0, 1]], dtype=np.int64)
    _rowstats.resampled_median(x, idx)
    draws = np.zeros((1, 4), dtype=np.float32)
    _rowstats.stationary_positions(draws, np.zeros((1, 4), dtype=np.int32), np.float32(0.5), 4)
    _rowstats.stationary_positions(draws, np.zeros((1, 4), dtype=np.int64), np.float32(0.5), 4)
    two_sample.first_at_most(x, x, 0.5, True)  # the Hodges-Lehmann bracket's walk
    longmemory.long_memory(np.arange(40.0) % 7.0)  # both Whittle fits (issue 24)


_warm()
