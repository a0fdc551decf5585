"""The dependence assessment's findings in words (:mod:`tsanalyze.stats.dependence`).

Each kind of dependence gets one sentence that says what was measured (lag 1, the
correlation time, the Hurst exponent and where it came from, the regimes' levels) and
what the interval does about it; a ``serious`` finding when the series cannot support an
honest narrow interval (long-range dependence that the interval rests on, regime
switching, too short for its dependence).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from tsanalyze._result import Finding
from tsanalyze._units import format_times, quote_pvalue
from tsanalyze.stats.longmemory import LONG_MEMORY_ALPHA, MIN_N_LONG_MEMORY

if TYPE_CHECKING:
    from tsanalyze.stats.dependence import Dependence
    from tsanalyze.stats.regimes import Regimes

__all__ = ["dependence_findings", "regime_finding"]


def regime_finding(reg: Regimes, unit: str | None) -> Finding:
    """The ``regime-switching`` finding, its levels quoted in ``unit`` (bare when None)."""
    # levels seen only in block means (they overlap in the samples): say so
    where, what = (
        (f" (seen in means of {reg.block_size} samples; they overlap in the samples)", "blocks")
        if reg.block_size > 1
        else ("", "samples")
    )
    return Finding(
        "regime-switching",
        f"the series switches between {reg.n_modes} levels ({format_times(reg.locations, unit)})"
        f"{where} and stays on one side for {reg.mean_sojourn:.0f} samples on average "
        f"({reg.n_runs} stretches in {reg.n} samples; ~{reg.expected_runs:.0f} if the {what} "
        "were independent): one location number hides the modes, and the interval needs "
        "many switches to be honest",
        "serious",
    )


def dependence_findings(dep: Dependence, reg: Regimes) -> list[Finding]:
    """What an assessment found, in words: the kind of dependence, how the interval
    allows for it, and a ``serious`` finding when no narrow interval can be trusted."""
    out: list[Finding] = []
    n = dep.n
    lrd = dep.hurst > 0.5
    # memory that only the ranks showed: say where it was seen
    where = (
        " in the ranks of the samples (their normal scores; the largest samples hide it from "
        "the samples themselves)"
        if dep.memory_in == "ranks"
        else ""
    )
    if lrd and dep.hurst_source == "whittle":
        if dep.supports_interval:
            msg = (
                f"long-range dependence{where}: correlations decay slowly (Hurst exponent "
                f"{dep.hurst:.2f}, long-memory test {quote_pvalue(dep.long_memory_pvalue)}), so no "
                "block length makes block means independent. The interval extrapolates "
                f"the variance of {dep.n_blocks} block means to the whole series with this "
                f"exponent (~{dep.effective_sample_size:.0f} effective samples of {n} for the "
                "mean); it rests on that estimate"
            )
        else:
            msg = (
                f"long-range dependence{where} with Hurst exponent {dep.hurst:.2f}: at this "
                "length the series behaves like a random walk and no interval from it "
                "can be trusted"
            )
        out.append(Finding("long-range-dependence", msg, "serious"))
    elif lrd and dep.supports_interval and dep.hurst_source == "whittle-allowed":
        out.append(
            Finding(
                "long-memory-allowed",
                f"the long-memory fit{where} finds a memory parameter d = {dep.hurst - 0.5:.2f} "
                f"(Hurst exponent {dep.hurst:.2f}) that its test does not show (p = "
                f"{dep.long_memory_pvalue:.2g}); weak long memory cannot be told from "
                "short-range dependence here, so the interval allows for it "
                f"(~{dep.effective_sample_size:.0f} effective samples of {n} for the mean)",
                "info",
            )
        )
    elif lrd and dep.supports_interval:
        out.append(
            Finding(
                "long-memory-allowed",
                f"the variance of block means{where} falls slowly with block length (aggregated-"
                f"variance Hurst exponent {dep.hurst:.2f}); long memory is not shown (the "
                f"test needs {MIN_N_LONG_MEMORY} samples and p < {LONG_MEMORY_ALPHA:g}) but "
                "cannot be told from short-range dependence, so the interval allows for it "
                f"(~{dep.effective_sample_size:.0f} effective samples of {n} for the mean)",
                "info",
            )
        )
    if math.isfinite(dep.cycle_period):
        out.append(
            Finding(
                "cycle",
                f"the series repeats a cycle of ~{dep.cycle_period:.0f} samples "
                f"({n / dep.cycle_period:.0f} periods); the long-memory checks set it aside "
                "(a cycle's peak in the spectrum passes for long memory there, and the cycle "
                "averages out over many periods)",
                "info",
            )
        )
    if reg.switching:
        out.append(regime_finding(reg, None))
    if not dep.supports_interval and not (lrd and dep.hurst_source == "whittle"):
        if lrd:
            slow = (
                f"the long-memory fit{where} finds slowly decaying correlations"
                if dep.hurst_source == "whittle-allowed"
                else f"the variance of block means{where} falls slowly with block length"
            )
            why = (
                f"{slow} (Hurst exponent ~{dep.hurst:.2f}), as if only "
                f"~{n ** (2 - 2 * dep.hurst):.0f} samples were independent"
            )
        elif dep.subsession_size is None:
            why = (
                "no block length brings the lag-1 autocorrelation of block means within the "
                "threshold"
            )
        else:
            why = (
                f"the correlation time is ~{dep.correlation_time:.0f} samples, leaving "
                f"~{n / dep.correlation_time:.0f} effective samples"
            )
        out.append(
            Finding(
                "too-short-for-dependence",
                f"{n} samples are too few for the dependence in them ({why}): the series "
                "wanders over stretches comparable to its length, so its own spread cannot "
                "show the uncertainty of its mean; no honest interval can be given "
                "(collect a longer series, or several runs)",
                "serious",
            )
        )
    elif dep.large_scale:
        what = {
            "bulk": f"the share of samples below the median varies between blocks of "
            f"{dep.block_size} more than those blocks imply (the typical sample wanders "
            "slowly; the largest samples hide it from the means)",
            "delays": f"the share of samples far from the bulk (the delays) varies between "
            f"blocks of {dep.block_size} more than those blocks imply (the rate of the "
            "largest samples switches over long stretches, and the median and the mean "
            "move with it)",
        }.get(
            dep.large_scale_in,
            f"means of {dep.block_size} samples vary more than those blocks imply (a slow "
            "wander or a cycle longer than the blocks)",
        )
        out.append(
            Finding(
                "large-scale-variance",
                f"lag-1 autocorrelation is {dep.lag1:.2f} and blocks of "
                f"{dep.subsession_size} samples look independent, but {what}: "
                f"{dep.n_blocks} blocks of {dep.block_size} samples carry the interval "
                f"(~{dep.effective_sample_size:.0f} effective samples of {n} for the mean)",
                "info",
            )
        )
    elif dep.supports_interval and not lrd and dep.block_size > 1:
        out.append(
            Finding(
                "autocorrelated",
                f"samples are autocorrelated (lag-1 = {dep.lag1:.2f}); means of "
                f"{dep.n_blocks} blocks of {dep.block_size} samples carry the interval "
                f"(~{dep.effective_sample_size:.0f} effective samples of {n} for the mean)",
                "info",
            )
        )
    return out
