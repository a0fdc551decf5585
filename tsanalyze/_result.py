"""Shared machinery for frozen result objects.

Every analysis returns a result type declared with :func:`result` (a frozen, slotted
dataclass) that inherits from :class:`Result`, which supplies ``to_dict()`` (plain
JSON-serialisable Python objects), a default ``to_frame()`` (one tidy row of the scalar
fields), a one-line ``repr`` with the key numbers, a multi-line ``summary()`` and value
equality that understands arrays and DataFrames. Warnings ride on the result as a tuple
of :class:`Finding` (a short stable ``code``, a plain-words ``message``, a
``severity``), never only printed.

How a subclass gets these: ``dataclass`` writes ``__repr__``, ``__eq__`` and ``__hash__``
into every class it decorates unless the class body defines them, and the generated
``__eq__`` compares field tuples (which raises on numpy arrays and DataFrames), while
``eq=False`` would leave the base class's ``__eq__``. So :meth:`Result.__init_subclass__`
puts the base class's three methods into each subclass before the decorator runs; a
subclass that defines its own keeps it. A subclass may name the fields its one-line repr
leads with in a ``_headline`` class attribute; otherwise the shared vocabulary below picks
them (labels, verdicts, the estimate with its CI, p-values, sample counts).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        """Run-time stand-in: the marker informs type checkers only."""
        return lambda decorator: decorator


__all__ = ["Finding", "Result", "Severity", "format_number", "result", "to_builtin"]

Severity = Literal["info", "warning", "serious"]
_SEVERITY_RANK = {"info": 0, "warning": 1, "serious": 2}


def to_builtin(value: Any) -> Any:
    """Convert numpy/pandas scalars, arrays, frames, dataclasses and containers to plain
    Python objects that ``json.dumps`` accepts (NaN and inf become ``None``)."""
    kind = type(value)  # plain scalars first: most of a report's ~200 000 values (issue 24)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_builtin(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, pd.DataFrame):
        return [to_builtin(r) for r in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return to_builtin(value.tolist())
    if isinstance(value, np.ndarray):
        return [to_builtin(v) for v in value.tolist()]
    if isinstance(value, Mapping):
        return {str(k): to_builtin(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_builtin(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (pd.Timestamp,)):
        return value.isoformat()
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """One warning or finding attached to a result.

    Attributes
    ----------
    code : str
        Short stable identifier, e.g. ``"autocorrelated"`` or ``"min-degenerate"``.
    message : str
        One line in plain words, with the numbers behind it.
    severity : {"info", "warning", "serious"}
        How much it matters; "serious" findings make ``audit`` and ``--fail-on`` exit 1.
    """

    code: str
    message: str
    severity: Severity = "warning"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "severity": self.severity}

    @property
    def rank(self) -> int:
        """Numeric severity (0 info, 1 warning, 2 serious), for sorting worst first."""
        return _SEVERITY_RANK[self.severity]


#: Fields a one-line repr leads with when the class names none (``Result._headline``),
#: in this order: what it is about, the judgement, how it was computed, the number with
#: its interval, the test's p-value, how much data.
_HEADLINE_VOCABULARY = (
    "benchmark",
    "run",
    "reference",
    "verdict",
    "classification",
    "consistency",
    "effect",
    "multimodal",
    "independent",
    "quantised",
    "disagree",
    "estimator",
    "test",
    "method",
    "kind",
    "locations",
    "estimate",
    "ratio",
    "fraction",
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "n",
    "n_a",
    "n_b",
    "n_stable",
    "n_modes",
    "n_trials",
    "subsession_size",
    "samples_needed",
    "series",
    "comparisons",
    "trials",
)
#: numbers that, when the result has ``ci_low``/``ci_high``, are shown with that interval
_WITH_INTERVAL = ("estimate", "ratio")
#: a one-line repr shows at least this many fields (topped up in declaration order)
_MIN_HEADLINE = 3
#: at most this many finding codes in a one-line repr (then "+k")
_MAX_CODES = 3


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, np.generic))


def format_number(value: Any, digits: int = 4) -> str:
    """A number in few characters: ``digits`` significant digits, whole numbers for values
    from 10^digits to 10^6 (``66299`` rather than ``6.63e+04``), ``nan``/``inf`` as such."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if value == 0:
        return "0"
    if 10**digits <= abs(value) < 1e6:
        return f"{value:.0f}"
    return f"{value:.{digits}g}"


def _short(value: Any, digits: int = 4) -> str:
    """One field's value in a few characters (numbers shortened; containers summarised)."""
    if isinstance(value, Result):
        return repr(value)
    if isinstance(value, Finding):
        return value.code
    if isinstance(value, (float, int, np.generic)) and not isinstance(value, (bool, np.bool_)):
        return format_number(value, digits)
    if _is_scalar(value):
        return repr(value.item() if isinstance(value, np.generic) else value)
    if isinstance(value, pd.DataFrame):
        return f"<DataFrame {value.shape[0]}×{value.shape[1]}>"
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return _inline(list(value), "[]", digits)
    if isinstance(value, (np.ndarray, pd.Series)):
        return f"<{'×'.join(map(str, value.shape))} values>"
    if isinstance(value, (tuple, list)):
        if value and all(isinstance(v, Result) for v in value):
            return _count_results(value)
        if all(_is_scalar(v) for v in value):
            return _inline(list(value), "()" if isinstance(value, tuple) else "[]", digits)
        return f"<{len(value)} items>"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_short(v, digits)}" for k, v in value.items()) + "}"
    return repr(value)


def _inline(values: list[Any], brackets: str, digits: int, shown: int = 4) -> str:
    """``(48, 145, 192, 286, …+10)``: the first few values of a sequence of scalars."""
    text = ", ".join(_short(v, digits) for v in values[:shown])
    if len(values) > shown:
        text += f", …+{len(values) - shown}"
    elif len(values) == 1 and brackets == "()":
        text += ","
    return f"{brackets[0]}{text}{brackets[1]}"


def _count_results(items: Any) -> str:
    """``<3: 1 slower, 2 same>`` for results with a verdict, else ``<3>``."""
    verdicts: dict[str, int] = {}
    for r in items:
        v = getattr(r, "verdict", None)
        if isinstance(v, str):
            verdicts[v] = verdicts.get(v, 0) + 1
    if not verdicts:
        return f"<{len(items)}>"
    return f"<{len(items)}: " + ", ".join(f"{k} {verdicts[k]}" for k in sorted(verdicts)) + ">"


def _codes(findings: tuple[Finding, ...]) -> str:
    """``[autocorrelated, overhead-share ×6, +2]``: distinct codes in order, with counts."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    codes = [c if k == 1 else f"{c} ×{k}" for c, k in counts.items()]
    shown = ", ".join(codes[:_MAX_CODES])
    more = f", +{len(codes) - _MAX_CODES}" if len(codes) > _MAX_CODES else ""
    return f"[{shown}{more}]"


def _same(a: Any, b: Any) -> bool:
    """Value equality that understands arrays, DataFrames and NaN (NaN matches NaN)."""
    if a is b:
        return True
    if isinstance(a, (np.ndarray, pd.Series, pd.DataFrame)) or isinstance(
        b, (np.ndarray, pd.Series, pd.DataFrame)
    ):
        if type(a) is not type(b):
            return False
        if isinstance(a, np.ndarray):
            if a.shape != b.shape:
                return False
            try:
                return bool(np.array_equal(a, b, equal_nan=True))
            except TypeError:  # object or string arrays: no NaN semantics
                return bool(np.array_equal(a, b))
        return bool(a.equals(b))
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return (
            isinstance(a, Mapping)
            and isinstance(b, Mapping)
            and a.keys() == b.keys()
            and all(_same(a[k], b[k]) for k in a)
        )
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _hash_key(value: Any) -> Any:
    """A hashable stand-in for ``value`` such that ``_same(a, b)`` implies equal keys."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, (np.ndarray, pd.Series, pd.DataFrame)):
        return (type(value).__name__, value.shape)
    if isinstance(value, Mapping):
        return ("mapping", len(value))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_hash_key(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return type(value).__name__
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """Base class of frozen results.

    Supplies ``to_dict()``, a one-row ``to_frame()``, a one-line ``repr`` with the key
    numbers, a multi-line :meth:`summary`, and value equality: two results are equal when
    they are of the same type and every field holds the same values (arrays and
    DataFrames compared element by element, NaN matching NaN). Results are hashable
    consistently with that equality.
    """

    #: fields the one-line repr leads with (empty: chosen from a shared vocabulary)
    _headline: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # dataclass() would otherwise write its own __repr__/__eq__/__hash__ into the
        # subclass (see the module docstring); what the class body defines is kept.
        super(Result, cls).__init_subclass__(**kwargs)
        for name in ("__repr__", "__eq__", "__hash__"):
            if name not in cls.__dict__:  # the nearest base's (at the latest, Result's)
                base = next(b for b in cls.__mro__[1:] if name in b.__dict__)
                setattr(cls, name, base.__dict__[name])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(
            _same(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self)
        )

    def __hash__(self) -> int:
        key = tuple(_hash_key(getattr(self, f.name)) for f in dataclasses.fields(self))
        return hash((type(self).__qualname__, key))

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python objects (JSON-serialisable)."""
        return {f.name: to_builtin(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """One tidy row holding the scalar fields (strings, numbers, booleans, None).

        Warnings become one ``warnings`` column of ``;``-joined codes. Subclasses with
        naturally tabular content (segments, ACF, per-benchmark rows) override this.
        """
        row: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "warnings":
                row["warnings"] = ";".join(w.code for w in v)
            elif v is None or isinstance(v, (str, int, float, bool, np.generic)):
                row[f.name] = to_builtin(v) if isinstance(v, np.generic) else v
        return pd.DataFrame([row])

    @property
    def warning_codes(self) -> tuple[str, ...]:
        """The codes of the attached warnings, if the result has a ``warnings`` field."""
        ws = getattr(self, "warnings", ())
        return tuple(w.code for w in ws)

    # ------------------------------------------------------------ repr and summary
    def _headline_fields(self) -> list[str]:
        """Field names the one-line repr shows, in order (``ci_low``/``ci_high`` ride along
        with the number they belong to and are not listed)."""
        names = [f.name for f in dataclasses.fields(self)]
        if self._headline:
            return [n for n in self._headline if n in names]
        chosen = [n for n in _HEADLINE_VOCABULARY if n in names and getattr(self, n) is not None]
        chosen = [n for n in chosen if not (n in ("benchmark", "run") and getattr(self, n) == "")]
        if len(chosen) < _MIN_HEADLINE:
            for n in names:
                if len(chosen) >= _MIN_HEADLINE:
                    break
                if n in chosen or n in ("warnings", "ci_low", "ci_high", "confidence_level"):
                    continue
                if getattr(self, n) is not None:
                    chosen.append(n)
        return chosen

    def _field_text(self, name: str, digits: int) -> str:
        value = getattr(self, name)
        text = _short(value, digits)
        if name in _WITH_INTERVAL and hasattr(self, "ci_low") and hasattr(self, "ci_high"):
            lo, hi = self.ci_low, self.ci_high
            if lo is not None and hi is not None:
                text += f" [{format_number(lo, digits)}, {format_number(hi, digits)}]"
        return text

    def __repr__(self) -> str:
        """One line: the class name and its key fields (all of them: :meth:`summary`)."""
        parts = [f"{n}={self._field_text(n, 4)}" for n in self._headline_fields()]
        warnings = getattr(self, "warnings", None)
        if warnings:
            parts.append(f"warnings={_codes(warnings)}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def summary(self) -> str:
        """A readable multi-line text summary of every field.

        The key fields first (those of the one-line repr), then the others in declaration
        order; tables and nested results are indented below their name, and the warnings
        come last with their severity and message. Numbers keep 6 significant digits.

        Returns
        -------
        str
        """
        fields = [f.name for f in dataclasses.fields(self)]
        head = self._headline_fields()
        rest = [n for n in fields if n not in head and n != "warnings"]
        width = max((len(n) for n in fields), default=0) + 2
        title = type(self).__name__
        lines = [title, "=" * len(title)]
        blocks: list[str] = []
        for n in head + rest:
            value = getattr(self, n)
            if n in ("ci_low", "ci_high") and any(k in head for k in _WITH_INTERVAL):
                continue
            if isinstance(value, pd.DataFrame):
                table = value.to_string(max_rows=20, max_cols=12) if len(value) else "(empty)"
                blocks.append(f"{n}:\n" + _indent(table))
            elif (
                isinstance(value, (tuple, list))
                and value
                and all(isinstance(v, Result) for v in value)
            ):
                items = "\n".join(repr(v) for v in value)
                blocks.append(f"{n}: {len(value)}\n" + _indent(items))
            elif isinstance(value, (np.ndarray, tuple, list)) and not isinstance(value, str):
                lines.append(f"{n:<{width}}{_sequence(value)}")
            elif isinstance(value, str):
                lines.append(f"{n:<{width}}{value}")
            else:
                text = self._field_text(n, 6) if _is_scalar(value) else _short(value, 6)
                lines.append(f"{n:<{width}}{text}")
        lines.extend(blocks)
        warnings = getattr(self, "warnings", ())
        if warnings:
            lines.append(f"warnings: {len(warnings)}")
            lines.extend(f"  [{w.severity}] {w.code}: {w.message}" for w in warnings)
        return "\n".join(lines)


_R = TypeVar("_R", bound=Result)


@dataclass_transform(frozen_default=True)
def result(cls: type[_R]) -> type[_R]:
    """Declare a result type: a frozen, slotted dataclass that inherits :class:`Result`.

    Every result type of the package is declared with it (``@result`` above ``class
    Name(Result):``), so that the options live in one place.

    Parameters
    ----------
    cls : type
        A subclass of :class:`Result` whose fields are annotated class attributes.

    Returns
    -------
    type
        ``cls`` as a frozen dataclass with ``__slots__`` (a new class object, as
        ``dataclasses.dataclass(slots=True)`` makes).

    Raises
    ------
    TypeError
        If ``cls`` does not inherit :class:`Result`.
    """
    if not (isinstance(cls, type) and issubclass(cls, Result)):
        raise TypeError(f"@result: {cls!r} does not inherit tsanalyze._result.Result")
    return dataclasses.dataclass(frozen=True, slots=True)(cls)


def _indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def _sequence(value: Any, shown: int = 6) -> str:
    """``41 values: 1, 0.1227, 0.2639, …``: the count and the first few items."""
    items = list(np.asarray(value).ravel()) if isinstance(value, np.ndarray) else list(value)
    if not items:
        return "(none)"
    text = ", ".join(_short(v, 4) for v in items[:shown])
    more = ", …" if len(items) > shown else ""
    return f"{len(items)} value{'s' if len(items) > 1 else ''}: {text}{more}"
