"""A plain JSON list of times, or a list of lists (one per fork or process).

The shape many papers' artefacts and ad-hoc harnesses write (``[1.52, 1.49, ...]``, or
``[[...], [...], ...]`` with one inner list per JVM fork, as JMH's ``rawData``). The file
says nothing of its unit, so the unit must be given (``--unit us`` on the command line,
``unit="us"`` in Python): a guessed unit would be wrong data.

Mapping to the run format
-------------------------
* one benchmark, named after the file (``times.json`` -> ``times``);
* a flat list is one run; a list of lists is one run per inner list (the trials of one
  side, in file order); an empty inner list is an error;
* one sample per value: ``evals = 1`` and the value (in the given unit) is the time per
  evaluation.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tsanalyze._units import parse_unit
from tsanalyze.errors import InvalidArgumentError
from tsanalyze.io.importers._builder import RunBuilder
from tsanalyze.io.importers._files import fail, file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, read_json

__all__ = ["ValuesImporter"]

#: a JSON array whose first element is a number or an array starting with a number
_HEAD = re.compile(r"^\[\s*(?:\[\s*)?[-+]?(?:\d|\.\d)")
_UNITS = ("ns", "us", "ms", "s")


class ValuesImporter:
    """Importer of a plain JSON list of times (see the module docstring).

    References
    ----------
    RFC 8259, "The JavaScript Object Notation (JSON) Data Interchange Format"; JMH
    ``rawData`` (one array per fork) for the list-of-lists shape.
    """

    name = "values"
    tool = "json-values"
    description = "a JSON list of times, or a list of lists (one per fork); needs --unit"

    def sniff(self, path: Path, head: str) -> bool:
        return _HEAD.match(head.lstrip()) is not None

    def load(self, path: Path, unit: str | None = None, **options: Any) -> ImportedTable:
        refuse_options("values", options, "only the option 'unit'")
        if unit is None:
            raise fail(
                path,
                "",
                "a JSON list of times does not say its unit; give it: `tsanalyze import values "
                f"{path} --unit us -o run.parquet` (one of {', '.join(_UNITS)})",
            )
        try:
            scale = parse_unit(unit)
        except ValueError:
            raise InvalidArgumentError(
                f"unit: must be one of {', '.join(_UNITS)}, got {unit!r}"
            ) from None
        root = JsonPath(path, read_json(path))
        items = root.arr()
        if not items:
            raise root.error("expected at least one time")
        nested = isinstance(items[0], list)
        forks = root.items() if nested else [root]
        name = _stem(path.name)
        builder = RunBuilder(path)
        created = file_mtime_utc(path)
        for k, fork in enumerate(forks):
            if nested and not isinstance(fork.value, list):
                raise fork.error(
                    "expected an array of times (the first element was an array, so every "
                    "element must be one)"
                )
            values = fork.numbers(positive=True)
            if values.size == 0:
                raise fork.error("expected at least one time")
            builder.add(name, values * scale, 1)
            builder.finish_imported(
                k,
                tool="json-values",
                created_utc=created,
                spec=name,
                tool_metadata={"unit": unit, "fork": k, "forks": len(forks)}
                if nested
                else {"unit": unit},
            )
        return builder.build()


def _stem(filename: str) -> str:
    """The file name without its ``.json`` and compression suffixes, never cut at an
    inner dot: JMH series files are named after the benchmark's dotted class name
    (``jdbi#org.jdbi.v3.Bench.stringEquals#.json``)."""
    name = filename
    for suffix in (".gz", ".bz2", ".xz", ".json"):
        name = name.removesuffix(suffix)
    return name or filename
