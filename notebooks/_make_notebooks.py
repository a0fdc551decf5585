"""Write the example notebooks (``notebooks/*.ipynb``) from the cell sources below.

The notebooks are generated so that they are reviewable as plain Python and always
consistent; they are committed without outputs and executed in CI by
``tests/test_notebooks.py`` (nbclient, kernel ``python3``). Regenerate with

    python notebooks/_make_notebooks.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

#: first code cell of every notebook: find the repository root from the working directory
SETUP = '''\
from pathlib import Path

import numpy as np
import pandas as pd

import tsanalyze

# the notebooks run from notebooks/ (CI) or from the repository root
ROOT = next(p for p in (Path.cwd(), *Path.cwd().parents) if (p / "data" / "samples").is_dir())
pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 30)'''

PLOT_SETUP = '''\
%matplotlib inline
import matplotlib.pyplot as plt

plt.rcParams["figure.figsize"] = (9, 4)
plt.rcParams["figure.dpi"] = 80'''


def plot_states(unit: str) -> str:
    """Cell source of one figure, used by more than one notebook: each series of ``series``
    in ``unit`` ("ns" or "µs") on a log scale, with the stable segment of its steady state
    (``states``) shaded and its change points marked."""
    scaled = {"ns": "x", "µs": "x / 1e3"}[unit]
    return f'''
fig, axes = plt.subplots(1, len(series), figsize=(11, 4))
for ax, (name, x) in zip(axes, series.items()):
    s = states[name]
    ax.plot({scaled}, lw=0.5, color="0.5")
    if s.start is not None:
        ax.axvspan(s.start, s.stop, color="tab:green", alpha=0.15, label="stable segment")
    for loc in s.changepoints.locations:
        ax.axvline(loc, color="tab:red", ls="--", lw=0.8)
    ax.set_yscale("log")
    ax.set_title(f"{{name}}: {{s.classification}}")
    ax.set_xlabel("sample")
axes[0].set_ylabel("{unit} per evaluation (log)")
plt.show()
'''


def md(text: str) -> nbformat.NotebookNode:
    return new_markdown_cell(text.strip("\n"))


def code(text: str) -> nbformat.NotebookNode:
    return new_code_cell(text.strip("\n"))


# --- (a) a tour ------------------------------------------------------------------------------

TOUR = [
    md('''
# A tour of tsanalyze

Load recorded runs, find the warm-up, estimate with honest confidence intervals, and compare —
the four things `tsanalyze report` does, one step at a time from Python.
'''),
    code(SETUP),
    code(PLOT_SETUP),
    md('''
## 1. Load runs

`read_runs` reads run files (one Parquet file per collector session) into one tidy frame: one
row per sample, the per-evaluation time with the timer overhead subtracted in `time_ns`, and the
metadata of every run in `df.attrs["runs"]`. `sum-squares.parquet` is a real recording: two
implementations of a sum of squares timed in interleaved, shuffled rounds on a busy machine.
'''),
    code('''
df = tsanalyze.read_runs(ROOT / "data" / "samples" / "sum-squares.parquet")
df.head()
'''),
    code('''
run_id, meta = next(iter(df.attrs["runs"].items()))
print("clock:", meta["clock"]["source"], "| timer overhead:", meta["timer"].get("overhead_ns"), "ns")
df.groupby("benchmark", observed=True).agg(samples=("sample", "size"), evals=("evals", "median"),
                                           median_ns=("time_ns", "median"))
'''),
    md('''
## 2. Find the warm-up

First on simulated data with a known answer: 2000 samples with delay noise, autocorrelated
(AR(1) φ = 0.5), and a warm-up that starts 50% slow and decays over 300 samples.
`steady_state` finds the change points and keeps the stable segment (Pilot's rule: the
longest segment, if it holds more than half of the samples).
'''),
    code('''
from tsanalyze.datasets import simulate_series

sim = simulate_series(2000, noise="delay", phi=0.5, warmup=(300, 0.5), rng=1)
ss_sim = tsanalyze.steady_state(sim.x)
print("truth: change points", sim.truth.changepoints, "| found:", ss_sim.changepoints.locations)
print("classification:", ss_sim.classification, "| stable segment:", ss_sim.start, "to", ss_sim.stop)
'''),
    md('''
Then on the recorded series:
'''),
    code('''
series = {name: g.sort_values("sample").time_ns.to_numpy()
          for name, g in df.groupby("benchmark", observed=True)}
states = {name: tsanalyze.steady_state(x) for name, x in series.items()}
pd.DataFrame([{"benchmark": k, "classification": s.classification, "start": s.start, "stop": s.stop,
               "change points": s.changepoints.locations} for k, s in states.items()])
'''),
    code(plot_states("ns")),
    md('''
## 3. Estimate, with a confidence interval that accounts for dependence

Consecutive samples are usually autocorrelated; `autocorrelation` measures it and finds the
subsession size (how many samples must be averaged before block means are nearly independent).
`estimate` takes the dependence into account in its interval.
'''),
    code('''
name = sorted(series)[0]
s = states[name]
x = series[name]
stable = x if s.start is None else x[s.start:s.stop]
ac = tsanalyze.autocorrelation(stable)
print(f"{name}: lag-1 autocorrelation {ac.lag1:.3f}, subsession size {ac.subsession_size}")
tsanalyze.estimate(stable, "median", rng=1).to_frame()
'''),
    md('''
The accessor does the same for every series of a frame and returns one tidy row per series —
the summary table of `tsanalyze report`, as data:
'''),
    code('''
df.tsa.summary(rng=1)[["benchmark", "n", "stable_share", "classification", "estimate", "ci_low",
                       "ci_high", "subsession_size", "warnings"]]
'''),
    md('''
## 4. Compare

The two implementations were timed in the same rounds, so their samples are paired round by
round. `compare` detects the design, tests, and gives a verdict: *faster*/*slower* only when
the CI of the relative change lies wholly outside ±1% and the test rejects; *same* when it
lies wholly inside ±1%; otherwise *inconclusive*.
'''),
    code('''
names = sorted(series)
a, b = (df[df.benchmark == n] for n in names)
cmp = tsanalyze.compare(a, b, rng=1)
print(f"{names[1]} / {names[0]}: ratio {cmp.ratio:.3f} [{cmp.ci_low:.3f}, {cmp.ci_high:.3f}], "
      f"p = {cmp.pvalue:.2g}, verdict: {cmp.verdict}")
'''),
    code('''
df.tsa.compare(names[0], names[1], between="benchmark", rng=1).T
'''),
]


# --- (b) auditing a published result ------------------------------------------------------

AUDIT = [
    md('''
# Auditing a published result

Papers, READMEs and CI logs print a location and a spread and draw a conclusion. `tsanalyze.audit`
checks what such numbers can support **from the summary statistics alone**. Two published
examples: the Go benchstat table of seed 004 (Ou, "Eliminating a source of measurement errors in
benchmarks") and the nanobenchmark of seed 003 (Boyer, "Robust Java benchmarking").
'''),
    code(SETUP),
    md('''
## 1. Seed 004: the clock inside the loop

Ou times an atomic add with Go's benchmark harness twice: once stopping and restarting the timer
around every iteration (`with-timer`: one clock-read pair per evaluation) and once with one
clock-read pair per sample of 1000 iterations (`w/o-timer`), `-count=20` samples each. The
published benchstat table, transcribed in `tests/data/audit/seed004_atomic.yaml`:
'''),
    code('''
from tsanalyze.io.audit_input import read_audit_input

rows = read_audit_input(ROOT / "tests" / "data" / "audit" / "seed004_atomic.yaml")
pd.DataFrame(rows)[["name", "location", "unit", "spread", "spread_unit", "spread_kind", "n", "evals",
                    "compare_to"]]
'''),
    code('''
result = tsanalyze.audit(rows)
print("worst finding:", result.worst)
findings = result.to_frame()
findings[findings.severity != "info"][["name", "other", "code", "severity", "message"]]
'''),
    md('''
The serious `timer-overhead` findings say what the note is about: a clock-read pair costs about
16 ns (the audit's default, `clock_overhead_ns`), which is half of the 32.6 ns published for the
`with-timer` row. By hand:
'''),
    code('''
clock_pair_ns = result.clock_overhead_ns
for name, loc in [("Atomic/with-timer-8", 32.6), ("Atomic/n-10/with-timer-8", 74.3)]:
    print(f"{name}: {clock_pair_ns:g} ns of {loc} ns = {clock_pair_ns / loc:.1%} is the clock")
'''),
    md('''
The claimed differences between the two ways of timing are mostly the timer
(`difference-timer-artifact`), and for k = 1000 atomic adds the 20 ns difference is not
significant at all once the "± x%" spread (old benchstat's largest deviation from the mean) is
turned into a standard deviation: since that sd is only an upper bound, the audit says the
difference cannot be confirmed from the summary (`difference-unconfirmed`).

## 2. Seed 003: a standard deviation no honest distribution can have

Boyer's worked example: samples ("blocks") of a = 67 108 864 evaluations, block mean
μ_B = 1.395522860870968 s, block sd σ_B = 0.0013859776344426547 s. Per evaluation that is a
mean of 20.8 ns with an sd of σ_B/√a = 169 ns — eight times the mean, for times that cannot be
negative. The σ-blowup model asks how much of the variance a few outlying evaluations must
explain:
'''),
    code('''
ov = tsanalyze.outlier_variance(mean=1.395522860870968, sd=0.0013859776344426547, evals=67108864)
ov.to_frame().T
'''),
    code('''
# the seed prints f = 99.60022873987793 % (severe) for this example
assert abs(ov.fraction * 100 - 99.60022873987793) < 1e-9 and ov.effect == "severe"
print(f"outliers explain {ov.fraction:.4%} of the variance: {ov.effect}")
'''),
    code('''
boyer = tsanalyze.audit([{
    "name": "nanobenchmark (seed 003)", "location": 1.395522860870968 / 67108864, "unit": "s",
    "location_kind": "mean", "spread": 0.0013859776344426547 / np.sqrt(67108864), "spread_kind": "sd",
    "n": 60, "evals": 67108864,
}])
boyer.to_frame()[["name", "code", "severity", "message"]]
'''),
    md('''
**Reading.** "Mean ± sd" of this benchmark describes a handful of interrupted evaluations, not
the code: quote the median (or the minimum, with its caveats) with a CI, and investigate the
interference. The command line gives the same findings: `tsanalyze audit published.yaml`.
'''),
]


# --- (c) change points and steady state on real runs --------------------------------------

CHANGEPOINTS = [
    md('''
# Change points and steady state on recorded runs

The sample runs in `data/samples/` were recorded with the tsanalyze collector on a busy,
shared 2-core machine: they carry real scheduling noise. This notebook finds their change points
and stable segments, compares change-point methods, and checks on simulated data that a single
spike does not make a change point while a real shift does.
'''),
    code(SETUP),
    code(PLOT_SETUP),
    md('''
## A warm-up and a slowdown

`warmup-drift.parquet` holds two benchmarks recorded on purpose to change during the run:
`memo-fill` calls a memoised function with random keys, so it gets faster while its cache fills;
`list-grow` appends to a list and searches it, so it gets slower with every evaluation.
'''),
    code('''
df = tsanalyze.read_runs(ROOT / "data" / "samples" / "warmup-drift.parquet")
series = {name: g.sort_values("sample").time_ns.to_numpy()
          for name, g in df.groupby("benchmark", observed=True)}
{name: len(x) for name, x in series.items()}
'''),
    md('''
`steady_state` runs the default change-point method (robust E-Divisive with Medians: a rank
statistic at every split, with a calibrated false-alarm rate), applies Pilot's rule (the stable
segment is the longest one, if it holds more than half of the samples) and classifies the series
(Barrett et al. 2017): *flat*, *warm-up*, *slowdown* or *no steady state*.
'''),
    code('''
states = {name: tsanalyze.steady_state(x) for name, x in series.items()}
pd.DataFrame([{"benchmark": name, "classification": s.classification, "start": s.start,
               "stop": s.stop, "n": len(series[name]), "changes": len(s.changepoints.locations),
               "warnings": ";".join(w.code for w in s.warnings)} for name, s in states.items()])
'''),
    code(plot_states("µs")),
    md('''
A series whose level keeps moving has no segment holding more than half of the samples: then
there is **no stable segment**, and tsanalyze says so (a serious finding in the report) instead
of quietly averaging a moving target. The segments show how the level moved:
'''),
    code('''
cp = states["memo-fill"].changepoints
cp.segments
'''),
    md('''
## An interleaved comparison

`sum-squares.parquet` times two implementations in 3000 interleaved rounds. Both series share
the machine's history, so a change caused by the machine shows up in both at the same round.
'''),
    code('''
pairs = tsanalyze.read_runs(ROOT / "data" / "samples" / "sum-squares.parquet")
pairs.tsa.steady_state()[["benchmark", "classification", "start", "stop", "n_changes",
                          "locations"]].drop_duplicates("benchmark")
'''),
    md('''
## Methods side by side

The same interface offers PELT (through `ruptures`) and the BreakoutDetection-compatible EDM
variants. PELT with the squared-error cost reacts to every burst of the heavy tail; the
compatible EDM scales the series by its range, so the largest outlier sets the scale and the
default penalty can hide everything; the robust default uses ranks and needs no scale.
'''),
    code('''
x = series["memo-fill"]
rows = []
for method in ["edm", "pelt-l2", "edm-multi"]:
    r = tsanalyze.changepoints(x, method=method)
    rows.append({"method": r.method, "changes": r.n_changes, "first locations": r.locations[:6]})
pd.DataFrame(rows)
'''),
    md('''
## A single spike is not a change point; a shift is

On 20 stationary simulated series (delay noise) each with one sample made 50 times slower, and
20 series with a 5% level shift at sample 1200, count how often the robust default reports a
change at all (false alarms, calibrated to at most `alpha` = 5% of series) and how often it
finds the shift within ±20 samples.
'''),
    code('''
from tsanalyze.datasets import simulate_series

false_alarms = found = 0
for i in range(20):
    spiky = simulate_series(2000, noise="delay", scale=0.02, rng=100 + i).x.copy()
    spiky[1000] *= 50
    false_alarms += len(tsanalyze.changepoints(spiky).locations) > 0
    shifted = simulate_series(2000, noise="delay", scale=0.02, shifts=((1200, 0.05),), rng=200 + i)
    found += any(abs(loc - 1200) <= 20 for loc in tsanalyze.changepoints(shifted.x).locations)
print(f"one spike: a change reported in {false_alarms} of 20 series")
print(f"5% shift at 1200: found in {found} of 20 series (truth {shifted.truth.changepoints})")
'''),
]


# --- (d) why min, median and mean disagree ------------------------------------------------

ESTIMATORS = [
    md('''
# Why the minimum, median and mean disagree

Chen, Revels & Edelman (seed 000, Figs. 3–4) ran the same benchmark in 100 trials of 10 000
samples and found that the median, mean and trimmed mean of a trial jump between two values
from trial to trial — the timing distribution of a trial falls into one of two clusters — while
the minimum stays put. This notebook reproduces the effect with the simulator (delay-factor
noise: delays only ever add time) and shows what each estimator's confidence interval does and
does not tell you.
'''),
    code(SETUP),
    code(PLOT_SETUP),
    md('''
## Simulated trials

Each trial is 2000 samples of a 1 µs benchmark with delay noise. In each trial a random share
of the samples (25% or 75%, chosen per trial, like the two clusters of Fig. 4) is slowed by 12%
— a cache or memory-layout state that a process keeps for its whole life.
'''),
    code('''
from tsanalyze.datasets import simulate_series

rng = np.random.default_rng(2016)
n_trials, n, t0 = 60, 2000, 1000.0
share_slow = rng.choice([0.25, 0.75], size=n_trials)
trials = []
for i in range(n_trials):
    x = simulate_series(n, t0=t0, noise="delay", scale=0.02, rng=int(rng.integers(2**31))).x
    slow = rng.random(n) < share_slow[i]
    trials.append(np.where(slow, x * 1.12, x))
trials = np.array(trials)
trials.shape
'''),
    code('''
from scipy import stats

est = pd.DataFrame({
    "trial": np.arange(n_trials),
    "share_slow": share_slow,
    "minimum": trials.min(axis=1),
    "median": np.median(trials, axis=1),
    "trimmed_mean": [stats.trim_mean(t, 0.05) for t in trials],
    "mean": trials.mean(axis=1),
})
est.describe().loc[["mean", "std", "min", "max"]]
'''),
    md('''
## Fig. 3: the estimates, trial by trial
'''),
    code('''
fig, ax = plt.subplots()
style = {"mean": ("o", "tab:green"), "trimmed_mean": ("s", "tab:brown"),
         "median": ("x", "black"), "minimum": ("^", "tab:blue")}
for col, (marker, color) in style.items():
    ax.scatter(est.trial, est[col], marker=marker, color=color, s=18, label=col)
ax.set_xlabel("trial")
ax.set_ylabel("ns per evaluation")
ax.legend(ncol=4, loc="upper center")
ax.set_title("location estimates across trials (cf. seed 000, Fig. 3)")
plt.show()
'''),
    md('''
## Fig. 4: the distributions of the trials

Kernel density estimates of 20 trials: two clusters of curves, depending on the trial's state.
'''),
    code('''
grid = np.linspace(990, 1250, 400)
fig, ax = plt.subplots()
for i in range(20):
    kde = stats.gaussian_kde(trials[i], bw_method=0.05)
    ax.plot(grid, kde(grid), lw=0.8, color="tab:red" if share_slow[i] > 0.5 else "tab:blue")
ax.set_xlabel("ns per evaluation")
ax.set_ylabel("density")
ax.set_title("KDEs of 20 trials: blue mostly fast, red mostly slow (cf. seed 000, Fig. 4)")
plt.show()
'''),
    md('''
## How far each estimator moves between trials

Relative to its own average: the median jumps by almost the full 12% between the two kinds of
trial (it falls in whichever cluster holds the majority), the mean and trimmed mean move by
several percent (the share of slow samples, plus the delay tail for the mean), and the minimum
does not move — it is the floor of the delay model, shared by both clusters.
'''),
    code('''
spread = est[["minimum", "median", "trimmed_mean", "mean"]].agg(lambda c: (c.max() - c.min()) / c.mean())
spread.map("{:.2%}".format).rename("range across trials / mean").to_frame()
'''),
    md('''
## What a single trial's CI says

A confidence interval from one trial describes the uncertainty **within** that trial. Here the
within-trial CI of the median is narrow, yet another trial would give a median 12% away: the
trial-to-trial variation is not in it. Compare runs with several trials per side (the run as
the unit, Kalibera & Jones 2013), and read the minimum with care — its CI is degenerate at the
floor, and tsanalyze says so in a warning.
'''),
    code('''
rows = []
for i in (int(np.argmin(share_slow)), int(np.argmax(share_slow))):
    for estimator in ("minimum", "median", "mean"):
        e = tsanalyze.estimate(trials[i], "min" if estimator == "minimum" else estimator, rng=1)
        rows.append({"trial": i, "share_slow": share_slow[i], "estimator": estimator,
                     "estimate": e.estimate, "ci_low": e.ci_low, "ci_high": e.ci_high,
                     "warnings": ";".join(w.code for w in e.warnings)})
pd.DataFrame(rows)
'''),
    md('''
## Modes within a trial, and estimates across trials

`multimodality` finds the two clusters inside one trial. `estimate_trials` treats the trial (process) as
the unit: a two-level bootstrap (resample trials, then samples within them, Kalibera & Jones
2013) gives a CI that includes the trial-to-trial variation, and Cochran's Q says whether the
trials agree (`trials-disagree`).
'''),
    code('''
tsanalyze.multimodality(trials[0]).to_frame()
'''),
    code('''
across = [tsanalyze.estimate_trials(list(trials), e, n_resamples=500, rng=1) for e in ("median", "min")]
pd.concat([t.to_frame() for t in across], ignore_index=True)[
    ["estimator", "estimate", "ci_low", "ci_high", "n_trials", "between_share", "disagree", "warnings"]]
'''),
    md('''
**Reading.** Which estimator to trust depends on the question. The minimum estimates the
noise-free cost under the delay model and is stable across trials, but says nothing about the
time users see. The median describes the typical sample of *this* process, and can change from
process to process. The mean includes every delay and is pulled by the tail. Report the one
that answers your question, with a CI, and repeat the run in several processes before
concluding.
'''),
]


NOTEBOOKS = {
    "a_tour.ipynb": TOUR,
    "b_auditing_published_results.ipynb": AUDIT,
    "c_changepoints_on_recorded_runs.ipynb": CHANGEPOINTS,
    "d_min_median_mean.ipynb": ESTIMATORS,
}


def build(name: str) -> nbformat.NotebookNode:
    """The notebook ``name`` (without outputs)."""
    nb = new_notebook(cells=NOTEBOOKS[name])
    stem = name.split("_", 1)[0]
    for i, cell in enumerate(nb.cells):
        cell.id = f"{stem}-{i:02d}"  # stable ids: regenerating gives no spurious diff
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def main() -> int:
    """Write every notebook next to this script."""
    for name in NOTEBOOKS:
        nb = build(name)
        nbformat.validate(nb)
        nbformat.write(nb, HERE / name)
        print(f"wrote {HERE / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
