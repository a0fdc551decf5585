"""Record the real sample runs in data/samples/ with the tsanalyze collector.

Run from the repository root: ``python data/samples/record_samples.py [--overwrite]``.

- ``sum-squares.parquet``: an interleaved comparison of two Python implementations of the
  same task, the sum of squares of 1000 integers: a generator expression vs a list
  comprehension (paired rounds, seeded shuffled order, evals by Algorithm 1).
- ``warmup-drift.parquet``: ``memo-fill``, a memoised function called with random keys
  whose cache fills as the run goes (misses are ~100x dearer than hits, so the series
  shows a warm-up decaying into a flat phase), and ``list-grow``, an append plus a
  membership test on a list that grows by every evaluation (a steady slowdown). The two
  are not alternatives of one task: the file declares them a suite
  (``target.alternatives`` false), so the report does not compare them.
- ``python-startup.parquet``: a command-based run, one process per sample:
  ``python -c pass`` vs ``python -S -c pass`` (no ``site`` import), interleaved; the spawn
  overhead of an empty command is recorded and subtracted.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq

from tsanalyze import schema
from tsanalyze.collector import CommandTarget, PythonTarget, collect

HERE = Path(__file__).resolve().parent
SPEC = "data/samples/record_samples.py"

_XS = list(range(1000))


def squares_generator() -> int:
    return sum(x * x for x in _XS)


def squares_listcomp() -> int:
    return sum([x * x for x in _XS])


_MEMO: dict[int, int] = {}
_KEYS = random.Random(1)


def memo_fill() -> int:
    k = _KEYS.randrange(2000)
    v = _MEMO.get(k)
    if v is None:
        v = _MEMO[k] = sum(i * k for i in range(400))
    return v


_GROWING: list[int] = []


def list_grow() -> bool:
    _GROWING.append(len(_GROWING))
    return -1 in _GROWING


def declare_suite(path: Path) -> None:
    """Record in the file's metadata that its benchmarks are not alternatives of one task
    (``target.alternatives = false``): the collector has no option for it yet, so the
    metadata is rewritten in place; the samples are untouched."""
    table = pq.read_table(path)
    meta = schema.decode_metadata(table.schema.metadata[schema.METADATA_KEY.encode()])
    meta["target"]["alternatives"] = False
    table = table.replace_schema_metadata(
        {**table.schema.metadata, schema.METADATA_KEY.encode(): schema.encode_metadata(meta)}
    )
    pq.write_table(table, path, compression="zstd")
    print(path, "target.alternatives =", json.dumps(meta["target"]["alternatives"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--overwrite", action="store_true")
    args = ap.parse_args()
    tags = {"purpose": "tsanalyze sample data", "recorded_by": SPEC}

    rec = collect(
        {
            "squares-generator": PythonTarget(squares_generator, spec=f"{SPEC}:squares_generator"),
            "squares-listcomp": PythonTarget(squares_listcomp, spec=f"{SPEC}:squares_listcomp"),
        },
        HERE / "sum-squares.parquet",
        rounds=3000,
        evals="auto",
        seed=20261122,
        overwrite=args.overwrite,
        user=tags,
    )
    print(rec.path, rec.rounds, rec.evals)

    rec = collect(
        {
            "memo-fill": PythonTarget(memo_fill, spec=f"{SPEC}:memo_fill"),
            "list-grow": PythonTarget(list_grow, spec=f"{SPEC}:list_grow"),
        },
        HERE / "warmup-drift.parquet",
        rounds=1500,
        evals=10,  # fixed: Algorithm 1's own calls would pre-fill the memo
        seed=7,
        overwrite=args.overwrite,
        user=tags,
    )
    print(rec.path, rec.rounds, rec.evals)
    declare_suite(Path(rec.path))

    python = shutil.which("python3") or sys.executable
    rec = collect(
        {
            "python-startup": CommandTarget([python, "-c", "pass"]),
            "python-startup-nosite": CommandTarget([python, "-S", "-c", "pass"]),
        },
        HERE / "python-startup.parquet",
        rounds=150,
        seed=3,
        overwrite=args.overwrite,
        user=tags,
    )
    print(rec.path, rec.rounds, rec.evals)


if __name__ == "__main__":
    main()
