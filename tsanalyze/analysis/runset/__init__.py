"""Analysis of a run set: every (run, benchmark) series, trials grouped, comparisons.

:func:`analyze` is what ``tsanalyze report`` computes. It takes the tidy frame of
:func:`tsanalyze.read_runs` (or one series) and returns a frozen :class:`RunAnalysis`.
Independent series are analysed in parallel worker processes; the result does not depend
on the number of workers, because each series gets its own seed spawned from one root
seed.

Modules: :mod:`.results` (the result types), :mod:`.plan` (the layout of the frame and
the jobs it calls for), :mod:`.executor` (running the jobs, in a process pool or not) and
:mod:`.analysis` (:func:`analyze`, and the per-family verdicts).
"""

from __future__ import annotations

from tsanalyze.analysis.runset.analysis import ProgressCallback, analyze
from tsanalyze.analysis.runset.results import MIN_TRIALS, ComparisonRow, RunAnalysis, TrialsRow

__all__ = ["MIN_TRIALS", "ComparisonRow", "ProgressCallback", "RunAnalysis", "TrialsRow", "analyze"]
