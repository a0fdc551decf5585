"""Time units: the one table of unit names, :func:`parse_unit`, and readable formatting.

Every layer that reads a unit name (the importers, the audit readers, the analyses that
take a ``unit=`` argument) converts it with :func:`parse_unit`, so ``"µs"``, ``"us"``,
``"usec"`` and ``"μs"`` mean the same everywhere. Formatting chooses units for
readability: a group of numbers shown side by side (an estimate and its CI) share one
unit, chosen from the estimate, so that ``1.214 µs [1.209, 1.220]`` reads at a glance.
This module is a stdlib-only leaf: every layer may import it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from tsanalyze.errors import InvalidArgumentError

__all__ = [
    "QUANTITY_UNITS",
    "SCALE_PREFIXES",
    "TIME_UNITS",
    "check_unit",
    "format_duration",
    "format_percent",
    "format_pvalue",
    "format_ratio",
    "format_time",
    "format_times",
    "name_some",
    "parse_quantity_unit",
    "parse_unit",
    "quote_pvalue",
    "quote_time",
    "time_unit",
]

def name_some(names: Iterable[object], limit: int = 3, *, quote: bool = True) -> str:
    """The first ``limit`` of ``names`` for a message, ``repr``-quoted (or as text), and
    ", ..." when there are more: ``'a', 'b', 'c', ...``."""
    items = list(names)
    shown = ", ".join(repr(n) if quote else str(n) for n in items[:limit])
    return shown + (", ..." if len(items) > limit else "")


#: Every time-unit name tsanalyze reads, in nanoseconds per unit (the one table).
#: The bare SI prefixes (``n``, ``µ``, ``m``) are benchstat v2's scaled seconds
#: (``46.55n`` sec/op); ``nsec``/``usec``/``msec``/``sec`` are ``python -m timeit``'s.
TIME_UNITS: Mapping[str, float] = MappingProxyType(
    {
        "ps": 1e-3,
        "p": 1e-3,
        "ns": 1.0,
        "nsec": 1.0,
        "n": 1.0,
        "us": 1e3,
        "µs": 1e3,  # micro sign U+00B5
        "μs": 1e3,  # Greek mu U+03BC
        "usec": 1e3,
        "u": 1e3,
        "µ": 1e3,
        "μ": 1e3,
        "ms": 1e6,
        "msec": 1e6,
        "m": 1e6,
        "s": 1e9,
        "sec": 1e9,
        "second": 1e9,
        "seconds": 1e9,
        "min": 60e9,
        "hr": 3600e9,
        "day": 86400e9,
    }
)

#: Suffixes that say "per evaluation" after a time unit (``ns/op``, ``ns/iter``).
_PER_EVALUATION = ("/op", "/iter", "/eval", "/evaluation", " per loop", " per op")

#: Non-time quantities the audit reads: unit name -> (quantity, base unit, scale).
#: Byte units as Go prints them: benchstat v1 and ``go test`` use decimal SI prefixes
#: (``1.89GB``), benchstat v2 binary ones on a ``B/op`` column (``307.3Mi``).
QUANTITY_UNITS: Mapping[str, tuple[str, str, float]] = MappingProxyType(
    {
        "B": ("bytes", "B", 1.0),
        "bytes": ("bytes", "B", 1.0),
        "kB": ("bytes", "B", 1e3),
        "KB": ("bytes", "B", 1e3),
        "MB": ("bytes", "B", 1e6),
        "GB": ("bytes", "B", 1e9),
        "TB": ("bytes", "B", 1e12),
        "KiB": ("bytes", "B", 1024.0),
        "MiB": ("bytes", "B", 1024.0**2),
        "GiB": ("bytes", "B", 1024.0**3),
        "TiB": ("bytes", "B", 1024.0**4),
        "allocs": ("count", "allocs", 1.0),
        "B/s": ("rate", "B/s", 1.0),
        "MB/s": ("rate", "B/s", 1e6),
        "ops/s": ("rate", "ops/s", 1.0),
    }
)

#: Scale prefixes printed on a number whose unit is in the column header (benchstat:
#: ``1.234k`` allocs/op, ``307.3Mi`` B/s).
SCALE_PREFIXES: Mapping[str, float] = MappingProxyType(
    {
        "": 1.0,
        "k": 1e3,
        "K": 1e3,
        "M": 1e6,
        "G": 1e9,
        "T": 1e12,
        "Ki": 1024.0,
        "Mi": 1024.0**2,
        "Gi": 1024.0**3,
        "Ti": 1024.0**4,
    }
)

#: Display units (unit, nanoseconds per unit), smallest first.
_UNITS: tuple[tuple[str, float], ...] = tuple((u, TIME_UNITS[u]) for u in ("ns", "µs", "ms", "s"))


def parse_unit(unit: str) -> float:
    """Nanoseconds per ``unit``, the one conversion of time-unit names.

    Parameters
    ----------
    unit : str
        A name of :data:`TIME_UNITS` (``"ns"``, ``"µs"``, ``"us"``, ``"usec"``, ``"ms"``,
        ``"s"``, ``"second"``, ...), optionally followed by a per-evaluation suffix
        (``"ns/op"``, ``"ns/iter"``, ``"sec/op"``, ``"µs per loop"``).

    Returns
    -------
    float
        Nanoseconds per unit.

    Raises
    ------
    InvalidArgumentError
        ``unit`` is not a time unit; the message names it.

    Examples
    --------
    >>> parse_unit("µs"), parse_unit("ns/op"), parse_unit("sec/op"), parse_unit("usec")
    (1000.0, 1.0, 1000000000.0, 1000.0)
    """
    u = unit.strip() if isinstance(unit, str) else unit
    if isinstance(u, str):
        for suffix in _PER_EVALUATION:
            if u.endswith(suffix) and len(u) > len(suffix):
                u = u[: -len(suffix)].strip()
                break
        scale = TIME_UNITS.get(u)
        if scale is not None:
            return float(scale)
    raise InvalidArgumentError(f"unknown time unit {unit!r} (use one of ps, ns, us, µs, ms, s)")


def parse_quantity_unit(unit: str) -> tuple[str, str, float]:
    """(quantity, base unit, scale) of a unit name: time units give ``("time", "ns", ns
    per unit)``; :data:`QUANTITY_UNITS` give bytes, counts and rates (``"GB"`` ->
    ``("bytes", "B", 1e9)``), with an optional ``/op`` suffix. Raises ``ValueError`` for
    other names.

    Examples
    --------
    >>> parse_quantity_unit("ms"), parse_quantity_unit("B/op"), parse_quantity_unit("allocs/op")
    (('time', 'ns', 1000000.0), ('bytes', 'B', 1.0), ('count', 'allocs', 1.0))
    """
    try:
        return ("time", "ns", parse_unit(unit))
    except ValueError:
        pass
    u = unit.strip() if isinstance(unit, str) else ""
    found = QUANTITY_UNITS.get(u)
    if found is None and u.endswith("/op"):
        found = QUANTITY_UNITS.get(u[:-3].strip())
    if found is None:
        raise InvalidArgumentError(f"unknown unit {unit!r} (a time unit, B/op or allocs/op)")
    return found


def time_unit(ns: float) -> tuple[str, float]:
    """The unit in which ``ns`` nanoseconds reads best (value in [1, 1000) where possible)."""
    if not math.isfinite(ns) or ns == 0:
        return _UNITS[0]
    a = abs(ns)
    chosen = _UNITS[0]
    for unit in _UNITS:
        if a >= unit[1]:
            chosen = unit
    return chosen


def _sig(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits, no exponent for everyday sizes."""
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def format_time(
    ns: float | None, *, unit: tuple[str, float] | None = None, digits: int = 4, trim: bool = False
) -> str:
    """Format a time given in ns, e.g. ``1214.3 -> '1.214 µs'``; ``None``/NaN -> ``'–'``.

    ``trim=True`` drops trailing zeros (``16 -> '16 ns'`` rather than ``'16.00 ns'``), for
    messages that quote numbers; tables keep fixed significant digits so columns align.
    """
    if ns is None or not math.isfinite(ns):
        return "–"
    name, factor = unit if unit is not None else time_unit(ns)
    text = _sig(ns / factor, digits)
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {name}"


def check_unit(unit: str | None) -> None:
    """Raise :class:`~tsanalyze.errors.InvalidArgumentError` naming ``unit`` unless it is
    None or a time unit :func:`parse_unit` reads: the check of a function's ``unit=``
    argument, before its findings quote times in it."""
    if unit is not None:
        parse_unit(unit)


def quote_time(value: float, unit: str | None, *, digits: int = 4) -> str:
    """A time that a message quotes: ``value`` in ``unit`` (a name :func:`parse_unit`
    reads), shown in the unit that reads best with ``digits`` significant digits and
    trailing zeros dropped (``872.4, "ns" -> '872.4 ns'``, ``1.2e-6, "s" -> '1.2 µs'``).
    With ``unit=None`` (a unit the caller does not know) the number is shown bare.

    Examples
    --------
    >>> quote_time(1236.4, "ns"), quote_time(3e-8, "s"), quote_time(0.267, None, digits=3)
    ('1.236 µs', '30 ns', '0.267')
    """
    if unit is None:
        return f"{value:.{digits}g}"
    return format_time(value * parse_unit(unit), digits=digits, trim=True)


def format_times(values: Iterable[float], unit: str | None = "ns", *, digits: int = 4) -> str:
    """Several times quoted side by side in one unit, chosen from the largest:
    ``[872.4, 1236.0] -> '0.8724 and 1.236 µs'``, ``'1, 2 and 3 ns'`` for three. ``values``
    are in ``unit`` (a name :func:`parse_unit` reads); ``unit=None`` shows them bare
    (``'872.4 and 1236'``).

    Examples
    --------
    >>> format_times([872.4, 1236.0]), format_times([8.724e-7, 1.236e-6], "s")
    ('0.8724 and 1.236 µs', '0.8724 and 1.236 µs')
    """
    if unit is None:
        shown = [f"{v:.{digits}g}" for v in values]
        suffix = ""
    else:
        ns = [float(v) * parse_unit(unit) for v in values]
        shown_unit = time_unit(max((abs(v) for v in ns), default=0.0))
        shown = [format_time(v, unit=shown_unit, digits=digits).rsplit(" ", 1)[0] for v in ns]
        suffix = f" {shown_unit[0]}"
    if len(shown) < 2:
        return "".join(shown) + suffix
    return f"{', '.join(shown[:-1])} and {shown[-1]}{suffix}"


def format_duration(seconds: float | None) -> str:
    """Format a wall-clock duration in seconds, e.g. ``1.9 s``, ``312 ms``, ``2.5 min``."""
    if seconds is None or not math.isfinite(seconds):
        return "–"
    if seconds >= 120:
        return f"{_sig(seconds / 60, 3)} min"
    return format_time(seconds * 1e9, digits=3)


def format_percent(fraction: float | None, digits: int = 3, *, signed: bool = False) -> str:
    """Format a fraction as a percentage: ``0.8712 -> '87.1%'`` (``'+87.1%'`` with
    ``signed`` for a change)."""
    if fraction is None or not math.isfinite(fraction):
        return "–"
    text = f"{_sig(fraction * 100, digits)}%"
    return "+" + text if signed and fraction > 0 else text


def format_ratio(ratio: float | None) -> str:
    """Format a ratio of times: ``1.0213 -> '1.021×'``."""
    if ratio is None or not math.isfinite(ratio):
        return "–"
    return f"{ratio:.3f}×"


def format_pvalue(p: float | None) -> str:
    """Format a p-value: 3 significant digits, ``<0.001`` below 0.001."""
    if p is None or not math.isfinite(p):
        return "–"
    if p < 1e-3:
        return "<0.001"
    return f"{p:.3f}"


def quote_pvalue(p: float) -> str:
    """A p-value inside a sentence: ``p = 0.012``, or ``p < 0.001`` below it (never
    ``p = 0`` when a tail underflows)."""
    return "p < 0.001" if p < 1e-3 else f"p = {format_pvalue(p)}"
