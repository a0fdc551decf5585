"""Monte Carlo: the default change points and steady state on stationary dependent
series (no invented shifts or warm-ups), steps still found, drift and modes named, small
warm-ups ended where they end (issues 22 and 17, "Done when")."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tsanalyze.analysis.steady_state import steady_state
from tsanalyze.datasets import simulate_rare_delays, simulate_series
from tsanalyze.stats.changepoints.edm import edm

try:  # fGn, sums of AR(1) and Markov modes come with issue 20 (branch i20-dependence)
    from tsanalyze.datasets_dependent import simulate_dependent
except ImportError:  # pragma: no cover - until that branch lands
    simulate_dependent = None


def _dependent(n: int, process: str, reps: int, gen: np.random.Generator) -> np.ndarray:
    if simulate_dependent is None:
        pytest.skip("needs tsanalyze.datasets_dependent (issue 20's simulators, not merged yet)")
    return simulate_dependent(n, process, size=reps, rng=gen).x


Maker = Callable[[int, int, np.random.Generator], np.ndarray]


def _each(make: Callable[[int, np.random.Generator], np.ndarray]) -> Maker:
    """Rows made one series at a time (the single-series simulators)."""

    def run(n: int, reps: int, gen: np.random.Generator) -> np.ndarray:
        return np.vstack([make(n, gen) for _ in range(reps)])

    return run


def _ar(phi: float) -> Maker:
    return _each(lambda n, g: simulate_series(n, noise="gaussian", scale=0.01, phi=phi, rng=g).x)


#: the stationary classes of issue 22: independent with rare delays and with heavy
#: tails, short-range (AR(1) up to 0.97), long-range (fGn H = 0.8), three AR(1) time
#: scales, two modes with Markov switching
STATIONARY: dict[str, Maker] = {
    "rare-delays": lambda n, reps, g: simulate_rare_delays(n, size=reps, rng=g),
    "iid-t3": _each(lambda n, g: simulate_series(n, noise="t3", scale=0.01, rng=g).x),
    "ar-0.5": _ar(0.5),
    "ar-0.9": _ar(0.9),
    "ar-0.97": _ar(0.97),
    "fgn-0.8": lambda n, reps, g: _dependent(n, "fgn", reps, g),  # H = 0.8 is the default
    "three-scales": lambda n, reps, g: _dependent(n, "ar-sum", reps, g),
    "markov-modes": lambda n, reps, g: _dependent(n, "markov-modes", reps, g),
}

#: replications: enough that a 5% claim is not a coin toss (binomial sd 1.5% at 200)
REPS = {1000: 200, 10_000: 100}


@pytest.mark.slow
@pytest.mark.parametrize("n", [1000, 10_000])
@pytest.mark.parametrize("name", list(STATIONARY))
def test_stationary_series_no_shift_no_warmup(name: str, n: int) -> None:
    reps = REPS[n]
    x = STATIONARY[name](n, reps, np.random.default_rng(22_000 + n))
    shifts = cuts = modes = anything = 0
    for row in x:
        ss = steady_state(row)
        cp = ss.changepoints
        shifts += cp.n_changes > 0
        # cut: warm-up plus cool-down over 5% of the run, or no stable segment at all
        cuts += ss.start is None or ss.start + (ss.cooldown_samples or 0) > 0.05 * n
        modes += cp.modes is not None
        anything += cp.n_changes > 0 or cp.modes is not None or cp.drift is not None
    assert shifts / reps <= 0.05, f"{name}: shifts invented in {shifts}/{reps}"
    assert cuts / reps <= 0.05, f"{name}: more than 5% cut in {cuts}/{reps}"
    if name == "markov-modes":
        assert modes / max(anything, 1) >= 0.90, f"modes named in {modes} of {anything}"


def _step_found(x: np.ndarray, at: int) -> float:
    return float(np.mean([any(abs(v - at) <= 50 for v in edm(row).locations) for row in x]))


@pytest.mark.slow
def test_steps_still_found() -> None:
    n, at, reps = 1000, 500, 200
    gen = np.random.default_rng(17)
    # 1-sd step in AR(1) phi = 0.5 (sd 1%): +1% from sample 500
    ar = np.vstack(
        [
            simulate_series(
                n, noise="gaussian", scale=0.01, phi=0.5, shifts=((at, 0.01),), rng=gen
            ).x
            for _ in range(reps)
        ]
    )
    assert _step_found(ar, at) >= 0.90
    # 3% step in the rare-delay series
    rare = simulate_rare_delays(n, shifts=((at, 0.03),), size=reps, rng=gen)
    assert _step_found(rare, at) >= 0.90
    # 5% step in long-range noise (fGn H = 0.8, sd 1%)
    fgn = _dependent(n, "fgn", reps, gen)
    fgn[:, at:] *= 1.05
    assert _step_found(fgn, at) >= 0.80


@pytest.mark.slow
@pytest.mark.parametrize("phi", [0.0, 0.5])
def test_drift_named(phi: float) -> None:
    # a linear drift of 2% over the run, noise 1%
    reps = 200
    gen = np.random.default_rng(18)
    named = 0
    for _ in range(reps):
        x = simulate_series(1000, noise="gaussian", scale=0.01, phi=phi, drift=0.02, rng=gen).x
        res = edm(x)
        named += res.drift is not None and res.n_changes == 0
    assert named / reps >= 0.90


@pytest.mark.slow
@pytest.mark.parametrize("amplitude", [0.02, 0.05])
@pytest.mark.parametrize("length", [100, 300, 1000])
def test_small_warmup_end_found(amplitude: float, length: int) -> None:
    # 2-5% above the final level, decaying linearly to it over `length` samples, AR(1)
    # noise (phi 0.5, Student-t(3) innovations, sd 0.26%) with 1% spikes; the end must be
    # found within 10% of the length (issue 17)
    reps = 100
    gen = np.random.default_rng(19)
    good = 0
    for _ in range(reps):
        sim = simulate_series(
            3000, noise="t3-spikes", phi=0.5, scale=0.0015, warmup=(length, amplitude),
            warmup_shape="linear", rng=gen,
        )  # fmt: skip
        start = steady_state(sim.x).start
        good += start is not None and abs(start - length) <= 0.1 * length
    assert good / reps >= 0.90
