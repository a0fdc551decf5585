"""What one series' analysis says, as findings whose severity is decided here, once.

The components (steady state, dependence, estimate, outlier model, modes, timer checks)
each report on their own output; :func:`series_findings` turns them into what the series'
estimate and interval can support, in plain words, and decides each severity for the
report. Renderers word and order these findings; they never change a severity.

Severity: *serious* means "this number should not be trusted or published as is" (the
estimate mixes phases, or its interval assumes a stationarity the data do not show);
*warning*: the number stands but needs the caveat (several modes, a late change, a
slowdown, a timer-limited measurement); *info*: what was done or what could not be
checked on so little data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tsanalyze._result import Finding
from tsanalyze._units import format_duration, format_percent, format_times

if TYPE_CHECKING:  # pragma: no cover
    from tsanalyze.analysis.series import SeriesAnalysis

__all__ = ["series_findings"]

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
#: fewest stable samples whose quartiles say which samples are severe outliers: the
#: quartiles of a handful of samples are themselves two or three of them (on 5,000 runs
#: of 5 samples, 1,118 had "40% of the samples" beyond 3 IQR)
MIN_OUTLIER_N = 10
#: components' codes that a sentence below replaces
_REPLACED = frozenset(
    {"autocorrelated", "sd-blowup", "multimodal", "no-stable-segment", "no-subsession-size"}
)


def _changepoint_list(locations: Sequence[int], shown: int = 6) -> str:
    if not locations:
        return "no change point"
    head = ", ".join(map(str, locations[:shown]))
    more = f" and {len(locations) - shown} more" if len(locations) > shown else ""
    return f"{len(locations)} change point{'s' if len(locations) > 1 else ''}: {head}{more}"


def _steady(s: SeriesAnalysis, codes: set[str]) -> list[Finding]:
    out: list[Finding] = []
    if not s.stable and s.classification != "raw":  # searched, and nothing settled
        why = (
            f"the level drifts by {format_percent(s.drift.total_change, signed=True)} over "
            f"the run ({format_percent(s.drift.slope_per_1000, signed=True)} per 1000 samples)"
            if s.drift is not None
            else f"no phase holds more than half of the {s.n} samples "
            f"({_changepoint_list(s.changepoints)})"
        )
        out.append(
            Finding(
                "no-stable-segment",
                f"no stable segment: {why}; the estimate is of the whole series, a mix of "
                "its levels",
                "serious",
            )
        )
    elif s.stable:
        if s.classification == "slowdown":
            out.append(
                Finding(
                    "slowdown",
                    "the series slows down: its last phase is slower than an earlier one",
                    "warning",
                )
            )
        if s.warmup_samples > 0:
            secs = f" ({format_duration(s.warmup_seconds)})" if s.warmup_seconds is not None else ""
            out.append(
                Finding(
                    "warmup-removed", f"warm-up of {s.warmup_samples} samples{secs} removed", "info"
                )
            )
        if s.cooldown_samples > 0:
            out.append(
                Finding(
                    "cooldown-removed",
                    f"last {s.cooldown_samples} samples after the stable phase removed",
                    "info",
                )
            )
    return out


def _dependence(s: SeriesAnalysis, by_code: dict[str, Finding]) -> list[Finding]:
    if "no-subsession-size" in by_code:
        return [
            Finding(
                "no-subsession-size",
                f"the analysed samples do not look stationary: no block length brings the "
                f"lag-1 autocorrelation of block means within ±0.1 (lag-1 {s.lag1:.2f}); the "
                "interval assumes a steady level the data do not show",
                "serious",
            )
        ]
    if s.subsession_size is not None and s.subsession_size > 1:
        if s.ci_method.endswith("large-scale"):
            how = (
                f"subsessions of {s.subsession_size} samples look roughly independent, but "
                f"longer blocks vary more (large-scale-variance): interval by {s.ci_method}"
            )
        elif s.ci_method.endswith("long-range"):
            how = (
                f"subsessions of {s.subsession_size} samples look roughly independent at lag 1, "
                f"but correlations decay slowly (long-range dependence): interval by "
                f"{s.ci_method}"
            )
        elif any(word in s.ci_method for word in ("subsession", "block", "stationary", "circular")):
            how = f"the interval uses {s.n_subsessions} subsessions of {s.subsession_size} samples"
        else:
            how = (
                f"the means of {s.n_subsessions} subsessions of {s.subsession_size} samples "
                f"are roughly independent; interval by {s.ci_method}"
            )
        return [
            Finding(
                "autocorrelated", f"samples are autocorrelated (lag-1 {s.lag1:.2f}): {how}", "info"
            )
        ]
    return []


def _outliers(s: SeriesAnalysis) -> list[Finding]:
    out: list[Finding] = []
    if s.outlier_variance is not None and s.outlier_effect in ("moderate", "severe"):
        out.append(
            Finding(
                "sd-blowup",
                f"the spread between samples is not one evaluation's: with {s.evals:,} "
                f"evaluations per sample, rare outliers would have to explain "
                f"{format_percent(s.outlier_variance, 2)} of the variance ({s.outlier_effect}, "
                "Boyer's model), so the sd says little about single evaluations; the "
                "estimate and its interval, from the variation between samples, stand",
                "info",
            )
        )
    if s.outliers_severe > 0 and s.n_stable >= MIN_OUTLIER_N:
        share = s.outliers_severe / max(s.n_stable, 1)
        out.append(
            Finding(
                "severe-outliers",
                f"{s.outliers_severe} severe outlier{'s' if s.outliers_severe != 1 else ''} "
                f"beyond 3 IQR ({format_percent(share, 2)} of the samples)",
                "info",
            )
        )
    return out


def _modes(s: SeriesAnalysis) -> list[Finding]:
    if len(s.modes) < 2:
        return []
    locs = sorted(s.modes, key=lambda m: m[0])
    where = format_times([loc for loc, _ in locs], "ns")
    masses = "/".join(format_percent(mass, 2) for _, mass in locs)
    count = _NUMBER_WORDS.get(len(locs), str(len(locs)))
    return [
        Finding(
            "multimodal",
            f"{count} modes at {where} (masses {masses}): one location estimate describes a "
            "mixture",
            "warning",
        )
    ]


def series_findings(s: SeriesAnalysis, components: Sequence[Finding]) -> tuple[Finding, ...]:
    """The findings of one series with their severities decided for the report.

    Parameters
    ----------
    s : SeriesAnalysis
        The analysis (its ``warnings`` are not read; ``components`` are).
    components : sequence of Finding
        What the components said (steady state, timer, dependence, estimate, outliers,
        modes), in that order.

    Returns
    -------
    tuple of Finding
        The curated sentences (stable segment, dependence, outlier model, modes) first,
        then every other component finding once, as the component worded it.
    """
    by_code: dict[str, Finding] = {}
    for f in components:
        by_code.setdefault(f.code, f)
    out = [*_steady(s, set(by_code)), *_dependence(s, by_code), *_outliers(s), *_modes(s)]
    taken = {f.code for f in out}
    if s.drift is not None and not s.stable:
        # the serious sentence says the drift: the change points' and the steady state's
        # wording of it ("drift", "no-steady-state") would say it twice more
        taken |= {"drift", "no-steady-state"}
    seen: set[tuple[str, str]] = set()
    for f in components:
        key = (f.code, f.message)
        if f.code in _REPLACED or f.code in taken or key in seen:
            continue
        seen.add(key)
        out.append(f)
    return tuple(out)
