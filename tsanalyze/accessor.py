"""The pandas accessor ``.tsa`` on Series and DataFrames (registered on ``import tsanalyze``).

Thin wrappers over the public functions, with no statistics of their own:

- on a **Series** (one series of per-evaluation times, in the order of its values) each
  method returns exactly what the public function of the same name returns for
  ``series.to_numpy()``;
- on a **DataFrame** in the run format the same methods run per series: rows are grouped by
  ``by`` (default ``["run", "benchmark"]``, those of them that are columns), each group is
  put in time order by its ``sample`` column, the function is applied to ``column``
  (default ``"time_ns"``) and the results' ``to_frame()`` tables are stacked under the group
  keys. Groups without rows are skipped (they are not series); a frame without rows gives
  an empty table with the same columns as a non-empty one.

``df.tsa.summary()`` gives one tidy row per series (the per-series analysis behind
``tsanalyze report``) and ``df.tsa.compare()`` one row per comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

__all__ = ["TsaDataFrameAccessor", "TsaSeriesAccessor"]

#: default grouping of a run-format frame into series
DEFAULT_BY: tuple[str, ...] = ("run", "benchmark")

By = str | Sequence[str] | None


def _public(name: str) -> Callable[..., Any]:
    """The public function ``tsanalyze.<name>`` (resolved lazily, at call time)."""
    import tsanalyze

    return getattr(tsanalyze, name)  # type: ignore[no-any-return]


def _series_values(s: pd.Series) -> np.ndarray:
    """The values of a Series as float64 (missing values become NaN for the function to reject)."""
    if not (pd.api.types.is_numeric_dtype(s.dtype) or s.dtype == object):
        raise ValueError(f"series: expected numeric times, got dtype {s.dtype}")
    return np.asarray(s.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)


def _by_iv(df: pd.DataFrame, by: By, column: str | None) -> list[str]:
    """Check ``by`` and ``column`` against the frame; return the grouping columns."""
    if by is None:
        keys = [c for c in DEFAULT_BY if c in df.columns]
    elif isinstance(by, str):
        keys = [by]
    else:
        keys = [str(k) for k in by]
    missing = [k for k in keys if k not in df.columns]
    if missing:
        raise ValueError(f"by: column(s) {', '.join(map(repr, missing))} not in the frame")
    if len(set(keys)) != len(keys):
        raise ValueError(f"by: repeated column in {keys!r}")
    if column is not None:
        if column not in df.columns:
            raise ValueError(f"column: {column!r} is not a column of the frame")
        if not pd.api.types.is_numeric_dtype(df[column].dtype):
            raise ValueError(f"column: {column!r} is not numeric (dtype {df[column].dtype})")
        if column in keys:
            raise ValueError(f"column: {column!r} is also a grouping column in by")
    return keys


def _groups(df: pd.DataFrame, keys: list[str]) -> Iterator[tuple[dict[str, Hashable], pd.DataFrame]]:
    """Non-empty groups in key order, each sorted by ``sample`` when the frame has one."""
    def ordered(g: pd.DataFrame) -> pd.DataFrame:
        return g.sort_values("sample", kind="stable") if "sample" in g.columns else g

    if not keys:
        if len(df):
            yield {}, ordered(df)
        return
    grouped = df.groupby(keys if len(keys) > 1 else keys[0], sort=True, observed=True, dropna=True)
    for key, g in grouped:
        if len(g) == 0:
            continue
        values = key if isinstance(key, tuple) else (key,)
        yield dict(zip(keys, values, strict=True)), ordered(g)


def _stack(keys: list[str], parts: list[tuple[dict[str, Hashable], pd.DataFrame]]) -> pd.DataFrame:
    """Prepend the group keys to each result table and stack them."""
    frames = []
    for labels, frame in parts:
        frame = frame.reset_index(drop=True)
        frame = frame.drop(columns=[k for k in keys if k in frame.columns])
        for pos, k in enumerate(keys):
            frame.insert(pos, k, [labels[k]] * len(frame))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _probe() -> np.ndarray:
    """A short fixed series, used only to learn the column names of a result table when
    there is no group to analyse (so an empty frame gives the same columns)."""
    i = np.arange(64, dtype=np.float64)
    return 1000.0 + 10.0 * ((i * 7919) % 13) / 13.0


def _empty_like(keys: list[str], make: Callable[[np.ndarray], pd.DataFrame]) -> pd.DataFrame:
    try:
        columns = list(make(_probe()).columns)
    except Exception:  # the probe is only for column names; without it, keys alone
        columns = []
    columns = [*keys, *(c for c in columns if c not in keys)]
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


@pd.api.extensions.register_series_accessor("tsa")
class TsaSeriesAccessor:
    """``series.tsa``: the analyses of one series of per-evaluation times.

    The Series' values, in their order, are the series (time order); its index is not used.
    Each method returns the result of the public function of the same name.

    References
    ----------
    seed 001: Li et al., "Pilot" (MASCOTS 2016); seed 000: Chen, Revels, Edelman (HPEC 2016).
    """

    def __init__(self, series: pd.Series) -> None:
        self._s = series

    def _x(self) -> np.ndarray:
        return _series_values(self._s)

    def changepoints(self, *args: Any, **kwargs: Any) -> Any:
        """Change points of the series: :func:`tsanalyze.changepoints` on its values.

        Parameters
        ----------
        *args, **kwargs
            Passed on unchanged (``method``, ``min_size``, ...).

        Returns
        -------
        ChangePoints
            Exactly ``tsanalyze.changepoints(series.to_numpy(), *args, **kwargs)``.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016); James, Kejariwal, Matteson,
        arXiv:1411.7955 (2014).
        """
        return _public("changepoints")(self._x(), *args, **kwargs)

    def steady_state(self, *args: Any, **kwargs: Any) -> Any:
        """Stable segment and classification: :func:`tsanalyze.steady_state` on the values.

        Parameters
        ----------
        *args, **kwargs
            Passed on unchanged.

        Returns
        -------
        SteadyState
            Exactly ``tsanalyze.steady_state(series.to_numpy(), *args, **kwargs)``.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016); Barrett et al., "Virtual machine
        warmup blows hot and cold", OOPSLA 2017.
        """
        return _public("steady_state")(self._x(), *args, **kwargs)

    def autocorrelation(self, *args: Any, **kwargs: Any) -> Any:
        """Serial dependence and subsession size: :func:`tsanalyze.autocorrelation`.

        Parameters
        ----------
        *args, **kwargs
            Passed on unchanged (``threshold``, ``nlags``, ...).

        Returns
        -------
        Autocorrelation
            Exactly ``tsanalyze.autocorrelation(series.to_numpy(), *args, **kwargs)``.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016), §III-D.
        """
        return _public("autocorrelation")(self._x(), *args, **kwargs)

    def estimate(self, *args: Any, **kwargs: Any) -> Any:
        """Location estimate with its confidence interval: :func:`tsanalyze.estimate`.

        Parameters
        ----------
        *args, **kwargs
            Passed on unchanged (``estimator``, ``confidence_level``, ``rng``, ...).

        Returns
        -------
        Estimate
            Exactly ``tsanalyze.estimate(series.to_numpy(), *args, **kwargs)``.

        References
        ----------
        seed 000: Chen, Revels, Edelman (HPEC 2016); seed 003: Boyer, "Robust Java
        benchmarking".
        """
        return _public("estimate")(self._x(), *args, **kwargs)

    def outliers(self, *args: Any, **kwargs: Any) -> Any:
        """Tukey-fence outliers (mild/severe, low/high): :func:`tsanalyze.tukey_fences`.

        Parameters
        ----------
        *args, **kwargs
            Passed on unchanged (``mild``, ``severe``).

        Returns
        -------
        TukeyFences
            Exactly ``tsanalyze.tukey_fences(series.to_numpy(), *args, **kwargs)``.

        References
        ----------
        Tukey, Exploratory Data Analysis (1977); seed 003: Boyer, "Robust Java benchmarking".
        """
        return _public("tukey_fences")(self._x(), *args, **kwargs)

    def modes(self, *args: Any, **kwargs: Any) -> Any:
        """Modes of the series' distribution: :func:`tsanalyze.multimodality` on its values.

        Parameters
        ----------
        *args, **kwargs
            Passed on unchanged (``min_mass``, ``bandwidth``, ``z``).

        Returns
        -------
        Modes
            Exactly ``tsanalyze.multimodality(series.to_numpy(), *args, **kwargs)``.

        References
        ----------
        seed 000: Chen, Revels, Edelman (HPEC 2016), Figs. 3–4.
        """
        return _public("multimodality")(self._x(), *args, **kwargs)

    def summary(self, **kwargs: Any) -> pd.DataFrame:
        """The per-series analysis of ``tsanalyze report`` as one tidy row.

        Parameters
        ----------
        **kwargs
            Passed to :func:`tsanalyze.analysis.series.analyze_series` (``estimator``,
            ``confidence_level``, ``raw``, ``evals``, ``rng``, ...).

        Returns
        -------
        pandas.DataFrame
            One row: ``analyze_series(series.to_numpy(), **kwargs).to_frame()``.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016).
        """
        from tsanalyze.analysis.series import analyze_series

        return analyze_series(self._x(), **kwargs).to_frame()


@pd.api.extensions.register_dataframe_accessor("tsa")
class TsaDataFrameAccessor:
    """``df.tsa``: the same analyses per series of a run-format frame, as tidy tables.

    References
    ----------
    seed 001: Li et al., "Pilot" (MASCOTS 2016); seed 002: zenbench methodology.
    """

    def __init__(self, df: pd.DataFrame) -> None:
        self._df = df

    def _per_series(
        self, name: str, by: By, column: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> pd.DataFrame:
        keys = _by_iv(self._df, by, column)
        fn = _public(name)

        def make(x: np.ndarray) -> pd.DataFrame:
            return fn(x, *args, **kwargs).to_frame()  # type: ignore[no-any-return]

        parts = [(labels, make(_series_values(g[column]))) for labels, g in _groups(self._df, keys)]
        if not parts:
            return _empty_like(keys, make)
        return _stack(keys, parts)

    def changepoints(self, *args: Any, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """Change points of every series: one row per segment.

        Parameters
        ----------
        *args, **kwargs
            Passed to :func:`tsanalyze.changepoints`.
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``ChangePoints.to_frame()`` of each series (its segments).

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016); James, Kejariwal, Matteson,
        arXiv:1411.7955 (2014).
        """
        return self._per_series("changepoints", by, column, args, kwargs)

    def steady_state(self, *args: Any, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """Stable segment and classification of every series.

        Parameters
        ----------
        *args, **kwargs
            Passed to :func:`tsanalyze.steady_state`.
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``SteadyState.to_frame()`` of each series.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016); Barrett et al., OOPSLA 2017.
        """
        return self._per_series("steady_state", by, column, args, kwargs)

    def autocorrelation(self, *args: Any, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """Serial dependence and subsession size of every series.

        Parameters
        ----------
        *args, **kwargs
            Passed to :func:`tsanalyze.autocorrelation`.
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``Autocorrelation.to_frame()`` of each series.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016), §III-D.
        """
        return self._per_series("autocorrelation", by, column, args, kwargs)

    def estimate(self, *args: Any, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """Location estimate with its confidence interval for every series.

        Parameters
        ----------
        *args, **kwargs
            Passed to :func:`tsanalyze.estimate` (``estimator``, ``confidence_level``, ...).
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``Estimate.to_frame()`` of each series.

        References
        ----------
        seed 000: Chen, Revels, Edelman (HPEC 2016); seed 003: Boyer.
        """
        return self._per_series("estimate", by, column, args, kwargs)

    def outliers(self, *args: Any, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """Tukey-fence outlier counts of every series.

        Parameters
        ----------
        *args, **kwargs
            Passed to :func:`tsanalyze.tukey_fences` (``mild``, ``severe``).
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``TukeyFences.to_frame()`` of each series.

        References
        ----------
        Tukey, Exploratory Data Analysis (1977).
        """
        return self._per_series("tukey_fences", by, column, args, kwargs)

    def modes(self, *args: Any, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """Modes of every series: one row per mode.

        Parameters
        ----------
        *args, **kwargs
            Passed to :func:`tsanalyze.multimodality` (``min_mass``, ``bandwidth``, ``z``).
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``Modes.to_frame()`` of each series.

        References
        ----------
        seed 000: Chen, Revels, Edelman (HPEC 2016), Figs. 3–4.
        """
        return self._per_series("multimodality", by, column, args, kwargs)

    def summary(self, *, by: By = None, column: str = "time_ns", **kwargs: Any) -> pd.DataFrame:
        """One tidy row per series: stable phase, estimate and CI, subsession size, warnings.

        Parameters
        ----------
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).
        **kwargs
            Passed to :func:`tsanalyze.analysis.series.analyze_series` (``estimator``,
            ``confidence_level``, ``raw``, ``rng``). An int ``rng`` seeds every series
            alike, so each row can be replayed on its own.

        Returns
        -------
        pandas.DataFrame
            The group keys, then ``SeriesAnalysis.to_frame()`` of each series (columns such
            as ``n``, ``n_stable``, ``stable_share``, ``classification``, ``estimate``,
            ``ci_low``, ``ci_high``, ``confidence_level``, ``subsession_size``,
            ``warnings``).

        Notes
        -----
        Each series is analysed as ``tsanalyze report`` does: with its group's ``run`` and
        ``benchmark`` labels, the median of its ``evals`` column (evaluations per sample,
        for Boyer's σ-blowup model), its ``ns`` column (whole-sample times, for the warm-up
        duration and timer checks) and its run's ``timer`` metadata from
        ``df.attrs["runs"]``, when the frame has them.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016); seed 003: Boyer; Barrett et al.,
        OOPSLA 2017.
        """
        from tsanalyze.analysis.series import analyze_series

        keys = _by_iv(self._df, by, column)
        runs_meta = self._df.attrs.get("runs", {}) if isinstance(self._df.attrs.get("runs"), dict) else {}

        def make(x: np.ndarray, g: pd.DataFrame | None = None, labels: dict[str, Hashable] | None = None) -> pd.DataFrame:
            extra: dict[str, Any] = {}
            if g is not None and labels is not None:
                extra = _series_context(g, labels, runs_meta)
            return analyze_series(x, **{**extra, **kwargs}).to_frame()

        parts = [
            (labels, make(_series_values(g[column]), g, labels)) for labels, g in _groups(self._df, keys)
        ]
        if not parts:
            return _empty_like(keys, make)
        return _stack(keys, parts)

    def compare(
        self,
        baseline: str,
        candidate: str,
        *,
        between: Literal["run", "benchmark"] = "run",
        by: By = None,
        column: str = "time_ns",
        **kwargs: Any,
    ) -> pd.DataFrame:
        """Compare a baseline with a candidate: one row per comparison.

        Parameters
        ----------
        baseline, candidate : str
            Run ids (``between="run"``) or benchmark names (``between="benchmark"``).
        between : {"run", "benchmark"}
            ``"run"``: every benchmark the two runs share, unpaired, with the p-values
            adjusted across benchmarks (:func:`tsanalyze.analysis.compare.compare_runs`).
            ``"benchmark"``: the two benchmarks (paired when they share rounds of one run;
            several runs are trials) with :func:`tsanalyze.compare`.
        by : str or sequence of str, optional
            Only for ``between="benchmark"``: compare separately within each group of these
            columns (e.g. ``"run"``); default one comparison over the whole frame.
        column : str
            The time column (default ``"time_ns"``).
        **kwargs
            Passed on (``estimator``, ``threshold``, ``alpha``, ``confidence_level``,
            ``rng``, and ``adjust`` for ``between="run"``).

        Returns
        -------
        pandas.DataFrame
            One row per comparison (``Comparison.to_frame()``), with the group keys first.

        References
        ----------
        seed 001: Li et al., "Pilot" (MASCOTS 2016); seed 002: zenbench methodology;
        Holm, Scand. J. Statist. 6 (1979).
        """
        if between not in ("run", "benchmark"):
            raise ValueError(f"between: expected 'run' or 'benchmark', got {between!r}")
        if between not in self._df.columns:
            raise ValueError(f"between: the frame has no {between!r} column")
        df = self._df
        for name, value in (("baseline", baseline), ("candidate", candidate)):
            if not (df[between].astype(str) == str(value)).any():
                raise ValueError(f"{name}: no rows with {between} == {value!r}")
        if between == "run":
            if by is not None:
                raise ValueError("by: only used with between='benchmark'")
            _by_iv(df, [], column)
            from tsanalyze.analysis.compare import compare_runs

            side_a = df[df["run"].astype(str) == str(baseline)]
            side_b = df[df["run"].astype(str) == str(candidate)]
            return compare_runs(side_a, side_b, column=column, **kwargs).to_frame()
        keys = _by_iv(df, [] if by is None else by, column)
        if "benchmark" in keys:
            raise ValueError("by: cannot group by 'benchmark' when comparing benchmarks")
        fn = _public("compare")
        parts = []
        for labels, g in _groups(df, keys):
            names = g["benchmark"].astype(str)
            a, b = g[names == str(baseline)], g[names == str(candidate)]
            if len(a) == 0 or len(b) == 0:
                continue  # this group holds only one side: nothing to compare
            parts.append((labels, fn(a, b, column=column, **kwargs).to_frame()))
        if not parts:
            raise ValueError(
                f"by: no group holds both {baseline!r} and {candidate!r}; nothing to compare"
            )
        return _stack(keys, parts)


def _series_context(
    g: pd.DataFrame, labels: dict[str, Hashable], runs_meta: dict[str, Any]
) -> dict[str, Any]:
    """What the report passes to ``analyze_series`` besides the times, from one group."""
    out: dict[str, Any] = {}
    for label in ("benchmark", "run"):
        if label in labels:
            out[label] = str(labels[label])
        elif label in g.columns and g[label].nunique(dropna=True) == 1:
            out[label] = str(g[label].iloc[0])
    if "evals" in g.columns and len(g):
        out["evals"] = max(1, int(np.median(g["evals"].to_numpy(dtype=np.float64))))
    if "ns" in g.columns:
        out["sample_ns"] = g["ns"].to_numpy(dtype=np.float64)
    run = out.get("run")
    if run is not None and isinstance(runs_meta.get(run), dict):
        timer = runs_meta[run].get("timer")
        if isinstance(timer, dict):
            out["timer"] = dict(timer)
    return out
