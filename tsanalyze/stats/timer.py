"""Timer checks on sample times: quantisation, precision/accuracy, clock-read overhead.

A timing is only as good as the clock that took it. These primitives look at the raw
elapsed times of samples (``ns`` in the run format: the whole sample, before the
overhead correction) together with what is known of the timer (overhead of a clock-read
pair, precision, accuracy) and say which samples the clock, not the code, dominates.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array
from tsanalyze._units import check_unit, format_time, quote_time
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.timer_limits import ACCURACY_SHARE_LIMIT, OVERHEAD_SHARE_LIMIT, PRECISION_FACTOR

__all__ = [
    "Quantisation",
    "TimerCheck",
    "detect_tick",
    "quantisation",
    "timer_check",
]

# The limits (overhead share, accuracy share, precision factor) are declared once in
# tsanalyze.timer_limits, where the collector reads them too.
#: a sample is timer-dominated when overhead + accuracy make up at least this share
DOMINATED_SHARE = 0.5
#: quantisation (few distinct values, a coarse tick) is judged only from this many samples
#: on: a handful of round numbers always sits on some grid
MIN_QUANTISATION_N = 20


# ----------------------------------------------------------------------- quantisation
@result
class Quantisation(Result):
    """Are the sample times quantised (few distinct values, values on a tick grid)?

    Attributes
    ----------
    n : int
        Number of samples.
    n_distinct : int
        Number of distinct values.
    distinct_fraction : float
        ``n_distinct / n``.
    tick : float or None
        The grid step all values sit on (within ``rtol``), when one was found; ``None``
        when the values are not on a detectable grid.
    tick_share : float or None
        ``tick / median``: the relative size of one quantisation step.
    quantised : bool
        True when few distinct values or a coarse tick make the times quantised.
    warnings : tuple of Finding
        ``"binary-distribution"`` (at most two distinct values, Boyer's case),
        ``"few-distinct-values"``, ``"coarse-tick"``.
    """

    n: int
    n_distinct: int
    distinct_fraction: float
    tick: float | None
    tick_share: float | None
    quantised: bool
    warnings: tuple[Finding, ...] = ()


def detect_tick(x: ArrayLike, *, rtol: float = 1e-6, max_divisor: int = 16) -> float | None:
    """Largest grid step ``q`` such that every value is (nearly) an integer multiple of ``q``.

    Parameters
    ----------
    x : array_like
        Finite values.
    rtol : float
        Tolerance, relative to ``q``, on the distance of each value to the grid.
    max_divisor : int
        The step is searched among ``d / k`` for ``k = 1..max_divisor``, where ``d`` is the
        smallest positive gap between distinct values.

    Returns
    -------
    float or None
        The step, or ``None`` when fewer than two distinct values exist or no step of
        that form fits (continuous data).

    Notes
    -----
    A float generalisation of the gcd: the step must divide the gaps between distinct
    values *and* the values themselves (a grid through 0, as a clock counting ticks
    gives). The search is vectorised over the candidate divisors.
    """
    arr = np.unique(as_series_array(x, "x", min_size=1))
    if arr.size < 2:
        return None
    gaps = np.diff(arr)
    d = float(gaps.min())
    if d <= 0:
        return None
    steps = d / np.arange(1, max_divisor + 1, dtype=np.float64)
    ratios = arr[None, :] / steps[:, None]
    biggest = np.abs(ratios).max(axis=1)
    # float rounding makes very large multiples meaningless as a grid test
    tol = np.maximum(rtol, 8.0 * np.finfo(np.float64).eps * biggest)
    err = np.abs(ratios - np.rint(ratios)).max(axis=1)
    ok = np.flatnonzero((err <= tol) & (biggest <= 1e9))
    if ok.size == 0:
        return None
    return float(steps[int(ok[0])])


def quantisation(
    x: ArrayLike,
    *,
    max_distinct: int = 10,
    tick_share_limit: float = 0.01,
    rtol: float = 1e-6,
    unit: str | None = None,
) -> Quantisation:
    """Detect quantised timings: few distinct values, or values on a coarse tick grid.

    Parameters
    ----------
    x : array_like
        Sample times (any unit), at least one, finite.
    max_distinct : int, default 10
        At most this many distinct values among 20 or more samples counts as "few".
    tick_share_limit : float, default 0.01
        A grid step larger than this share of the median is "coarse": each value is then
        uncertain by more than that share (checked from 20 samples on: a handful of
        round numbers always sits on some grid).
    rtol : float
        Grid tolerance, see :func:`detect_tick`.
    unit : str, optional
        Unit of ``x`` (a name :func:`tsanalyze._units.parse_unit` reads), for the grid
        step the finding quotes; None (default) quotes it as a bare number.

    Returns
    -------
    Quantisation

    Notes
    -----
    Boyer's case [1]_: when the clock's quantum is comparable to the spread, times follow a
    near-binary distribution (half at ``kΔ``, half at ``(k+1)Δ``), and Gaussian CIs are
    too wide while the bootstrap reproduces the two values. A single distinct value
    (constant series) is reported as quantised with no tick.

    References
    ----------
    .. [1] Boyer, B. (2008). Robust Java benchmarking: article supplement (bootstrap vs
       Gaussian CIs when discrete time errors dominate).
       http://www.ellipticgroup.com/misc/article_supplement.pdf
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II,
       timer precision τ_prec. arXiv:1608.04295.

    Examples
    --------
    >>> from tsanalyze.stats.timer import quantisation
    >>> q = quantisation([1000.0, 1015.6] * 30)
    >>> q.n_distinct, q.warning_codes
    (2, ('binary-distribution',))
    """
    arr = as_series_array(x, "x", min_size=1)
    if isinstance(max_distinct, bool) or not isinstance(max_distinct, int) or max_distinct < 1:
        raise InvalidArgumentError(f"max_distinct: must be an integer >= 1, got {max_distinct!r}")
    if not (math.isfinite(tick_share_limit) and tick_share_limit > 0):
        raise InvalidArgumentError(f"tick_share_limit: must be > 0, got {tick_share_limit!r}")
    check_unit(unit)
    n = int(arr.size)
    n_distinct = int(np.unique(arr).size)
    tick = detect_tick(arr, rtol=rtol)
    med = float(np.median(arr))
    tick_share = tick / abs(med) if tick is not None and med != 0 else None
    warnings: list[Finding] = []
    if n >= 2 and n_distinct <= 2:
        warnings.append(
            Finding(
                "binary-distribution",
                f"only {n_distinct} distinct value(s) among {n} samples: the clock's "
                "quantum dominates the spread; prefer bootstrap over Gaussian CIs",
                "warning",
            )
        )
    elif n >= MIN_QUANTISATION_N and n_distinct <= max_distinct:
        warnings.append(
            Finding(
                "few-distinct-values",
                f"only {n_distinct} distinct values among {n} samples: times are quantised",
                "warning",
            )
        )
    if (
        n >= MIN_QUANTISATION_N
        and tick is not None
        and tick_share is not None
        and tick_share > tick_share_limit
    ):
        warnings.append(
            Finding(
                "coarse-tick",
                f"values sit on a grid of step {quote_time(tick, unit)}, "
                f"{100 * tick_share:.3g}% of the "
                "median: each time is uncertain by that much",
                "warning",
            )
        )
    return Quantisation(
        n=n,
        n_distinct=n_distinct,
        distinct_fraction=n_distinct / n,
        tick=tick,
        tick_share=tick_share,
        quantised=bool(warnings) or (n >= 2 and n_distinct == 1),
        warnings=tuple(warnings),
    )


# ----------------------------------------------------------------------- timer check
@result
class TimerCheck(Result):
    """How many samples are too short for the clock that timed them.

    Attributes
    ----------
    n : int
        Number of samples.
    overhead_ns, precision_ns, accuracy_ns : float or None
        The timer properties used (``None`` when unknown; the check is then skipped).
    median_sample_ns : float
        Median raw sample time.
    overhead_share : float or None
        ``overhead_ns / median_sample_ns``: the clock-read pair's share of a typical
        sample: the systematic error before correction (Ou 2020) [1]_.
    max_overhead_share : float or None
        The same for the shortest sample.
    n_overhead : int
        Samples whose overhead share exceeds 1%.
    n_precision : int
        Samples shorter than 1000 timer precisions.
    n_accuracy : int
        Samples whose accuracy error bound exceeds 1% of their time.
    n_dominated : int
        Samples where overhead + accuracy make up at least half the measured time.
    quantisation : Quantisation
        Quantisation of the raw sample times.
    warnings : tuple of Finding
        ``"overhead-share"``, ``"near-precision"``, ``"near-accuracy"``,
        ``"timer-dominated"`` plus the quantisation warnings.

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """

    n: int
    overhead_ns: float | None
    precision_ns: float | None
    accuracy_ns: float | None
    median_sample_ns: float
    overhead_share: float | None
    max_overhead_share: float | None
    n_overhead: int
    n_precision: int
    n_accuracy: int
    n_dominated: int
    quantisation: Quantisation
    warnings: tuple[Finding, ...] = ()

    _headline: ClassVar[tuple[str, ...]] = (
        "n", "overhead_share", "n_overhead", "n_precision", "n_accuracy", "n_dominated",
    )  # fmt: skip


def _opt_nonneg(v: float | None, name: str, *, positive: bool = False) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name}: must be a number or None, got {v!r}") from None
    if math.isnan(f):
        return None
    if not math.isfinite(f) or f < 0 or (positive and f == 0):
        raise InvalidArgumentError(f"{name}: must be finite and {'> 0' if positive else '>= 0'}, got {v!r}")
    return f


def _timer_check_iv(
    sample_ns: ArrayLike,
    overhead_ns: float | None,
    precision_ns: float | None,
    accuracy_ns: float | None,
) -> tuple[Float64Array, float | None, float | None, float | None]:
    arr = as_series_array(sample_ns, "sample_ns", min_size=1)
    if (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise InvalidArgumentError(f"sample_ns: value at index {i} is {arr[i]!r}; times must be >= 0")
    return (
        arr,
        _opt_nonneg(overhead_ns, "overhead_ns"),
        _opt_nonneg(precision_ns, "precision_ns", positive=True),
        _opt_nonneg(accuracy_ns, "accuracy_ns"),
    )


def timer_check(
    sample_ns: ArrayLike,
    *,
    overhead_ns: float | None = None,
    precision_ns: float | None = None,
    accuracy_ns: float | None = None,
    clock_overhead_ns: float | None = None,
) -> TimerCheck:
    """Flag samples whose raw time is too close to the timer's overhead, precision, accuracy.

    Parameters
    ----------
    sample_ns : array_like
        Raw elapsed time of each whole sample in ns (before overhead correction; the
        ``ns`` column of the run format). Zero is allowed (a clock that did not advance).
    overhead_ns : float, optional
        Cost of one clock-read pair in ns (``timer.overhead_ns``).
    precision_ns : float, optional
        Smallest non-zero observable difference (``timer.precision_ns``).
    accuracy_ns : float, optional
        Bound on one measurement's error (``timer.accuracy_ns``).
    clock_overhead_ns : float, optional
        The clock reads' part of ``overhead_ns`` (``timer.clock_overhead_ns``). When it is
        smaller, the rest is a process start-up measured and subtracted for command targets,
        and the overhead message says so instead of blaming the clock.

    Returns
    -------
    TimerCheck

    Notes
    -----
    Per sample of raw time ``T``: overhead share ``o / T`` above 1% (Ou 2020 [1]_: the
    measured time is ``T·N + t``, the systematic error ``t/N`` per evaluation);
    ``T < 1000 τ_prec`` (DESIGN.md: the clock's resolution is more than 0.1% of the
    time); accuracy share ``τ_acc / T`` above 1% (Chen et al. 2016 [2]_: the error ε is
    bounded by ``τ_acc``, amortised only as the sample grows); timer-dominated when
    ``(o + τ_acc) / T >= 0.5``. A zero time counts in every class. Warnings are
    "serious" when timer-dominated samples exceed 10% of the series, else "warning".

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II,
       timer accuracy τ_acc and precision τ_prec. arXiv:1608.04295.
    .. [3] Boyer, B. (2008). Robust Java benchmarking: article supplement (timer
       quantisation). http://www.ellipticgroup.com/misc/article_supplement.pdf

    Examples
    --------
    >>> from tsanalyze.stats.timer import timer_check
    >>> r = timer_check([34.8, 36.0, 35.1, 900.0], overhead_ns=16.0, accuracy_ns=2.0)
    >>> r.n_overhead, r.n_dominated, r.warning_codes[-1]
    (4, 3, 'timer-dominated')
    """
    arr, o, prec, acc = _timer_check_iv(sample_ns, overhead_ns, precision_ns, accuracy_ns)
    n = int(arr.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(arr > 0, 1.0 / np.where(arr > 0, arr, 1.0), np.inf)
    med = float(np.median(arr))
    warnings: list[Finding] = []
    n_over = n_prec = n_acc = n_dom = 0
    share = max_share = None
    if o is not None:
        shares = o * inv if o > 0 else np.zeros(n)
        share = o / med if med > 0 else math.inf
        max_share = float(shares.max())
        n_over = int((shares > OVERHEAD_SHARE_LIMIT).sum())
        what = f"reading the clock (overhead {format_time(o, trim=True)}"
        if clock_overhead_ns is not None and 0 <= clock_overhead_ns < o:
            what = (
                "in the per-sample overhead that is subtracted (starting the process and "
                f"reading the clock, {format_time(o, trim=True)}"
            )
        if n_over:
            warnings.append(
                Finding(
                    "overhead-share",
                    f"{n_over} of {n} samples spend over 1% of their time {what}, "
                    f"{100 * share:.3g}% of the median sample)",
                    "warning",
                )
            )
    if prec is not None:
        n_prec = int((arr < PRECISION_FACTOR * prec).sum())
        if n_prec:
            warnings.append(
                Finding(
                    "near-precision",
                    f"{n_prec} of {n} samples are shorter than 1000 x the timer precision "
                    f"({format_time(prec, trim=True)}): lengthen samples (more evaluations)",
                    "warning",
                )
            )
    if acc is not None:
        n_acc = (
            int(((acc * inv) > ACCURACY_SHARE_LIMIT).sum()) if acc > 0 else int((arr == 0).sum())
        )
        if n_acc:
            warnings.append(
                Finding(
                    "near-accuracy",
                    f"{n_acc} of {n} samples are shorter than 100 x the timer accuracy "
                    f"({format_time(acc, trim=True)}): the clock's error exceeds 1% of them",
                    "warning",
                )
            )
    if o is not None or acc is not None:
        clock = (o or 0.0) + (acc or 0.0)
        n_dom = (
            int(((clock * inv) >= DOMINATED_SHARE).sum()) if clock > 0 else int((arr == 0).sum())
        )
        if n_dom:
            warnings.append(
                Finding(
                    "timer-dominated",
                    f"{n_dom} of {n} samples are timer-dominated: clock overhead plus "
                    f"accuracy ({format_time(clock, trim=True)}) is at least half of the "
                    "measured time",
                    "serious" if n_dom > 0.1 * n else "warning",
                )
            )
    q = quantisation(arr, unit="ns")
    warnings.extend(q.warnings)
    return TimerCheck(
        n=n,
        overhead_ns=o,
        precision_ns=prec,
        accuracy_ns=acc,
        median_sample_ns=med,
        overhead_share=share,
        max_overhead_share=max_share,
        n_overhead=n_over,
        n_precision=n_prec,
        n_accuracy=n_acc,
        n_dominated=n_dom,
        quantisation=q,
        warnings=tuple(warnings),
    )
