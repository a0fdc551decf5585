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
import json.encoder
import re
from collections.abc import Callable, Iterable
from typing import Any

from rich.text import Text

__all__ = ["UNSAFE", "html_text", "indented_json", "json_text", "printable", "safe_text"]

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
    (inside strings, the only place they can be, so the data read back are unchanged).

    The text is that of ``json.dumps(doc, indent=indent, ...)`` to the byte, written by
    :func:`indented_json` (``json.dumps`` with an indent runs Python's pure-Python
    encoder: 1.4 s of a 40 MB report of 5,800 series)."""
    text = indented_json(doc, indent=indent, sort_keys=sort_keys)
    return _JSON_RAW.sub(_json_escape, text)


def indented_json(doc: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``json.dumps(doc, indent=indent, sort_keys=sort_keys, ensure_ascii=False,
    allow_nan=False)``: the same text, mostly written by ``json``'s C encoder.

    ``json`` uses its C encoder only without an indent, and its pure-Python one visits
    every value. Here Python visits only the containers: each run of consecutive
    scalar values (or items with scalar values) of a container at depth *d* is one call
    of the C encoder, with the separators of the indented text (``",\\n"`` and the
    indent of depth *d* + 1, and ``": "``), its brackets cut off; only the newlines
    after an opening and before a closing bracket, and the keys of items whose values
    are containers, are written here.

    Parameters
    ----------
    doc : object
        Anything ``json.dumps`` takes (NaN and infinities raise ``ValueError``, as with
        ``allow_nan=False``; a circular reference raises ``ValueError``).
    indent : int or None
        Spaces per level; None (or anything but an int) is handed to ``json.dumps``.
    sort_keys : bool
        Keys of every object sorted.

    Returns
    -------
    str

    Examples
    --------
    >>> doc = {"a": [1, {}, [2.5, None]], "b": "[x,y]", "c": {"d": True}}
    >>> indented_json(doc) == json.dumps(doc, indent=2)
    True
    """
    if not isinstance(indent, int) or isinstance(indent, bool):
        return json.dumps(
            doc, indent=indent, sort_keys=sort_keys, ensure_ascii=False, allow_nan=False
        )
    return _Indented(" " * indent, sort_keys).text(doc)


#: values that are certainly not containers (a container holding only these is a leaf)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _joined(chunks: Callable[[Any, int], Any]) -> Callable[[Any], str]:
    return lambda o: "".join(chunks(o, 0))


class _Indented:
    """The writer of :func:`indented_json`: one C encoder per depth (its separators
    hold the indent), the text in ``parts``."""

    def __init__(self, unit: str, sort_keys: bool) -> None:
        self.unit = unit
        self.sort_keys = sort_keys
        self.encoders: list[Callable[[Any], str]] = []
        self.parts: list[str] = []
        self.path: set[int] = set()  # the containers being written (circular references)

    def encoder(self, depth: int) -> Callable[[Any], str]:
        """The C encoder of the values of a container at ``depth``, as a function to text
        (what ``json.JSONEncoder.encode`` runs, made once)."""
        while len(self.encoders) <= depth:
            sep = ",\n" + self.unit * (len(self.encoders) + 1)
            enc = json.JSONEncoder(
                separators=(sep, ": "), sort_keys=self.sort_keys, ensure_ascii=False,
                allow_nan=False,
            )  # fmt: skip
            make = getattr(json.encoder, "c_make_encoder", None)
            if make is None:  # no C accelerator: the same text, slower
                self.encoders.append(enc.encode)
                continue
            chunks = make(
                {}, enc.default, json.encoder.encode_basestring, None, ": ", sep, self.sort_keys,
                False, False,
            )  # fmt: skip
            self.encoders.append(_joined(chunks))
        return self.encoders[depth]

    def text(self, doc: Any) -> str:
        self.write(doc, 0)
        return "".join(self.parts)

    def write(self, o: Any, depth: int) -> None:
        if isinstance(o, (list, tuple)):
            if not o:
                self.parts.append("[]")
            elif _SCALARS.issuperset(map(type, o)):
                self.leaf(o, depth, "[", "]")
            else:
                self.container(o, depth, "[", "]", ((None, v) for v in o))
        elif isinstance(o, dict):
            if not o:
                self.parts.append("{}")
            elif _SCALARS.issuperset(map(type, o.values())):
                self.leaf(o, depth, "{", "}")
            else:
                items = sorted(o.items()) if self.sort_keys else o.items()
                self.container(o, depth, "{", "}", items)
        else:
            self.parts.append(self.encoder(depth)(o))

    def leaf(self, o: Any, depth: int, opening: str, closing: str) -> None:
        """A container of scalars only: one call of the C encoder."""
        text = self.encoder(depth)(o)
        inner = self.unit * (depth + 1)
        self.parts.append(f"{opening}\n{inner}{text[1:-1]}\n{self.unit * depth}{closing}")

    def container(
        self, o: Any, depth: int, opening: str, closing: str, items: Iterable[tuple[Any, Any]]
    ) -> None:
        """``o`` (not empty): its ``(key, value)`` items, keys None for a list."""
        if id(o) in self.path:
            raise ValueError("Circular reference detected")
        self.path.add(id(o))
        encode = self.encoder(depth)
        inner = self.unit * (depth + 1)
        parts = self.parts
        parts.append(opening + "\n" + inner)
        sep = ",\n" + inner
        is_dict = opening == "{"
        run: list[tuple[Any, Any]] = []
        first = True
        for key, value in items:
            if not isinstance(value, (list, tuple, dict)):
                run.append((key, value))
                continue
            if run:
                parts.append(("" if first else sep) + self.scalars(run, is_dict, encode))
                run = []
                first = False
            if not first:
                parts.append(sep)
            first = False
            if is_dict:  # the key as json writes it: the C encoder's, cut out of {key: 0}
                parts.append(encode({key: 0})[1:-4] + ": ")
            self.write(value, depth + 1)
        if run:
            parts.append(("" if first else sep) + self.scalars(run, is_dict, encode))
        parts.append("\n" + self.unit * depth + closing)
        self.path.discard(id(o))

    @staticmethod
    def scalars(run: list[tuple[Any, Any]], is_dict: bool, encode: Callable[[Any], str]) -> str:
        """Consecutive scalar items, as one C-encoded container without its brackets."""
        return encode(dict(run) if is_dict else [v for _, v in run])[1:-1]
