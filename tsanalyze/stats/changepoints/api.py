"""One entry point for every change-point method: ``changepoints(x, method=...)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from tsanalyze._typing import ArrayLike
from tsanalyze._validation import as_series_array
from tsanalyze.stats.changepoints._base import ChangePoints
from tsanalyze.stats.changepoints._edm_compat import edm_compat
from tsanalyze.stats.changepoints.edm import edm
from tsanalyze.stats.changepoints.energy import e_divisive
from tsanalyze.stats.changepoints.ruptures_search import ruptures_search

__all__ = ["METHODS", "Method", "changepoints"]

Method = Literal[
    "edm",
    "edm-x",
    "edm-multi",
    "edm-percent",
    "e-divisive",
    "pelt-l1",
    "pelt-l2",
    "pelt-rbf",
    "binseg-l1",
    "binseg-l2",
    "binseg-rbf",
]

_COMPAT = ("edm-x", "edm-multi", "edm-percent")


def _compat(method: str) -> Callable[..., ChangePoints]:
    def run(x: ArrayLike, **kwargs: Any) -> ChangePoints:
        return edm_compat(x, method=method, **kwargs)  # type: ignore[arg-type]

    return run


def _ruptures(search: str, cost: str) -> Callable[..., ChangePoints]:
    def run(x: ArrayLike, **kwargs: Any) -> ChangePoints:
        return ruptures_search(x, search=search, cost=cost, **kwargs)  # type: ignore[arg-type]

    return run


#: method name -> function(x, **options) (explicit registry)
METHODS: dict[str, Callable[..., ChangePoints]] = {
    "edm": edm,
    "edm-x": _compat("edm-x"),
    "edm-multi": _compat("edm-multi"),
    "edm-percent": _compat("edm-percent"),
    "e-divisive": e_divisive,
    "pelt-l1": _ruptures("pelt", "l1"),
    "pelt-l2": _ruptures("pelt", "l2"),
    "pelt-rbf": _ruptures("pelt", "rbf"),
    "binseg-l1": _ruptures("binseg", "l1"),
    "binseg-l2": _ruptures("binseg", "l2"),
    "binseg-rbf": _ruptures("binseg", "rbf"),
}


def changepoints(
    x: ArrayLike,
    method: Method = "edm",
    *,
    min_size: int = 30,
    compat: Literal["breakoutdetection"] | None = None,
    **options: Any,
) -> ChangePoints:
    """Change points of a series (locations, segments with medians and means).

    Parameters
    ----------
    x : array_like
        The series in time order (1-d, finite), e.g. per-evaluation times in ns; values
        must be > 0 (times), except for the ``edm-*`` BreakoutDetection variants, which
        take any finite series.
    method : str
        ``"edm"`` (default): robust E-Divisive with Medians, rank CUSUM binary
        segmentation with a family-wise false-alarm rate ``alpha`` (see
        :func:`tsanalyze.stats.changepoints.edm.edm`).
        ``"edm-x"``, ``"edm-multi"``, ``"edm-percent"``: Twitter BreakoutDetection's
        variants, reproduced exactly (options ``beta``, ``degree``, ``percent``,
        ``nperm``, ``sig_level``, ``rng``, ``engine``; see
        :func:`tsanalyze.stats.changepoints._edm_compat.edm_compat`).
        ``"e-divisive"``: energy distance with permutation tests (changes in spread or
        shape; options ``sig_level``, ``permutations``, ``alpha``, ``rng``).
        ``"pelt-l1"``, ``"pelt-l2"``, ``"pelt-rbf"``, ``"binseg-l1"``, ...: ruptures
        searches with a cost (option ``penalty``).
    min_size : int
        Smallest segment (default 30 samples, as R ``breakout``).
    compat : {"breakoutdetection"}, optional
        Only with the ``edm-*`` variants, which are always BreakoutDetection-compatible;
        given for readability of calls that audit published analyses.
    **options
        Passed to the method.

    Returns
    -------
    ChangePoints
        ``.locations`` (0-based index of the first sample of each new segment),
        ``.segments`` (DataFrame: segment, start, stop, n, median, mean), ``.method``,
        ``.warnings``; ``to_frame()`` gives the segments.

    Notes
    -----
    Cost × search design as in ruptures: every method returns the same result type, so a
    caller can swap methods without changing anything else.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016,
       §III-A. https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] James, N. A., Kejariwal, A., & Matteson, D. S. (2014). Leveraging cloud data to
       mitigate user experience from 'breaking bad'. arXiv:1411.7955.
    .. [3] Matteson, D. S., & James, N. A. (2014). A nonparametric approach for multiple
       change point analysis of multivariate data. JASA 109.
       https://doi.org/10.1080/01621459.2013.849605
    .. [4] Killick, R., Fearnhead, P., & Eckley, I. A. (2012). Optimal detection of
       changepoints with a linear computational cost. JASA 107.
       https://doi.org/10.1080/01621459.2012.737745

    Examples
    --------
    >>> import numpy as np
    >>> x = np.r_[np.full(50, 1.0), np.full(50, 2.0)] + np.random.default_rng(1).normal(0, 0.1, 100)
    >>> changepoints(x).locations
    (50,)
    """
    if method not in METHODS:
        raise ValueError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if compat is not None:
        if compat != "breakoutdetection":
            raise ValueError(f"compat: expected 'breakoutdetection' or None, got {compat!r}")
        if method not in _COMPAT:
            raise ValueError(
                f"compat: 'breakoutdetection' applies to {', '.join(_COMPAT)}, not {method!r}"
            )
    # times, > 0, as at every entry point; the BreakoutDetection variants take any finite
    # series, as BreakoutDetection does (its reference data hold zeros)
    x = as_series_array(x, "x", min_size=0, positive=method not in _COMPAT)
    return METHODS[method](x, min_size=min_size, **options)
