"""Robust default change-point search (``method="edm"``).

E-Divisive with Medians splits a series where the levels on both sides differ most. Its
robust successor here keeps binary segmentation but asks a question that stays honest
when the samples depend on each other:

* delays, spikes and bursts shorter than ``min_size`` are left out first
  (:func:`~._structure.spike_mask`): they carry no information about the level;
* each split is tested with a self-normalised CUSUM (:mod:`._selfnorm`), which compares
  the shift with the fluctuation *within* each side, at every time scale, so a level that
  wanders slowly (long-range or multi-scale dependence, regime switching) does not read as
  a shift; its critical value is read at an upper bound of the Hurst exponent, estimated
  so that a step or a drift does not inflate it;
* what is not a step is named: a steady drift (a straight line explains the movement
  better than steps) and alternating modes (a level that keeps returning to a few values)
  become findings instead of lists of shifts.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from tsanalyze._result import Finding
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.changepoints._base import ChangePoints
from tsanalyze.stats.changepoints._selfnorm import (
    HURST_MAX,
    change_critical_value,
    change_pvalue,
    scan_and_cusum,
)
from tsanalyze.stats.changepoints._structure import (
    find_drift,
    find_modes,
    local_noise,
    spike_mask,
)
from tsanalyze.stats.variance_time import hurst_margin, robust_hurst

__all__ = ["edm"]

#: the drift test runs at this fraction of ``alpha`` (a drift ends the steady state)
_DRIFT_ALPHA_SHARE = 0.2
#: report the left-out samples when more than this share of the series
_MASK_REPORT = 0.05
#: largest trimming m/width the critical values are tabulated for (:mod:`._selfnorm`)
_EPS_MAX = 0.4


def _edm_iv(min_size: int, alpha: float, max_changes: int | None) -> None:
    if isinstance(min_size, bool) or not isinstance(min_size, (int, np.integer)) or min_size < 2:
        raise InvalidArgumentError(f"min_size: must be an integer >= 2, got {min_size!r}")
    if not 0.0 < alpha < 1.0:
        raise InvalidArgumentError(f"alpha: must be strictly between 0 and 1, got {alpha!r}")
    if max_changes is not None and (
        isinstance(max_changes, bool)
        or not isinstance(max_changes, (int, np.integer))
        or max_changes < 0
    ):
        raise InvalidArgumentError(
            f"max_changes: must be None or an integer >= 0, got {max_changes!r}"
        )


def _split(y: Float64Array, m: int) -> tuple[float, int]:
    """Largest standardised self-normalised CUSUM of ``y`` over m ≤ k ≤ L − m, and the
    split: the arg-max of the standardised CUSUM |S_k − (k/L)S_L| / √(λ(1 − λ)), the
    least-squares location of one shift, weighted so that changes near the ends are
    placed as well as central ones."""
    length = y.size
    g, cusum = scan_and_cusum(y)
    stat = float(g[m - 1 : length - m].max())
    lam = np.arange(m, length - m + 1) / length
    k = m + int(np.argmax(np.abs(cusum[m - 1 : length - m]) / np.sqrt(lam * (1.0 - lam))))
    return stat, k


def _intervals(length: int, m: int, depth: int) -> list[tuple[int, int]]:
    """The segment itself and, down to ``depth`` levels, its halves, quarters, … with
    half-length overlaps (seeded intervals, Kovács et al. 2023), each long enough that
    m/width stays within the tabulated trimming (width ≥ 2.5·m, ε ≤ 0.4): on a series
    shorter than 8·m an excursion that leaves the level and comes back (two changes, which
    inflate the self-normaliser of the whole segment) is then still tested half by half."""
    out = [(0, length)]
    for d in range(1, depth):
        width = length >> d
        raised = m > _EPS_MAX * width
        if raised:  # only in place of the halves: deeper levels would repeat a level
            width = math.ceil(m / _EPS_MAX)
            if d > 1 or width >= length:
                break
        step = width // 2
        out.extend((s, s + width) for s in range(0, length - width + 1, step))
        if raised and out[-1][1] < length:  # the raised width does not tile: one more
            out.append((length - width, length))
        if raised:
            break
    return out


def _best_split(
    y: Float64Array, m: int, hurst: float, alpha: float, depth: int
) -> tuple[float, float, int] | None:
    """The split of ``y`` over its seeded intervals (weighted Bonferroni: the whole
    segment at alpha/2, the other intervals share alpha/2): (statistic, p-value,
    location) or None. When the whole segment is significant it is split there; only
    otherwise are the smaller intervals scanned, and the most significant one is used
    (the same rejection region, a quarter of the work on segments with a clear change)."""
    spans = _intervals(int(y.size), m, depth)
    share = 1.0 if len(spans) == 1 else 0.5
    best: tuple[float, float, int, float] | None = None
    for j, (a, b) in enumerate(spans):
        if j == 1 and best is not None:
            break
        weight = share if j == 0 else (1.0 - share) / (len(spans) - 1)
        length = b - a
        eps = m / length
        stat, k = _split(y[a:b], m)
        ratio = stat / change_critical_value(hurst, eps, alpha * weight)
        if ratio > 1.0 and (best is None or ratio > best[3]):
            p = min(1.0, change_pvalue(stat, hurst, eps) / weight)
            best = (stat, p, a + k, ratio)
    return None if best is None else best[:3]


def _percent(v: float) -> str:
    return f"{100.0 * v:+.1f}%"


def edm(
    x: ArrayLike,
    *,
    min_size: int = 30,
    alpha: float = 0.05,
    max_changes: int | None = None,
    depth: int = 2,
) -> ChangePoints:
    """Robust change points of the level: self-normalised binary segmentation that holds
    under dependence, with drift and alternating modes named instead of listed as shifts.

    Parameters
    ----------
    x : array_like
        The series, in time order (1-d, finite).
    min_size : int
        No segment is shorter than this; bursts shorter than this are left out as spikes.
    alpha : float
        Family-wise false-alarm rate on a stationary series: the chance of reporting any
        shift at all when there is none (between 0.001 and 0.2, the range of the tables).
        It holds for independent samples, short-range dependence and long-range
        dependence up to H = 0.99 alike.
    max_changes : int, optional
        Report at most this many changes (the most significant; drift and modes are
        judged on all of them).
    depth : int
        Levels of seeded intervals each segment is tested on (1: the segment only; 2, the
        default: also its halves and its middle half, each test at a Bonferroni share of
        ``alpha``), so that a second change cannot hide the first.

    Returns
    -------
    ChangePoints
        ``method="edm"``; ``statistic`` is the scan statistic of the segment the change was
        found in and ``pvalue`` its approximate p-value from the tables (0.001 stands for
        "0.001 or less", 0.2 for "0.2 or more"). ``drift`` and ``modes`` are set, and
        ``locations`` then holds no shift they explain, when the level drifts or
        alternates; ``params`` records the Hurst exponent used.

    Notes
    -----
    1. *Spikes out.* Samples more than 5 robust sd from the running median over
       2 min_size + 1 samples are left out (:func:`~._structure.spike_mask`); the tests
       below see the remaining samples y in time order.
    2. *Dependence.* H is estimated from the slope of the trimmed Hadamard variance of
       block means of y (:func:`~tsanalyze.stats.variance_time.robust_hurst`: robust to
       steps and linear drift, which the dependence assessment's estimates are not), and H⁺ = min(H + 0.015 + 3.6/√n, 0.99) (its
       bias plus 1.5 standard errors) is used below.
    3. *Search.* Binary segmentation over seeded intervals. A segment of length L is
       tested on itself and (``depth=2``) on its halves and its middle half: on each
       interval the statistic max_{m ≤ k ≤ L'−m} G(k)/(λ(1−λ)), with G the
       self-normalised CUSUM of Shao & Zhang (2010) (:func:`~._selfnorm.sn_change_scan`),
       is compared with c(H⁺, m/L', α_j), the Monte-Carlo quantile of its maximum under
       fractional Gaussian noise; the whole segment gets α_j = α/2 and the three others
       α/6 each (weighted Bonferroni), so that a second change, which inflates the
       self-normaliser of the first on the whole segment, cannot hide it. The smaller
       intervals are never narrower than 2.5 m (m/L' ≤ 0.4, the tables' range): a
       segment shorter than 5 m is tested on three of that width, at its start, middle
       and end, so that an excursion that leaves a short series' level and comes back is
       still found. The split is
       placed at the arg-max of the standardised CUSUM of the whole segment when that is
       significant, else of the most significant smaller interval.
       Because the first scan covers the whole series, the chance of any false shift on
       a stationary series is that of one family of tests, at most α.
    4. *Drift.* When the self-normalised trend statistic exceeds its critical value at
       α/5 and a straight line fits y at least as well as the steps found, the result
       carries a ``drift`` (slope per 1000 samples, total change) and no shifts.
    5. *Modes.* When the running median keeps returning to two levels at least 6
       within-mode spreads apart (two visits each or more), the result carries ``modes``
       (levels, mean sojourns) and the shifts between modes are dropped; a shift from a
       level that is not a mode (a warm-up before the modes start) stays.

    Segment medians and means are computed on all samples, spikes included.

    Deviation from EDM (James et al.): the median-difference statistic with a permutation
    test becomes a self-normalised CUSUM of the spike-free values with tabulated critical
    values, because the permutation null of EDM assumes exchangeable (independent)
    samples and invents shifts wherever the level wanders; the segments are still
    summarised by their medians. The range scaling of BreakoutDetection is dropped.
    Cost: O(n log n) for the running median, O(n) per level of the segmentation.

    References
    ----------
    X. Shao, X. Zhang, "Testing for change points in time series", J. Amer. Statist.
    Assoc. 105 (2010) 1228–1240, doi:10.1198/jasa.2010.tm10103. A. Betken, "Testing for
    change-points in long-range dependent time series by means of a self-normalized
    Wilcoxon test", J. Time Ser. Anal. 37 (2016) 785–809, doi:10.1111/jtsa.12187.
    S. Kovács, P. Bühlmann, H. Li, A. Munk, "Seeded binary segmentation: a general
    methodology for fast and optimal changepoint detection", Biometrika 110 (2023)
    249–256, doi:10.1093/biomet/asac052.
    N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
    experience from 'breaking bad'", arXiv:1411.7955 (2014). T. J. Vogelsang, "Trend
    function hypothesis testing in the presence of serial correlation", Econometrica 66
    (1998) 123–148, doi:10.2307/2998543. D. W. Allan, "Statistics of atomic frequency
    standards", Proc. IEEE 54 (1966) 221–230, doi:10.1109/PROC.1966.4634.

    Examples
    --------
    >>> import numpy as np
    >>> from tsanalyze.datasets import simulate_series
    >>> x = simulate_series(1000, noise="gaussian", phi=0.5, shifts=((500, 0.02),), rng=1).x
    >>> edm(x).locations
    (500,)
    """
    arr = as_series_array(x, "x", min_size=0)
    n = int(arr.size)
    _edm_iv(min_size, alpha, max_changes)
    m = int(min_size)
    params: dict[str, object] = {"min_size": m, "alpha": float(alpha), "max_changes": max_changes}
    warnings: list[Finding] = []

    def result(
        locations: tuple[int, ...] = (),
        statistic: tuple[float, ...] = (),
        pvalue: tuple[float, ...] = (),
        **extra: object,
    ) -> ChangePoints:
        return ChangePoints.of(
            arr,
            "edm",
            locations,
            min_size=m,
            statistic=statistic,
            pvalue=pvalue,
            params=params,
            warnings=warnings,
            **extra,
        )

    if n < 2 * m:
        warnings.append(
            Finding("too-short", f"{n} samples cannot hold two segments of min_size={m}", "info")
        )
        return result()
    keep = spike_mask(arr, m)
    idx = np.flatnonzero(keep)
    y = arr[idx]
    left_out = n - int(idx.size)
    params["left_out"] = left_out
    if left_out > _MASK_REPORT * n:
        warnings.append(
            Finding(
                "spikes-left-out",
                f"{left_out} of {n} samples ({left_out / n:.0%}) lie far from their local "
                "median (delays, spikes or bursts) and were left out of the level tests",
                "info",
            )
        )
    if y.size < 2 * m or float(y.max()) == float(y.min()):
        return result()
    hurst = robust_hurst(y)
    hurst_upper = min(max(hurst + hurst_margin(int(y.size)), 0.5), HURST_MAX)
    params["hurst"] = hurst
    params["hurst_upper"] = hurst_upper
    params["critical_value"] = change_critical_value(hurst_upper, m / y.size, alpha)
    found: dict[int, tuple[float, float]] = {}
    stack = [(0, int(y.size))]
    while stack:
        a, b = stack.pop()
        if b - a < 2 * m:
            continue
        hit = _best_split(y[a:b], m, hurst_upper, alpha, depth)
        if hit is None:
            continue
        stat, p, k = hit
        found[a + k] = (stat, p)
        stack.append((a + k, b))
        stack.append((a, a + k))
    inner = sorted(found)
    drift = find_drift(y, idx, inner, hurst_upper, _DRIFT_ALPHA_SHARE * alpha, n)
    if drift is not None:
        inner = []
        warnings.append(
            Finding(
                "drift",
                f"the level drifts by {_percent(drift.total_change)} over the run "
                f"({_percent(drift.slope_per_1000)} per 1000 samples) instead of stepping",
                "warning",
            )
        )
    noise = local_noise(y, m)
    modes = find_modes(y, idx, m, noise)
    if modes is None and inner:  # a warm-up at its own level before the modes start
        later = find_modes(y[inner[0] :], idx[inner[0] :], m, noise)
        modes = later if later is not None and later.visits[0] + later.visits[1] >= 5 else None
    if modes is not None:
        gap = abs(modes.levels[1] - modes.levels[0])
        bounds = [0, *inner, int(y.size)]
        meds = [float(np.median(y[a:b])) for a, b in itertools.pairwise(bounds)]
        near = [min(abs(v - lv) for lv in modes.levels) <= 0.25 * gap for v in meds]
        inner = [t for j, t in enumerate(inner) if not (near[j] and near[j + 1])]
        warnings.append(modes.finding())
    if max_changes is not None and len(inner) > max_changes:  # keep the strongest
        strongest = sorted(inner, key=lambda t: (found[t][1], -found[t][0]))[: int(max_changes)]
        inner = sorted(strongest)
    locations = tuple(int(idx[t]) for t in inner)
    params["hurst"] = hurst if math.isfinite(hurst) else None
    return result(
        locations,
        tuple(found[t][0] for t in inner),
        tuple(found[t][1] for t in inner),
        drift=drift,
        modes=modes,
    )
