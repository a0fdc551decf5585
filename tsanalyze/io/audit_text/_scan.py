"""What every text reader shares: the scan of a pasted text (which lines were read,
which were skipped and why), a table of rows, and number/unit splitting that keeps the
printed digits (the audit reads every number as the interval of its last digit)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from tsanalyze._result import Finding, Severity

__all__ = ["FOOTNOTES", "NUM", "Scan", "Table", "clean_number", "one_line"]

#: a printed number: digits with optional thousands separators, decimals and exponent
NUM = r"[-+−]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: footnote marks benchstat v2 appends (``± ∞ ¹``)
FOOTNOTES = "¹²³⁴⁵⁶⁷⁸⁹⁰"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def one_line(text: str, limit: int = 80) -> str:
    """``text`` shortened to one line of at most ``limit`` characters, control bytes
    escaped (for messages)."""
    out = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\n", " ").strip())
    return out if len(out) <= limit else out[: limit - 1] + "…"


def clean_number(text: str) -> str:
    """The printed number without thousands separators (``10,025`` -> ``10025``), its
    digits otherwise kept."""
    return text.replace(",", "").replace("_", "").replace("−", "-")


@dataclasses.dataclass(slots=True)
class Table:
    """Rows read from one table (or one block) of a pasted text."""

    tool: str
    label: str | None
    rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class Scan:
    """A pasted text being read: its lines, the lines read so far, and the notes."""

    source: str
    lines: list[str]
    used: set[int] = dataclasses.field(default_factory=set)
    notes: list[Finding] = dataclasses.field(default_factory=list)
    formats: list[str] = dataclasses.field(default_factory=list)

    def numbered(self) -> list[tuple[int, str]]:
        """(line number, line) of the lines no reader has taken yet."""
        return [(i, ln) for i, ln in enumerate(self.lines, start=1) if i not in self.used]

    def where(self, lineno: int) -> str:
        return f"{self.source}:{lineno}"

    def take(self, *linenos: int) -> None:
        self.used.update(linenos)

    def found(self, fmt: str) -> None:
        if fmt not in self.formats:
            self.formats.append(fmt)

    def note(self, code: str, severity: Severity, message: str) -> None:
        self.notes.append(Finding(code, message, severity))

    def skip(self, lineno: int, why: str) -> None:
        """Skip an unreadable line with a warning that names it."""
        self.used.add(lineno)
        self.note(
            "line-skipped",
            "warning",
            f"{self.where(lineno)}: skipped ({why}): {one_line(self.lines[lineno - 1])!r}",
        )
