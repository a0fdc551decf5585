"""Compare a baseline with a candidate: one benchmark, a whole suite, or BenchmarkTools' judge.

:func:`compare` picks the design from the data: *paired* when both sides come from the
same run with shared ``round`` values (interleaved collection, as zenbench does), *unpaired*
otherwise (Li et al. 2016, §III-F), and *run-level* when a side holds several runs (trials), so
that samples from different processes are never treated as replicates of one process.
It returns a :class:`Comparison` with the ratio of the chosen estimator (candidate /
baseline), its CI, a test, and a verdict that needs both the CI to clear the noise
threshold and the test to reject.

:func:`compare_runs` does this for every benchmark two sets of runs share, adjusts the
p-values for multiplicity (Holm by default) *before* the verdicts, and summarises the
suite by the geometric mean of the ratios with a CI. :func:`judge` is BenchmarkTools'
ratio-of-minimums rule for users who want it.

Modules: :mod:`.sides` (input and design detection), :mod:`.designs` (paired, unpaired,
run level), :mod:`.verdicts` (the verdict rule, samples needed, adjusted re-verdicts),
:mod:`.comparison` (:func:`compare`), :mod:`.suite` (:func:`compare_runs`) and
:mod:`.judgement` (:func:`judge`).
"""

from __future__ import annotations

from tsanalyze.analysis.compare.comparison import (
    LOCATION_ESTIMATORS,
    CIMethod,
    Comparison,
    TestName,
    compare,
)
from tsanalyze.analysis.compare.judgement import Judgement, judge
from tsanalyze.analysis.compare.suite import ComparisonSet, compare_runs
from tsanalyze.analysis.compare.verdicts import (
    Verdict,
    adjust_verdicts,
    samples_needed,
    verdict,
)

__all__ = [
    "LOCATION_ESTIMATORS",
    "CIMethod",
    "Comparison",
    "ComparisonSet",
    "Judgement",
    "TestName",
    "Verdict",
    "adjust_verdicts",
    "compare",
    "compare_runs",
    "judge",
    "samples_needed",
    "verdict",
]
