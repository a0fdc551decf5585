"""``tsanalyze.history``: at which commit did each benchmark get slower or faster, by how
much, and is it real?

Per (benchmark, machine, env) series of commits (:mod:`.series`), the commit-level noise
is fitted (:mod:`.noise`), the first change scan of each series gets a p-value calibrated
on null series simulated from that fit (:mod:`.detect`), and the Benjamini–Hochberg
procedure over all series decides which series changed at false discovery rate ``fdr``;
within those, binary segmentation continues at the BH threshold. Each change gets its
95% set of commits and ratio interval; one-commit excursions are outlier runs; runs of
changes in one direction that a straight line fits as well are one drift; a change shared
by most benchmarks of a machine and environment at one commit is marked as a probable
environment shift.

References
----------
Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate. *Journal of
the Royal Statistical Society B* 57(1), 289–300. doi:10.1111/j.2517-6161.1995.tb02031.x.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy import stats as _st

from tsanalyze._result import Finding, Result, result
from tsanalyze.analysis._seed import root_seed
from tsanalyze.analysis.history.detect import Located, SeriesDetector, huber_levels, ramp_shapes
from tsanalyze.analysis.history.engine import series_seed, two_passes
from tsanalyze.analysis.history.series import HistorySeries, build_series
from tsanalyze.errors import InvalidArgumentError, InvalidRunError
from tsanalyze.stats.multiplicity import adjust_pvalues

__all__ = ["History", "history"]

CHANGE_COLUMNS = (
    "benchmark", "machine", "env", "kind", "commit", "commits", "ratio", "ci_low", "ci_high",
    "direction", "p_value", "q_value", "recovered_at", "environment_shift", "position",
)  # fmt: skip
OUTLIER_COLUMNS = ("benchmark", "machine", "env", "commit", "ratio", "z", "environment")
#: per series and benchmarked commit: the commit's level (mean log time of its runs), the
#: half-width of its 95% interval (run-to-run and sampling noise), its segment's level
LEVEL_COLUMNS = ("benchmark", "machine", "env", "commit", "position", "x", "half_width",
                 "runs", "level")  # fmt: skip
#: share of a series' commits beyond which its outliers are called regime switching
REGIME_SHARE = 0.05
#: two-sided family-wise level of the outlier-run test within one series
OUTLIER_LEVEL = 0.01
#: first-pass p-value below which the noise is refitted without the suspected step
PILOT_LEVEL = 0.5
#: level at which the pilot's binary segmentation adds further steps to take out before
#: the refit, and how many steps at most
PILOT_SPLIT_LEVEL = 0.05
MAX_PILOT_SPLITS = 4
#: the null series' quantile of the likelihood gain a suspected step's removal must beat
#: before the noise is refitted without it, and how many null series estimate it
GATE_LEVEL = 0.95
GATE_ROWS = 100
#: ... and the stricter quantile each further suspected step must beat (the data's were
#: selected by the pilot's segmentation, the null's not: at 95% the model's stationary
#: series had 4.0% false changes against 3.3%, at 99% 3.3%, 300 series)
GATE_MORE_LEVEL = 0.99
#: share of a machine/env's series that must change at one commit to call it environmental
SHARED_SHARE = 0.5
#: ... counting only changes located to at most this share of their series' commits (a
#: set spanning half the history says nothing of where the change happened)
SHARED_SET_SHARE = 0.1


@result
class History(Result):
    """Changes found in a benchmark history.

    Attributes
    ----------
    changes : pandas.DataFrame
        One row per change, most important first: ``benchmark, machine, env, kind``
        ("step" or "drift"), ``commit`` (first commit at the new level), ``commits`` (the
        95% set, history order, widened by unbenchmarked commits when the full commit list
        was given), ``ratio`` new/old with ``ci_low``/``ci_high`` (95%), ``direction``
        ("regression" or "improvement"), ``p_value`` (calibrated, of the scan that found
        it), ``q_value`` (BH over series), ``recovered_at`` (commit where the level came
        back, or None: still present), ``environment_shift``, ``position``.
    outliers : pandas.DataFrame
        One-commit excursions (spikes): ``benchmark, machine, env, commit, ratio, z``.
    series : pandas.DataFrame
        Per series: commits, runs, samples per run, fitted noise (``sd_wander``, ``phi``,
        ``sd_run``, log scale), the calibrated p-value of "no change" and its BH q-value.
    fdr : float
        False discovery rate over series; also each series' false-alarm rate when it is
        the only one.
    warnings : tuple of Finding
    commits : tuple of str
        The benchmarked commits analysed, in history order (the newest last).
    levels : pandas.DataFrame or None
        Per series and benchmarked commit (what the history figures draw): ``benchmark,
        machine, env, commit, position, x`` (mean log time of the commit's runs, ns),
        ``half_width`` (of its 95% interval: run-to-run and sampling noise over its runs),
        ``runs`` and ``level`` (its segment's fitted level, log ns). Not in the JSON.
    seed : int or None
        The root seed; each series' seed is made from it and the series' name.
    revisions : pandas.DataFrame or None
        Against a previous analysis (``previous=``): the changes before its newest commit
        that moved, disappeared or appeared (see
        :func:`tsanalyze.analysis.history.previous.against_previous`).
    """

    changes: pd.DataFrame
    outliers: pd.DataFrame
    series: pd.DataFrame
    fdr: float
    warnings: tuple[Finding, ...] = field(default=())
    commits: tuple[str, ...] = field(default=())
    levels: pd.DataFrame | None = None
    seed: int | None = None
    revisions: pd.DataFrame | None = None
    _headline: ClassVar[tuple[str, ...]] = ("fdr",)

    def to_frame(self) -> pd.DataFrame:
        """The changes table."""
        return self.changes.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"format": "tsanalyze-history", "changes": [...], ...}``."""
        from tsanalyze._result import to_builtin

        doc = {
            "format": "tsanalyze-history",
            "fdr": self.fdr,
            "seed": self.seed,
            "newest_commit": self.commits[-1] if self.commits else None,
            "commits": list(self.commits),
            "changes": to_builtin(self.changes),
            "outliers": to_builtin(self.outliers),
            "series": to_builtin(self.series),
            "warnings": [f.to_dict() for f in self.warnings],
        }
        if self.revisions is not None:
            doc["revisions"] = to_builtin(self.revisions)
        return doc


def _select(s: HistorySeries, keep: set[str] | None) -> HistorySeries:
    if keep is None:
        return s
    m = np.array([c in keep for c in s.commits])
    return HistorySeries(
        s.benchmark, s.machine, s.env, tuple(np.array(s.commits, dtype=object)[m]),
        s.x[m], s.runs[m], s.within_var[m], s.samples,
    )  # fmt: skip


def _window(ordered: list[str], since: str | None, last: int | None) -> set[str] | None:
    if since is None and last is None:
        return None
    start = 0
    if since is not None:
        hits = [i for i, c in enumerate(ordered) if c.startswith(since)]
        if not hits:
            raise InvalidArgumentError(f"--since: no benchmarked commit starts with {since!r}")
        start = hits[0]
    keep = ordered[start:]
    if last is not None:
        if last < 1:
            raise InvalidArgumentError(f"--last: must be at least 1, got {last}")
        keep = keep[-last:]
    return set(keep)


def _check_commits(full: dict[str, int], ordered: list[str]) -> list[Finding]:
    """Does the full commit list fit the benchmarked history? An error when it holds none of
    the benchmarked commits (another repository, abbreviated hashes) or lists them newest
    first; a warning for benchmarked commits it lacks or holds in another order."""
    pos = np.array([full[c] for c in ordered if c in full], dtype=np.int64)
    if ordered and not pos.size:
        raise InvalidArgumentError(
            f"--commits: none of the {len(ordered)} benchmarked commits is in the list (give "
            "full hashes, oldest first, as `git rev-list --reverse HEAD` prints them)"
        )
    step = np.diff(pos)
    if step.size and np.mean(step < 0) > 0.5:
        raise InvalidArgumentError(
            "--commits: the list is newest first; give it oldest first (git rev-list --reverse)"
        )
    out = []
    if len(ordered) > pos.size:
        out.append(Finding("commits-missing", f"{len(ordered) - pos.size} of the {len(ordered)} "
                           "benchmarked commits are not in the --commits list (another branch?): "
                           "sets of changes at them are not widened", "warning"))  # fmt: skip
    if np.any(step < 0):
        out.append(Finding("commits-order", f"{int(np.sum(step < 0))} benchmarked commits come "
                           "before their predecessor in the --commits list (commit times that "
                           "disagree with the list, e.g. after a rebase): sets of changes at them "
                           "are not widened", "warning"))  # fmt: skip
    return out


def _widen(
    s: HistorySeries, positions: Sequence[int], full: dict[str, int] | None, full_list: list[str]
) -> list[str]:
    """Commits where a change first seen at ``positions`` may have happened: each
    benchmarked commit, plus, with the full history, the unbenchmarked commits since the
    previous benchmarked one (none where the list lacks either or holds them in the
    other order)."""
    out: list[str] = []
    for p in positions:
        c = s.commits[p]
        prev = s.commits[p - 1] if p > 0 else None
        if full is not None and c in full and prev in full and full[prev] < full[c]:
            out += full_list[full[prev] + 1 : full[c] + 1]
        else:
            out.append(c)
    return list(dict.fromkeys(out))


def _frame_iv(df: pd.DataFrame) -> None:
    """``df`` is a frame of runs: ``benchmark``, ``run`` and the times (``time_ns``, or
    ``ns`` and ``evals``)."""
    if not isinstance(df, pd.DataFrame):
        raise InvalidArgumentError(
            f"df: expected a DataFrame of runs (tsanalyze.read_runs), got {type(df).__name__}"
        )
    missing = [c for c in ("benchmark", "run") if c not in df.columns]
    if "time_ns" not in df.columns:
        missing += [c for c in ("ns", "evals") if c not in df.columns]
    if missing:
        raise InvalidRunError(
            f"df: missing column(s) {', '.join(missing)}; expected the frame of "
            "tsanalyze.read_runs (times in time_ns, or ns and evals)"
        )


def _drift_ramp(
    x: np.ndarray, sd: np.ndarray, lo: int, cps: list[int], hi: int
) -> tuple[int, int] | None:
    """The ramp over [lo, hi) that fits at least as well as the steps at ``cps``, as its
    first commit off the old level and first commit at the new one, or None: the old
    level up to a commit before the first step, a straight line to the new level reached
    at a commit after the last (at most 40 of each searched), the new level after (two
    levels and two commits against the steps' levels and positions)."""
    seg = x[lo:hi]
    w = 1.0 / sd[lo:hi] ** 2
    a = np.unique(np.linspace(0, cps[0] - lo, 40).astype(int))
    b = np.unique(np.linspace(cps[-1] - lo, seg.size - 1, 40).astype(int))
    aa, bb = (v.ravel() for v in np.meshgrid(a, b, indexing="ij"))
    r = ramp_shapes(seg.size, aa, bb)
    # weighted least squares of seg on (1, r) for every ramp at once
    sw, sy, syy = w.sum(), w @ seg, w @ (seg * seg)
    sr, srr, sry = r @ w, (r * r) @ w, r @ (w * seg)
    det = np.maximum(sw * srr - sr * sr, 1e-300)
    beta = (sw * sry - sr * sy) / det
    alpha = (sy - beta * sr) / sw
    rss = syy - alpha * sy - beta * sry
    best = int(np.argmin(rss))
    rss_ramp = float(rss[best])
    bounds = [lo, *cps, hi]
    fit = np.empty_like(seg)
    for u, v in itertools.pairwise(bounds):
        fit[u - lo : v - lo] = float(huber_levels(x[u:v], sd[u:v]))
    rss_steps = float(np.sum(w * (seg - fit) ** 2))
    # the steps have len(cps) + 1 levels and the positions, the ramp 4 parameters: the
    # ramp is preferred unless the steps' Akaike criterion is lower
    if rss_ramp + 2.0 * 4 > rss_steps + 2.0 * (2 * len(cps) + 1):
        return None
    return lo + int(aa[best]), lo + int(bb[best])


def history(
    df: pd.DataFrame,
    *,
    fdr: float = 0.05,
    commits: Sequence[str] | None = None,
    since: str | None = None,
    last: int | None = None,
    n_null: int = 400,
    seed: int | np.random.Generator | None = 0,
    engine: str = "local",
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
    previous: History | Mapping[str, Any] | None = None,
) -> History:
    """Find the commits at which each benchmark's time changed, with honest uncertainty.

    Parameters
    ----------
    df : pandas.DataFrame
        Runs as returned by :func:`tsanalyze.read_runs` (run metadata in
        ``df.attrs["runs"]``, with ``commit``, ``commit_time``, ``machine``, ``env``
        where known). Runs of one commit are its trials.
    fdr : float
        False discovery rate over all series (Benjamini–Hochberg); with one series, its
        false-alarm rate.
    commits : sequence of str, optional
        The full history, oldest first (e.g. ``git rev-list --reverse``), to widen each
        set by the commits that were not benchmarked.
    since, last : optional
        Analyse only the commits from the first one starting with ``since``, and/or the
        newest ``last`` benchmarked commits.
    n_null : int
        Null series simulated per series for calibration.
    seed : int or Generator, optional
        Root seed of the simulations (results are reproducible for a given seed; None is
        the default seed 0, a Generator draws a fresh root seed, recorded as ``seed``).
        Each series' seed is made from the root seed and the series' name, so a series'
        result does not depend on the other series, nor on the engine.
    engine : {"local", "dask"}
        Where the per-series work runs: in this process, or as tasks of a Dask cluster
        (``pip install 'tsanalyze[dask]'``); the BH and environment-shift reductions run
        here. The result is the same with either engine.
    client, scheduler, workers : optional
        With ``engine="dask"``: a ``distributed.Client`` (left open), else the address of
        a running scheduler (or ``DASK_SCHEDULER_ADDRESS``), else a ``LocalCluster`` of
        ``workers`` workers started and closed here.
    previous : History or dict, optional
        An earlier analysis of the same history (or its ``tsanalyze-history`` JSON
        document): changes before its newest commit that moved, disappeared or appeared
        are listed in ``revisions`` and said in a warning.

    Returns
    -------
    History

    Notes
    -----
    A level must hold for at least two benchmarked commits to be a change (a change at
    the newest commit is only seen after one more run); a drift is reported as a drift
    when a ramp fits better than the step found (a calibrated test) or fits a run of
    same-direction steps as well as they do. The calibration
    trusts the fitted noise model (AR(1) wander plus white run-to-run and sampling noise);
    a machine whose speed jumps between regimes without a code change looks like changes,
    and a step shared by most benchmarks is then marked as an environment shift.

    References
    ----------
    Benjamini & Hochberg (1995), doi:10.1111/j.2517-6161.1995.tb02031.x; Siegmund (1988),
    doi:10.2307/1403360 (change-point confidence sets).
    """
    if not 0.0 < fdr < 1.0:
        raise InvalidArgumentError(f"fdr: must be between 0 and 1, got {fdr!r}")
    _frame_iv(df)
    root = root_seed(seed)
    all_series, ordered = build_series(df)
    keep = _window(ordered, since, last)
    # a series with no commit in the window (a benchmark removed before it) is not one of
    # the window's series
    all_series = [t for t in (_select(s, keep) for s in all_series) if t.x.size]
    full_list = list(commits) if commits is not None else []
    full = {c: i for i, c in enumerate(full_list)} if commits is not None else None
    findings: list[Finding] = _check_commits(full, ordered) if full is not None else []
    jobs = [_Job(s, series_seed(root, s.benchmark, s.machine, s.env), n_null) for s in all_series]
    decided: dict[str, Any] = {}

    def decide(firsts: list[tuple[float, int]]) -> list[tuple[float, bool, float]]:
        p = np.array([f[0] for f in firsts], dtype=np.float64)
        q = adjust_pvalues(p, "bh") if p.size else p
        finite = np.isfinite(p)
        rejected = finite & (q <= fdr)
        m = int(finite.sum())
        threshold = fdr * int(rejected.sum()) / m if m else 0.0
        decided["finite"] = finite
        return [(float(q0), bool(r), threshold) for q0, r in zip(q, rejected, strict=True)]

    outs = two_passes(
        jobs, _first_pass, _first_key, decide, _finish, engine=engine, client=client,
        scheduler=scheduler, workers=workers,
    )  # fmt: skip
    finite = decided.get("finite", np.zeros(0, dtype=bool))
    if not all_series:
        findings.append(Finding("no-runs", "no benchmark run with a positive time to analyse",
                                "warning"))  # fmt: skip
    short = [s.benchmark for s, ok in zip(all_series, finite, strict=True) if not ok]
    if short:
        findings.append(Finding("too-few-commits", f"{len(short)} series have fewer than 5 "
                                "benchmarked commits or no noise to calibrate; not tested", "info"))  # fmt: skip
    rows: list[dict[str, Any]] = []
    out_rows: list[dict[str, Any]] = []
    series_rows: list[dict[str, Any]] = []
    level_frames: list[pd.DataFrame] = []
    for o in outs:
        series_rows.append(o.series_row)
        out_rows += o.outlier_rows
        rows += [
            {**r, "commits": _widen(o.series, r["commits"], full, full_list)} for r in o.change_rows
        ]
        level_frames.append(o.levels)
    changes = pd.DataFrame(rows, columns=list(CHANGE_COLUMNS))
    changes["recovered_at"] = changes["recovered_at"].astype(object)
    changes.loc[changes["recovered_at"].isna(), "recovered_at"] = None
    series_frame = pd.DataFrame(series_rows)
    _mark_environment(changes, series_frame)
    outliers = pd.DataFrame(out_rows, columns=list(OUTLIER_COLUMNS))
    findings += _outlier_findings(outliers, series_frame)
    if not changes.empty:
        size = np.abs(np.log(changes["ratio"].to_numpy(dtype=float)))
        order = np.lexsort((-size, changes["recovered_at"].notna().to_numpy()))
        changes = changes.iloc[order].reset_index(drop=True)
        n_env = int(changes["environment_shift"].sum())
        if n_env:
            findings.append(Finding("environment-shift", f"{n_env} changes are shared by most "
                                    "benchmarks of their machine at one commit: probably the "
                                    "machine or environment changed, not the code"))  # fmt: skip
    levels = (
        pd.concat(level_frames, ignore_index=True)
        if level_frames
        else pd.DataFrame(columns=list(LEVEL_COLUMNS))
    )
    result = History(
        changes=changes,
        outliers=outliers,
        series=series_frame,
        fdr=fdr,
        warnings=tuple(findings),
        commits=tuple(c for c in ordered if keep is None or c in keep),
        levels=levels,
        seed=root,
    )
    if previous is not None:
        from tsanalyze.analysis.history.previous import against_previous

        result = against_previous(result, previous)
    return result


@dataclass(frozen=True)
class _Job:
    """One series' work and its own seed (picklable: a Dask task's input)."""

    series: HistorySeries
    seed: int
    n_null: int


@dataclass
class _Work:
    """The first pass of one series: its detector (fitted noise, null series) and the
    calibrated p-value and split of its first scan."""

    series: HistorySeries
    det: SeriesDetector
    first: tuple[float, int]


@dataclass(frozen=True)
class _SeriesOut:
    """The second pass of one series: its row of the series table, its change rows (commit
    sets as positions, widened on the client), outlier rows and per-commit levels."""

    series: HistorySeries
    series_row: dict[str, Any]
    change_rows: list[dict[str, Any]]
    outlier_rows: list[dict[str, Any]]
    levels: pd.DataFrame


def _first_pass(job: _Job) -> _Work:
    s = job.series
    rng = np.random.default_rng(job.seed)
    det = SeriesDetector(s.x, s.runs, s.within_var, rng, n_null=job.n_null, whittle=False)
    first = det.test(0, s.x.size)
    if first[0] <= PILOT_LEVEL:
        # a step inflates the variogram the noise is fitted to (and so hides itself):
        # refit on the series with the suspected steps taken out, then test again. How
        # many: as many as the pilot's binary segmentation finds at PILOT_SPLIT_LEVEL (a
        # regression that later recovered is two steps: with one taken out the other
        # still inflated the wander, and an 8-15% step lasting 40 of 150 commits went
        # unreported), each kept only where its removal raises the Whittle likelihood
        # by more than on 95% of the null series (SeriesDetector.gated_splits: removing
        # the wander's largest swing from a series without a step makes the null too
        # light; a fixed price, BIC's log n, passed ~9% of stationary series and made
        # their p-values too small, 2.7% below 0.01)
        if det.wild:
            fit_x = det.without_steps([first[1]])
        else:
            k = min(len(det.segment(first, PILOT_SPLIT_LEVEL)), MAX_PILOT_SPLITS)
            splits = det.gated_splits(first[1], k, GATE_ROWS, GATE_LEVEL, GATE_MORE_LEVEL)
            fit_x = det.without_steps(splits) if splits else s.x
        det = SeriesDetector(s.x, s.runs, s.within_var, rng, n_null=job.n_null,
                             fit_x=fit_x)  # fmt: skip
        first = det.test(0, s.x.size)
    return _Work(s, det, first)


def _first_key(work: _Work) -> tuple[float, int]:
    return work.first


def _finish(work: _Work, decided: tuple[float, bool, float]) -> _SeriesOut:
    s, det, (p0, t0) = work.series, work.det, work.first
    q0, rej, threshold = decided
    mod = det.model
    series_row = {
        "benchmark": s.benchmark, "machine": s.machine, "env": s.env,
        "commits": len(s.commits), "runs": int(s.runs.sum()), "samples": s.samples,
        "sd_wander": mod.sd_wander, "phi": mod.phi, "sd_run": mod.sd_run,
        "p_value": p0, "q_value": float(q0), "changed": bool(rej),
    }  # fmt: skip
    cps: list[tuple[int, float]] = det.segment((p0, t0), threshold) if rej else []
    pos = [c for c, _ in cps]
    bounds = [0, *pos, s.x.size]
    located: list[Located] = [det.locate(bounds[j], pos[j], bounds[j + 2]) for j in range(len(pos))]
    # outlier runs: one-commit excursions from their segment's level
    level = np.empty_like(s.x)
    for a, b in itertools.pairwise(bounds):
        level[a:b] = float(huber_levels(s.x[a:b], det.sd[a:b])) if b > a else np.nan
    out_rows: list[dict[str, Any]] = []
    if not det.degenerate:
        z = (s.x - level) / det.sd
        zc = _st.norm.isf(OUTLIER_LEVEL / (2 * s.x.size))
        for i in np.flatnonzero(np.abs(z) > zc):
            out_rows.append({"benchmark": s.benchmark, "machine": s.machine, "env": s.env,
                             "commit": s.commits[i], "ratio": math.exp(s.x[i] - level[i]),
                             "z": float(z[i]), "environment": False})  # fmt: skip
    rows = _series_changes(s, det, located, cps, bounds, level, float(q0), None, [])
    for r in rows:  # positions: widened on the client (the full list of commits is there)
        r["commits"] = r.pop("candidates")
    white = np.asarray(mod.white_var, dtype=np.float64)
    levels = pd.DataFrame({
        "benchmark": s.benchmark, "machine": s.machine, "env": s.env,
        "commit": list(s.commits), "position": np.arange(s.x.size), "x": s.x,
        "half_width": 1.959963984540054 * np.sqrt(np.maximum(white, 0.0)),
        "runs": s.runs, "level": level,
    }, columns=list(LEVEL_COLUMNS))  # fmt: skip
    return _SeriesOut(s, series_row, rows, out_rows, levels)


def _series_changes(
    s: HistorySeries, det: SeriesDetector, located: list[Located], cps: list[tuple[int, float]],
    bounds: list[int], level: np.ndarray, q0: float, full: dict[str, int] | None,
    full_list: list[str],
) -> list[dict[str, Any]]:  # fmt: skip
    """Change rows of one series: steps, runs of same-direction steps merged into drifts,
    and whether a later change brought the level back (``candidates``: the positions of
    the commit set, before widening)."""
    seg_levels = [float(level[a]) for a in bounds[:-1]]
    groups: list[list[int]] = []
    for j, loc in enumerate(located):
        if groups and np.sign(loc.delta) == np.sign(located[groups[-1][-1]].delta):
            groups[-1].append(j)
        else:
            groups.append([j])
    final: list[tuple[list[int], tuple[int, int] | None]] = []
    for g in groups:
        ramp = (
            _drift_ramp(s.x, det.sd, bounds[g[0]], [located[j].t for j in g], bounds[g[-1] + 2])
            if len(g) >= 2
            else None
        )
        final += [(g, ramp)] if ramp is not None else [([j], located[j].ramp) for j in g]
    out = []
    for g, ramp in final:
        first = located[g[0]]
        before, after = seg_levels[g[0]], seg_levels[g[-1] + 1]
        if len(g) == 1:
            delta, lo, hi = first.delta, first.ci_low, first.ci_high
        else:
            delta = after - before
            var = sum(((located[j].ci_high - located[j].ci_low) / 3.92) ** 2 for j in g)
            lo, hi = delta - 1.96 * math.sqrt(var), delta + 1.96 * math.sqrt(var)
        if ramp is not None:
            # a gradual change (a step the ramp test preferred a ramp to, or merged
            # steps): the commits over which the fitted ramp moves the level
            start, kind, cand = ramp[0], "drift", list(range(ramp[0], ramp[1] + 1))
        else:
            start, kind, cand = first.t, "step", list(first.candidates)
        recovered = None
        for k in range(g[-1] + 1, len(located)):
            lev = seg_levels[k + 1]
            if abs(lev - before) <= 0.5 * abs(delta):
                recovered = s.commits[located[k].t]
                break
        out.append({
            "benchmark": s.benchmark, "machine": s.machine, "env": s.env, "kind": kind,
            "commit": s.commits[start], "commits": _widen(s, cand, full, full_list),
            "ratio": math.exp(delta), "ci_low": math.exp(lo), "ci_high": math.exp(hi),
            "direction": "regression" if delta > 0 else "improvement",
            "p_value": min(cps[j][1] for j in g), "q_value": q0, "recovered_at": recovered,
            "environment_shift": False, "position": start, "candidates": cand,
        })  # fmt: skip
    return out


def _mark_environment(changes: pd.DataFrame, series: pd.DataFrame) -> None:
    """Mark changes located to a narrow set (at most :data:`SHARED_SET_SHARE` of their
    series' commits) that holds a commit shared by the narrow sets of at least half (and
    at least 3) of the series of their machine and env."""
    if changes.empty:
        return
    sizes = series.groupby(["machine", "env"]).size()
    n_commits = series.set_index(["benchmark", "machine", "env"])["commits"]
    keys = pd.MultiIndex.from_frame(changes[["benchmark", "machine", "env"]])
    most = np.maximum(5, np.ceil(SHARED_SET_SHARE * n_commits.reindex(keys).to_numpy()))
    narrow = pd.Series(changes["commits"].map(len).to_numpy() <= most, index=changes.index)
    for (machine, env), g in changes[narrow].groupby(["machine", "env"]):
        counts: Counter[str] = Counter()
        for cs in g["commits"]:
            counts.update(set(cs))
        need = max(3, math.ceil(SHARED_SHARE * int(sizes.get((machine, env), 0))))
        shared = {c for c, n in counts.items() if n >= need}
        if shared:
            hit = g["commits"].map(lambda cs, sh=shared: bool(sh & set(cs)))
            changes.loc[g.index[hit.to_numpy()], "environment_shift"] = True


def _outlier_findings(outliers: pd.DataFrame, series: pd.DataFrame) -> list[Finding]:
    """Mark outlier runs shared by at least half (and 3) of the series of their machine
    and env at one commit as environmental, and say which series switch between regimes
    (more than 5% of their commits are outliers): the machine behind one name varies."""
    out: list[Finding] = []
    if outliers.empty:
        return out
    sizes = series.groupby(["machine", "env"]).size()
    n_env_commits = 0
    for (machine, env), g in outliers.groupby(["machine", "env"]):
        need = max(3, math.ceil(SHARED_SHARE * int(sizes.get((machine, env), 0))))
        counts = g["commit"].value_counts()
        shared = set(counts.index[counts >= need])
        n_env_commits += len(shared)
        outliers.loc[g.index[g["commit"].isin(shared).to_numpy()], "environment"] = True
    if n_env_commits:
        out.append(Finding("environment-outliers", f"{n_env_commits} commits are outliers in most "
                           "benchmarks of their machine at once: that run's machine or "
                           "environment differed, not the code"))  # fmt: skip
    per = outliers.groupby(["benchmark", "machine", "env"]).size()
    n = series.set_index(["benchmark", "machine", "env"])["commits"]
    regime = [k for k, c in per.items() if c > REGIME_SHARE * max(int(n.get(k, 1)), 1)]
    if regime:
        out.append(Finding("regime-switching", f"{len(regime)} series have outlier runs at more "
                           f"than {REGIME_SHARE:.0%} of their commits: their runs switch between "
                           "levels (several machines under one name?); changes there are less "
                           "certain than stated"))  # fmt: skip
    return out
