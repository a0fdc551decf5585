"""The verdict of a comparison, the samples that could settle it, and re-verdicts after a
multiplicity adjustment.

One rule, used everywhere a comparison is judged: :func:`verdict` (the CI of the relative
change against the noise threshold, and the test's p-value against alpha),
:func:`samples_needed` for an inconclusive verdict, and :func:`adjust_verdicts`, which
adjusts the p-values of a family of comparisons (a suite, or one family of a run set) and
gives each its verdict again from the adjusted p-value.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from scipy import special

from tsanalyze.stats.multiplicity import Adjustment, adjust_pvalues

if TYPE_CHECKING:  # pragma: no cover
    from tsanalyze.analysis.compare.comparison import Comparison

__all__ = ["Verdict", "adjust_verdicts", "decide", "samples_needed", "verdict"]

#: About the candidate ``b`` relative to the baseline ``a``.
Verdict = Literal["faster", "slower", "same", "inconclusive"]

#: z_{0.8}: 80% power for the sample-size rule
_POWER_Z = 0.8416212335729143

C = TypeVar("C", bound="Comparison")


def verdict(
    ci_low: float, ci_high: float, pvalue: float, *, threshold: float = 0.01, alpha: float = 0.05
) -> Verdict:
    """The verdict rule for a ratio CI (candidate / baseline).

    ``faster`` when the CI of the relative change lies wholly below −threshold and
    ``pvalue < alpha``; ``slower`` when it lies wholly above +threshold and the test
    rejects; ``same`` (equivalence) when it lies wholly inside ±threshold; else
    ``inconclusive``. NaN inputs give ``inconclusive``.

    References
    ----------
    zenbench methodology ("CI must fall entirely outside ±noise_threshold"); Li et al.
    (2016), Pilot, MASCOTS 2016, §III-F.
    """
    lo, hi = ci_low - 1.0, ci_high - 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "inconclusive"
    rejects = math.isfinite(pvalue) and pvalue < alpha
    if hi < -threshold and rejects:
        return "faster"
    if lo > threshold and rejects:
        return "slower"
    if lo >= -threshold and hi <= threshold:
        return "same"
    return "inconclusive"


def samples_needed(
    n: int, ratio: float, ci_low: float, ci_high: float, pvalue: float, *, threshold: float,
    alpha: float,
) -> int | None:  # fmt: skip
    """Replicates per side likely to resolve an inconclusive verdict.

    Parameters
    ----------
    n : int
        Replicates per side now (the smaller side).
    ratio, ci_low, ci_high : float
        The ratio and its CI.
    pvalue : float
        The p-value the verdict used (adjusted, in a family).
    threshold, alpha : float
        As in :func:`verdict`.

    Returns
    -------
    int or None
        None when no number of replicates can be predicted (NaN inputs, n < 2, a CI
        centred on a decision boundary, or a p-value of 0 or 1).

    Notes
    -----
    CI rule (Li et al. 2016, §III-E/F): the half-width shrinks as 1/√n, so with half-width h and
    distance g from the CI centre to the nearest decision boundary, n' = ⌈n (h/g)²⌉. When
    the CI already clears the threshold but the test does not reject, the power rule
    n' = ⌈n ((z_{1−α/2} + z_{0.8}) / z_obs)²⌉ is used instead.
    """
    if not all(math.isfinite(v) for v in (ratio, ci_low, ci_high)) or n < 2:
        return None
    lo, hi = ci_low - 1.0, ci_high - 1.0
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    if half <= 0:
        return None
    gap = abs(abs(centre) - threshold)
    resolved_ci = hi < -threshold or lo > threshold
    if resolved_ci:
        if not (math.isfinite(pvalue) and 0 < pvalue < 1):
            return None
        z_obs = float(special.ndtri(1 - pvalue / 2))
        z_need = float(special.ndtri(1 - alpha / 2)) + _POWER_Z
        return max(n + 1, math.ceil(n * (z_need / z_obs) ** 2))
    if gap <= 1e-12 * max(1.0, threshold):
        return None
    return max(n + 1, math.ceil(n * (half / gap) ** 2))


def decide(
    n: int, ratio: float, ci_low: float, ci_high: float, pvalue: float, *, threshold: float,
    alpha: float,
) -> tuple[Verdict, int | None]:  # fmt: skip
    """The verdict and, when it is inconclusive, :func:`samples_needed`."""
    v = verdict(ci_low, ci_high, pvalue, threshold=threshold, alpha=alpha)
    if v != "inconclusive":
        return v, None
    return v, samples_needed(n, ratio, ci_low, ci_high, pvalue, threshold=threshold, alpha=alpha)


def adjust_verdicts(comparisons: Sequence[C], adjust: Adjustment = "holm") -> list[C]:
    """Adjust a family's p-values for multiplicity, then give each comparison its verdict
    (and ``samples_needed``) again from its adjusted p-value.

    Parameters
    ----------
    comparisons : sequence of Comparison
        One family (the benchmarks of a suite; one run's benchmark comparisons).
    adjust : {"holm", "bh", "bonferroni", "none"}
        The adjustment (:func:`tsanalyze.stats.multiplicity.adjust_pvalues`).

    Returns
    -------
    list of Comparison
        Copies (of the same type) with ``pvalue_adjusted``, ``verdict`` and
        ``samples_needed`` set; each keeps its own ``threshold`` and ``alpha``.

    Notes
    -----
    ``faster``/``slower`` then needs the adjusted p-value below alpha, so with Holm the
    probability of any false ``faster``/``slower`` in the family is at most alpha (given
    valid p-values).

    References
    ----------
    Holm (1979), Scand. J. Statist. 6:65–70. Benjamini & Hochberg (1995), JRSS B 57:289–300.
    """
    padj = adjust_pvalues([c.pvalue for c in comparisons], adjust)
    out = []
    for c, pa in zip(comparisons, padj, strict=True):
        p = float(pa) if math.isfinite(pa) else math.nan
        v, needed = decide(
            min(c.n_a, c.n_b), c.ratio, c.ci_low, c.ci_high, p, threshold=c.threshold,
            alpha=c.alpha,
        )  # fmt: skip
        out.append(dataclasses.replace(c, pvalue_adjusted=p, verdict=v, samples_needed=needed))
    return out
