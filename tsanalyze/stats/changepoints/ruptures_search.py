"""PELT and binary segmentation (Binseg) searches through ruptures, with the l1, l2 and rbf
costs: :func:`ruptures_search`."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from tsanalyze._result import Finding
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.changepoints._base import ChangePoints
from tsanalyze.stats.robust_scale import robust_sd

__all__ = ["Cost", "Search", "default_penalty", "ruptures_search"]

Cost = Literal["l1", "l2", "rbf"]
Search = Literal["pelt", "binseg"]
_COSTS: tuple[str, ...] = ("l1", "l2", "rbf")
_SEARCHES: tuple[str, ...] = ("pelt", "binseg")


def robust_noise_sd(x: Float64Array) -> float:
    """Noise standard deviation from the MAD of first differences / √2 (insensitive to
    level shifts and spikes)."""
    if x.size < 3:
        return 0.0
    d = np.diff(x)
    return robust_sd(d) / math.sqrt(2.0)


def default_penalty(x: Float64Array, cost: Cost) -> float:
    """BIC-type penalty per change in the units of the cost.

    l2: 2 σ̂² log n (Yao's Gaussian BIC); l1: 2 · E|Z| σ̂ log n = 2 √(2/π) σ̂ log n;
    rbf: log n (the kernel cost is unitless). σ̂ = :func:`robust_noise_sd`.
    """
    n = max(x.size, 2)
    sd = robust_noise_sd(x)
    if cost == "l2":
        return 2.0 * sd * sd * math.log(n)
    if cost == "l1":
        return 2.0 * math.sqrt(2.0 / math.pi) * sd * math.log(n)
    return math.log(n)


def _ruptures_iv(cost: str, search: str, min_size: int, penalty: float | None) -> None:
    if cost not in _COSTS:
        raise InvalidArgumentError(f"cost: expected one of {', '.join(_COSTS)}, got {cost!r}")
    if search not in _SEARCHES:
        raise InvalidArgumentError(
            f"search: expected one of {', '.join(_SEARCHES)}, got {search!r}"
        )
    if isinstance(min_size, bool) or not isinstance(min_size, (int, np.integer)) or min_size < 2:
        raise InvalidArgumentError(f"min_size: must be an integer >= 2, got {min_size!r}")
    if penalty is not None and not (np.isfinite(penalty) and penalty > 0):
        raise InvalidArgumentError(f"penalty: must be a finite number > 0, got {penalty!r}")


def ruptures_search(
    x: ArrayLike,
    *,
    search: Search = "pelt",
    cost: Cost = "l2",
    min_size: int = 30,
    penalty: float | None = None,
    jump: int = 1,
) -> ChangePoints:
    """Penalised change points by PELT or binary segmentation (ruptures).

    Parameters
    ----------
    x : array_like
        The series, in time order (1-d, finite).
    search : {"pelt", "binseg"}
        Exact penalised search (PELT, Killick et al. 2012) or binary segmentation.
    cost : {"l1", "l2", "rbf"}
        Segment cost: l2 (change in mean), l1 (change in median), rbf (change in
        distribution, Gaussian kernel).
    min_size : int
        Smallest segment.
    penalty : float, optional
        Penalty per change in the units of the cost; default :func:`default_penalty`.
    jump : int
        Only every ``jump``-th sample is a candidate location (ruptures ``jump``; 1 = all).
        ruptures' PELT is pure Python and O(n²) in the worst case (about 8 s at n = 1000),
        so raise ``jump`` for long series.

    Returns
    -------
    ChangePoints
        ``method="pelt-<cost>"`` or ``"binseg-<cost>"``; ``params["penalty"]`` holds the
        penalty used.

    Notes
    -----
    Minimises Σ_segments cost(segment) + penalty · #changes. The default penalties are
    BIC-type and assume independent samples; they carry no calibrated false-alarm rate on heavy-tailed or autocorrelated data (use
    ``method="edm"`` for that).

    References
    ----------
    R. Killick, P. Fearnhead, I. A. Eckley, "Optimal detection of changepoints with a
    linear computational cost", JASA 107 (2012), doi:10.1080/01621459.2012.737745;
    C. Truong, L. Oudre, N. Vayatis, "Selective review of offline change point detection
    methods", Signal Processing 167 (2020), doi:10.1016/j.sigpro.2019.107299 (ruptures).
    """
    import ruptures as rpt

    _ruptures_iv(cost, search, min_size, penalty)
    if isinstance(jump, bool) or not isinstance(jump, (int, np.integer)) or jump < 1:
        raise InvalidArgumentError(f"jump: must be an integer >= 1, got {jump!r}")
    arr = as_series_array(x, "x", min_size=0)
    n = int(arr.size)
    m = int(min_size)
    pen = default_penalty(arr, cost) if penalty is None else float(penalty)
    method = f"{search}-{cost}"
    params = {"min_size": m, "penalty": pen, "cost": cost, "search": search, "jump": jump}
    warnings: list[Finding] = []
    locations: list[int] = []
    if n < 2 * m:
        warnings.append(
            Finding("too-short", f"{n} samples cannot hold two segments of min_size={m}", "info")
        )
    elif pen > 0 and np.ptp(arr) > 0:
        algo_cls = rpt.Pelt if search == "pelt" else rpt.Binseg
        algo = algo_cls(model=cost, min_size=m, jump=jump).fit(arr.reshape(-1, 1))
        locations = [int(b) for b in algo.predict(pen=pen) if b < n]
    elif not np.ptp(arr) > 0:
        warnings.append(
            Finding("constant", "the series is constant; it has no change point", "info")
        )
    return ChangePoints.of(arr, method, locations, min_size=m, params=params, warnings=warnings)
