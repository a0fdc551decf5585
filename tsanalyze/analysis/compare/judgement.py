"""BenchmarkTools' ``judge``: the ratio of one estimator (the minimum by default) against a
tolerance, without a test or a CI, for users who want that rule.

BenchmarkTools words its verdicts *improvement*, *regression* and *invariant*; here they
are ``faster``, ``slower`` and ``same``, as in every other comparison of tsanalyze.
"""

from __future__ import annotations

import pandas as pd

from tsanalyze._result import Result, result
from tsanalyze._typing import ArrayLike
from tsanalyze.analysis.compare.comparison import check_location_estimator
from tsanalyze.analysis.compare.sides import as_side
from tsanalyze.analysis.compare.verdicts import Verdict
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.estimators import ESTIMATORS, LocationEstimatorName

__all__ = ["Judgement", "judge"]


@result
class Judgement(Result):
    """BenchmarkTools-style judgement: ratio of an estimator (default the minimum).

    Attributes
    ----------
    estimator : {"median", "min", "mean", "trimmed_mean"}
    estimate_a, estimate_b : float
    ratio : float
        estimate_b / estimate_a.
    tolerance : float
    verdict : {"faster", "slower", "same"}
        ``slower`` if ratio > 1 + tolerance, ``faster`` if ratio < 1 − tolerance, else
        ``same`` (BenchmarkTools: regression, improvement, invariant).
    """

    estimator: LocationEstimatorName
    estimate_a: float
    estimate_b: float
    ratio: float
    tolerance: float
    verdict: Verdict


def judge(
    a: ArrayLike | pd.Series | pd.DataFrame,
    b: ArrayLike | pd.Series | pd.DataFrame,
    tolerance: float = 0.05,
    *,
    estimator: LocationEstimatorName = "min",
    column: str = "time_ns",
) -> Judgement:
    """BenchmarkTools-style ``judge``: the ratio of minimums against a tolerance.

    Parameters
    ----------
    a, b : array_like, Series or DataFrame
        Baseline and candidate times (all samples of one benchmark; runs are pooled).
    tolerance : float
        Relative tolerance (BenchmarkTools ``time_tolerance``, default 5%).
    estimator : {"median", "min", "mean", "trimmed_mean"}
        Estimator whose ratio is judged (``"min"`` as Chen, Revels & Edelman 2016 recommend).
    column : str
        Column holding the times when ``a`` and ``b`` are DataFrames (default
        ``time_ns``, the per-evaluation time after overhead correction).

    Returns
    -------
    Judgement

    Notes
    -----
    ratio = θ(b)/θ(a); ``slower`` if ratio > 1 + tolerance, ``faster`` if
    ratio < 1 − tolerance, else ``same`` (BenchmarkTools calls these ``regression``,
    ``improvement`` and ``invariant``). No test and no CI: use :func:`compare` for a
    statistical verdict.

    References
    ----------
    Chen, J., Revels, J., Edelman, A. (2016). Robust benchmarking in noisy environments.
    HPEC 2016, arXiv:1608.04295 (the minimum as estimator); BenchmarkTools.jl ``judge``/``ratio``.

    Examples
    --------
    >>> judge([100.0, 103.0, 120.0], [108.0, 109.0, 115.0]).verdict
    'slower'
    """
    check_location_estimator(estimator)
    if not (isinstance(tolerance, (int, float)) and 0 <= tolerance < 1):
        raise InvalidArgumentError(f"tolerance: must be in [0, 1), got {tolerance!r}")
    x = as_side(a, "a", column).all_values
    y = as_side(b, "b", column).all_values
    fn = ESTIMATORS[estimator]
    ea, eb = float(fn(x)), float(fn(y))
    if ea <= 0:
        raise InvalidArgumentError(f"a: the {estimator} is {ea}; a ratio needs a positive baseline")
    r = eb / ea
    v: Verdict = "slower" if r > 1 + tolerance else "faster" if r < 1 - tolerance else "same"
    return Judgement(estimator, ea, eb, r, float(tolerance), v)
