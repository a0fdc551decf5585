"""Audit input: the fields of a row, their checks, and the row as understood.

One raw record (a mapping of :data:`COLUMNS`) becomes one :class:`AuditRow` in base units
(ns for times, B, allocs, B/s) with every printed number read as an interval of its last
digit (:mod:`._printed`), the spread turned into an sd (or an upper bound on it) by the
source tool's convention (:mod:`._spread`), and ``n`` bounded from min/max/mean/sd when
the tool did not print it. Every error names the row (``file:line`` when the reader gave
one) and the field.
"""

from __future__ import annotations

import dataclasses
import math
import re
import reprlib
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import pandas as pd

from tsanalyze._units import parse_quantity_unit
from tsanalyze.analysis.audit._printed import Printed, Rounding, read_printed
from tsanalyze.analysis.audit._spread import Spread, derive_spread
from tsanalyze.errors import AuditInputError

__all__ = ["COLUMNS", "MAX_COUNT", "AuditRow", "LocationKind", "check_rows"]

LocationKind = Literal["mean", "median", "min"]
Claim = Literal["different", "faster", "slower", "same"]
_CLAIMS = ("different", "faster", "slower", "same")
_LOCATION_KINDS = ("mean", "median", "min")
_SPREAD_KINDS = ("sd", "range", "span", "ci")
_SCOPES = ("one-process", "pooled-processes", "per-process")
#: the largest count read exactly (2**53: every integer up to it is a float64)
MAX_COUNT = 2**53
#: "~10x", "about 10×", "≈3x": an approximate ratio claim, within a factor 1.25 either way
ABOUT_FACTOR = 1.25
_RATIO_CLAIM = re.compile(
    r"^\s*(?P<about>~|≈|about|approx\.?|approximately|around|roughly)?\s*"
    r"(?P<ratio>[0-9][0-9,]*(?:\.[0-9]*)?)\s*(?:x|×|times)\s*(?P<dir>faster|slower)\s*$",
    re.IGNORECASE,
)

#: the input columns and what they mean (the only required ones are name and a location)
COLUMNS: dict[str, str] = {
    "name": "benchmark name (required, unique)",
    "location": "the reported location (required unless mean, median or min is given; > 0)",
    "location_kind": "mean (default), median or min",
    "mean": "the mean, when the source prints it besides the location",
    "median": "the median, when printed",
    "min": "the fastest sample, when printed",
    "max": "the slowest sample, when printed",
    "spread": "reported spread (>= 0); absolute in `unit`, or relative when spread_unit is %",
    "spread_unit": "'%' for a relative spread, else a unit (default: `unit`)",
    "spread_kind": "sd (default); range (benchstat v1 '± x%': largest deviation from the mean); "
    "span (max − min, Rust libtest '+/-'); ci (CI half-width at ci_level: benchstat v2, JMH)",
    "unit": "unit of location, min/max and CI: ps, ns (default), us, µs, ms, s, or B, allocs, "
    "B/s for non-time rows",
    "n": "number of samples behind the location",
    "n_min": "a lower bound on n when the source omits it (a tool's minimum run count)",
    "evals": "evaluations per sample (per clock-read pair)",
    "batched": "true when the tool times many evaluations per clock read but did not say how many",
    "ci_low": "claimed CI lower end (in `unit`)",
    "ci_high": "claimed CI upper end (in `unit`)",
    "ci_level": "level of the claimed CI or of spread_kind ci (default 0.95)",
    "gc_share": "share of the location spent in garbage collection (0.05 or '5%')",
    "gc_max": "the largest GC share of any sample",
    "rounding": "nearest (default), down, or none (numbers a tool saved exactly, as in its "
    "own data file): how the source rounded its numbers",
    "scope": "what the spread covers: one-process, pooled-processes (values of several "
    "processes pooled) or per-process (one value per process)",
    "tool": "the tool that printed the row (used in messages)",
    "compare_to": "name of the row this one makes a claim about",
    "claim": "different (default), faster, slower, same, or a ratio: '1.05x faster', '~10× slower'",
    "claim_estimator": "what a ratio claim rests on: min, median or mean (default: location_kind)",
    "claimed_change": "the relative change the source printed (-0.0462 or '-4.62%')",
    "claimed_change_low": "lower end of the printed CI of the change (criterion)",
    "claimed_change_high": "upper end of the printed CI of the change",
    "claimed_pvalue": "the p-value the source printed",
    "source": "where the row came from (file:line), used in messages",
}


@dataclasses.dataclass(frozen=True, slots=True)
class AuditRow:
    """One row as understood, in base units (ns for times)."""

    index: int
    label: str
    name: str
    quantity: str  # time, bytes, count, rate
    unit: str  # base unit: ns, B, allocs, B/s
    location: Printed
    location_kind: LocationKind
    estimators: dict[str, Printed]  # mean / median / min / max as printed (base units)
    spread: Spread
    n: int | None
    n_source: str  # given, bound, none
    evals: int | None
    batched: bool
    ci: tuple[float, float] | None
    ci_level: float
    gc_share: float | None
    gc_max: float | None
    scope: str | None
    tool: str | None
    source: str
    compare_to: str | None
    claim: Claim
    claim_ratio: Printed | None
    claim_about: bool
    claim_estimator: LocationKind | None
    claimed_change: Printed | None
    claimed_change_ci: tuple[float, float] | None
    claimed_pvalue: Printed | None

    @property
    def sd(self) -> float | None:
        return self.spread.sd

    @property
    def sd_high(self) -> float | None:
        return self.spread.sd_high

    @property
    def sd_source(self) -> str:
        return self.spread.source

    @property
    def cv(self) -> float | None:
        """sd / location (an upper bound when the sd is)."""
        if self.spread.sd is None:
            return None
        return self.spread.sd / self.location.value


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: Any, limit: int = 80) -> str:
    """``text`` for a one-line message: control characters escaped, at most ``limit``; a
    container is shown by its first items only (never turned into text whole: a YAML
    alias bomb is 10^10 strings)."""
    raw = text if isinstance(text, str) else reprlib.repr(text) if _container(text) else str(text)
    s = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", raw.replace("\n", " "))
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _container(v: Any) -> bool:
    return isinstance(v, (list, tuple, dict, set, frozenset))


def _missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return isinstance(v, str) and v.strip() == ""


def records_of(rows: pd.DataFrame | Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows as a list of plain dicts (a DataFrame or an iterable of mappings)."""
    if isinstance(rows, pd.DataFrame):
        return [{str(k): v for k, v in r.items()} for r in rows.to_dict(orient="records")]
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
        raise AuditInputError(
            f"rows: expected a DataFrame or a list of mappings, got {type(rows).__name__}"
        )
    out = []
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise AuditInputError(f"row {i + 1}: expected a mapping of fields, got {r!r:.80}")
        out.append(dict(r))
    return out


class _RowChecker:
    """Turns one raw record into a checked :class:`AuditRow`, naming row and field on error."""

    def __init__(self, index: int, rec: dict[str, Any], as_printed: bool) -> None:
        self.index = index
        self.rec = rec
        self.as_printed = as_printed
        src = rec.get("source")
        name = rec.get("name")
        self.source = printable(src, 200) if not _missing(src) else f"row {index + 1}"
        label = self.source
        if not _missing(name):
            label += f" ({printable(name)})"
        self.label = label
        self.rounding: Rounding = "nearest"

    def fail(self, field: str, problem: str) -> AuditInputError:
        return AuditInputError(f"{self.label}, field '{field}': {problem}")

    def printed(self, field: str, *, percent_ok: bool = False) -> tuple[Printed, bool] | None:
        """The field as a printed interval, and whether it was given as a percentage."""
        v = self.rec.get(field)
        if _missing(v):
            return None
        if isinstance(v, bool):
            raise self.fail(field, f"expected a number, got {v!r:.40}")
        pct = False
        if isinstance(v, str) and v.strip().endswith("%"):
            if not percent_ok:
                raise self.fail(field, f"expected a number, got {v!r:.40}")
            v, pct = v.strip()[:-1], True
        try:
            p = read_printed(v, as_printed=self.as_printed, rounding=self.rounding)
        except ValueError as exc:
            raise self.fail(field, f"{exc}"[:120]) from None
        return p, pct

    def number(self, field: str, *, percent_ok: bool = False) -> float | None:
        got = self.printed(field, percent_ok=percent_ok)
        if got is None:
            return None
        p, pct = got
        return p.value / 100.0 if pct else p.value

    def fraction(self, field: str) -> float | None:
        """A share in [0, 1], given as a fraction or a percentage."""
        got = self.printed(field, percent_ok=True)
        if got is None:
            return None
        p, pct = got
        f = p.value / 100.0 if pct else p.value
        if not 0.0 <= f <= 1.0:
            raise self.fail(
                field, f"must be a share in [0, 1] (or 0-100%), got {self.rec[field]!r:.40}"
            )
        return f

    def count(self, field: str) -> int | None:
        v = self.rec.get(field)
        if _missing(v):
            return None
        if isinstance(v, str):
            v = v.strip().replace(",", "").replace("_", "")
        try:
            f = float(v)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            raise self.fail(
                field, f"must be a whole number >= 1, got {self.rec.get(field)!r:.40}"
            ) from None
        if isinstance(v, bool) or not math.isfinite(f) or not f.is_integer() or f < 1:
            raise self.fail(field, f"must be a whole number >= 1, got {self.rec.get(field)!r:.40}")
        if f > MAX_COUNT:
            raise self.fail(
                field, f"must be at most 2**53 = {MAX_COUNT}, got {self.rec.get(field)!r:.40}"
            )
        return int(f)

    def text(self, field: str, default: str | None = None) -> str | None:
        v = self.rec.get(field)
        if _missing(v):
            return default
        if _container(v):
            raise self.fail(field, f"expected text or a number, got a {type(v).__name__}")
        return str(v).strip()

    def choice(self, field: str, allowed: tuple[str, ...], default: str | None) -> str | None:
        got = self.text(field, default)
        if got is None:
            return None
        got = got.lower()
        if got not in allowed:
            raise self.fail(field, f"must be one of {', '.join(allowed)}, got {got!r:.40}")
        return got

    def flag(self, field: str) -> bool:
        v = self.rec.get(field)
        if _missing(v):
            return False
        if isinstance(v, str):
            if v.strip().lower() in ("true", "yes", "1"):
                return True
            if v.strip().lower() in ("false", "no", "0"):
                return False
            raise self.fail(field, f"expected true or false, got {v!r:.40}")
        return bool(v)

    def check(self) -> AuditRow:
        name = self.text("name")
        if name is None:
            raise self.fail("name", "missing (required)")
        self.rounding = self.choice("rounding", ("nearest", "down", "none"), "nearest")  # type: ignore[assignment]
        unit_text = self.text("unit", "ns") or "ns"
        try:
            quantity, base_unit, scale = parse_quantity_unit(unit_text)
        except ValueError:
            raise self.fail(
                "unit", f"unknown time unit {unit_text!r:.40} (use one of ps, ns, us, ms, s)"
            ) from None
        estimators = self._estimators(scale)
        kind, location = self._location(estimators, scale)
        n = self.count("n")
        n_min = self.count("n_min")
        evals = self.count("evals")
        ci_level = self._ci_level()
        ci = self._ci(scale)
        spread = self._spread_input(location, scale, unit_text)
        sp = derive_spread(
            spread=spread,
            location=location,
            location_kind=kind,
            n=n,
            n_min=n_min,
            estimators=estimators,
            ci=ci,
            ci_level=ci_level,
        )
        if sp.error is not None:
            raise self.fail(*sp.error)
        gc_share = self.fraction("gc_share")
        gc_max = self.fraction("gc_max")
        compare_to = self.text("compare_to")
        claim, ratio, about = self._claim()
        estimator = self.choice("claim_estimator", _LOCATION_KINDS, None)
        change = self.printed("claimed_change", percent_ok=True)
        claimed_change = (
            None if change is None else (change[0].scaled(0.01) if change[1] else change[0])
        )
        lo = self.number("claimed_change_low", percent_ok=True)
        hi = self.number("claimed_change_high", percent_ok=True)
        if (lo is None) != (hi is None):
            raise self.fail("claimed_change_high" if hi is None else "claimed_change_low",
                            "a CI of the change needs both ends")  # fmt: skip
        if lo is not None and hi is not None and hi < lo:
            raise self.fail(
                "claimed_change_high", f"must be >= claimed_change_low ({lo!r}), got {hi!r}"
            )
        pv = self.printed("claimed_pvalue")
        claimed_p = None if pv is None else pv[0]
        if claimed_p is not None:
            if not 0.0 <= claimed_p.value <= 1.0:
                raise self.fail("claimed_pvalue", f"must be in [0, 1], got {claimed_p.value!r}")
            claimed_p = Printed(claimed_p.value, max(0.0, claimed_p.low), min(1.0, claimed_p.high))
        if compare_to is None:
            for field in ("claim", "claim_estimator"):
                if not _missing(self.rec.get(field)):
                    raise self.fail(field, "a claim needs compare_to (the row it is about)")
        if claimed_change is None and lo is not None and compare_to is None:
            raise self.fail("claimed_change", "a CI of the change needs the change itself")
        return AuditRow(
            index=self.index,
            label=self.label,
            name=name,
            quantity=quantity,
            unit=base_unit,
            location=location,
            location_kind=kind,  # type: ignore[arg-type]
            estimators=estimators,
            spread=sp,
            n=sp.n,
            n_source=sp.n_source,
            evals=evals,
            batched=self.flag("batched"),
            ci=sp.ci,
            ci_level=ci_level,
            gc_share=gc_share,
            gc_max=gc_max,
            scope=self.choice("scope", _SCOPES, None),
            tool=self.text("tool"),
            source=self.source,
            compare_to=compare_to,
            claim=claim,  # type: ignore[arg-type]
            claim_ratio=ratio,
            claim_about=about,
            claim_estimator=estimator,  # type: ignore[arg-type]
            claimed_change=claimed_change,
            claimed_change_ci=None if lo is None or hi is None else (lo, hi),
            claimed_pvalue=claimed_p,
        )

    def _estimators(self, scale: float) -> dict[str, Printed]:
        out: dict[str, Printed] = {}
        for field in ("mean", "median", "min", "max"):
            got = self.printed(field)
            if got is not None:
                if got[0].value <= 0:
                    raise self.fail(field, f"must be > 0, got {self.rec.get(field)!r:.40}")
                out[field] = got[0].scaled(scale)
        if "min" in out and "max" in out and out["min"].low > out["max"].high:
            raise self.fail("max", f"must be >= min, got {self.rec.get('max')!r:.40}")
        return out

    def _location(self, estimators: dict[str, Printed], scale: float) -> tuple[str, Printed]:
        kind = self.choice("location_kind", _LOCATION_KINDS, None)
        got = self.printed("location")
        if got is None:
            pick = kind or next((k for k in _LOCATION_KINDS if k in estimators), None)
            if pick is None or pick not in estimators:
                raise self.fail("location", "missing (required)")
            kind, location = pick, estimators[pick]
        else:
            if got[0].value <= 0:
                raise self.fail("location", f"must be > 0, got {self.rec.get('location')!r:.40}")
            kind = kind or "mean"
            location = got[0].scaled(scale)
            estimators.setdefault(kind, location)
        lo, hi = estimators.get("min"), estimators.get("max")
        if lo is not None and lo.low > location.high * (1 + 1e-12):
            raise self.fail("min", f"must be <= the location, got {self.rec.get('min')!r:.40}")
        if hi is not None and hi.high < location.low * (1 - 1e-12):
            raise self.fail("max", f"must be >= the location, got {self.rec.get('max')!r:.40}")
        return kind, location

    def _ci_level(self) -> float:
        level = self.number("ci_level", percent_ok=True)
        if level is None:
            return 0.95
        if 1 < level < 100:
            level /= 100.0  # 95 -> 0.95
        if not 0 < level < 1:
            raise self.fail("ci_level", f"must be in (0, 1), got {self.rec.get('ci_level')!r:.40}")
        return level

    def _ci(self, scale: float) -> tuple[Printed, Printed] | None:
        lo, hi = self.printed("ci_low"), self.printed("ci_high")
        if (lo is None) != (hi is None):
            raise self.fail(
                "ci_high" if hi is None else "ci_low", "a CI needs both ci_low and ci_high"
            )
        if lo is None or hi is None:
            return None
        if hi[0].value < lo[0].value:
            raise self.fail("ci_high", f"must be >= ci_low ({lo[0].value!r}), got {hi[0].value!r}")
        return lo[0].scaled(scale), hi[0].scaled(scale)

    def _spread_input(
        self, location: Printed, scale: float, unit: str
    ) -> tuple[str, Printed] | None:
        """(kind, absolute spread interval in base units), or None."""
        got = self.printed("spread")
        if got is None:
            if not _missing(self.rec.get("spread_kind")):
                self.choice("spread_kind", _SPREAD_KINDS, "sd")
            return None
        p, pct = got
        if p.value < 0:
            raise self.fail("spread", f"must be >= 0, got {self.rec.get('spread')!r:.40}")
        kind = self.choice("spread_kind", _SPREAD_KINDS, "sd") or "sd"
        sunit = self.text("spread_unit", "%" if pct else unit)
        if sunit == "%":
            absolute = Printed(
                p.value / 100.0 * location.value,
                max(p.low, 0.0) / 100.0 * location.low,
                p.high / 100.0 * location.high,
            )
        else:
            try:
                _squantity, _, sscale = parse_quantity_unit(sunit or unit)
            except ValueError:
                raise self.fail(
                    "spread_unit", f"unknown time unit {sunit!r:.40} (use one of ps, ns, us, ms, s)"
                ) from None
            absolute = Printed(p.value * sscale, max(p.low, 0.0) * sscale, p.high * sscale)
        return kind, absolute

    def _claim(self) -> tuple[str, Printed | None, bool]:
        text = self.text("claim", "different") or "different"
        low = text.lower()
        if low in _CLAIMS:
            return low, None, False
        if low in ("no change", "not significant", "~"):
            return "same", None, False
        m = _RATIO_CLAIM.match(text)
        if m is None:
            raise self.fail(
                "claim",
                f"must be different, faster, slower, same or a ratio such as '2.5x faster', got {text!r:.40}",
            )
        ratio = read_printed(m.group("ratio").replace(",", ""), as_printed=self.as_printed)
        if ratio.value <= 0:
            raise self.fail("claim", f"a ratio must be > 0, got {text!r:.40}")
        about = m.group("about") is not None
        if about:
            ratio = Printed(ratio.value, ratio.value / ABOUT_FACTOR, ratio.value * ABOUT_FACTOR)
        return m.group("dir").lower(), ratio, about


def check_rows(records: list[dict[str, Any]], *, as_printed: bool = True) -> list[AuditRow]:
    """Check every record; names must be unique and ``compare_to`` must name a row."""
    if not records:
        raise AuditInputError("rows: no rows to audit")
    checked = [_RowChecker(i, r, as_printed).check() for i, r in enumerate(records)]
    seen: dict[str, AuditRow] = {}
    for r in checked:
        if r.name in seen:
            raise AuditInputError(f"{r.label}, field 'name': duplicate of {seen[r.name].source}")
        seen[r.name] = r
    for r in checked:
        if r.compare_to is not None and r.compare_to not in seen:
            raise AuditInputError(
                f"{r.label}, field 'compare_to': no row named {r.compare_to!r:.80}"
            )
        if r.compare_to == r.name:
            raise AuditInputError(f"{r.label}, field 'compare_to': a row cannot compare to itself")
    return checked
