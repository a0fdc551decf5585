"""The two sides of a comparison and the design they call for.

:func:`as_side` turns what the user gave (array, Series indexed by ``round`` or by
``(run, round)``, or a run-format DataFrame of one benchmark) into a :class:`Side`: values
per run, with the rounds when they are known. :func:`choose_design` then decides how the
sides are compared: *paired* by round when both come from the same interleaved run(s)
(as zenbench does), *unpaired* otherwise (Li et al. 2016, §III-F), and at the *run level* when a side
holds several runs (trials: Kalibera & Jones 2013), so that samples from different
processes are never treated as replicates of one process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from tsanalyze import schema
from tsanalyze._result import Finding
from tsanalyze._typing import Float64Array
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.stats.time_order import in_sorted_order, sorted_finding, unsorted

__all__ = [
    "PAIRED_TESTS",
    "UNPAIRED_TESTS",
    "Design",
    "PreparedSide",
    "Side",
    "as_side",
    "choose_design",
    "unsorted_side",
]

UNPAIRED_TESTS = ("welch", "mann-whitney")
PAIRED_TESTS = ("wilcoxon", "paired-t")
#: Run label of a Series indexed by ``round`` alone: two such Series are taken as paired.
_ROUND_SERIES = "<round-indexed series>"

Matched = tuple[tuple[Float64Array, Float64Array], ...]

#: an unpaired comparison of one run against another: its interval is the noise within
#: the two runs, and a run of the same code can differ by more (Kalibera & Jones 2013).
#: On real JMH forks of unchanged code (jmh-traini2022, 10 benchmarks, forks 2i against
#: 2i + 1) 11 of 49 such comparisons said slower or faster, by 2.5-43%; with five forks a
#: side (run level) none of 10 did
SINGLE_RUNS = Finding(
    "single-runs",
    "each side is one run: the interval holds the noise within these runs, not the "
    "difference between runs of the same code, which can be larger (measure several runs "
    "a side to tell a change from run-to-run variation)",
    "info",
)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: values per run (time order), with rounds when known."""

    runs: tuple[str | None, ...]
    values: tuple[Float64Array, ...]
    rounds: tuple[np.ndarray | None, ...]

    @property
    def all_values(self) -> Float64Array:
        """Every value of every run, pooled."""
        return np.concatenate(self.values)


@dataclass(frozen=True, slots=True)
class PreparedSide:
    """A run-format frame already made into its :class:`Side`, with the timer step per
    evaluation its run metadata give (0 if none): what :func:`compare` reads of the
    frame, made once for a frame compared many times (a report's baseline side is in
    every comparison with it: :func:`tsanalyze.analysis.compare.edges.prepare_side`)."""

    side: Side
    known_tick: float


@dataclass(frozen=True, slots=True)
class Design:
    """How two sides are compared.

    Attributes
    ----------
    kind : {"unpaired", "paired", "run-level"}
        ``run-level`` when a side holds several runs (then ``paired`` says whether the
        runs are matched by round).
    paired : bool
    matched : tuple of (a, b) arrays, or None
        Per run, the values of both sides in the rounds they share (paired designs).
    findings : tuple of Finding
        What choosing the design left out (samples without a partner round).
    """

    kind: Literal["unpaired", "paired", "run-level"]
    paired: bool
    matched: Matched | None
    findings: tuple[Finding, ...] = ()


def run_codes(run: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize(run, sort=True)``, up to the numbering: codes and the run ids they
    stand for, in the same order of runs. A categorical ``run`` (a report's sides) gives
    its own codes and categories, unused ones included, without a pass over the rows."""
    if isinstance(run.dtype, pd.CategoricalDtype):
        cat = run.array  # the Categorical: its codes without a Series around them
        return np.asarray(cat.codes), cat.categories
    codes, ids = pd.factorize(run, sort=True)
    return codes, pd.Index(ids)


def _from_frame(df: pd.DataFrame, name: str, column: str) -> Side:
    if column not in df.columns:
        raise InvalidArgumentError(f"{name}: DataFrame has no {column!r} column")
    if "benchmark" in df.columns and df["benchmark"].nunique() > 1:
        raise InvalidArgumentError(
            f"{name}: holds {df['benchmark'].nunique()} benchmarks; select one, or use compare_runs"
        )
    if df.empty:
        raise InvalidArgumentError(f"{name}: no samples")
    # plain numpy from here: pandas deep-copies ``attrs`` (run metadata) on every operation
    values = df[column].to_numpy(np.float64, na_value=np.nan)
    rounds = df["round"].to_numpy(np.int64) if "round" in df.columns else None
    order_key = next((c for c in ("sample", "round") if c in df.columns), None)
    pos = df[order_key].to_numpy(np.int64) if order_key else np.arange(len(df))
    if "run" not in df.columns:
        o = np.argsort(pos, kind="stable")
        return Side(
            (None,), (as_series_array(values[o], name),), (None if rounds is None else rounds[o],)
        )
    codes, run_ids = run_codes(df["run"])
    o = np.lexsort((pos, codes))
    bounds = np.flatnonzero(np.diff(codes[o])) + 1
    # runs whose metadata says they were not recorded in interleaved rounds (imports,
    # sequential collections): their round is only a sample index, nothing to pair by
    meta = df.attrs.get("runs")
    sequential = (
        {str(r) for r, m in meta.items() if not schema.interleaved(m)}
        if isinstance(meta, dict)
        else set()
    )
    runs, vals, rnds = [], [], []
    for idx in np.split(o, bounds):
        rid = str(run_ids[codes[idx[0]]])
        runs.append(rid)
        vals.append(as_series_array(values[idx], name))
        rnds.append(None if rounds is None or rid in sequential else rounds[idx])
    return Side(tuple(runs), tuple(vals), tuple(rnds))


def as_side(x: Any, name: str, column: str) -> Side:
    """One side from an array, a Series or a run-format DataFrame of one benchmark.

    Parameters
    ----------
    x : array_like, Series or DataFrame
        A DataFrame needs ``column`` (and gives runs and rounds from ``run``/``round``);
        a Series indexed by ``round`` or by a ``(run, round)`` MultiIndex gives rounds.
    name : str
        Parameter name for error messages (``"a"`` or ``"b"``).
    column : str
        Time column of a DataFrame.
    """
    if isinstance(x, pd.DataFrame):
        return _from_frame(x, name, column)
    if isinstance(x, PreparedSide):
        return x.side
    if isinstance(x, pd.Series):
        idx = x.index
        names = list(idx.names)
        if isinstance(idx, pd.MultiIndex) and "run" in names and "round" in names:
            frame = pd.DataFrame(
                {
                    "run": idx.get_level_values("run"),
                    "round": idx.get_level_values("round"),
                    column: x.to_numpy(),
                }
            )
            return _from_frame(frame, name, column)
        if names == ["round"]:
            s = x.sort_index(kind="stable")
            vals = as_series_array(s.to_numpy(), name)
            return Side((_ROUND_SERIES,), (vals,), (s.index.to_numpy(np.int64),))
        return Side((None,), (as_series_array(x.to_numpy(), name),), (None,))
    return Side((None,), (as_series_array(x, name),), (None,))


def unsorted_side(side: Side, name: str) -> tuple[Side, tuple[Finding, ...]]:
    """``side`` with every run whose samples are in sorted order
    (:func:`~tsanalyze.stats.time_order.in_sorted_order`) taken in a fixed shuffled
    order and without rounds (nothing to pair them by), and the ``sorted-samples``
    warning when there was one: sorted samples read as a ramp, and their dependence
    assessment would refuse any interval."""
    flags = [in_sorted_order(v) for v in side.values]
    if not any(flags):
        return side, ()
    values = tuple(v[unsorted(v.size)] if f else v for v, f in zip(side.values, flags, strict=True))
    rounds = tuple(None if f else r for r, f in zip(side.rounds, flags, strict=True))
    n = sum(v.size for v, f in zip(side.values, flags, strict=True) if f)
    return Side(side.runs, values, rounds), (sorted_finding(n, f"side {name}'s"),)


def _pair(sa: Side, sb: Side, paired: bool | None) -> tuple[bool, Matched | None]:
    """Decide pairing; when paired return matched (a, b) arrays per run."""
    same_runs = sa.runs == sb.runs and None not in sa.runs
    rounds_known = all(r is not None for r in sa.rounds + sb.rounds)
    matched: list[tuple[Float64Array, Float64Array]] = []
    if same_runs and rounds_known:
        for va, ra, vb, rb in zip(sa.values, sa.rounds, sb.values, sb.rounds, strict=True):
            assert ra is not None and rb is not None  # narrowed by rounds_known
            common, ia, ib = np.intersect1d(ra, rb, assume_unique=False, return_indices=True)
            if common.size == 0:
                matched = []
                break
            matched.append((va[ia], vb[ib]))
    if paired is None:
        return (bool(matched), tuple(matched) or None)
    if not paired:
        return False, None
    if matched:
        return True, tuple(matched)
    if len(sa.values) == 1 and len(sb.values) == 1 and not rounds_known:
        va, vb = sa.values[0], sb.values[0]
        if va.size != vb.size:
            raise InvalidArgumentError(
                f"paired: a and b need equal lengths to be matched by position, "
                f"got {va.size} and {vb.size}"
            )
        return True, ((va, vb),)
    raise InvalidArgumentError("paired: a and b share no run with common rounds; cannot pair them")


def choose_design(sa: Side, sb: Side, *, paired: bool | None, test: str) -> Design:
    """The design for two sides: paired, unpaired or run level.

    Parameters
    ----------
    sa, sb : Side
        Baseline and candidate.
    paired : bool or None
        None: paired when both sides come from the same run(s) with shared rounds; True:
        require pairing (by round, or by position for two plain arrays of equal length);
        False: unpaired.
    test : str
        The requested test: an unpaired test (``welch``, ``mann-whitney``) turns automatic
        pairing off; a paired test (``wilcoxon``, ``paired-t``) needs paired data.

    Raises
    ------
    InvalidArgumentError
        When the request cannot be met (naming ``paired`` or ``test``).
    """
    is_paired, matched = _pair(sa, sb, paired)
    if test in UNPAIRED_TESTS and is_paired:
        if paired:
            raise InvalidArgumentError(f"test: {test!r} is an unpaired test but paired=True")
        is_paired, matched = False, None
    if test in PAIRED_TESTS and not is_paired:
        raise InvalidArgumentError(
            f"test: {test!r} needs paired data (same run, shared rounds, or paired=True)"
        )
    findings: tuple[Finding, ...] = ()
    if is_paired and matched is not None:
        used = sum(m[0].size for m in matched)
        dropped = sa.all_values.size + sb.all_values.size - 2 * used
        if dropped:
            findings = (
                Finding(
                    "unmatched-rounds",
                    f"{dropped} sample(s) without a partner in the same round were left out",
                    "info",
                ),
            )
    multi = max(len(sa.values), len(sb.values)) > 1
    kind: Literal["unpaired", "paired", "run-level"] = (
        "run-level" if multi else "paired" if is_paired else "unpaired"
    )
    if kind == "unpaired" and not (sa.runs == sb.runs and None not in sa.runs):
        findings = (*findings, SINGLE_RUNS)
    return Design(kind, is_paired, matched if is_paired else None, findings)
