"""Clocks for the collector: the TSC read through a tiny page of machine code, and fallbacks.

The fastest honest clock a Python process can read is the CPU's time-stamp counter:
x86-64 ``rdtscp`` (or ``lfence; rdtsc``) and aarch64 ``cntvct_el0`` (after ``isb``).
Python cannot issue those instructions, so we map an anonymous page read+write, copy
a dozen bytes of machine code into it, switch it to read+execute with ``mprotect``
(never writable and executable at once) and call it through a ctypes function
pointer. Where that is impossible (another architecture, no invariant TSC, or a W^X
policy that refuses executable memory) we fall back to
``clock_gettime(CLOCK_MONOTONIC_RAW)`` (through :func:`time.clock_gettime_ns`, the same
libc call made in C and ~10x cheaper than a ctypes call; through ctypes where the stdlib
lacks the constant), then to
:func:`time.perf_counter_ns`, and record which clock was used and why.

Standard library only (plus the leaf modules ``tsanalyze.schema``/``tsanalyze.errors``).

References
----------
.. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
   environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II, timer
   accuracy and precision. arXiv:1608.04295.
.. [2] zenbench documentation, "Methodology" (the TSC timer, calibrated at start-up;
   overhead compensation). https://github.com/imazen/zenbench
.. [3] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (measure the
   cost of reading the clock and subtract it; Go issue golang/go#41641).
   https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import itertools
import mmap
import os
import platform
import re
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast, get_args

from tsanalyze.errors import InvalidArgumentError
from tsanalyze.schema import ClockSource

__all__ = [
    "CLOCK_ENV",
    "Calibration",
    "Clock",
    "ClockSource",
    "ClockWarning",
    "TimerProperties",
    "bracket",
    "calibrate",
    "cpu_flags",
    "get_clock",
    "host_info",
    "kernel_clocksource",
    "measure_timer",
]

#: Environment variable that forces a clock source.
CLOCK_ENV = "TSANALYZE_CLOCK"
_SOURCES: tuple[str, ...] = get_args(ClockSource)

# x86-64 System V: result in rax; rdx and rcx are caller-saved, so clobbering them is fine.
# rdtscp ; shl rdx, 32 ; or rax, rdx ; ret
_X86_RDTSCP = bytes.fromhex("0f01f948c1e2204809d0c3")
# lfence ; rdtsc ; shl rdx, 32 ; or rax, rdx ; ret
_X86_LFENCE_RDTSC = bytes.fromhex("0faee80f3148c1e2204809d0c3")
# aarch64 (little-endian words): isb ; mrs x0, cntvct_el0 ; ret
_A64_CNTVCT = b"".join(w.to_bytes(4, "little") for w in (0xD5033FDF, 0xD53BE040, 0xD65F03C0))
# aarch64: mrs x0, cntfrq_el0 ; ret
_A64_CNTFRQ = b"".join(w.to_bytes(4, "little") for w in (0xD53BE000, 0xD65F03C0))

_PROT_READ, _PROT_WRITE, _PROT_EXEC = 1, 2, 4
_CLOCK_MONOTONIC_RAW = 4  # Linux


class ClockWarning(UserWarning):
    """A requested or preferred clock could not be used; a fallback was chosen.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (the TSC timer and the clocks it falls back
       to). https://github.com/imazen/zenbench
    """


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


@dataclass(frozen=True, slots=True)
class Calibration:
    """How ticks were converted to nanoseconds.

    Attributes
    ----------
    hz : float
        Ticks per second.
    method : str
        ``"measured"`` (against the reference clock), ``"nominal"`` (ns clocks: 1e9) or
        ``"cntfrq_el0"`` (aarch64 architectural frequency, cross-checked).
    reference : str
        The reference clock (``CLOCK_MONOTONIC_RAW``).
    window_s : float
        Length of the measurement window.
    relative_error : float
        Bound on the relative error of ``hz`` from the uncertainty of pairing the two
        clocks at both ends of the window (half-widths of the bracketing reads / window).
    kernel_hz : float or None
        The kernel's or the CPU's own statement of the frequency, when available.
    kernel_hz_source : str or None
        Where ``kernel_hz`` came from.
    kernel_relative_difference : float or None
        ``hz / kernel_hz - 1``.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (the TSC auto-calibrated against the system
       clock at start-up). https://github.com/imazen/zenbench
    """

    hz: float
    method: str
    reference: str = "CLOCK_MONOTONIC_RAW"
    window_s: float = 0.0
    relative_error: float = 0.0
    kernel_hz: float | None = None
    kernel_hz_source: str | None = None
    kernel_relative_difference: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the calibration as JSON-ready builtins (every field, by name)."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TimerProperties:
    """Overhead, precision and accuracy of a clock as seen from Python.

    Attributes
    ----------
    overhead_ticks_min, overhead_ticks_median : float
        Minimum and median of the differences of back-to-back reads (ticks).
    overhead_ns : float
        ``overhead_ticks_min`` in ns: the per-sample overhead subtracted [1]_.
    overhead_ns_median : float
        ``overhead_ticks_median`` in ns.
    precision_ns : float
        Smallest non-zero observable difference: the smallest positive gap between two
        observed durations (the clock's quantum as seen through this read path), never
        below one tick.
    accuracy_ns : float
        Estimated bound on the error of one measurement:
        ``q99(read pair) - min(read pair) + precision`` (the part of the read cost
        that subtracting the minimum does not remove, plus quantisation).
    n_pairs : int
        Number of back-to-back pairs measured.

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (the
       clock-read overhead in every sample; Go issue golang/go#41641).
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    """

    overhead_ticks_min: float
    overhead_ticks_median: float
    overhead_ns: float
    overhead_ns_median: float
    precision_ns: float
    accuracy_ns: float
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        """Return the metadata ``timer`` section (every field, by name)."""
        return asdict(self)


@dataclass(slots=True)
class Clock:
    """A readable clock: ``read()`` returns an integer tick count.

    Attributes
    ----------
    source : str
        One of ``rdtscp``, ``rdtsc``, ``cntvct``, ``clock_gettime``, ``perf_counter``.
    read : callable
        Returns the current tick count (int). For the TSC sources it is a ctypes
        function pointer into the machine-code page.
    hz : float
        Ticks per second (1e9 for the ns clocks; measured for the TSC).
    calibration : Calibration
        How ``hz`` was obtained.
    requested : str or None
        The source that was asked for (argument or environment), if any.
    fallback_reasons : list of str
        Why preferred sources were skipped.

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II: a
       timer's accuracy τ_acc and precision τ_prec. arXiv:1608.04295.
    .. [2] zenbench documentation, "Methodology" (rdtsc/rdtscp on x86-64, cntvct_el0 on
       aarch64). https://github.com/imazen/zenbench
    """

    source: str
    read: Callable[[], int]
    hz: float
    calibration: Calibration
    requested: str | None = None
    fallback_reasons: list[str] = field(default_factory=list)
    _keepalive: Any = None

    def to_ns(self, ticks: float) -> float:
        """Convert a tick count (or difference) to nanoseconds."""
        return ticks * 1e9 / self.hz

    def metadata(self) -> dict[str, Any]:
        """Return the metadata ``clock`` section (without ``source``, added by schema)."""
        flags = cpu_flags()
        meta: dict[str, Any] = {
            "hz": self.hz,
            "calibration": self.calibration.to_dict(),
            "requested": self.requested,
            "fallback_reasons": list(self.fallback_reasons),
            "cpu_flags": {
                f: f in flags for f in ("rdtscp", "constant_tsc", "nonstop_tsc", "tsc_known_freq")
            },
        }
        if flags:
            meta["invariant_tsc"] = "constant_tsc" in flags and "nonstop_tsc" in flags
        cs = kernel_clocksource()
        if cs is not None:
            meta["kernel_clocksource"] = cs
        return meta


# --------------------------------------------------------------------------- system facts
def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def cpu_flags() -> frozenset[str]:
    """Return the CPU feature flags of /proc/cpuinfo (empty where it does not exist).

    On aarch64 the line is ``Features``; on x86 ``flags``.
    """
    text = _read_text("/proc/cpuinfo")
    if not text:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def kernel_clocksource() -> str | None:
    """Return the kernel's current clocksource (e.g. ``tsc``), or None if unknown."""
    text = _read_text("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    return text.strip() if text else None


def _cpu_model() -> str | None:
    text = _read_text("/proc/cpuinfo")
    if text:
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "Hardware", "cpu model"):
                return value.strip()
    return platform.processor() or None


def host_info() -> dict[str, Any]:
    """Return the metadata ``host`` section: cpu model, logical cores, kernel, governor, python."""
    info: dict[str, Any] = {
        "kernel": platform.release() or "unknown",
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "hostname": platform.node(),
    }
    model = _cpu_model()
    if model:
        info["cpu_model"] = model
    cores = os.cpu_count()
    if cores:
        info["logical_cores"] = cores
    gov = _read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    if gov:
        info["governor"] = gov.strip()
    if hasattr(os, "getloadavg"):
        with contextlib.suppress(OSError):
            info["loadavg"] = list(os.getloadavg())
    return info


def _kernel_tsc_hz() -> tuple[float | None, str | None]:
    """The frequency the kernel or CPU states for the TSC, if any.

    Tries ``/sys/devices/system/cpu/cpu0/tsc_freq_khz`` (some kernels), then the nominal
    frequency in the CPU model name (``@ 2.60GHz``; equals the TSC rate on Intel CPUs with
    an invariant TSC).
    """
    text = _read_text("/sys/devices/system/cpu/cpu0/tsc_freq_khz")
    if text and text.strip().isdigit():
        return float(text.strip()) * 1e3, "tsc_freq_khz"
    model = _cpu_model() or ""
    m = re.search(r"@\s*([0-9.]+)\s*GHz", model)
    if m:
        return float(m.group(1)) * 1e9, "cpu model name (nominal)"
    text = _read_text("/proc/cpuinfo") or ""
    m = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.MULTILINE)
    if m and "tsc_known_freq" in cpu_flags():
        # with tsc_known_freq (typical of VMs) the kernel reports the TSC rate here
        return float(m.group(1)) * 1e6, "/proc/cpuinfo cpu MHz (tsc_known_freq)"
    return None, None


# --------------------------------------------------------------------------- machine code
def _libc() -> ctypes.CDLL:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name, use_errno=True)


class _CodePage:
    """One anonymous page holding machine code, mapped RW, filled, then switched to R+X."""

    def __init__(self, code: bytes) -> None:
        libc = _libc()
        mmap_fn = libc.mmap
        mmap_fn.restype = ctypes.c_void_p
        mmap_fn.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_long,
        ]
        mprotect = libc.mprotect
        mprotect.restype = ctypes.c_int
        mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self._munmap = libc.munmap
        self._munmap.restype = ctypes.c_int
        self._munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self.size = mmap.PAGESIZE
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
        addr = mmap_fn(None, self.size, _PROT_READ | _PROT_WRITE, flags, -1, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            err = ctypes.get_errno()
            raise OSError(err, f"mmap of a code page failed: {os.strerror(err)}")
        self.addr: int = addr
        ctypes.memmove(addr, code, len(code))
        if mprotect(addr, self.size, _PROT_READ | _PROT_EXEC) != 0:
            err = ctypes.get_errno()
            self._munmap(addr, self.size)
            raise OSError(err, f"mprotect(PROT_READ|PROT_EXEC) refused: {os.strerror(err)}")
        self._flush_icache(len(code))

    def _flush_icache(self, n: int) -> None:
        # x86 keeps instruction and data caches coherent; aarch64 needs __clear_cache
        # (the kernel also synchronises on the mprotect to exec, this is belt and braces).
        if platform.machine().lower() not in ("aarch64", "arm64"):
            return
        for lib in ("gcc_s", "c"):
            name = ctypes.util.find_library(lib)
            if not name:
                continue
            try:
                fn = ctypes.CDLL(name).__clear_cache
            except (OSError, AttributeError):
                continue
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            fn.restype = None
            fn(self.addr, self.addr + n)
            return

    def function(self) -> Callable[[], int]:
        proto = ctypes.CFUNCTYPE(ctypes.c_uint64)
        return cast(Callable[[], int], proto(self.addr))


# --------------------------------------------------------------------------- fallbacks
def _clock_gettime_reader() -> Callable[[], int]:
    raw = getattr(time, "CLOCK_MONOTONIC_RAW", None)
    if raw is not None:
        # the same libc call, made by CPython in C: about 10x cheaper than a ctypes call
        return functools.partial(time.clock_gettime_ns, raw)
    libc = _libc()
    fn = libc.clock_gettime
    fn.argtypes = [ctypes.c_int, ctypes.POINTER(_Timespec)]
    fn.restype = ctypes.c_int
    ts = _Timespec()
    ref = ctypes.byref(ts)
    if fn(_CLOCK_MONOTONIC_RAW, ref) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"clock_gettime(CLOCK_MONOTONIC_RAW) failed: {os.strerror(err)}")

    def read() -> int:
        fn(_CLOCK_MONOTONIC_RAW, ref)
        return ts.tv_sec * 1_000_000_000 + ts.tv_nsec

    return read


def _reference_ns() -> int:
    """CLOCK_MONOTONIC_RAW in ns (stdlib), falling back to the monotonic clock."""
    raw = getattr(time, "CLOCK_MONOTONIC_RAW", None)
    if raw is not None:
        return time.clock_gettime_ns(raw)
    return time.monotonic_ns()


def _reference_name() -> str:
    return "CLOCK_MONOTONIC_RAW" if hasattr(time, "CLOCK_MONOTONIC_RAW") else "time.monotonic"


# --------------------------------------------------------------------------- calibration
def bracket(read: Callable[[], int], tries: int = 25) -> tuple[float, int, float]:
    """Pair a tick reading with the reference clock: (ref midpoint ns, ticks, half-width ns).

    Takes the tightest of ``tries`` brackets ``ref_a, ticks, ref_b``.
    """
    best = (0.0, 0, float("inf"))
    for _ in range(max(tries, 1)):
        a = _reference_ns()
        t = read()
        b = _reference_ns()
        half = (b - a) / 2.0
        if half < best[2]:
            best = ((a + b) / 2.0, t, half)
    return best


def calibrate(read: Callable[[], int], window: float = 0.2) -> tuple[float, float, float]:
    """Measure the tick rate of ``read`` against CLOCK_MONOTONIC_RAW.

    Parameters
    ----------
    read : callable
        The clock to calibrate (returns ticks).
    window : float
        Seconds between the two bracketed pairings (default 0.2 s). The process sleeps
        in between, which is harmless for an invariant TSC.

    Returns
    -------
    hz, relative_error, window_s : float
        Ticks per second; the bound ``(h0 + h1) / elapsed`` on its relative error from
        the half-widths of the brackets at both ends; the actual window length.

    Notes
    -----
    hz = (ticks₁ − ticks₀) / (ref₁ − ref₀) · 1e9, each reference the midpoint of a
    ``ref, read(), ref`` bracket (the tightest of 25).

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (the TSC calibrated against the system
       clock at start-up). https://github.com/imazen/zenbench
    """
    if not window > 0:
        raise InvalidArgumentError(f"window must be > 0 seconds, got {window!r}")
    r0, t0, h0 = bracket(read)
    time.sleep(window)
    r1, t1, h1 = bracket(read)
    elapsed = r1 - r0
    hz = (t1 - t0) / elapsed * 1e9
    return hz, (h0 + h1) / elapsed, elapsed / 1e9


def measure_timer(read: Callable[[], int], hz: float, n: int = 20_000) -> TimerProperties:
    """Overhead, precision and accuracy of ``read`` from ``n`` back-to-back read pairs.

    Parameters
    ----------
    read : callable
        The clock (returns ticks).
    hz : float
        Its tick rate.
    n : int
        Number of back-to-back pairs (default 20000; about 2–10 ms).

    Returns
    -------
    TimerProperties

    Notes
    -----
    The overhead of a read pair is what every sample ``t1 − t0`` contains besides the
    code under test [1]_. The minimum is subtracted: under the delay model of [2]_
    noise only adds time, so the minimum is the cost itself. Precision is the
    smallest positive gap between distinct observed pair differences (the clock's
    quantum through this read path; at least one tick). Accuracy is estimated as
    ``q99 − min + precision`` of the pair differences: the variability that subtracting
    the minimum cannot remove, plus quantisation.

    References
    ----------
    .. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (subtract
       the clock-read overhead; Go issue golang/go#41641).
       https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
    .. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II
       (accuracy, precision) and §III (the delay model: noise only adds time).
       arXiv:1608.04295.
    """
    if n < 100:
        raise InvalidArgumentError(f"n must be >= 100, got {n}")
    diffs = [0] * n
    for i in range(n):
        a = read()
        b = read()
        diffs[i] = b - a
    ns_per_tick = 1e9 / hz
    diffs.sort()
    lo = diffs[0]
    med = statistics.median(diffs)
    q99 = diffs[min(n - 1, int(0.99 * n))]
    distinct = sorted(set(diffs))
    gaps = [b - a for a, b in itertools.pairwise(distinct) if b > a]
    candidates = [g for g in gaps if g > 0] + [d for d in distinct if d > 0]
    quantum_ticks = min(candidates) if candidates else 1
    precision = max(quantum_ticks, 1) * ns_per_tick
    return TimerProperties(
        overhead_ticks_min=float(max(lo, 0)),
        overhead_ticks_median=float(max(med, 0)),
        overhead_ns=max(lo, 0) * ns_per_tick,
        overhead_ns_median=max(med, 0) * ns_per_tick,
        precision_ns=precision,
        accuracy_ns=(q99 - lo) * ns_per_tick + precision,
        n_pairs=n,
    )


# --------------------------------------------------------------------------- selection
def _try_tsc(source: str, window: float) -> Clock:
    machine = platform.machine().lower()
    flags = cpu_flags()
    if source in ("rdtscp", "rdtsc"):
        if machine not in ("x86_64", "amd64"):
            raise OSError(f"{source} needs x86-64, this machine is {machine}")
        if source == "rdtscp" and "rdtscp" not in flags:
            raise OSError("the CPU does not report the rdtscp flag")
        if "tsc" not in flags:
            raise OSError("the CPU does not report a TSC")
        if not {"constant_tsc", "nonstop_tsc"} <= flags:
            raise OSError(
                "the TSC is not invariant (constant_tsc and nonstop_tsc not both reported)"
            )
        page = _CodePage(_X86_RDTSCP if source == "rdtscp" else _X86_LFENCE_RDTSC)
        read = page.function()
        keep: Any = page
        kernel_hz, kernel_src = _kernel_tsc_hz()
        method = "measured"
    else:  # cntvct
        if machine not in ("aarch64", "arm64"):
            raise OSError(f"cntvct needs aarch64, this machine is {machine}")
        page = _CodePage(_A64_CNTVCT)
        freq_page = _CodePage(_A64_CNTFRQ)
        read = page.function()
        keep = (page, freq_page)
        kernel_hz, kernel_src = float(freq_page.function()()), "cntfrq_el0"
        method = "measured"
    # sanity: the counter must advance
    a = read()
    time.sleep(0.001)
    if read() <= a:
        raise OSError(f"{source} does not advance")
    hz, rel, win = calibrate(read, window)
    diff = None if not kernel_hz else hz / kernel_hz - 1.0
    cal = Calibration(hz, method, _reference_name(), win, rel, kernel_hz, kernel_src, diff)
    return Clock(source, read, hz, cal, _keepalive=keep)


def _ns_clock(source: str) -> Clock:
    if source == "clock_gettime":
        read = _clock_gettime_reader()
        ref = "CLOCK_MONOTONIC_RAW (is the reference)"
    else:
        read = time.perf_counter_ns
        ref = f"time.perf_counter_ns ({time.get_clock_info('perf_counter').implementation})"
    return Clock(source, read, 1e9, Calibration(1e9, "nominal", ref))


def get_clock(source: str | None = None, *, window: float = 0.2) -> Clock:
    """Return the best available clock, or the one asked for.

    Parameters
    ----------
    source : {"rdtscp", "rdtsc", "cntvct", "clock_gettime", "perf_counter"}, optional
        Force a source. Defaults to the environment variable ``TSANALYZE_CLOCK``, else
        automatic: ``rdtscp`` → ``rdtsc`` on x86-64, ``cntvct`` on aarch64, then
        ``clock_gettime`` (CLOCK_MONOTONIC_RAW), then ``perf_counter``.
    window : float
        Calibration window in seconds for the TSC sources.

    Returns
    -------
    Clock

    Notes
    -----
    A forced source that cannot be used (wrong architecture, executable memory refused)
    falls back down the list with a :class:`ClockWarning`; so does the automatic choice
    when the TSC of an x86-64 or aarch64 machine cannot be used. It never raises for an
    unusable clock; an unknown name raises ``ValueError``.

    References
    ----------
    .. [1] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
       environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II,
       the timer's accuracy and precision, which the fallbacks trade off. arXiv:1608.04295.
    .. [2] zenbench documentation, "Methodology" (the TSC timer).
       https://github.com/imazen/zenbench
    """
    requested = source if source is not None else (os.environ.get(CLOCK_ENV) or None)
    if requested is not None and requested not in _SOURCES:
        where = "source" if source is not None else f"environment variable {CLOCK_ENV}"
        raise InvalidArgumentError(f"{where} must be one of {', '.join(_SOURCES)}, got {requested!r}")
    machine = platform.machine().lower()
    if requested is not None:
        order = [requested] + [s for s in ("clock_gettime", "perf_counter") if s != requested]
    elif machine in ("aarch64", "arm64"):
        order = ["cntvct", "clock_gettime", "perf_counter"]
    elif machine in ("x86_64", "amd64"):
        order = ["rdtscp", "rdtsc", "clock_gettime", "perf_counter"]
    else:  # no TSC code for this architecture
        order = ["clock_gettime", "perf_counter"]
    reasons: list[str] = []
    for name in order:
        try:
            if name in ("rdtscp", "rdtsc", "cntvct"):
                clock = _try_tsc(name, window)
            else:
                clock = _ns_clock(name)
        except (OSError, AttributeError, ValueError, TypeError) as exc:
            reasons.append(f"{name}: {exc}")
            continue
        clock.requested = requested
        clock.fallback_reasons = reasons
        if reasons and requested is not None:
            warnings.warn(
                f"clock {requested} unavailable ({reasons[0]}); using {name}",
                ClockWarning,
                stacklevel=2,
            )
        elif reasons and name not in ("rdtscp", "rdtsc", "cntvct"):
            # automatic choice on a machine with a TSC that could not be used (W^X policy,
            # TSC not invariant, ...): say so, the run's timer is coarser than it could be
            warnings.warn(
                f"the TSC could not be used ({'; '.join(reasons)}); using {name}",
                ClockWarning,
                stacklevel=2,
            )
        return clock
    raise AssertionError("perf_counter is always available")  # pragma: no cover
