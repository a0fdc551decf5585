"""Griffe extension: numpydoc citations rendered as Markdown by mkdocstrings.

The docstrings cite their sources the numpydoc way: a ``References`` section of numbered
entries (``.. [1] Author (Year). Title. Venue. DOI``, continuation lines indented three
spaces) and, sometimes, ``[1]_`` in the text. Markdown knows neither: the entries run
together into one paragraph and ``[1]_ ... [2]_`` turns into emphasis. This extension
rewrites each entry as an item of a numbered list, each ``[n]_`` as ``[n]`` and each bare
``https://`` address as a link before mkdocstrings parses the docstring; the docstrings
themselves stay plain numpydoc (what ``numpydoc`` and ``help()`` read).

Enabled in ``mkdocs.yml`` under the python handler's ``extensions`` option.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

_ENTRY = re.compile(r"^(?P<indent>[ \t]*)\.\. \[(?P<n>\d+)\] ", re.MULTILINE)
_CITATION = re.compile(r"\[(\d+)\]_")
# a bare address (not already inside <...>, (...), "..." or `...`); trailing punctuation is text
_URL = re.compile(r"(?<![<(\"`/])\bhttps?://[^\s<>()\"`]+?(?=[.,;:]?(?:\s|$))")


def markdown_citations(text: str) -> str:
    """``.. [n] entry`` lines as ``n. entry`` items, ``[n]_`` as ``[n]``, addresses as links."""
    text = _ENTRY.sub(lambda m: f"{m['indent']}{m['n']}. ", text)
    text = _CITATION.sub(r"[\1]", text)
    return _URL.sub(lambda m: f"<{m[0]}>", text)


class NumpydocReferences(Extension):
    """Rewrite numpydoc citations of every loaded object's docstring as Markdown."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_citations(obj.docstring.value)
