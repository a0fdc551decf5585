"""Per-evaluation ("action") statistics from per-sample ("block") statistics (Boyer).

A sample times ``evals`` consecutive evaluations; its mean divides exactly, its standard
deviation only under independence of the evaluations inside the sample.
"""

from __future__ import annotations

import math

from tsanalyze._result import Finding, Result, result
from tsanalyze._validation import check_positive_int
from tsanalyze.errors import InvalidArgumentError

__all__ = ["ActionStatistics", "action_statistics"]


@result
class ActionStatistics(Result):
    """Per-evaluation ("action") statistics derived from per-sample ("block") ones.

    Attributes
    ----------
    mean, sd : float
        block mean / evals and block sd / sqrt(evals).
    block_mean, block_sd : float
    evals : int
    warnings : tuple of Finding
        Always ``sd-scaled-by-sqrt-evals`` (info), saying what the sd scaling assumes.
    """

    mean: float
    sd: float
    block_mean: float
    block_sd: float
    evals: int
    warnings: tuple[Finding, ...] = ()


def action_statistics(block_mean: float, block_sd: float, evals: int) -> ActionStatistics:
    """Turn statistics of samples of ``evals`` evaluations into per-evaluation ones.

    Parameters
    ----------
    block_mean : float
        Mean time of one sample (after subtracting the timer overhead, Ou 2020).
    block_sd : float
        Standard deviation of the sample times (>= 0).
    evals : int
        Evaluations per sample (>= 1).

    Returns
    -------
    ActionStatistics

    Notes
    -----
    mu_A = mu_B / a and sigma_A = sigma_B / sqrt(a) (Boyer 2008). The mean scaling
    is exact; the sd scaling holds only when the evaluations inside a sample are
    independent and identically distributed, which the result says in its
    ``sd-scaled-by-sqrt-evals`` note. Medians and quantiles do *not* scale this way and
    are not converted.

    References
    ----------
    Boyer, B. (2008). Robust Java benchmarking, Part 2: Statistics and solutions. IBM
    developerWorks; article supplement (block versus action statistics).
    Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
    """
    a = check_positive_int(evals, "evals")
    if not math.isfinite(block_mean):
        raise InvalidArgumentError(f"block_mean: must be finite, got {block_mean!r}")
    if not (math.isfinite(block_sd) and block_sd >= 0):
        raise InvalidArgumentError(f"block_sd: must be finite and >= 0, got {block_sd!r}")
    note = Finding(
        "sd-scaled-by-sqrt-evals",
        f"per-evaluation mean = sample mean / {a}; per-evaluation sd = sample sd / sqrt({a}), "
        "which assumes the evaluations inside a sample are independent and identically "
        "distributed",
        "info",
    )
    return ActionStatistics(
        mean=float(block_mean) / a,
        sd=float(block_sd) / math.sqrt(a),
        block_mean=float(block_mean),
        block_sd=float(block_sd),
        evals=a,
        warnings=(note,),
    )
