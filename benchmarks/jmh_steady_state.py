"""Steady state and change points on 40 real JMH series, against what people marked.

Run: ``python benchmarks/jmh_steady_state.py [--data DIR]``. Needs the ``../shared``
checkout (``data/external/jmh-beseda-manual``, MartinBeseda/steady-state: NO LICENCE, so
read in place and never copied into the project); prints a note and exits 0 without it.

Prints, in Markdown:

- for the development labels (``labels_dev.csv``: five people's steady-state starts for
  10 of the 40 series, and their median), the median |start − people's median| of the
  default ``steady_state`` and of Pilot's rule (the first release's rule, with today's
  change points); a start of ``None`` (no stable segment) counts as the end of the run;
- the classification, start and stop of all 40 series;
- the shifts the default change points report in the part the people call steady (after
  their median start; dev series) and, for all 40, after the default's own start: how
  many series have any, how many shifts, and how large (relative differences between
  neighbouring segment medians).

- with ``--intervals`` (and ``--forks K``: also forks 1..K of the ten jmh-traini2022
  benchmarks, NO LICENCE, read in place): what the analysis says of each series' interval: how many are
  unbounded and said so (``ci-unbounded``, ``too-short-for-dependence``, a dependence
  finding that no interval can be trusted), how often the
  halves check speaks (``halves-disagree``), and a real-data check of coverage: each half
  of the stable segment with its own 95% median interval (``estimate``), how often the
  second half's median falls outside the first half's interval (17% for two honest
  intervals of equal width) and how often the two differ beyond 1.96 combined standard
  errors (5%).

Reference figures (issue 17): the first release was a median 315 iterations from the
people (347 on the held-back series); CP-SSD (Traini et al. 2023) 288; one person against
the other four 106.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tsanalyze.analysis.steady_state import steady_state
from tsanalyze.stats.changepoints.api import changepoints

DEFAULT = (
    Path(__file__).resolve().parents[1]
    / ".."
    / "shared"
    / "data"
    / "external"
    / "jmh-beseda-manual"
)


def load(folder: Path) -> dict[str, np.ndarray]:
    series = {}
    for path in sorted((folder / "series_fork0").iterdir()):
        name = path.name.removesuffix("_0")
        series[name] = np.asarray(json.loads(path.read_text()), dtype=np.float64) * 1e9  # s -> ns
    return series


def load_forks(folder: Path, forks: int) -> dict[str, np.ndarray]:
    """Forks 1..``forks`` of each jmh-traini2022 benchmark (fork 0 is in the 40 above)."""
    series = {}
    for path in sorted(folder.iterdir()):
        runs = json.loads(path.read_text())
        for i in range(1, min(forks, len(runs) - 1) + 1):
            series[f"{path.stem} fork {i}"] = np.asarray(runs[i], dtype=np.float64) * 1e9
    return series


def labels(folder: Path) -> dict[str, int]:
    with (folder / "labels_dev.csv").open() as f:
        return {row["benchmark"]: int(row["median"]) for row in csv.DictReader(f)}


def segment_medians(
    x: np.ndarray, method: Callable[[np.ndarray], object] | None = None
) -> np.ndarray:
    """Medians of the segments the default change points (or ``method``) draw on ``x``."""
    res = changepoints(x) if method is None else method(x)
    return res.segments["median"].to_numpy()  # type: ignore[attr-defined]


def summarise(medians: list[np.ndarray], label: str) -> None:
    sizes = [[float(abs(b / a - 1.0)) for a, b in itertools.pairwise(m)] for m in medians]
    spread = [float(m.max() / m.min() - 1.0) for m in medians]
    any_ = sum(1 for s in sizes if s)
    counts = [len(s) for s in sizes]
    flat = [v for s in sizes for v in s]
    small = sum(1 for s, r in zip(sizes, spread, strict=True) if s and r < 0.01)
    big = sum(1 for s, r in zip(sizes, spread, strict=True) if s and r > 0.02)
    print(
        f"- {label}: shifts in {any_} of {len(sizes)} series ({any_ / len(sizes):.0%}); "
        f"per series median {np.median(counts):.0f}, max {max(counts)}; sizes median "
        f"{(np.median(flat) if flat else 0):.2%}; all segments within 1% of each other in "
        f"{small} series, more than 2% apart in {big}"
    )


def intervals(series: dict[str, np.ndarray]) -> None:
    """The ``--intervals`` section: unbounded intervals, halves-disagree, split coverage."""
    import math

    from tsanalyze.analysis.series import analyze_series
    from tsanalyze.stats.estimators import estimate

    unbounded = said = halves = pairs = outside = beyond = 0
    for x in series.values():
        r = analyze_series(x, rng=1)
        codes = {w.code for w in r.warnings}
        halves += "halves-disagree" in codes
        if not math.isfinite(r.ci_high - r.ci_low):
            unbounded += 1
            said += bool(codes & {"ci-unbounded", "too-short-for-dependence"}) or any(
                "no interval" in w.message for w in r.warnings
            )
        seg = x[r.start : r.stop]
        h = seg.size // 2
        e1, e2 = (estimate(p, "median", rng=1) for p in (seg[:h], seg[h:]))
        if not all(math.isfinite(v) for v in (e1.ci_low, e1.ci_high, e2.ci_low, e2.ci_high)):
            continue
        pairs += 1
        outside += not (e1.ci_low <= e2.estimate <= e1.ci_high)
        se = math.hypot(e1.ci_high - e1.ci_low, e2.ci_high - e2.ci_low) / (2 * 1.96)
        beyond += se > 0 and abs(e2.estimate - e1.estimate) / se > 1.96
    n = len(series)
    print(f"## Intervals ({n} series)\n")
    print(f"- unbounded intervals: {unbounded}, said so by a finding: {said}")
    print(f"- halves-disagree: {halves} of {n} ({halves / n:.0%})")
    print(
        f"- halves with bounded intervals: {pairs}; second half's median outside the first "
        f"half's 95% interval: {outside} ({outside / max(pairs, 1):.0%}, 17% expected); "
        f"beyond 1.96 combined standard errors: {beyond} ({beyond / max(pairs, 1):.0%}, 5% "
        "expected)\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument(
        "--baseline-edm", default=None, help="another edm.py (e.g. main's) for the shift figures"
    )
    ap.add_argument("--intervals", action="store_true", help="also the intervals section")
    ap.add_argument(
        "--forks",
        type=int,
        default=0,
        help="with --intervals: also forks 1..FORKS of the jmh-traini2022 series (10 forks each)",
    )
    args = ap.parse_args()
    folder = args.data.resolve()
    if not (folder / "series_fork0").is_dir():
        print(f"no JMH series at {folder} (needs the ../shared checkout); nothing to do")
        return
    series = load(folder)
    people = labels(folder) if (folder / "labels_dev.csv").exists() else {}
    t0 = time.perf_counter()
    results = {name: steady_state(x) for name, x in series.items()}
    elapsed = time.perf_counter() - t0
    pilot = {name: steady_state(x, rule="pilot") for name, x in series.items() if name in people}

    def start(res: object, n: int) -> int:
        s = getattr(res, "start", None)
        return n if s is None else int(s)

    if people:
        err = [abs(start(results[b], series[b].size) - people[b]) for b in people]
        err_p = [abs(start(pilot[b], series[b].size) - people[b]) for b in people]
        print(f"## Development labels ({len(people)} series)\n")
        print("| series | people (median) | default start | error | Pilot's rule start | error |")
        print("|---|---|---|---|---|---|")
        for b, e, ep in zip(people, err, err_p, strict=True):
            print(
                f"| {b[:60]} | {people[b]} | {results[b].start} | {e} | {pilot[b].start} | {ep} |"
            )
        print(
            f"\nmedian |error|: default {np.median(err):.1f}, Pilot's rule {np.median(err_p):.1f} "
            "iterations\n"
        )
    print(f"## Classification of the {len(series)} series ({elapsed:.1f} s in all)\n")
    counts: dict[str, int] = {}
    print("| series | class | start | stop | findings |")
    print("|---|---|---|---|---|")
    for name, res in results.items():
        counts[res.classification] = counts.get(res.classification, 0) + 1
        codes = ", ".join(sorted({w.code for w in res.warnings}))
        print(f"| {name[:70]} | {res.classification} | {res.start} | {res.stop} | {codes} |")
    print("\n" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + "\n")
    print("## Shifts reported in the steady part\n")
    if people:
        summarise(
            [segment_medians(series[b][people[b] :]) for b in people],
            "after the people's start (dev)",
        )
    summarise(
        [
            segment_medians(x[results[b].start : results[b].stop])
            for b, x in series.items()
            if results[b].start is not None
        ],
        "after the default's own start (all series with a stable segment)",
    )
    if args.intervals:
        traini = folder.parent / "jmh-traini2022" / "timeseries_all"
        more = load_forks(traini, args.forks) if args.forks and traini.is_dir() else {}
        intervals(series | more)
    if args.baseline_edm and people:
        spec = importlib.util.spec_from_file_location("edm_before", args.baseline_edm)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        summarise(
            [segment_medians(series[b][people[b] :], mod.edm) for b in people],
            "baseline edm, after the people's start (dev)",
        )


if __name__ == "__main__":
    main()
