"""E-Divisive with Medians exactly as Twitter's BreakoutDetection computes it.

Three variants, restated from the package (DESIGN.md "EDM"): ``edm-x`` (R
``breakout(method='amoc')``, at most one change, with the optional permutation test),
``edm-multi`` (``method='multi'`` with the penalty ``beta``) and ``edm-percent``
(``method='multi', percent=q``). Every variant first rescales the series to [0, 1] by its
minimum and maximum, as R does.

The package keeps running medians in red-black trees and costs O(n² log n) with large
constants (43 s for ``edm-multi`` at n = 10⁴). Here the medians of all windows that share
one end are read off a doubly linked list of the window's samples in rank order: removing
a sample is O(1) and moves the median pointer by at most one place, so one sweep costs
O(n) and the whole search O(n²) with tiny constants. The kernels are compiled with numba
when it is installed; the same source runs as plain Python otherwise (the pure twin that
tests compare against). The arithmetic follows the C++ operation by operation, so ties
between candidate locations are broken the same way.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from tsanalyze._result import Finding
from tsanalyze._typing import ArrayLike, Float64Array, Int64Array, RNGType
from tsanalyze._validation import as_series_array, check_rng
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.changepoints._base import ChangePoints
from tsanalyze.stats.changepoints._numba import HAVE_NUMBA, jit, jitable

__all__ = ["CompatMethod", "edm_compat"]

CompatMethod = Literal["edm-x", "edm-multi", "edm-percent"]
Engine = Literal["auto", "numba", "python"]


@jitable
def _link(
    order: Int64Array, start: int, stop: int, nxt: Int64Array, prv: Int64Array
) -> tuple[int, int]:
    """Link the samples start..stop-1 in rank order into a circular list through the
    sentinel node n = ``order.size`` (``nxt[n]`` is the head, ``prv[n]`` the tail);
    return the lower median's index and the count."""
    n = order.size
    last = n
    count = 0
    target = (stop - start - 1) // 2
    lo = -1
    for k in range(n):
        i = order[k]
        if start <= i < stop:
            nxt[last] = i
            prv[i] = last
            last = i
            if count == target:
                lo = i
            count += 1
    nxt[last] = n
    prv[n] = last
    return lo, count


@jitable
def _sweep(
    z: Float64Array,
    rank: Int64Array,
    nxt: Int64Array,
    prv: Int64Array,
    lo: int,
    count: int,
    first: int,
    step: int,
    k: int,
    shift: int,
    out: Float64Array,
    undo: bool,
) -> tuple[int, int]:
    """Delete the samples first, first + step, ... (k of them) from the list one by one,
    recording before each deletion of sample t the list's median in ``out[t + shift]``;
    then (``undo``) restore them in reverse order (Knuth's dancing links). Returns the
    lower median's index and the count of the list left.

    Removing a sample is O(1) and moves the median pointer ``lo`` at most one place.
    """
    lo0 = lo
    count0 = count
    for i in range(k):
        t = first + i * step
        if count % 2 == 1:
            out[t + shift] = z[lo]
        else:
            out[t + shift] = (z[lo] + z[nxt[lo]]) / 2.0
        pos = (count - 1) // 2
        if rank[t] < rank[lo]:
            q = pos - 1
        elif rank[t] > rank[lo]:
            q = pos
        else:
            lo = nxt[lo]
            q = pos
        nxt[prv[t]] = nxt[t]
        prv[nxt[t]] = prv[t]
        count -= 1
        newpos = (count - 1) // 2
        if newpos > q:
            lo = nxt[lo]
        elif newpos < q:
            lo = prv[lo]
    if not undo:
        return lo, count
    for i in range(k - 1, -1, -1):
        t = first + i * step
        nxt[prv[t]] = t
        prv[nxt[t]] = t
    return lo0, count0


def _edm_dp_py(
    z: Float64Array,
    order: Int64Array,
    rank: Int64Array,
    min_size: int,
    penalty: float,
    degree: int,
    percent_mode: bool,
) -> Int64Array:
    """Penalised dynamic programme of EDM-multi / EDM-percent; returns ``prev``.

    The samples z[m:s] are kept in a doubly linked list in rank order with a pointer
    ``lo`` to the lower median. For each s one sweep (:func:`_sweep`) deletes z[m],
    z[m+1], ... and so reads the medians of z[t:s] for every t; the deletions are then
    undone and z[s] is inserted for the next s. The candidates t are then scored in
    the order the C++ scores them, so ties are broken the same way. The penalty G(k) of
    the k-th change (BreakoutDetection helper.cpp: Const 0, Linear 1, Quadratic 2k+1) is
    tabulated once.

    The list operations stay inside :func:`_sweep`, one call per s: as numba helpers
    called once per candidate t (a deletion, a median read, the penalty) the compiled
    kernels ran 1.3-3.4x slower (edm-multi at 10^4: 1.1 s -> 3.8 s with all three;
    numba 0.68). One sweep per s costs nothing measurable (1.08 -> 1.03 s).
    """
    n = z.size
    m = min_size
    prev = np.zeros(n + 1, dtype=np.int64)
    number = np.zeros(n + 1, dtype=np.int64)
    f_best = np.full(n + 1, 0.0 if percent_mode else -3.0)
    left = np.zeros(n + 1)  # left[t] = median(z[prev[t]:t]), fixed once prev[t] is final
    right = np.zeros(n + 1)  # right[t] = median(z[t:s]) for the current s
    g = np.zeros(n + 1)  # g[k]: the penalty shape G of a prefix with k changes
    if degree == 1:
        g[:] = 1.0
    elif degree == 2:
        g[:] = 2.0 * np.arange(n + 1) + 1.0
    for t in range(m, min(2 * m, n + 1)):
        left[t] = np.median(z[0:t])
    if n < 2 * m:
        return prev
    nxt = np.zeros(n + 1, dtype=np.int64)  # node n is the list's sentinel
    prv = np.zeros(n + 1, dtype=np.int64)
    lo, count = _link(order, m, 2 * m, nxt, prv)  # initial list: z[m:2m]
    for s in range(2 * m, n + 1):
        lo, count = _sweep(z, rank, nxt, prv, lo, count, m, 1, s - 2 * m + 1, 0, right, True)
        for t in range(m, s - m + 1):
            p = prev[t]
            normalize = float((t - p) * (s - t)) / float((s - p) * (s - p))
            d = left[t] - right[t]
            if percent_mode:
                tmp = f_best[t] + normalize * (d * d)
            else:
                tmp = f_best[t] + normalize * (d * d) - penalty * g[number[t]]
            if tmp > f_best[s]:
                number[s] = number[t] + 1
                f_best[s] = tmp
                prev[s] = t
        if percent_mode and prev[s] != 0:
            ps = prev[s]
            if f_best[s] - f_best[ps] < penalty * g[number[ps]] * f_best[ps]:
                number[s] = number[ps]
                f_best[s] = f_best[ps]
                prev[s] = prev[ps]
        left[s] = np.median(z[prev[s] : s])
        if s == n:
            break
        # insert z[s] after its predecessor in rank order among m..s-1 (the sentinel
        # when it is the smallest)
        k = rank[s] - 1
        while k >= 0 and not (m <= order[k] < s):
            k -= 1
        a = order[k] if k >= 0 else n
        b = nxt[a]
        nxt[a] = s
        prv[s] = a
        nxt[s] = b
        prv[b] = s
        pos = (count - 1) // 2
        q = pos + 1 if rank[s] < rank[lo] else pos
        count += 1
        newpos = (count - 1) // 2
        if newpos > q:
            lo = nxt[lo]
        elif newpos < q:
            lo = prv[lo]
    return prev


def _edmx_py(
    z: Float64Array, order: Int64Array, rank: Int64Array, min_size: int
) -> tuple[int, float]:
    """EDM-X search: best (tau1, statistic); tau1 = -1 when no split is possible.

    z[tau1:n] is kept in a linked list in rank order; for each tau1 one sweep
    (:func:`_sweep`) deletes from the right end and so reads the medians of z[tau1:tau2]
    for tau2 = n .. tau1 + m, the deletions are undone, and z[tau1] is deleted for the
    next tau1.
    """
    n = z.size
    m = min_size
    best = -3.0
    t1 = -1
    if n < 2 * m:
        return t1, best
    right = np.zeros(n + 1)  # right[tau2] = median(z[tau1:tau2]) for the current tau1
    nxt = np.zeros(n + 1, dtype=np.int64)  # node n is the list's sentinel
    prv = np.zeros(n + 1, dtype=np.int64)
    lo, count = _link(order, m, n, nxt, prv)
    for tau1 in range(m, n - m + 1):
        med_left = np.median(z[0:tau1])
        # deleting z[tau2 - 1] after reading right[tau2], tau2 = n .. tau1 + m
        lo, count = _sweep(
            z, rank, nxt, prv, lo, count, n - 1, -1, n - tau1 - m + 1, 1, right, True
        )
        for tau2 in range(tau1 + m, n + 1):
            d = med_left - right[tau2]
            stat = d * d
            stat *= float(tau1) * (tau2 - tau1) / tau2
            if stat > best:
                best = stat
                t1 = tau1
        # delete z[tau1] for the next tau1 (the median it records in right[tau1 + 1] is
        # never read: the next sweep starts above it)
        lo, count = _sweep(z, rank, nxt, prv, lo, count, tau1, 1, 1, 1, right, False)
    return t1, best


_edm_dp_nb = jit(_edm_dp_py)
_edmx_nb = jit(_edmx_py)


def _kernels(engine: Engine) -> tuple[object, object]:
    if engine == "python" or (engine == "auto" and not HAVE_NUMBA):
        return _edm_dp_py, _edmx_py
    if engine == "numba" and not HAVE_NUMBA:
        raise InvalidArgumentError(
            "engine: 'numba' requested but numba is not installed (extra 'fast')"
        )
    return _edm_dp_nb, _edmx_nb


def _ranks(z: Float64Array) -> tuple[Int64Array, Int64Array]:
    order = np.argsort(z, kind="stable").astype(np.int64)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size, dtype=np.int64)
    return order, rank


def _edm_compat_iv(
    method: str,
    min_size: int,
    beta: float | None,
    percent: float | None,
    degree: int,
    nperm: int,
    sig_level: float,
    engine: str,
) -> None:
    if method not in ("edm-x", "edm-multi", "edm-percent"):
        raise InvalidArgumentError(
            f"method: expected 'edm-x', 'edm-multi' or 'edm-percent', got {method!r}"
        )
    if isinstance(min_size, bool) or not isinstance(min_size, (int, np.integer)) or min_size < 2:
        raise InvalidArgumentError(
            f"min_size: must be an integer >= 2 (as in R breakout), got {min_size!r}"
        )
    if beta is not None and not np.isfinite(beta):
        raise InvalidArgumentError(f"beta: must be a finite number, got {beta!r}")
    if method == "edm-percent" and (percent is None or not np.isfinite(percent)):
        raise InvalidArgumentError(
            f"percent: method 'edm-percent' needs a finite percent, got {percent!r}"
        )
    if degree not in (0, 1, 2):
        raise InvalidArgumentError(f"degree: must be 0, 1 or 2, got {degree!r}")
    if isinstance(nperm, bool) or not isinstance(nperm, (int, np.integer)) or nperm < 0:
        raise InvalidArgumentError(f"nperm: must be an integer >= 0, got {nperm!r}")
    if not 0.0 < sig_level < 1.0:
        raise InvalidArgumentError(
            f"sig_level: must be strictly between 0 and 1, got {sig_level!r}"
        )
    if engine not in ("auto", "numba", "python"):
        raise InvalidArgumentError(f"engine: expected 'auto', 'numba' or 'python', got {engine!r}")


def edm_compat(
    x: ArrayLike,
    *,
    method: CompatMethod = "edm-multi",
    min_size: int = 30,
    beta: float | None = None,
    percent: float | None = None,
    degree: int = 1,
    nperm: int = 0,
    sig_level: float = 0.05,
    rng: RNGType = None,
    engine: Engine = "auto",
) -> ChangePoints:
    """E-Divisive with Medians, reproducing Twitter's BreakoutDetection ``breakout()``.

    Parameters
    ----------
    x : array_like
        The series (1-d, finite).
    method : {"edm-x", "edm-multi", "edm-percent"}
        ``edm-x`` = ``breakout(method='amoc')`` (exact, at most one change);
        ``edm-multi`` = ``breakout(method='multi', beta=...)``;
        ``edm-percent`` = ``breakout(method='multi', percent=...)``.
    min_size : int
        R ``min.size``: smallest segment (default 30, as in R).
    beta : float, optional
        Penalty per change of ``edm-multi`` (R default 0.008).
    percent : float, optional
        Required relative gain per change of ``edm-percent``.
    degree : {0, 1, 2}
        Penalty shape G: 0 constant 0, 1 linear (constant 1 per change, the R default),
        2 quadratic (2k + 1 for the k-th change).
    nperm : int
        Permutations for the significance test of ``edm-x`` (R ``nperm``; 0 = no test).
    sig_level : float
        Level of that test (R ``sig.lvl``); the change is dropped when p > sig_level.
    rng : int, Generator or None
        Randomness of the permutations; the seed is recorded on the result.
    engine : {"auto", "numba", "python"}
        Compiled kernel (numba, when installed) or its pure-Python twin.

    Returns
    -------
    ChangePoints
        ``compat="breakoutdetection"``; for ``edm-x`` ``statistic`` holds the best
        statistic and ``pvalue`` the permutation p-value when ``nperm > 0``.

    Notes
    -----
    The series is rescaled to z = (x − min) / (max − min). EDM-X maximises
    S(τ, κ) = (med z[0:τ] − med z[τ:κ])² τ(κ − τ)/κ over m ≤ τ ≤ n − m,
    τ + m ≤ κ ≤ n (first maximum wins). EDM-multi solves
    F[s] = max_t F[t] + (t − p)(s − t)/(s − p)² (med z[p:t] − med z[t:s])² − β G(k_t)
    with p = prev[t], F starting at −3; EDM-percent drops β, starts F at 0 and rejects
    the new change when F[s] − F[p] < q G(k_p) F[p]. The permutation p-value is
    (1 + #{perm stat ≥ observed}) / (nperm + 1). As the ports of the package do, a
    constant series gives no change (R would divide by zero), and ``edm-x`` reports no
    change when its best statistic is ≤ 0 (R reports a location regardless).
    For n above about 92,000 the C++ ``int`` products overflow; this implementation
    computes them exactly, so results can differ from the package there.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-A, E-Divisive with Medians to cut warm-up.
       https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] James, N. A., Kejariwal, A., & Matteson, D. S. (2014). Leveraging cloud data to
       mitigate user experience from 'breaking bad'. arXiv:1411.7955.
    .. [3] Twitter's BreakoutDetection R package (``breakout()``),
       github.com/twitter/BreakoutDetection.
    """
    _edm_compat_iv(method, min_size, beta, percent, degree, nperm, sig_level, engine)
    arr = as_series_array(x, "x", min_size=0)
    n = int(arr.size)
    m = int(min_size)
    params: dict[str, object] = {"min_size": m, "degree": degree}
    warnings: list[Finding] = []
    seed: int | None = None
    pvalues: tuple[float, ...] = ()
    stats: tuple[float, ...] = ()
    dp, edmx = _kernels(engine)
    lo, hi = (float(arr.min()), float(arr.max())) if n else (0.0, 0.0)
    if n < 2 * m or not hi > lo:
        code, msg = (
            ("too-short", f"{n} samples cannot hold two segments of min_size={m}")
            if n < 2 * m
            else ("constant", "the series is constant; it has no change point")
        )
        warnings.append(Finding(code, msg, "info"))
        return ChangePoints.of(
            arr,
            method,
            (),
            min_size=m,
            compat="breakoutdetection",
            params=params,
            warnings=warnings,
        )
    if dp is _edm_dp_py and n > 2000:
        warnings.append(
            Finding(
                "pure-python-kernel",
                f"numba is not installed (extra 'fast'): the O(n²) search on {n} samples runs "
                "as plain Python and can take minutes",
                "info",
            )
        )
    z = (arr - lo) / (hi - lo)
    order, rank = _ranks(z)
    locations: tuple[int, ...]
    if method == "edm-x":
        params.update(nperm=nperm, sig_level=sig_level)
        t1, best = edmx(z, order, rank, m)  # type: ignore[operator]
        stats = (float(best),)
        locations = (int(t1),) if t1 >= 0 and best > 0 else ()
        if nperm > 0:
            gen, seed = check_rng(rng)
            over = 1
            zp = z.copy()
            for _ in range(nperm):
                zp = gen.permutation(zp)
                o, r = _ranks(zp)
                _, stat = edmx(zp, o, r, m)  # type: ignore[operator]
                over += stat >= best
            pval = over / (nperm + 1)
            pvalues = (float(pval),)
            if pval > sig_level:
                locations = ()
    else:
        percent_mode = method == "edm-percent"
        penalty = float(percent) if percent_mode else abs(0.008 if beta is None else beta)  # type: ignore[arg-type]
        params["percent" if percent_mode else "beta"] = penalty
        prev = dp(z, order, rank, m, penalty, degree, percent_mode)  # type: ignore[operator]
        out = []
        at = n
        while at:
            if prev[at]:
                out.append(int(prev[at]))
            at = int(prev[at])
        locations = tuple(sorted(out))
    return ChangePoints.of(
        arr,
        method,
        locations,
        min_size=m,
        statistic=stats,
        pvalue=pvalues,
        compat="breakoutdetection",
        params=params,
        seed=seed,
        warnings=warnings,
    )
