"""User data made safe to show: one escaping rule for every renderer.

Benchmark names, run labels, file names and metadata come from files anyone can write.
Control characters in them (ESC starting an ANSI or OSC sequence, NUL, backspace, C1
controls such as CSI), bidirectional overrides (which reorder what a reader sees) and
line separators must never reach a terminal, an HTML page or an SVG raw. They are shown
escaped, as Python writes them (``\\x1b``, ``\\u202e``), everywhere:

* :func:`printable` for any text a renderer prints (terminal report, ``info``,
  ``compare``, ``audit``, error lines, figure titles);
* :func:`safe_text` for rich: a :class:`rich.text.Text` (never markup), escaped;
* :func:`html_text` for HTML: escaped, then HTML-escaped;
* :func:`json_text` for JSON: the data stay exact (strings are not rewritten), the JSON
  stays strict JSON, and the characters above are written as ``\\uXXXX`` escapes, so
  the text printed on a terminal holds none of them raw.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from rich.text import Text

__all__ = ["SEVERITY_STYLE", "UNSAFE", "html_text", "json_text", "printable", "safe_text"]

#: rich style of each finding severity, in every terminal table
SEVERITY_STYLE = {"serious": "bold red", "warning": "yellow", "info": "cyan"}

#: C0 and C1 control characters, DEL, bidirectional marks, overrides and isolates, line
#: and paragraph separators, and the byte-order mark
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"
)

#: what ``json.dumps`` leaves raw inside strings (it escapes C0 controls itself; the
#: newlines and spaces of its indentation must stay)
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: Any) -> str:
    """``str(text)`` with every unsafe character shown as its escape (``\\x1b``)."""
    return UNSAFE.sub(_escape, str(text))


def safe_text(text: Any, style: str = "") -> Text:
    """``text`` as plain :class:`rich.text.Text` (no markup), unsafe characters escaped."""
    return Text(printable(text), style=style)


def html_text(text: Any) -> str:
    """``text`` for HTML: unsafe characters escaped, then ``& < > " '`` escaped."""
    return html.escape(printable(text), quote=True)


def _json_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def json_text(doc: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``doc`` as strict JSON (no NaN), non-ASCII text kept readable, and no unsafe
    character raw: ``json`` already escapes C0 controls; C1 controls, bidirectional
    marks and line separators, which it leaves as they are, are written as ``\\uXXXX``
    (inside strings, the only place they can be, so the data read back are unchanged)."""
    text = json.dumps(doc, indent=indent, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False)
    return _JSON_RAW.sub(_json_escape, text)
