"""Printed numbers as intervals of their last digit.

A published ``1.9 ± 0.1 ms`` does not say that the sd is 0.1 ms: it says that it lies in
[0.05, 0.15) ms; ``± 0%`` says the spread is below 0.5%, not that it is zero. The audit
reads every number as the interval its printed digits allow and draws a conclusion only
when it holds over the whole interval.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Literal

from tsanalyze.errors import InvalidArgumentError

__all__ = ["Printed", "Rounding", "printed_step", "read_printed"]

Rounding = Literal["nearest", "down", "none"]

_NUMBER = re.compile(r"^[-+]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[-+]?\d+))?$")


@dataclasses.dataclass(frozen=True, slots=True)
class Printed:
    """A number and the interval ``[low, high]`` its printed digits allow."""

    value: float
    low: float
    high: float

    @classmethod
    def exact(cls, value: float) -> Printed:
        return cls(value, value, value)

    def scaled(self, k: float) -> Printed:
        """The same interval times ``k > 0``."""
        return Printed(self.value * k, self.low * k, self.high * k)

    @property
    def width(self) -> float:
        return self.high - self.low


def printed_step(text: str) -> float:
    """The step of the last printed digit of ``text`` (``"1.90"`` -> 0.01, ``"12"`` -> 1,
    ``"1.5e-3"`` -> 1e-4); 0 when ``text`` is not a plain decimal number."""
    m = _NUMBER.match(text.strip())
    if m is None or not (m.group("int") or m.group("frac")):
        return 0.0
    decimals = len(m.group("frac") or "")
    exponent = int(m.group("exp") or 0)
    return float(10.0 ** (exponent - decimals))


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip().replace("−", "-").replace(",", "").replace("_", "")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    # the shortest repr that reads back as the same float: what a program would print
    return repr(f)


def read_printed(value: Any, *, as_printed: bool = True, rounding: Rounding = "nearest") -> Printed:
    """``value`` (a number or its printed text) as a :class:`Printed` interval.

    Text and numbers are read alike: ``"1.9"`` and ``1.9`` both mean [1.85, 1.95]; an
    integer means ± 0.5. ``rounding="down"`` is for tools that truncate (Rust's libtest
    prints ``156,449`` for anything in [156449, 156450)); ``rounding="none"`` for numbers a
    tool saved exactly (its own data file, not printed text). With ``as_printed=False``
    or ``rounding="none"`` the interval is the number itself.

    Raises
    ------
    InvalidArgumentError
        ``value`` is not a finite number.
    """
    text = _text_of(value)
    if text is None:
        raise InvalidArgumentError(f"expected a number, got {value!r:.40}")
    try:
        f = float(text)
    except ValueError:
        raise InvalidArgumentError(f"expected a number, got {value!r:.40}") from None
    if not math.isfinite(f):
        raise InvalidArgumentError(f"must be finite, got {value!r:.40}")
    if not as_printed or rounding == "none":
        return Printed.exact(f)
    step = printed_step(text)
    if rounding == "down":
        return Printed(f, f, f + step)
    return Printed(f, f - step / 2.0, f + step / 2.0)
