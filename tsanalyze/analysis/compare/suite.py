"""A suite: every benchmark two sets of runs share, compared with multiplicity control.

:func:`compare_runs` compares each shared benchmark with :func:`tsanalyze.compare`,
adjusts the p-values for multiplicity (Holm by default) *before* the verdicts
(:func:`~tsanalyze.analysis.compare.verdicts.adjust_verdicts`), and summarises the suite
by the geometric mean of the ratios with a CI.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import RNGType
from tsanalyze.analysis._seed import family_seeds, root_seed
from tsanalyze.analysis.compare.comparison import Comparison, compare
from tsanalyze.analysis.compare.verdicts import adjust_verdicts
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.multiplicity import Adjustment, GeometricMean, geometric_mean_ratio

__all__ = ["ComparisonSet", "compare_runs"]


@result
class ComparisonSet(Result):
    """Comparisons of every benchmark two sets of runs share.

    Attributes
    ----------
    comparisons : tuple of Comparison
        One per shared benchmark (sorted by name), verdicts from adjusted p-values.
    adjust : str
        Multiplicity adjustment (``"holm"``, ``"bh"``, ``"bonferroni"``, ``"none"``).
    geomean : GeometricMean or None
        Geometric mean of the ratios with a CI (None when no ratio is usable).
    counts : dict
        Number of benchmarks per verdict.
    seed : int or None
    warnings : tuple of Finding
    """

    comparisons: tuple[Comparison, ...]
    adjust: str
    geomean: GeometricMean | None
    counts: dict[str, int]
    seed: int | None
    warnings: tuple[Finding, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per benchmark with the scalar fields of each :class:`Comparison`."""
        if not self.comparisons:
            return pd.DataFrame(columns=[f.name for f in dataclasses.fields(Comparison)])
        return pd.concat([c.to_frame() for c in self.comparisons], ignore_index=True)

    def __getitem__(self, benchmark: str) -> Comparison:
        for c in self.comparisons:
            if c.benchmark == benchmark:
                return c
        raise KeyError(benchmark)


def _benchmarks(df: pd.DataFrame, name: str) -> list[str]:
    if not isinstance(df, pd.DataFrame):
        raise InvalidArgumentError(
            f"{name}: expected a DataFrame in the run format, got {type(df).__name__}"
        )
    if "benchmark" not in df.columns:
        raise InvalidArgumentError(f"{name}: DataFrame has no 'benchmark' column")
    return sorted(str(b) for b in pd.unique(df["benchmark"].astype(str)))


def _split(df: pd.DataFrame, names: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Per-benchmark sub-frames without ``attrs`` (pandas deep-copies them on every slice)."""
    d = df.copy(deep=False)
    d.attrs = {}
    key = d["benchmark"].astype(str)
    wanted = set(names)
    return {str(k): g for k, g in d.groupby(key, sort=False, observed=True) if k in wanted}


def _with_meta(g: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """``g`` with the metadata of its own runs (the timer's resolution, the interleaving):
    compare() reads them, as it does on the frames ``tsanalyze report`` passes it."""
    meta = df.attrs.get("runs")
    if isinstance(meta, dict) and "run" in g.columns:
        g = g.copy(deep=False)
        g.attrs = {"runs": {str(r): meta[str(r)] for r in pd.unique(g["run"]) if str(r) in meta}}
    return g


def compare_runs(
    df_a: pd.DataFrame,
    df_b: pd.DataFrame,
    *,
    benchmarks: Sequence[str] | None = None,
    adjust: Adjustment = "holm",
    threshold: float = 0.01,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    rng: RNGType = None,
    raw: bool = False,
    **kwargs: Any,
) -> ComparisonSet:
    """Compare every benchmark that two sets of runs share, with multiplicity control.

    Parameters
    ----------
    df_a, df_b : DataFrame
        Baseline and candidate in the run format (as :func:`tsanalyze.read_runs` returns).
    benchmarks : sequence of str, optional
        Restrict to these benchmarks (default: all that both sides hold).
    adjust : {"holm", "bh", "bonferroni", "none"}
        p-value adjustment applied across the benchmarks before the verdicts.
    threshold, alpha, confidence_level
        As in :func:`compare`.
    rng : int, Generator or None
        Root seed; each benchmark gets a seed drawn from it (None: the default seed 0, so
        the same input gives the same result; a Generator asks for a fresh one).
    raw : bool
        Compare whole series instead of each series' stable segment (the segment
        ``tsanalyze report`` analyses, :func:`tsanalyze.analysis.series.stable_rows`).
    **kwargs
        Passed to :func:`compare` (``estimator``, ``test``, ``ci_method``, ...).

    Returns
    -------
    ComparisonSet
        ``comparisons`` with ``pvalue_adjusted`` and verdicts from the adjusted p-values;
        ``geomean`` of the ratios with a CI that propagates each ratio's standard error.

    Notes
    -----
    By default each (run, benchmark) series is cut to its stable segment first, and the
    seeds are those the ``report``/``compare`` commands use, so ``compare_runs`` and
    ``tsanalyze compare a.parquet b.parquet`` give the same ratios, intervals and p-values.

    A verdict of ``faster``/``slower`` needs the adjusted p-value below ``alpha``, so
    with Holm the probability of any false ``faster``/``slower`` in the family is at
    most ``alpha`` (given valid p-values), whatever the number of benchmarks.

    References
    ----------
    Holm (1979), Scand. J. Statist. 6:65–70. Benjamini & Hochberg (1995), JRSS B 57:289–300.
    Fleming & Wallace (1986), CACM 29(3):218–221 (geometric mean).
    """
    names_a, names_b = _benchmarks(df_a, "df_a"), _benchmarks(df_b, "df_b")
    shared = sorted(set(names_a) & set(names_b))
    findings: list[Finding] = []
    if benchmarks is not None:
        missing = [b for b in benchmarks if b not in shared]
        if missing:
            raise InvalidArgumentError(
                f"benchmarks: not on both sides: {', '.join(map(str, missing))}"
            )
        shared = list(benchmarks)
    only = sorted(set(names_a) ^ set(names_b))
    if only:
        findings.append(
            Finding(
                "unmatched-benchmarks",
                f"{len(only)} benchmark(s) on one side only, not compared: {', '.join(only[:5])}"
                + (" ..." if len(only) > 5 else ""),
                "info",
            )
        )
    if not shared:
        raise InvalidArgumentError("df_b: no benchmark in common with df_a")
    seed = root_seed(rng)
    seeds = family_seeds(seed, len(shared))
    from tsanalyze.analysis.series import stable_rows

    ga = {k: _with_meta(stable_rows(v, raw=raw), df_a) for k, v in _split(df_a, shared).items()}
    gb = {k: _with_meta(stable_rows(v, raw=raw), df_b) for k, v in _split(df_b, shared).items()}
    comps = [
        compare(
            ga[name], gb[name], benchmark=name, threshold=threshold, alpha=alpha,
            confidence_level=confidence_level, rng=int(s), **kwargs,
        )
        for name, s in zip(shared, seeds, strict=True)
    ]  # fmt: skip
    final = adjust_verdicts(comps, adjust)
    ok = [c for c in final if math.isfinite(c.ratio) and c.ratio > 0]
    geo = None
    if ok:
        se = [c.se_log for c in ok]
        if all(math.isfinite(s) for s in se):
            geo = geometric_mean_ratio(
                [c.ratio for c in ok], se_log=se, confidence_level=confidence_level
            )
        else:
            geo = geometric_mean_ratio([c.ratio for c in ok], confidence_level=confidence_level)
    counts = {
        k: sum(c.verdict == k for c in final) for k in ("faster", "slower", "same", "inconclusive")
    }
    return ComparisonSet(tuple(final), adjust, geo, counts, seed, tuple(findings))
