"""Evaluations per sample: the oracle function and Algorithm 1 of Chen, Revels & Edelman.

Standard library only.

References
----------
.. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
   environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §IV.
   arXiv:1608.04295.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tsanalyze.errors import InvalidArgumentError

__all__ = ["EvalsChoice", "check_oracle", "choose_evals", "oracle", "oracle_j"]


def _number(v: object) -> bool:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an int beyond the float range
        return False


def check_oracle(
    tau_prec: float | None,
    tau_acc: float | None,
    a: float | None,
    b: float,
    j_max: int | None,
) -> None:
    """Raise ``ValueError`` naming the parameter when oracle settings are out of range.

    ``tau_prec`` or ``tau_acc`` may be None (not measured yet): what can be checked
    without it is checked.
    """
    for name, v in (("tau_prec", tau_prec), ("tau_acc", tau_acc)):
        if v is not None and not (_number(v) and v > 0):
            raise InvalidArgumentError(f"{name} must be a finite number > 0, got {v!r}")
    if tau_prec is not None and tau_acc is not None:
        if tau_acc < tau_prec:
            raise InvalidArgumentError(f"tau_acc ({tau_acc}) must be >= tau_prec ({tau_prec})")
        if not math.isfinite(tau_acc / tau_prec):
            raise InvalidArgumentError(
                f"tau_acc / tau_prec overflows ({tau_acc!r} / {tau_prec!r}); "
                "the two must be within 1e308 of each other"
            )
    if a is not None and not (_number(a) and a > 0):
        raise InvalidArgumentError(f"a must be a finite number > 0, got {a!r}")
    if a is None and tau_prec is not None and not math.isfinite(0.009 / tau_prec):
        raise InvalidArgumentError(
            f"tau_prec is too small ({tau_prec!r}): the default steepness 0.009 / tau_prec "
            "overflows"
        )
    if not (_number(b) and 0 < b < 1):
        raise InvalidArgumentError(f"b must be in (0, 1), got {b!r}")
    if j_max is not None and (isinstance(j_max, bool) or not isinstance(j_max, int) or j_max < 1):
        raise InvalidArgumentError(f"j_max must be an integer >= 1, got {j_max!r}")


def oracle_j(tau_prec: float, tau_acc: float, j_max: int | None = None) -> int:
    """Return j = ⌈τ_acc / τ_prec⌉ (at least 1, at most ``j_max``): the largest useful evals."""
    check_oracle(tau_prec, tau_acc, None, 0.5, j_max)
    j = max(1, math.ceil(tau_acc / tau_prec - 1e-9))
    return min(j, j_max) if j_max is not None else j


def oracle(
    t: float,
    *,
    tau_prec: float,
    tau_acc: float,
    a: float | None = None,
    b: float = 0.5,
    j_max: int | None = None,
) -> int:
    """The logistic oracle ν(t) of [1]_ (Eq. 11): evaluations per sample for time t.

    Parameters
    ----------
    t : float
        Estimated time of one evaluation (ns, or any unit shared with the taus).
    tau_prec : float
        Timer precision τ_prec (smallest non-zero measurable interval).
    tau_acc : float
        Timer accuracy τ_acc (bound on the error of one measurement), ≥ τ_prec.
    a : float, optional
        Steepness; default ``0.009 / tau_prec`` (the paper's Fig. 5).
    b : float
        Midpoint as a fraction of τ_acc; default 0.5.
    j_max : int, optional
        Cap on j (keeps Algorithm 1 affordable when τ_acc / τ_prec is huge).

    Returns
    -------
    int
        n in {1, …, j}.

    Notes
    -----
    ν(t) = ⌈1 + (j − 1) / (1 + exp(a (t − b τ_acc)))⌉ with j = ⌈τ_acc / τ_prec⌉.
    Deviation: the paper requires ν(t ≥ τ_acc) ≈ 1 but Eq. 11 with the ceiling never
    returns exactly 1 (at t = τ_acc it gives 12 for τ_acc = 1000, τ_prec = 1, a =
    0.009/τ_prec, b = 0.5); we return 1 for every t ≥ τ_acc, which keeps ν
    non-increasing. Non-positive t (a sample faster than the overhead that was
    subtracted) is treated as t = 0.

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §IV-C,
       Eq. 11 and Fig. 5. arXiv:1608.04295.

    Examples
    --------
    >>> oracle(1.0, tau_prec=1.0, tau_acc=1000.0)
    989
    >>> oracle(1000.0, tau_prec=1.0, tau_acc=1000.0)
    1
    """
    check_oracle(tau_prec, tau_acc, a, b, j_max)
    if math.isnan(t):
        raise InvalidArgumentError("t must not be NaN")
    j = oracle_j(tau_prec, tau_acc, j_max)
    if t >= tau_acc or j == 1:
        return 1
    slope = 0.009 / tau_prec if a is None else a
    x = slope * (max(t, 0.0) - b * tau_acc)
    if x > 700.0:  # exp overflows; the fraction is 0
        return 1
    n = math.ceil(1.0 + (j - 1) / (1.0 + math.exp(x)))
    return max(1, min(j, n))


#: Cap on the evaluations the ``min_sample_ns`` floor may ask for (a target measured
#: as taking no time at all gets this many).
MAX_FLOOR_EVALS = 100_000


@dataclass(frozen=True, slots=True)
class EvalsChoice:
    """The outcome of Algorithm 1 for one target.

    Attributes
    ----------
    evals : int
        The chosen evaluations per sample, ν(t̂).
    t_hat_ns : float
        Estimated time of one evaluation, min_i T_i / i.
    j : int
        Upper bound of i (⌈τ_acc/τ_prec⌉, capped at ``j_max``).
    i_measured : int
        How many i were measured (< j when the time limit stopped the loop).
    tau_prec, tau_acc, a, b : float
        Oracle parameters.
    min_sample_ns : float
        Shortest sample asked for (0: none); ``evals`` is raised to
        ``ceil(min_sample_ns / t_hat_ns)`` when the oracle's choice is shorter.
    oracle_evals : int
        What the oracle alone chose, ν(t̂).

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016),
       Algorithm 1. arXiv:1608.04295.
    """

    evals: int
    t_hat_ns: float
    j: int
    i_measured: int
    tau_prec: float
    tau_acc: float
    a: float
    b: float
    min_sample_ns: float = 0.0
    oracle_evals: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return JSON-ready builtins."""
        return {
            "evals": self.evals,
            "t_hat_ns": self.t_hat_ns,
            "j": self.j,
            "i_measured": self.i_measured,
            "tau_prec": self.tau_prec,
            "tau_acc": self.tau_acc,
            "a": self.a,
            "b": self.b,
            "min_sample_ns": self.min_sample_ns,
            "oracle_evals": self.oracle_evals,
        }


def choose_evals(
    measure: Callable[[int], float],
    *,
    tau_prec: float,
    tau_acc: float,
    a: float | None = None,
    b: float = 0.5,
    j_max: int | None = 1000,
    max_time_ns: float = 0.5e9,
    min_sample_ns: float = 0.0,
) -> EvalsChoice:
    """Algorithm 1 of [1]_: evaluations per sample for one target.

    Parameters
    ----------
    measure : callable
        ``measure(i)`` runs ``i`` consecutive evaluations and returns the elapsed time in
        ns (after subtracting the timer overhead).
    tau_prec, tau_acc, a, b, j_max :
        As for :func:`oracle`.
    max_time_ns : float
        Stop increasing i once the measurements have taken this long in total
        (default 0.5 s).
    min_sample_ns : float
        Shortest sample wanted, in ns (default 0: Algorithm 1 alone). When
        ν(t̂) t̂ falls short of it, n = ceil(min_sample_ns / t̂) (at most
        ``MAX_FLOOR_EVALS``).

    Returns
    -------
    EvalsChoice

    Notes
    -----
    For i = 1 … j measure T_i, the time of i evaluations; t̂ = min_i T_i / i; n = ν(t̂).
    Deviation: the paper measures every i up to j (Σ i = j(j+1)/2 evaluations); for slow
    targets we stop once ``max_time_ns`` is spent (recorded as ``i_measured``). Those are
    targets with t̂ far above τ_acc / j, for which further i could only matter if T_i / i
    kept falling. Addition: the ``min_sample_ns`` floor. Algorithm 1 amortises the timer's
    *accuracy* only; :func:`tsanalyze.collector.collect` also asks for samples long
    enough that the clock-read overhead is under 1% of them [2]_, which the
    oracle alone does not ensure (a 0.4 µs function got 1 evaluation and samples whose
    overhead share was 30%).

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §IV-A,
       Algorithm 1. arXiv:1608.04295.
    .. [2] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks.
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """
    check_oracle(tau_prec, tau_acc, a, b, j_max)
    if not max_time_ns > 0:
        raise InvalidArgumentError(f"max_time_ns must be > 0, got {max_time_ns!r}")
    if not (math.isfinite(min_sample_ns) and min_sample_ns >= 0):
        raise InvalidArgumentError(f"min_sample_ns must be a finite number >= 0, got {min_sample_ns!r}")
    j = oracle_j(tau_prec, tau_acc, j_max)
    per_eval: list[float] = []
    spent = 0.0
    i = 0
    for i in range(1, j + 1):
        elapsed = float(measure(i))
        spent += max(elapsed, 0.0)
        per_eval.append(elapsed / i)
        if spent >= max_time_ns:
            break
    t_hat = max(min(per_eval), 0.0)
    slope = 0.009 / tau_prec if a is None else a
    nu = oracle(t_hat, tau_prec=tau_prec, tau_acc=tau_acc, a=slope, b=b, j_max=j_max)
    n = nu
    # the floor uses the larger half of i only: T_i / i of small i carries the whole
    # overhead-subtraction error and can be ~0 for a fast target
    t_long = min(per_eval[len(per_eval) // 2 :])
    if min_sample_ns > 0 and nu * t_long < min_sample_ns:
        floor = MAX_FLOOR_EVALS if t_long <= 0 else math.ceil(min_sample_ns / t_long)
        n = max(nu, min(floor, MAX_FLOOR_EVALS))
    return EvalsChoice(n, t_hat, j, i, tau_prec, tau_acc, slope, b, min_sample_ns, nu)
