"""Noise floor and timer checks on a run DataFrame (as :func:`tsanalyze.read_runs` gives).

* :func:`noise_floor` -- when a run holds a reference benchmark that should have no
  variation of its own (Boyer's LFSR loop), its spread is the environment's; report the
  fraction of each benchmark's sd that this floor explains.
* :func:`timer_checks_per_series` -- the clock checks of
  :func:`tsanalyze.stats.timer.timer_check` (one series) run on every series of a run
  DataFrame, with the timer properties recorded in each run's metadata.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._units import format_time
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.timer import timer_check

__all__ = ["NoiseFloor", "TimerChecksPerSeries", "noise_floor", "timer_checks_per_series"]

FloorScaling = Literal["duration", "none"]


def _sample_ns(g: pd.DataFrame) -> np.ndarray:
    """Raw elapsed ns of each whole sample (``ns``, else ``time_ns_raw · evals``)."""
    if "ns" in g.columns:
        return g["ns"].to_numpy(dtype=np.float64)
    if "time_ns_raw" in g.columns and "evals" in g.columns:
        return g["time_ns_raw"].to_numpy(dtype=np.float64) * g["evals"].to_numpy(np.float64)
    raise InvalidArgumentError("df: needs an 'ns' column (or 'time_ns_raw' and 'evals')")


def _check_frame(df: Any, name: str = "df") -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise InvalidArgumentError(f"{name}: expected a DataFrame from read_runs, got {type(df).__name__}")
    for col in ("benchmark", "run"):
        if col not in df.columns:
            raise InvalidArgumentError(f"{name}: missing column {col!r} (use tsanalyze.read_runs)")
    return df


def _groups(df: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    out = []
    for (run, bench), g in df.groupby(["run", "benchmark"], observed=True, sort=True):
        if "sample" in g.columns:
            g = g.sort_values("sample")
        out.append((str(run), str(bench), g))
    return out


# ------------------------------------------------------------------------ noise floor
@result
class NoiseFloor(Result):
    """The environmental noise floor of each run and what it explains.

    Attributes
    ----------
    reference : str
        The reference benchmark's name.
    table : pandas.DataFrame
        One row per (run, benchmark) other than the reference: ``run``, ``benchmark``,
        ``n``, ``sample_mean_ns``, ``sd_ns`` (sd of the raw sample times), ``floor_sd_ns``
        (the reference's sd, scaled to this benchmark's sample duration), ``fraction``
        (``min(1, floor_sd / sd)``), ``affected`` (fraction >= threshold).
    threshold : float
        Boyer's ``sdFractionThreshold``.
    scaling : {"duration", "none"}
    warnings : tuple of Finding
        ``"noise-floor"`` per affected benchmark (warning when the floor explains half
        the sd or more, else info), ``"no-reference"`` for runs without the reference.
    """

    reference: str
    table: pd.DataFrame
    threshold: float
    scaling: str
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The per-benchmark table."""
        return self.table.copy()


def noise_floor(
    df: pd.DataFrame,
    reference: str,
    *,
    threshold: float = 0.01,
    scaling: FloorScaling = "duration",
) -> NoiseFloor:
    """Fraction of each benchmark's sd that a reference benchmark's noise floor explains.

    Parameters
    ----------
    df : DataFrame
        Samples as :func:`tsanalyze.read_runs` returns them (``run``, ``benchmark`` and
        ``ns`` or ``time_ns_raw`` + ``evals``).
    reference : str
        Name of the reference benchmark: a task with (nearly) no variation of its own,
        such as Boyer's LFSR loop, measured in the same run.
    threshold : float, default 0.01
        A benchmark is *affected* when the floor is at least this fraction of its sd
        (Boyer's default: 1%).
    scaling : {"duration", "none"}, default "duration"
        ``"duration"``: the floor's variance is taken to grow linearly with the sample's
        duration (Boyer's Fig. 2: block variance linear in the number of executions), so
        ``floor_sd = sd_ref · √(mean_sample / mean_sample_ref)``. ``"none"``: use
        ``sd_ref`` as is (Boyer measures the reference with the same block parameters).

    Returns
    -------
    NoiseFloor

    Notes
    -----
    sds are of the raw sample times (whole samples, before the overhead correction),
    where environmental disturbances act. Runs without the reference are skipped with a
    ``"no-reference"`` warning. Boyer notes the floor is not repeatable (varying by a
    factor 3 between runs) [1]_; treat it as a guesstimate, as his report does.

    References
    ----------
    .. [1] Boyer, B. (2008). Robust Java benchmarking: article supplement (section "Standard
       deviation warnings": the noise floor from the Lfsr task, ``sdFractionThreshold`` =
       1%). http://www.ellipticgroup.com/misc/article_supplement.pdf
    """
    frame = _check_frame(df)
    if not isinstance(reference, str) or not reference:
        raise InvalidArgumentError(f"reference: must be a benchmark name, got {reference!r}")
    if not (isinstance(threshold, (int, float)) and 0 < threshold <= 1):
        raise InvalidArgumentError(f"threshold: must be in (0, 1], got {threshold!r}")
    if scaling not in ("duration", "none"):
        raise InvalidArgumentError(f"scaling: must be 'duration' or 'none', got {scaling!r}")
    names = set(frame["benchmark"].astype(str).unique())
    if reference not in names:
        raise InvalidArgumentError(
            f"reference: no benchmark named {reference!r} (have: {', '.join(sorted(names))})"
        )
    groups = _groups(frame)
    ref_stats: dict[str, tuple[float, float]] = {}
    for run, bench, g in groups:
        if bench == reference:
            x = _sample_ns(g)
            ref_stats[run] = (
                float(np.mean(x)),
                float(np.std(x, ddof=1)) if x.size > 1 else math.nan,
            )
    rows: list[dict[str, Any]] = []
    warnings: list[Finding] = []
    for run in sorted({r for r, _, _ in groups} - set(ref_stats)):
        warnings.append(
            Finding("no-reference", f"run {run} has no {reference!r} samples; skipped", "warning")
        )
    for run, bench, g in groups:
        if bench == reference or run not in ref_stats:
            continue
        x = _sample_ns(g)
        mean = float(np.mean(x))
        sd = float(np.std(x, ddof=1)) if x.size > 1 else math.nan
        ref_mean, ref_sd = ref_stats[run]
        floor = ref_sd * math.sqrt(mean / ref_mean) if scaling == "duration" else ref_sd
        if math.isnan(sd) or math.isnan(floor):
            fraction = math.nan
        elif sd == 0:
            fraction = 1.0 if floor > 0 else 0.0
        else:
            fraction = min(1.0, floor / sd)
        affected = bool(fraction >= threshold) if not math.isnan(fraction) else False
        rows.append(
            {
                "run": run,
                "benchmark": bench,
                "n": int(x.size),
                "sample_mean_ns": mean,
                "sd_ns": sd,
                "floor_sd_ns": floor,
                "fraction": fraction,
                "affected": affected,
            }
        )
        if affected:
            warnings.append(
                Finding(
                    "noise-floor",
                    f"{bench}: environmental noise ({reference!r}) explains at least "
                    f"{100 * fraction:.3g}% of the sd ({format_time(sd, trim=True)}); the sd "
                    "may not reflect the code's own variation",
                    "warning" if fraction >= 0.5 else "info",
                )
            )
    cols = [
        "run", "benchmark", "n", "sample_mean_ns", "sd_ns", "floor_sd_ns", "fraction", "affected",
    ]  # fmt: skip
    return NoiseFloor(
        reference=reference,
        table=pd.DataFrame(rows, columns=cols),
        threshold=float(threshold),
        scaling=scaling,
        warnings=tuple(warnings),
    )


# ----------------------------------------------------------------------- timer checks
@result
class TimerChecksPerSeries(Result):
    """Timer checks of every series of a run DataFrame (one row per series).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (run, benchmark): ``run``, ``benchmark``, ``n``, ``overhead_ns``,
        ``precision_ns``, ``accuracy_ns``, ``median_sample_ns``, ``overhead_share``,
        ``n_overhead``, ``n_precision``, ``n_accuracy``, ``n_dominated``, ``n_distinct``,
        ``tick``, ``quantised``, ``warnings`` (``;``-joined codes).
    warnings : tuple of Finding
        Each series' findings, the message prefixed with the benchmark name.
    """

    table: pd.DataFrame
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The per-series table."""
        return self.table.copy()


def _timer_meta(df: pd.DataFrame, run: str) -> dict[str, Any]:
    runs = df.attrs.get("runs") or {}
    meta = runs.get(run) or {}
    timer = meta.get("timer") or {}
    return timer if isinstance(timer, dict) else {}


def timer_checks_per_series(df: pd.DataFrame) -> TimerChecksPerSeries:
    """Quantisation, precision/accuracy and clock-overhead checks per series of a run.

    Parameters
    ----------
    df : DataFrame
        Samples as :func:`tsanalyze.read_runs` returns them; the timer's
        ``overhead_ns``, ``precision_ns`` and ``accuracy_ns`` are taken from
        ``df.attrs["runs"][run]["timer"]`` (a check is skipped when its value is absent).

    Returns
    -------
    TimerChecksPerSeries

    Notes
    -----
    Runs :func:`tsanalyze.stats.timer.timer_check` on the raw sample times (``ns``) of
    each (run, benchmark): overhead share above 1% (Ou 2020) [1]_, samples under 1000 timer
    precisions, accuracy error above 1% (Chen et al. 2016) [2]_, timer-dominated samples,
    and quantisation (few distinct values, coarse tick grid; Boyer 2008) [3]_.

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (the
       overhead-share check).
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II:
       samples short against the timer's precision or accuracy. arXiv:1608.04295.
    .. [3] Boyer, B. (2008). Robust Java benchmarking: article supplement (the quantisation
       check: few distinct values, a coarse tick grid).
       http://www.ellipticgroup.com/misc/article_supplement.pdf
    """
    frame = _check_frame(df)
    rows: list[dict[str, Any]] = []
    found: list[Finding] = []
    for run, bench, g in _groups(frame):
        x = _sample_ns(g)
        if x.size == 0:
            continue
        t = _timer_meta(frame, run)
        chk = timer_check(
            x,
            overhead_ns=t.get("overhead_ns"),
            precision_ns=t.get("precision_ns"),
            accuracy_ns=t.get("accuracy_ns"),
            clock_overhead_ns=t.get("clock_overhead_ns"),
        )
        rows.append(
            {
                "run": run,
                "benchmark": bench,
                "n": chk.n,
                "overhead_ns": chk.overhead_ns,
                "precision_ns": chk.precision_ns,
                "accuracy_ns": chk.accuracy_ns,
                "median_sample_ns": chk.median_sample_ns,
                "overhead_share": chk.overhead_share,
                "n_overhead": chk.n_overhead,
                "n_precision": chk.n_precision,
                "n_accuracy": chk.n_accuracy,
                "n_dominated": chk.n_dominated,
                "n_distinct": chk.quantisation.n_distinct,
                "tick": chk.quantisation.tick,
                "quantised": chk.quantisation.quantised,
                "warnings": ";".join(w.code for w in chk.warnings),
            }
        )
        found.extend(Finding(w.code, f"{bench}: {w.message}", w.severity) for w in chk.warnings)
    return TimerChecksPerSeries(table=pd.DataFrame(rows), warnings=tuple(found))


#: old names -> new names, until the next minor version
_RENAMED = {"timer_checks": "timer_checks_per_series", "TimerChecks": "TimerChecksPerSeries"}


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        warnings.warn(
            f"tsanalyze.analysis.noise.{name} is deprecated; use {_RENAMED[name]}",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[_RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
