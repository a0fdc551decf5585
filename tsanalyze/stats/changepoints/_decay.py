"""Where a warm-up ends when it decays into the steady level instead of stepping.

Binary segmentation places a change where the level differs most on the two sides; on a
warm-up that *decays* into the steady level that point lies inside the decay (about two
thirds of the way for a linear one). :func:`decay_rss` fits a straight line down to the
final level, flat after it, y_i = μ + s·(τ − i)₊, for every end τ at once, by least
squares from cumulative sums: O(L).
"""

from __future__ import annotations

import numpy as np

from tsanalyze._typing import Float64Array

__all__ = ["decay_rss"]


def decay_rss(y: Float64Array) -> Float64Array:
    """Residual sum of squares of y_i = μ + s·(τ − i)₊, i = 0..L−1, for τ = 1..L−1
    (element τ − 1)."""
    length = y.size
    i = np.arange(length, dtype=np.float64)
    t = np.arange(1, length, dtype=np.float64)
    c0 = np.cumsum(y)[: length - 1]
    c1 = np.cumsum(i * y)[: length - 1]
    svy = t * c0 - c1  # Σ_{i<τ} (τ − i) y_i
    sv = t * (t + 1.0) / 2.0  # Σ (τ − i)₊
    svv = t * (t + 1.0) * (2.0 * t + 1.0) / 6.0  # Σ (τ − i)₊²
    sy = float(y.sum())
    det = length * svv - sv * sv
    b0 = (svv * sy - sv * svy) / det
    b1 = (length * svy - sv * sy) / det
    out: Float64Array = float(y @ y) - (b0 * sy + b1 * svy)
    return out
