"""Seeded synthetic timing data with known truth.

The simulator follows the delay-factor model of Chen et al. (2016) [1]_: the time of one
evaluation is a true time ``t0`` plus delays that only ever *add* time. Each of K delay
factors fires a Poisson number of times per evaluation, each firing costing an exponential
amount of time with the factor's own scale. On top of that: timer overhead and
quantisation, optional warm-up decay, level shifts, slow drift, AR(1) dependence and
bimodal regimes across runs. Other noise families (Gaussian, Student-t(3), t(3) plus
spikes) are available for tests that need a symmetric or heavy-tailed reference.

Every generator returns the data together with its truth (t0, change points and the
population median, mean and 5–95% trimmed mean of the final segment), so later
statistical tests can check coverage, false-alarm rates and power.

References
----------
.. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
   environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §III, the
   delay-factor model, Eqs. 1–4. arXiv:1608.04295.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import signal, stats

from tsanalyze import schema
from tsanalyze._result import Result, result
from tsanalyze._typing import Float64Array, RNGType
from tsanalyze._validation import check_positive_int, check_rng
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.schema import SCHEMA_VERSION

__all__ = [
    "DEFAULT_DELAYS",
    "FREQUENT_DELAYS",
    "MIN_RELATIVE_TIME",
    "RARE_DELAYS",
    "DelayFactor",
    "NoiseKind",
    "SimulatedRun",
    "SimulatedSeries",
    "Truth",
    "WarmupShape",
    "simulate_rare_delays",
    "simulate_run",
    "simulate_series",
    "simulate_trials",
]

NoiseKind = Literal["gaussian", "t3", "t3-spikes", "delay"]
#: the smallest time a simulated sample takes, relative to t0 (times are > 0)
MIN_RELATIVE_TIME = 1e-3
_NOISE_KINDS = ("gaussian", "t3", "t3-spikes", "delay")
#: Length of the seeded simulation that estimates population quantities.
_TRUTH_N = 1_000_000
_TRUTH_SEED = 20161013


@dataclass(frozen=True, slots=True)
class DelayFactor:
    """One source of delay (Chen et al. 2016, Eq. 2): fires ``rate`` times per evaluation on
    average (Poisson); each firing costs Exp(mean ``relative_scale`` × scale × t0)."""

    name: str
    rate: float
    relative_scale: float


#: Default delay factors, scales relative to the ``scale`` argument: frequent small
#: delays (cache/branch effects; firing 3 times per evaluation on average, so only
#: e^-3 = 5% of evaluations run at exactly t0), rare medium ones (interrupts), very
#: rare large ones (context switches). With scale=0.02 each adds 1% of t0 to the mean.
DEFAULT_DELAYS: tuple[DelayFactor, ...] = (
    DelayFactor("jitter", 3.0, 1.0 / 6.0),
    DelayFactor("interrupt", 0.02, 25.0),
    DelayFactor("context-switch", 0.001, 500.0),
)

#: Delay factors that all fire often (every factor at least 0.05 times per evaluation,
#: i.e. about 100 times in 2000 samples): the same seed-000 model, and the interrupt-like
#: and preemption-like factors again add 1% of t0 each to the mean (with scale=0.02), but
#: spread over many medium delays instead of a few huge ones. Here the mean is estimable
#: from a few thousand samples, unlike under :data:`DEFAULT_DELAYS`, whose context switch
#: fires about twice in 2000 samples (no interval from the data can then cover the mean).
FREQUENT_DELAYS: tuple[DelayFactor, ...] = (
    DelayFactor("jitter", 3.0, 1.0 / 6.0),
    DelayFactor("interrupt", 0.1, 5.0),
    DelayFactor("preemption", 0.05, 10.0),
)


@result
class Truth(Result):
    """What the simulator knows about a series.

    ``median``, ``mean`` and ``trimmed_mean`` are population values of the per-evaluation
    time in the final segment (exact where a closed form exists, otherwise from a seeded
    simulation of 10⁶ values); ``changepoints`` are 0-based indices of the first sample
    of each new segment (the end of the warm-up included).
    """

    t0: float
    changepoints: tuple[int, ...]
    warmup_end: int
    median: float
    mean: float
    trimmed_mean: float
    phi: float
    noise: str
    final_level: float


@dataclass(frozen=True, slots=True)
class SimulatedSeries:
    """A simulated series of per-evaluation times (ns) and its :class:`Truth`."""

    x: Float64Array
    truth: Truth


@dataclass(frozen=True, slots=True)
class SimulatedRun:
    """A simulated run in the v1 run format (as ``read_runs`` returns it) and the truth
    per benchmark."""

    frame: pd.DataFrame
    truth: dict[str, Truth]


def _ar1(innovations: Float64Array, phi: float) -> Float64Array:
    """AR(1) filter y_t = phi y_{t-1} + sqrt(1-phi²) e_t, started in stationarity."""
    if phi == 0.0:
        return innovations
    # y_0 = innov_0 has the stationary marginal (unit variance); the filter then runs
    # from it (a y_0 of phi * innov_0 + e_0 had variance 1 + 2 phi sqrt(1 - phi²), twice
    # the marginal at phi = 0.7: a warm-up of the simulator's own making)
    e = innovations[1:] * np.sqrt(1.0 - phi * phi)
    y: Float64Array = np.empty_like(innovations, dtype=np.float64)
    y[0] = innovations[0]
    y[1:] = signal.lfilter([1.0], [1.0, -phi], e, zi=np.array([phi * innovations[0]]))[0]
    return y


def _noise(
    n: int,
    kind: str,
    scale: float,
    phi: float,
    spike_rate: float,
    spike_scale: float,
    evals: int,
    delays: Sequence[DelayFactor],
    rng: np.random.Generator,
) -> Float64Array:
    """Relative excess time per evaluation (time = t0 * (1 + noise)), mean of ``evals``."""
    if kind == "gaussian":
        return scale * _ar1(rng.standard_normal(n), phi) / np.sqrt(evals)
    if kind in ("t3", "t3-spikes"):
        out = scale * _ar1(rng.standard_t(3, n), phi) / np.sqrt(evals)
        if kind == "t3-spikes":
            hit = rng.random(n) < spike_rate
            out = out + hit * spike_scale * scale * (1.0 + rng.exponential(1.0, n))
        return out
    # delay-factor model: Poisson(rate * evals) firings, each Exp(rel_scale * scale)
    if phi != 0.0:
        modulation = np.exp(0.5 * _ar1(rng.standard_normal(n), phi) - 0.125)  # E = 1
    else:
        modulation = np.ones(n)
    total = np.zeros(n)
    for f in delays:
        counts = rng.poisson(f.rate * evals * modulation)
        total += rng.gamma(np.maximum(counts, 1), f.relative_scale * scale) * (counts > 0)
    return total / evals


@functools.lru_cache(maxsize=64)
def _population(
    kind: str, scale: float, phi: float, spike_rate: float, spike_scale: float,
    delays: tuple[DelayFactor, ...],
) -> tuple[float, float, float]:
    """Median, mean and 5–95% trimmed mean of the relative noise (seeded long run)."""
    if kind in ("gaussian", "t3"):
        return 0.0, 0.0, 0.0  # symmetric about 0, whatever phi
    rng = np.random.default_rng(_TRUTH_SEED)
    z = _noise(_TRUTH_N, kind, scale, phi, spike_rate, spike_scale, 1, delays, rng)
    if kind == "t3-spikes":
        mean = spike_rate * spike_scale * scale * 2.0  # E[spike] = rate * s * (1 + 1)
    else:
        mean = float(sum(f.rate * f.relative_scale * scale for f in delays))
    return float(np.median(z)), mean, float(stats.trim_mean(z, 0.05))


def _simulate_iv(n: int, noise: str, scale: float, phi: float) -> None:
    check_positive_int(n, "n")
    if noise not in _NOISE_KINDS:
        raise InvalidArgumentError(f"noise: expected one of {', '.join(_NOISE_KINDS)}, got {noise!r}")
    if not scale >= 0:
        raise InvalidArgumentError(f"scale: must be >= 0, got {scale!r}")
    if not -1.0 < phi < 1.0:
        raise InvalidArgumentError(f"phi: must be in (-1, 1) for a stationary AR(1), got {phi!r}")


def _series(
    n: int, *, t0: float, noise: str, scale: float, phi: float, spike_rate: float,
    spike_scale: float, warmup: tuple[int, float] | None, shifts: Sequence[tuple[int, float]],
    drift: float, evals: int, delays: tuple[DelayFactor, ...], rng: np.random.Generator,
    warmup_shape: str = "exp",
) -> SimulatedSeries:
    _simulate_iv(n, noise, scale, phi)
    if not t0 > 0:
        raise InvalidArgumentError(f"t0: must be > 0, got {t0!r}")
    z = _noise(n, noise, scale, phi, spike_rate, spike_scale, evals, delays, rng)
    level = np.full(n, t0)
    cps: list[int] = []
    for at, rel in sorted(shifts):
        if not 0 < at < n:
            raise InvalidArgumentError(f"shifts: change at sample {at} is outside 1..{n - 1}")
        level[at:] *= 1.0 + rel
        cps.append(int(at))
    if drift:
        level *= 1.0 + drift * np.arange(n) / max(n - 1, 1)
    x = level * (1.0 + z)
    warmup_end = 0
    if warmup is not None:
        length, amplitude = int(warmup[0]), float(warmup[1])
        if not 0 < length < n:
            raise InvalidArgumentError(f"warmup: length must be in 1..{n - 1}, got {length}")
        x[:length] += amplitude * t0 * _warmup_profile(length, warmup_shape)
        warmup_end = length
        cps.append(length)
    # a time is > 0: the rare draw of a symmetric family that would put a sample at or
    # below 0 (a t3 draw beyond -1/scale) is set to MIN_RELATIVE_TIME * t0 instead (the
    # median and trimmed mean are untouched; the mean moves by ~1e-6 relative at scale 0.02)
    np.maximum(x, MIN_RELATIVE_TIME * t0, out=x)
    med, mean, tmean = _population(noise, scale, phi, spike_rate, spike_scale, delays)
    final = float(level[-1])
    truth = Truth(
        t0=float(t0), changepoints=tuple(sorted(set(cps))), warmup_end=warmup_end,
        median=final * (1 + med), mean=final * (1 + mean), trimmed_mean=final * (1 + tmean),
        phi=float(phi), noise=noise, final_level=final,
    )
    return SimulatedSeries(x=x, truth=truth)


def simulate_series(
    n: int,
    *,
    t0: float = 1000.0,
    noise: NoiseKind = "delay",
    scale: float = 0.02,
    phi: float = 0.0,
    spike_rate: float = 0.01,
    spike_scale: float = 10.0,
    warmup: tuple[int, float] | None = None,
    shifts: Sequence[tuple[int, float]] = (),
    drift: float = 0.0,
    delays: Sequence[DelayFactor] = DEFAULT_DELAYS,
    warmup_shape: WarmupShape = "exp",
    rng: RNGType = None,
) -> SimulatedSeries:
    """Simulate one series of per-evaluation times in nanoseconds.

    Parameters
    ----------
    n : int
        Number of samples.
    t0 : float
        True time of one evaluation (ns), before any delay.
    noise : {"delay", "gaussian", "t3", "t3-spikes"}
        ``delay``: delay-factor model of Chen et al. 2016 (noise only adds time); ``gaussian``:
        symmetric with sd ``scale*t0``; ``t3``: Student-t(3) with scale ``scale*t0``;
        ``t3-spikes``: t3 plus, with probability ``spike_rate``, a spike of
        ``spike_scale*scale*t0*(1 + Exp(1))``.
    scale : float
        Noise size relative to ``t0``.
    phi : float
        AR(1) coefficient of the noise innovations (0 = independent samples). For the
        delay model an AR(1) latent modulates the delay rates.
    spike_rate, spike_scale : float
        Spikes of ``t3-spikes``.
    warmup : (int, float), optional
        ``(length, amplitude)``: adds ``amplitude*t0*w(i)`` to sample i < length, with the
        profile w of ``warmup_shape``.
    shifts : sequence of (int, float)
        ``(at_sample, relative_change)``: the level is multiplied by ``1+relative_change``
        from ``at_sample`` on.
    drift : float
        Relative change of the level over the whole series (linear).
    delays : sequence of DelayFactor
        Delay factors of the ``delay`` model.
    warmup_shape : {"exp", "linear"}
        ``"exp"``: w(i) = exp(−5 i/length), a large fast decay (1% of the amplitude is
        left at the end); ``"linear"``: w(i) = 1 − i/length, a small slow decay that
        reaches the final level exactly at ``length`` (JIT warm-ups of a few %).
    rng : int, Generator or None
        Seed or generator.

    Returns
    -------
    SimulatedSeries
        ``x`` (float64 ns per evaluation) and ``truth``.

    Notes
    -----
    Time of sample i: ``x_i = max(level_i (1 + z_i) + w_i, 10⁻³ t0)`` with ``z`` the
    relative noise and ``w`` the warm-up term (the floor only touches the rare samples a
    symmetric family would make non-positive: times are > 0). The truth's median/mean/trimmed mean are those of
    ``final_level (1 + z)``; for the symmetric families they equal the level exactly,
    otherwise they come from a seeded simulation of 10⁶ draws (cached).

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §III,
       the delay-factor model. arXiv:1608.04295.

    Examples
    --------
    >>> sim = simulate_series(2000, noise="gaussian", scale=0.01, rng=1)
    >>> sim.x.shape, sim.truth.median
    ((2000,), 1000.0)
    """
    gen, _ = check_rng(rng)
    return _series(
        n, t0=t0, noise=noise, scale=scale, phi=phi, spike_rate=spike_rate,
        spike_scale=spike_scale, warmup=warmup, shifts=shifts, drift=drift, evals=1,
        delays=tuple(delays), rng=gen, warmup_shape=_warmup_shape_iv(warmup_shape),
    )


def _run_id(gen: np.random.Generator) -> str:
    return str(uuid.UUID(bytes=gen.bytes(16), version=4))


def simulate_run(
    benchmarks: Mapping[str, float] | Sequence[str] = ("a",),
    *,
    n_rounds: int = 1000,
    evals: int = 1,
    interleave: bool = True,
    noise: NoiseKind = "delay",
    scale: float = 0.02,
    phi: float = 0.0,
    spike_rate: float = 0.01,
    spike_scale: float = 10.0,
    timer_overhead_ns: float = 25.0,
    timer_resolution_ns: float = 1.0,
    warmup: tuple[int, float] | None = None,
    shifts: Sequence[tuple[int, float]] = (),
    drift: float = 0.0,
    regime_shift: float = 0.0,
    regime_prob: float = 0.0,
    run: str | None = None,
    created_utc: str = "2026-11-22T00:00:00Z",
    rng: RNGType = None,
) -> SimulatedRun:
    """Simulate one run (one process) of one or more benchmarks in the v1 run format.

    Parameters
    ----------
    benchmarks : mapping of name to t0 (ns), or sequence of names
        Benchmarks and their true per-evaluation times (names alone get 1000 ns, 2000 ns, ...).
    n_rounds : int
        Samples per benchmark.
    evals : int
        Evaluations per sample.
    interleave : bool
        One sample of every benchmark per round in a shuffled order (zenbench); else
        each benchmark's series runs to completion in turn.
    timer_overhead_ns, timer_resolution_ns : float
        Added to every sample's elapsed time and used to quantise it.
    regime_shift, regime_prob : float
        With probability ``regime_prob`` the whole run is slower by ``regime_shift``
        (relative): bimodal behaviour across runs (trials).
    noise, scale, phi, spike_rate, spike_scale, warmup, shifts, drift
        As in :func:`simulate_series`, applied to every benchmark.
    run : str, optional
        Run id (a seeded UUID4 by default).
    rng : int, Generator or None
        Seed or generator.

    Returns
    -------
    SimulatedRun
        ``frame``: the run as :func:`tsanalyze.read_runs` returns it (``time_ns`` and
        ``time_ns_raw`` included, metadata in ``frame.attrs["runs"]``); ``truth`` per
        benchmark (per-evaluation times, before overhead).

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016),
       §II–III, delay factors and timer resolution. arXiv:1608.04295.
    .. [2] zenbench documentation, "Methodology" (interleaved shuffled rounds).
       https://github.com/imazen/zenbench
    .. [3] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (the
       timer overhead in every sample).
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """
    gen, seed = check_rng(rng)
    check_positive_int(n_rounds, "n_rounds")
    check_positive_int(evals, "evals")
    if isinstance(benchmarks, Mapping):
        t0s = {str(k): float(v) for k, v in benchmarks.items()}
    else:
        t0s = {str(b): 1000.0 * (i + 1) for i, b in enumerate(benchmarks)}
    if not t0s:
        raise InvalidArgumentError("benchmarks: at least one benchmark is needed")
    if not timer_resolution_ns > 0 or not timer_overhead_ns >= 0:
        raise InvalidArgumentError("timer_resolution_ns must be > 0 and timer_overhead_ns >= 0")
    run_id = run if run is not None else _run_id(gen)
    regime = 1.0 + regime_shift if gen.random() < regime_prob else 1.0
    names = list(t0s)
    k = len(names)
    frames = []
    truth: dict[str, Truth] = {}
    if interleave:
        order = np.argsort(gen.random((n_rounds, k)), axis=1)  # order[r] = benchmarks in round r
        position = np.argsort(order, axis=1)  # position[r, b]
    else:
        position = np.zeros((n_rounds, k), dtype=np.int64)
    for b, name in enumerate(names):
        sim = _series(
            n_rounds, t0=t0s[name] * regime, noise=noise, scale=scale, phi=phi,
            spike_rate=spike_rate, spike_scale=spike_scale, warmup=warmup, shifts=shifts,
            drift=drift, evals=evals, delays=DEFAULT_DELAYS, rng=gen,
        )
        truth[name] = sim.truth
        raw = sim.x * evals + timer_overhead_ns
        ns = np.maximum(np.round(raw / timer_resolution_ns), 1.0) * timer_resolution_ns
        frames.append(pd.DataFrame({
            "benchmark": name,
            "round": np.arange(n_rounds, dtype=np.int64) if interleave else np.arange(n_rounds, dtype=np.int64) + b * n_rounds,
            "position": position[:, b].astype(np.int16),
            "sample": np.arange(n_rounds, dtype=np.int64),
            "ns": ns,
        }))
    df = pd.concat(frames, ignore_index=True)
    df = df.sort_values(["round", "position"], kind="stable", ignore_index=True)
    gap_ns = 150.0  # collector cost between samples
    start = np.concatenate([[0.0], np.cumsum(df["ns"].to_numpy() + gap_ns)[:-1]])
    df["run"] = run_id
    df["evals"] = np.int64(evals)
    df["ticks"] = pd.array(np.round(df["ns"].to_numpy()).astype(np.int64), dtype="Int64")
    df["start_ticks"] = pd.array(np.round(start).astype(np.int64), dtype="Int64")
    df["work"] = np.nan
    df = df.sort_values(["benchmark", "sample"], kind="stable", ignore_index=True)
    df["benchmark"] = df["benchmark"].astype("category")
    df["run"] = df["run"].astype("category")
    from tsanalyze.io.runs import add_time_columns, order_columns

    meta = {
        "schema_version": SCHEMA_VERSION,
        "run": run_id,
        "created_utc": created_utc,
        "clock": {"source": "simulated", "hz": 1e9, "invariant_tsc": True},
        "timer": {
            "overhead_ns": float(timer_overhead_ns),
            "overhead_ticks_min": float(timer_overhead_ns),
            "overhead_ticks_median": float(timer_overhead_ns),
            "precision_ns": float(timer_resolution_ns),
            "accuracy_ns": float(timer_resolution_ns),
        },
        "target": {"kind": "simulated", "spec": {k2: v for k2, v in t0s.items()}},
        "collector": {"version": "simulator", "evals_method": "fixed", "interleave": interleave},
        "user": {
            "simulator": {
                "noise": noise, "scale": scale, "phi": phi, "n_rounds": n_rounds,
                "evals": evals, "interleave": interleave, "seed": seed,
                "warmup": list(warmup) if warmup else None,
                "shifts": [list(s) for s in shifts], "drift": drift, "regime": regime,
            }
        },
    }
    df = order_columns(df)
    df.attrs["runs"] = schema.RunsAttr({run_id: meta})
    add_time_columns(df)
    return SimulatedRun(frame=df, truth=truth)


def simulate_trials(n_trials: int, *, rng: RNGType = None, **kwargs: object) -> SimulatedRun:
    """Simulate ``n_trials`` runs (process-level repetitions) of the same benchmarks.

    Keyword arguments go to :func:`simulate_run` (``regime_prob``/``regime_shift`` give
    bimodal behaviour across runs, as Chen et al. 2016, Figs. 3–4 observe). Returns the runs
    concatenated; ``truth`` is that of the last run (the truth of the noise does not
    depend on the run unless a regime is drawn: see each run's metadata).
    """
    gen, _ = check_rng(rng)
    check_positive_int(n_trials, "n_trials")
    runs = [simulate_run(rng=gen, **kwargs) for _ in range(n_trials)]  # type: ignore[arg-type]
    frame = pd.concat([r.frame for r in runs], ignore_index=True)
    frame["benchmark"] = frame["benchmark"].astype(str).astype("category")
    frame["run"] = frame["run"].astype(str).astype("category")
    frame.attrs["runs"] = schema.RunsAttr(
        {k: v for r in runs for k, v in r.frame.attrs["runs"].items()}
    )
    return SimulatedRun(frame=frame, truth=runs[-1].truth)


# --- issue 22/17: warm-up shapes and rare-delay series with timer ticks ---------------

WarmupShape = Literal["exp", "linear"]

#: rare fixed-size delays of the issue 22 study: (rate per evaluation, size in ns)
RARE_DELAYS: tuple[tuple[float, float], ...] = ((0.3, 40.0), (0.01, 900.0))


def _warmup_shape_iv(shape: str) -> str:
    if shape not in ("exp", "linear"):
        raise InvalidArgumentError(f"warmup_shape: expected 'exp' or 'linear', got {shape!r}")
    return shape


def _warmup_profile(length: int, shape: str) -> Float64Array:
    """Warm-up excess over the final level, relative to the amplitude, for i < length."""
    i = np.arange(length, dtype=np.float64)
    if shape == "linear":
        return 1.0 - i / length
    out: Float64Array = np.exp(-5.0 * i / length)
    return out


def simulate_rare_delays(
    n: int,
    *,
    t0: float = 100.0,
    jitter: float = 2.0,
    delays: Sequence[tuple[float, float]] = RARE_DELAYS,
    tick: float = 1.0,
    shifts: Sequence[tuple[int, float]] = (),
    size: int | None = None,
    rng: RNGType = None,
) -> Float64Array:
    """Independent samples with rare, fixed-size delays, read by a timer with coarse ticks.

    Sample i is ``tick * round((level_i + jitter Z_i + sum_k size_k N_ik) / tick)`` with
    Z_i standard normal and N_ik ~ Poisson(rate_k) the number of delays of kind k (each
    costs exactly its ``size``). With the defaults (t0 = 100 ns, jitter 2 ns, 40 ns
    delays at rate 0.3 and 900 ns ones at rate 0.01, 1 ns ticks) about a quarter of the
    samples carry a delay and most values are tied: the series change-point tests met in
    issue 22, where replacing the delayed samples by local medians invented shifts.

    Parameters
    ----------
    n : int
        Samples per series.
    t0 : float
        Level before any shift (ns).
    jitter : float
        Sd of the Gaussian part (ns).
    delays : sequence of (rate, size)
        Kinds of delay: Poisson rate per sample and the time each firing adds (ns).
    tick : float
        Timer resolution (ns); values are rounded to multiples of it (at least one tick).
    shifts : sequence of (int, float)
        ``(at_sample, relative_change)``: the level is multiplied by ``1 + relative_change``
        from ``at_sample`` on.
    size : int, optional
        Number of independent series (rows); default one series, 1-d.
    rng : int, Generator or None
        Seed or generator.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)`` or ``(size, n)``.

    Examples
    --------
    >>> x = simulate_rare_delays(1000, rng=1)
    >>> x.shape, float(np.median(x))
    ((1000,), 101.0)
    """
    n = check_positive_int(n, "n")
    rows = 1 if size is None else check_positive_int(size, "size")
    if not (t0 > 0 and jitter >= 0 and tick > 0):
        raise InvalidArgumentError("t0 and tick must be > 0 and jitter >= 0")
    for rate, cost in delays:
        if not (rate >= 0 and cost >= 0):
            raise InvalidArgumentError(f"delays: rates and sizes must be >= 0, got {(rate, cost)!r}")
    gen, _ = check_rng(rng)
    level = np.full(n, float(t0))
    for at, rel in sorted(shifts):
        if not 0 < at < n:
            raise InvalidArgumentError(f"shifts: change at sample {at} is outside 1..{n - 1}")
        level[at:] *= 1.0 + rel
    x = level + jitter * gen.standard_normal((rows, n))
    for rate, cost in delays:
        x += cost * gen.poisson(rate, (rows, n))
    out: Float64Array = np.maximum(np.round(x / tick), 1.0) * tick
    return out[0] if size is None else out
