"""Comparisons of series whose dependence subsession means cannot handle (issue 20).

The unpaired and paired designs test block means of Pilot's subsession size and
bootstrap the ratio with blocks calibrated to the subsession variance: honest under
short-range dependence. Under long-range dependence, regime switching, variance at large
scales that the subsession blocks miss, or a series too short for its dependence (:func:`tsanalyze.stats.dependence.assess_dependence`) they are
far too confident. Then the comparison is made from the two sides' own honest intervals
(:func:`tsanalyze.estimate` with the same assessments): the ratio's interval combines
them on the log scale and the test is read from it, so the verdict can be no more
confident than each side's interval allows; a side without an honest interval makes the
comparison inconclusive.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from tsanalyze._result import Finding
from tsanalyze._typing import Float64Array
from tsanalyze.stats import two_sample as ts
from tsanalyze.stats.dependence import Dependence, assess_dependence
from tsanalyze.stats.estimators import estimate

__all__ = ["Dependence", "assess_dependence", "assess_sides", "handled_by_blocks", "side_intervals"]


def handled_by_blocks(dep: Dependence) -> bool:
    """True when subsession (block) means are honest for this series: independent or
    short-range dependence with an interval, no regime switching, and no variance at
    large scales that the subsession blocks miss (``dep.large_scale``)."""
    return (
        dep.supports_interval
        and dep.hurst == 0.5
        and dep.kind != "regime-switching"
        and not dep.large_scale
    )


def assess_sides(
    x: Float64Array, y: Float64Array, threshold: float
) -> tuple[Dependence, Dependence]:
    """The dependence assessment of each side (the one :func:`tsanalyze.estimate` uses)."""
    return assess_dependence(x, threshold=threshold), assess_dependence(y, threshold=threshold)


def side_intervals(
    x: Float64Array,
    y: Float64Array,
    deps: tuple[Dependence, Dependence],
    estimator: str,
    level: float,
    gen: np.random.Generator,
    label: tuple[str, str] = ("a", "b"),
) -> dict[str, object]:
    """Ratio CI and test from the two sides' own intervals (fields of an ``Outcome``).

    Each side's interval [lo_i, hi_i] (from :func:`tsanalyze.estimate` under its
    assessment) gives a log-scale half-width h_i = (log hi_i - log lo_i) / 2; the ratio's
    interval is exp(log(theta_b / theta_a) ± sqrt(h_a^2 + h_b^2)), and the test statistic
    z = log(theta_b / theta_a) / se with se = sqrt(h_a^2 + h_b^2) / z_(1 - alpha/2), so
    that the test rejects at 1 - level exactly when the interval excludes 1. Adding the
    squared half-widths (each already holding its own t quantile) is conservative for
    independent sides, and for positively correlated sides of a paired run.
    """
    z = float(special.ndtri(0.5 + level / 2))
    findings: list[Finding] = []
    ests, halves = [], []
    for v, dep, side in zip((x, y), deps, label, strict=True):
        e = estimate(
            v, estimator, confidence_level=level, rng=gen, tick=None, dependence=dep,  # type: ignore[arg-type]
            unit="ns",  # the sides' times (ns), for the levels their findings quote
        )  # fmt: skip
        findings += [
            Finding(f.code, f"{side}: {f.message}", f.severity) for f in e.warnings
        ]
        ests.append(e.estimate)
        ok = e.ci_low > 0 and e.ci_high > 0 and math.isfinite(e.ci_low + e.ci_high)
        halves.append((math.log(e.ci_high) - math.log(e.ci_low)) / 2 if ok else math.inf)
    est_a, est_b = float(ests[0]), float(ests[1])
    if not (est_a > 0 and est_b > 0):
        lo = hi = se_log = stat = math.nan
        p = math.nan
    elif not all(math.isfinite(h) for h in halves):
        lo, hi, se_log, stat, p = 0.0, math.inf, math.inf, 0.0, 1.0
        findings.append(
            Finding(
                "comparison-unbounded",
                "one side has no honest interval (see its findings), so neither can the "
                "ratio: the comparison is inconclusive whatever the estimates say",
                "serious",
            )
        )
    else:
        half = math.hypot(halves[0], halves[1])
        r = math.log(est_b / est_a)
        lo, hi = math.exp(r - half), math.exp(r + half)
        se_log = half / z
        stat = r / se_log if se_log > 0 else math.nan
        p = float(2.0 * special.ndtr(-abs(stat))) if math.isfinite(stat) else math.nan
    return {
        "estimate_a": est_a,
        "estimate_b": est_b,
        "ratio": est_b / est_a if est_a > 0 else math.nan,
        "ci_low": float(lo),
        "ci_high": float(hi),
        "se_log": float(se_log),
        "ci_method": "dependence-combined",
        "test": "z-log-ratio",
        "statistic": float(stat),
        "pvalue": float(p),
        "findings": findings,
        "effect_size": ts.cohens_d(x, y),
    }
