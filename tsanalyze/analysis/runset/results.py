"""The results of a run-set analysis: :class:`RunAnalysis` and the rows it holds.

A :class:`ComparisonRow` is a full :class:`~tsanalyze.analysis.compare.Comparison` plus
where it was made (which benchmarks, which runs); a :class:`TrialsRow` is a full
:class:`~tsanalyze.analysis.trials.TrialsEstimate` of one benchmark measured in several
runs, plus the runs and whether their steady states agree.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Literal, TypeVar

import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze.analysis.compare import Comparison
from tsanalyze.analysis.series import SeriesAnalysis
from tsanalyze.analysis.trials import TrialsEstimate
from tsanalyze.stats.estimators import LocationEstimatorName

__all__ = ["MIN_TRIALS", "ComparisonRow", "RunAnalysis", "TrialsRow"]

#: when every side is one run, a benchmark measured in this many runs also gets a trials
#: summary across them (with two, the run-against-run comparison says whether they
#: differ); the runs of one side are trials from two on
MIN_TRIALS = 3

R = TypeVar("R", bound="_InContext")


class _InContext:
    """A result of one analysis, kept whole, with where in the run set it was made
    (``_context``: those fields come first in ``to_dict`` and ``to_frame``)."""

    __slots__ = ()
    _context: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python objects, the context first."""
        d = Result.to_dict(self)  # type: ignore[arg-type]
        return {**{k: d[k] for k in self._context}, **d}

    def to_frame(self) -> pd.DataFrame:
        """One row of the scalar fields, the context first."""
        f = Result.to_frame(self)  # type: ignore[arg-type]
        return f[[*self._context, *(c for c in f.columns if c not in self._context)]]

    @classmethod
    def of(cls: type[R], result: Result, **context: Any) -> R:
        """``result`` (an instance of the base result type) with its context."""
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
        return cls(**{**fields, **context})


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ComparisonRow(_InContext, Comparison):
    """One comparison of a run set: the full :class:`~tsanalyze.analysis.compare.Comparison`
    of a candidate series against its baseline, and where it was made.

    Attributes
    ----------
    kind : {"benchmark", "run"}
        ``"benchmark"``: two benchmarks of one run (paired rounds when interleaved);
        ``"run"``: one benchmark on two sides (a side is a file with all the runs it holds,
        or one run when there is no file; ``run``/``baseline_run`` then name the sides).
    run, baseline_run : str
        The candidate's and the baseline's run (or side).
    baseline_benchmark : str
        The baseline's benchmark (``benchmark`` is the candidate's).

    Notes
    -----
    Every :class:`~tsanalyze.analysis.compare.Comparison` field is kept; ``pvalue_adjusted``,
    ``verdict`` and ``samples_needed`` come from the multiplicity adjustment (Holm) of the
    family the comparison belongs to.
    """

    _context = ("kind", "benchmark", "baseline_benchmark", "run", "baseline_run")

    benchmark: str
    kind: Literal["benchmark", "run"]
    run: str
    baseline_run: str
    baseline_benchmark: str


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TrialsRow(_InContext, TrialsEstimate):
    """One benchmark measured in several runs (trials), summarised across them: the full
    :class:`~tsanalyze.analysis.trials.TrialsEstimate` and the runs' steady states.

    ``estimate``/``ci_low``/``ci_high`` come from the two-level (run, then sample)
    bootstrap of :func:`tsanalyze.analysis.trials.estimate_trials` on the stable segments;
    ``disagree`` says the per-run estimates differ beyond their CIs (Cochran's Q).
    ``warnings`` holds the trials' own findings and, said once with the number of runs it
    applies to, every finding of the runs' series (at the worst severity any run had).

    Attributes
    ----------
    benchmark : str
    side : str
        The side (file, directory or run) whose runs these are; "" when the trials are the
        runs of several sides (each side one run), summarised beside their comparisons.
    runs : tuple of str
        The runs (trials), in run order.
    classifications : tuple of str
        The runs' steady-state classes.
    consistent : bool
        Whether they all agree (Barrett et al. 2017).
    """

    _context = ("benchmark", "side", "runs")

    benchmark: str
    runs: tuple[str, ...]
    classifications: tuple[str, ...]
    consistent: bool
    side: str = ""


@result
class RunAnalysis(Result):
    """What a run set (or one series) says: one :class:`SeriesAnalysis` per (run,
    benchmark), and the comparisons chosen from how the data were collected.

    Attributes
    ----------
    series : tuple of SeriesAnalysis
        Grouped by benchmark (sorted by name), then the runs (trials) of each benchmark
        in the order they were given. One series without labels when :func:`analyze` was
        given a single series.
    comparisons : tuple of ComparisonRow
        Each a full :class:`~tsanalyze.analysis.compare.Comparison` with where it was made.
    trials : tuple of TrialsRow
        One per benchmark measured in several runs of one side (file, directory); when no
        side holds several runs, one per benchmark measured in at least ``MIN_TRIALS``
        runs in all (``side`` "").
    runs : tuple of (run id, file) pairs
        The runs in the order given (file is "" when unknown; empty for a single series).
    baseline_run, baseline_benchmark : str or None
        The baselines the comparisons used: the baseline side (its file, or the run id
        when there is no file) and benchmark (None when no comparison of that kind was
        made, or, for benchmarks, when different runs used different baselines).
    estimator, confidence_level, raw, seed :
        The settings used (``seed`` is the root seed; each series records its own).
    noise_floor : NoiseFloor or None
        What a designated reference benchmark's noise floor explains of each benchmark's
        sd (:func:`tsanalyze.noise_floor`, Boyer 2008), when ``reference`` was given.
    warnings : tuple of Finding
    """

    series: tuple[SeriesAnalysis, ...]
    comparisons: tuple[ComparisonRow, ...]
    trials: tuple[TrialsRow, ...]
    runs: tuple[tuple[str, str], ...]
    baseline_run: str | None
    baseline_benchmark: str | None
    estimator: LocationEstimatorName
    confidence_level: float
    raw: bool
    seed: int | None
    noise_floor: Any = None
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The summary table: one row per series (scalar fields of each SeriesAnalysis)."""
        if not self.series:
            return pd.DataFrame()
        return pd.concat([s.to_frame() for s in self.series], ignore_index=True)

    def comparisons_frame(self) -> pd.DataFrame:
        """The comparison table: one row per comparison."""
        if not self.comparisons:
            return pd.DataFrame(columns=[f.name for f in dataclasses.fields(ComparisonRow)])
        return pd.concat([c.to_frame() for c in self.comparisons], ignore_index=True)

    @property
    def regression(self) -> bool:
        """Whether a candidate side is slower than the baseline side on some benchmark
        (a ``kind="run"`` comparison with verdict ``slower``). One benchmark slower than
        another of the same run is not a regression."""
        return any(c.kind == "run" and c.verdict == "slower" for c in self.comparisons)

    @property
    def any_slower(self) -> bool:
        """Whether any comparison made, of either kind, has verdict ``slower``."""
        return any(c.verdict == "slower" for c in self.comparisons)

    def trials_of(self, s: SeriesAnalysis) -> TrialsRow | None:
        """The trials row that stands for series ``s`` (one of several runs of its
        benchmark on one side), or None when ``s`` is reported on its own."""
        for t in self.trials:
            if t.side and t.benchmark == s.benchmark and s.run in t.runs:
                return t
        return None

    def units(self) -> list[SeriesAnalysis | TrialsRow]:
        """What the summary shows, in series order: each series on its own, except that the
        runs of one benchmark on one side (trials) are one row, their :class:`TrialsRow`."""
        out: list[SeriesAnalysis | TrialsRow] = []
        seen: set[int] = set()
        for s in self.series:
            t = self.trials_of(s)
            if t is None:
                out.append(s)
            elif id(t) not in seen:
                seen.add(id(t))
                out.append(t)
        return out
