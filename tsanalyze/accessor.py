"""The pandas accessor ``.tsa`` on Series and DataFrames (registered on ``import tsanalyze``).

Thin wrappers over the public functions, with no statistics of their own. Each method has
the signature and docstring of the function it wraps (type checkers see them too):

- on a **Series** (one series of per-evaluation times, in the order of its values) each
  method returns exactly what the public function of the same name returns for
  ``series.to_numpy()``;
- on a **DataFrame** in the run format the same methods run per series: rows are grouped by
  ``by`` (default ``["run", "benchmark"]``, those of them that are columns), each group is
  put in time order by its ``sample`` column, the function is applied to ``column``
  (default ``"time_ns"``) and the results' ``to_frame()`` tables are stacked under the group
  keys. ``df.tsa.by("benchmark", column="ns")`` sets the grouping (the methods also take
  ``by=`` and ``column=`` keywords). Groups without rows are skipped (they are not
  series); a frame without rows gives an empty table with the same columns as a non-empty
  one.

``df.tsa.summary()`` gives one tidy row per series (the per-series analysis behind
``tsanalyze report``) and ``df.tsa.compare()`` one row per comparison.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, Generic, Literal, ParamSpec, TypeVar, overload

import numpy as np
import pandas as pd

# the module, not its names: pandas' import can complete while tsanalyze._validation is
# itself still importing pandas (``import tsanalyze._validation`` first), and the hook
# then registers this accessor from inside that import
from tsanalyze import _validation
from tsanalyze.errors import InvalidArgumentError

if TYPE_CHECKING:  # pragma: no cover
    import tsanalyze as _api
    from tsanalyze._result import Result
    from tsanalyze._typing import ArrayLike
    from tsanalyze.analysis import series as _series

__all__ = ["TsaDataFrameAccessor", "TsaSeriesAccessor"]

#: default grouping of a run-format frame into series
DEFAULT_BY: tuple[str, ...] = ("run", "benchmark")

By = str | Sequence[str] | None
P = ParamSpec("P")
R = TypeVar("R")


class _Deferred:
    """``module.name``, imported at first use: importing every analysis when pandas loads
    the accessor would slow ``import tsanalyze`` by about a second."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def resolve(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.name)  # type: ignore[no-any-return]


class _DeferredModule:
    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> _Deferred:
        return _Deferred(self._module, name)


if not TYPE_CHECKING:
    _api = _DeferredModule("tsanalyze")
    _series = _DeferredModule("tsanalyze.analysis.series")


def _resolve(fn: Callable[P, R]) -> Callable[P, R]:
    return fn.resolve() if isinstance(fn, _Deferred) else fn  # type: ignore[return-value]


def _same(result: R) -> R:
    return result


def _to_frame(result: Any) -> pd.DataFrame:
    return result.to_frame()  # type: ignore[no-any-return]


def _series_values(s: pd.Series) -> np.ndarray:
    """The values of a Series as float64 (missing values become NaN for the function to reject)."""
    return np.asarray(_validation.real_numbers(s, "series"), dtype=np.float64)


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
        raise InvalidArgumentError(f"by: column(s) {', '.join(map(repr, missing))} not in the frame")
    if len(set(keys)) != len(keys):
        raise InvalidArgumentError(f"by: repeated column in {keys!r}")
    twice = set(df.columns[df.columns.duplicated()])
    for k in keys:
        if k in twice:
            raise InvalidArgumentError(f"by: column {k!r} appears more than once in the frame")
    if column is not None:
        if column not in df.columns:
            raise InvalidArgumentError(f"column: {column!r} is not a column of the frame")
        if column in twice:
            raise InvalidArgumentError(f"column: {column!r} appears more than once in the frame")
        if not pd.api.types.is_numeric_dtype(df[column].dtype):
            raise InvalidArgumentError(f"column: {column!r} is not numeric (dtype {df[column].dtype})")
        if column in keys:
            raise InvalidArgumentError(f"column: {column!r} is also a grouping column in by")
    return keys


def _groups(
    df: pd.DataFrame, keys: list[str]
) -> Iterator[tuple[dict[str, Hashable], pd.DataFrame]]:
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


class _Method(Generic[P, R]):
    """An analysis both accessors offer, wrapping ``fn(values, ...)``.

    On a Series accessor it is ``post(fn(series values, ...))``; on a DataFrame accessor,
    ``fn`` per series with the ``to_frame()`` tables stacked under the group keys. Its
    signature (without the values; plus ``by`` and ``column`` on a DataFrame) and docstring
    are ``fn``'s, resolved when the method is looked up on an accessor.
    """

    def __init__(
        self, fn: Callable[Concatenate[ArrayLike, P], Any], post: Callable[[Any], R],
        *, context: bool = False,
    ) -> None:  # fmt: skip
        self._fn, self._post, self._context = fn, post, context
        self._name = ""
        self._descriptions: dict[bool, tuple[Callable[..., Any], str, inspect.Signature]] = {}

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def _call(self, accessor: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        fn = _resolve(self._fn)
        if not isinstance(accessor, TsaDataFrameAccessor):
            return self._post(fn(accessor._x(), *args, **kwargs))
        by = kwargs.pop("by", accessor._by)
        column = kwargs.pop("column", accessor._column)
        return accessor._apply(fn, by, column, args, kwargs, self._context)

    def __call__(self, accessor: Any, *args: P.args, **kwargs: P.kwargs) -> Any:
        """Call as an unbound method: ``TsaSeriesAccessor.estimate(series.tsa, ...)``."""
        return self._call(accessor, args, kwargs)

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _Method[P, R]: ...
    @overload
    def __get__(self, obj: TsaSeriesAccessor, owner: type | None = None) -> Callable[P, R]: ...
    @overload
    def __get__(
        self, obj: TsaDataFrameAccessor, owner: type | None = None
    ) -> Callable[P, pd.DataFrame]: ...
    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        fn, doc, signature = self._describe(isinstance(obj, TsaDataFrameAccessor))

        def method(*args: Any, **kwargs: Any) -> Any:
            return self._call(obj, args, kwargs)

        functools.update_wrapper(method, fn)
        method.__name__ = method.__qualname__ = self._name
        method.__doc__ = doc
        method.__signature__ = signature  # type: ignore[attr-defined]
        return method

    def _describe(self, per_series: bool) -> tuple[Callable[..., Any], str, inspect.Signature]:
        """The wrapped function, the docstring and the signature the method shows."""
        if per_series not in self._descriptions:
            fn = _resolve(self._fn)
            sig = inspect.signature(fn)
            params = list(sig.parameters.values())[1:]  # without the values
            doc = inspect.getdoc(fn) or ""
            returns = sig.return_annotation if self._post is _same else "pandas.DataFrame"
            if per_series:
                doc = _PER_SERIES_DOC.format(name=fn.__name__) + doc
                kw = inspect.Parameter.KEYWORD_ONLY
                extra = [
                    inspect.Parameter("by", kw, default=None, annotation="By"),
                    inspect.Parameter("column", kw, default="time_ns", annotation="str"),
                ]
                at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
                params[at:at] = extra
                returns = "pandas.DataFrame"
            self._descriptions[per_series] = (
                fn,
                doc,
                inspect.Signature(params, return_annotation=returns),
            )
        return self._descriptions[per_series]


_PER_SERIES_DOC = """Per series of the frame: ``tsanalyze.{name}`` on each group's time column.

The rows are grouped by ``by`` (default ``["run", "benchmark"]``, those present; or as set
by :meth:`TsaDataFrameAccessor.by`), each group in ``sample`` order; ``column`` is the
time column (default ``"time_ns"``). Returns the group keys, then each result's
``to_frame()``, stacked.

"""


def _result_of(fn: Callable[Concatenate[ArrayLike, P], R]) -> _Method[P, R]:
    """On a Series: ``fn(series values, ...)`` as it is."""
    return _Method(fn, _same)


def _table_of(
    fn: Callable[Concatenate[ArrayLike, P], Result], *, context: bool = False
) -> _Method[P, pd.DataFrame]:
    """On a Series: ``fn(series values, ...).to_frame()``; ``context``: on a DataFrame, each
    series also gets what the frame says about it (labels, evals, ns, timer)."""
    return _Method(fn, _to_frame, context=context)


class _Analyses:
    """The analyses of both accessors (``outliers`` is :func:`tsanalyze.tukey_fences`,
    ``modes`` :func:`tsanalyze.multimodality`, ``summary`` the per-series analysis of
    ``tsanalyze report``)."""

    changepoints = _result_of(_api.changepoints)
    steady_state = _result_of(_api.steady_state)
    autocorrelation = _result_of(_api.autocorrelation)
    estimate = _result_of(_api.estimate)
    outliers = _result_of(_api.tukey_fences)
    modes = _result_of(_api.multimodality)
    #: On a DataFrame each series is analysed as ``tsanalyze report`` does: with its group's
    #: ``run`` and ``benchmark`` labels, the median of its ``evals`` column, its ``ns``
    #: column and its run's ``timer`` metadata (``df.attrs["runs"]``), when the frame has
    #: them; keywords given override them. An int ``rng`` seeds every series alike.
    summary = _table_of(_series.analyze_series, context=True)


@pd.api.extensions.register_series_accessor("tsa")
class TsaSeriesAccessor(_Analyses):
    """``series.tsa``: the analyses of one series of per-evaluation times.

    The Series' values, in their order, are the series (time order); its index is not used.
    Each method is the public function of the same name on ``series.to_numpy()``
    (``outliers`` is :func:`tsanalyze.tukey_fences`, ``modes`` is
    :func:`tsanalyze.multimodality`; ``summary`` is the per-series analysis of
    ``tsanalyze report`` as one tidy row).

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016.
       https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE HPEC 2016. arXiv:1608.04295.
    """

    def __init__(self, series: pd.Series) -> None:
        self._s = series

    def _x(self) -> np.ndarray:
        return _series_values(self._s)


@pd.api.extensions.register_dataframe_accessor("tsa")
class TsaDataFrameAccessor(_Analyses):
    """``df.tsa``: the same analyses per series of a run-format frame, as tidy tables.

    Each method takes the parameters of the function it wraps, plus ``by`` (grouping
    columns, default ``["run", "benchmark"]``, those present) and ``column`` (the time
    column, default ``"time_ns"``), which :meth:`by` can also set.

    References
    ----------
    .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a framework
       that understands how to do performance benchmarks the right way. MASCOTS 2016.
       https://doi.org/10.1109/MASCOTS.2016.31
    .. [2] zenbench documentation, "Methodology". https://github.com/imazen/zenbench
    """

    def __init__(self, df: pd.DataFrame, by: By = None, column: str = "time_ns") -> None:
        self._df = df
        self._by = by
        self._column = column

    def by(self, by: By = None, *, column: str = "time_ns") -> TsaDataFrameAccessor:
        """The same accessor grouping by ``by`` and analysing ``column``.

        Parameters
        ----------
        by : str or sequence of str, optional
            Grouping columns (default ``["run", "benchmark"]``, those present).
        column : str
            The time column (default ``"time_ns"``).

        Returns
        -------
        TsaDataFrameAccessor
            ``df.tsa.by("benchmark").estimate()`` equals ``df.tsa.estimate(by="benchmark")``.
        """
        _by_iv(self._df, by, column)
        return TsaDataFrameAccessor(self._df, by, column)

    def _apply(
        self, fn: Callable[..., Any], by: By, column: str, args: tuple[Any, ...],
        kwargs: dict[str, Any], context: bool,
    ) -> pd.DataFrame:  # fmt: skip
        keys = _by_iv(self._df, by, column)
        runs = self._df.attrs.get("runs")
        runs_meta = runs if isinstance(runs, dict) else {}

        def make(
            x: np.ndarray, g: pd.DataFrame | None = None, labels: dict[str, Hashable] | None = None
        ) -> pd.DataFrame:
            extra = {} if g is None or labels is None else _series_context(g, labels, runs_meta)
            return fn(x, *args, **{**extra, **kwargs}).to_frame()  # type: ignore[no-any-return]

        parts = [
            (labels, make(_series_values(g[column]), g if context else None, labels))
            for labels, g in _groups(self._df, keys)
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
            ``rng``); ``adjust`` (default Holm) adjusts the p-values across the benchmarks
            (``between="run"``) or the groups of ``by``, as the report does, and the
            verdicts follow the adjusted p-values. ``raw=True`` compares whole
            series; by default each (run, benchmark) series is cut to its stable segment
            first, as ``tsanalyze report`` does, and ``rng`` is the root seed (default 0)
            the command line uses, so the two give the same numbers on the same files.

        Returns
        -------
        pandas.DataFrame
            One row per comparison (``Comparison.to_frame()``), with the group keys first.

        References
        ----------
        .. [1] Li, Y., Gupta, Y., Miller, E. L., & Long, D. D. E. (2016). Pilot: a
           framework that understands how to do performance benchmarks the right way.
           MASCOTS 2016. https://doi.org/10.1109/MASCOTS.2016.31
        .. [2] zenbench documentation, "Methodology". https://github.com/imazen/zenbench
        .. [3] Holm, S. (1979). A simple sequentially rejective multiple test procedure.
           Scandinavian Journal of Statistics 6(2), 65–70.
        """
        if between not in ("run", "benchmark"):
            raise InvalidArgumentError(f"between: expected 'run' or 'benchmark', got {between!r}")
        if between not in self._df.columns:
            raise InvalidArgumentError(f"between: the frame has no {between!r} column")
        df = self._df
        for name, value in (("baseline", baseline), ("candidate", candidate)):
            if not (df[between].astype(str) == str(value)).any():
                raise InvalidArgumentError(f"{name}: no rows with {between} == {value!r}")
        if between == "run":
            if by is not None:
                raise InvalidArgumentError("by: only used with between='benchmark'")
            _by_iv(df, [], column)
            compare_runs = _resolve(_api.compare_runs)
            side_a = df[df["run"].astype(str) == str(baseline)]
            side_b = df[df["run"].astype(str) == str(candidate)]
            return compare_runs(side_a, side_b, column=column, **kwargs).to_frame()
        keys = _by_iv(df, [] if by is None else by, column)
        if "benchmark" in keys:
            raise InvalidArgumentError("by: cannot group by 'benchmark' when comparing benchmarks")
        fn = _resolve(_api.compare)
        from tsanalyze.analysis._seed import family_seeds, root_seed
        from tsanalyze.analysis.compare.verdicts import adjust_verdicts
        from tsanalyze.analysis.series import stable_rows

        raw = bool(kwargs.pop("raw", False))
        adjust = kwargs.pop("adjust", "holm")
        # the seed the report gives the one comparison of a family (see family_seeds)
        kwargs["rng"] = family_seeds(root_seed(kwargs.get("rng")), 1)[0]
        found = []
        for labels, g in _groups(df, keys):
            names = g["benchmark"].astype(str)
            a, b = g[names == str(baseline)], g[names == str(candidate)]
            if len(a) == 0 or len(b) == 0:
                continue  # this group holds only one side: nothing to compare
            a, b = stable_rows(a, raw=raw, column=column), stable_rows(b, raw=raw, column=column)
            found.append((labels, fn(a, b, column=column, **kwargs)))
        if not found:
            raise InvalidArgumentError(
                f"by: no group holds both {baseline!r} and {candidate!r}; nothing to compare"
            )
        # one family, as the report's: p adjusted across the groups (a family of one: p)
        adjusted = adjust_verdicts([c for _, c in found], adjust)
        parts = [(labels, c.to_frame()) for (labels, _), c in zip(found, adjusted, strict=True)]
        return _stack(keys, parts)


def _series_context(
    g: pd.DataFrame, labels: dict[str, Hashable], runs_meta: dict[str, Any]
) -> dict[str, Any]:
    """What the report passes to ``analyze_series`` besides the times, from one group."""
    from tsanalyze.analysis.series import series_inputs

    out: dict[str, Any] = {}
    for label in ("benchmark", "run"):
        if label in labels:
            out[label] = str(labels[label])
        elif label in g.columns and g[label].nunique(dropna=True) == 1:
            out[label] = str(g[label].iloc[0])
    run = out.get("run")
    evals = g["evals"].to_numpy(dtype=np.float64) if "evals" in g.columns else None
    ns = g["ns"].to_numpy(dtype=np.float64) if "ns" in g.columns else None
    return {**out, **series_inputs(evals, ns, None if run is None else runs_meta.get(run))}
