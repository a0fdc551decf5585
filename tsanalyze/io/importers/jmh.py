"""JMH (Java Microbenchmark Harness) result files (``-rf json -rff FILE``).

Layout (JMH ``org.openjdk.jmh.results.format.JSONResultFormat``): a JSON list of
results ``[{"jmhVersion", "benchmark", "mode": "thrpt"|"avgt"|"sample"|"ss", "threads",
"forks", "jvm", "jdkVersion", "vmName", "vmVersion", "warmupIterations", "warmupTime",
"measurementIterations", "measurementTime", "measurementBatchSize", "params": {...},
"primaryMetric": {"score", "scoreError", "scoreConfidence", "scorePercentiles",
"scoreUnit", "rawData": [[one value per iteration] per fork]  (or, in ``sample``
mode, "rawDataHistogram": [[[[value, count], ...] per iteration] per fork])},
"secondaryMetrics": {...}}]``. Warm-up iterations are not in the file.

Mapping to the run format
-------------------------
* one tsanalyze run per **fork index** (fork k of every benchmark; each fork is its own
  JVM, so the forks of a benchmark are its trials and the report analyses them as such);
* one sample per measurement iteration, ``evals = 1`` and the iteration's time **per
  operation** as the sample (JMH does not record how many operations an iteration
  ran): ``avgt``/``ss`` values ``<unit>/op`` converted to ns; ``thrpt`` values
  ``ops/<unit>`` inverted (1 / throughput: for ``threads > 1`` the wall time per
  operation of all threads together);
* ``sample`` mode: every sampled operation time becomes a sample (histogram bins
  expanded by their counts, in bin order: the time order within an iteration is not in
  the file); the column ``iteration`` says which iteration a sample came from; a file
  whose counts add up to more than :data:`MAX_EXPANDED_SAMPLES` is refused (a count of
  1e15 would need petabytes);
* benchmark = JMH's name, with ``[k=v,...]`` for ``params`` (kept also as
  ``param_<k>`` columns) and ``:<mode>`` when a file holds one benchmark in several
  modes; JMH's own score, error and settings are kept in ``target.spec``, the JVM in
  ``source.metadata``; secondary metrics (profilers) are not samples and only their
  names are kept.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from tsanalyze._units import parse_unit
from tsanalyze.io.importers._builder import RunBuilder, extra_columns
from tsanalyze.io.importers._files import file_mtime_utc
from tsanalyze.io.importers._imported import ImportedTable, refuse_options
from tsanalyze.io.importers._json import JsonPath, looks_like_json, read_json

__all__ = ["JmhImporter"]

#: most sampled operations a ``sample``-mode file may expand to (one row each)
MAX_EXPANDED_SAMPLES = 50_000_000
_TIME_PER_OP = re.compile(r"^\s*(\w+)\s*/\s*op\s*$")
_OPS_PER_TIME = re.compile(r"^\s*ops\s*/\s*(\w+)\s*$")
_MODES = ("thrpt", "avgt", "sample", "ss")
_SETTINGS = (
    "threads",
    "forks",
    "warmupIterations",
    "warmupTime",
    "warmupBatchSize",
    "measurementIterations",
    "measurementTime",
    "measurementBatchSize",
)
_JVM = ("jvm", "jdkVersion", "vmName", "vmVersion")


def _converter(metric: JsonPath) -> tuple[float, bool]:
    """(ns factor, inverted) for a primaryMetric's ``scoreUnit``."""
    up = metric.key("scoreUnit")
    unit = up.str()
    for pattern, inverted in ((_TIME_PER_OP, False), (_OPS_PER_TIME, True)):
        m = pattern.match(unit)
        if m:
            try:
                return parse_unit(m.group(1)), inverted
            except ValueError:
                break
    raise up.error(
        f"expected a time per operation (e.g. 'ns/op') or a throughput (e.g. 'ops/s'), got {unit!r}"
    )


def _name(res: JsonPath, params: dict[str, str]) -> str:
    name = res.key("benchmark").str()
    if params:
        name += "[" + ",".join(f"{k}={v}" for k, v in params.items()) + "]"
    return name


class JmhImporter:
    """Importer of JMH JSON result files (see the module docstring).

    References
    ----------
    JMH ``jmh-core/src/main/java/org/openjdk/jmh/results/format/JSONResultFormat.java``
    (github.com/openjdk/jmh).
    """

    name = "jmh"
    tool = "jmh"
    description = "JMH -rf json result file"

    def sniff(self, path: Path, head: str) -> bool:
        return looks_like_json(head, "[", "primaryMetric", "benchmark")

    def load(self, path: Path, **options: Any) -> ImportedTable:
        refuse_options("jmh", options)
        root = JsonPath(path, read_json(path))
        results = root.items()
        if not results:
            raise root.error("expected at least one benchmark result")
        # per result: (name, [per fork: (values ns, iteration index)]), spec entry
        parsed: list[tuple[str, str, dict[str, str], list[tuple[np.ndarray, np.ndarray]]]] = []
        spec: list[dict[str, Any]] = []
        versions: set[str] = set()
        jvm: dict[str, Any] = {}
        for res in results:
            obj = res.obj()
            mode = res.key("mode").str()
            if mode not in _MODES:
                raise res.key("mode").error(f"expected one of {', '.join(_MODES)}, got {mode!r}")
            pp = res.key("params", required=False)
            params = (
                {str(k): v if isinstance(v, str) else str(v) for k, v in pp.obj().items()}
                if pp.value is not None
                else {}
            )
            metric = res.key("primaryMetric")
            factor, inverted = _converter(metric)
            forks = _fork_values(metric, mode)
            converted = [((factor / v if inverted else v * factor), it) for v, it in forks]
            parsed.append((_name(res, params), mode, params, converted))
            entry: dict[str, Any] = {"benchmark": res.key("benchmark").str(), "mode": mode}
            entry.update({k: obj[k] for k in _SETTINGS if k in obj})
            if params:
                entry["params"] = params
            mobj = metric.obj()
            entry.update({k: mobj[k] for k in ("score", "scoreError", "scoreUnit") if k in mobj})
            secondary = obj.get("secondaryMetrics")
            if isinstance(secondary, dict) and secondary:
                entry["secondary_metrics"] = sorted(secondary)
            spec.append(entry)
            if isinstance(obj.get("jmhVersion"), str):
                versions.add(obj["jmhVersion"])
            jvm.update({k: obj[k] for k in _JVM if isinstance(obj.get(k), str)})
        # a benchmark measured in several modes gets the mode in its name
        counts = Counter(name for name, *_ in parsed)
        names = [n if counts[n] == 1 else f"{n}:{mode}" for n, mode, *_ in parsed]
        dupes = sorted(n for n, c in Counter(names).items() if c > 1)
        if dupes:
            raise root.error(f"benchmark {dupes[0]!r} appears twice with the same mode")
        all_params = list(dict.fromkeys(k for _, _, p, _ in parsed for k in p))
        pcols = extra_columns(all_params, prefix="param_", taken=("iteration",))
        builder = RunBuilder(
            path,
            extra=["iteration", *pcols.values()],
            extra_dtypes=dict.fromkeys(pcols.values(), "object"),
        )
        n_forks = max(len(forks) for *_, forks in parsed)
        version = sorted(versions)[-1] if versions else None
        created = file_mtime_utc(path)
        for fork in range(n_forks):
            for name, (_, _, params, forks) in zip(names, parsed, strict=True):
                if fork >= len(forks):
                    continue
                values, iteration = forks[fork]
                cols = {pcols[k]: np.asarray(v, dtype=object) for k, v in params.items()}
                builder.add(name, values, 1, iteration=iteration, **cols)
            builder.finish_imported(
                fork,
                tool="jmh",
                created_utc=created,
                spec=spec,
                version=version,
                tool_metadata={"fork": fork, "forks": n_forks, **jvm},
            )
        return builder.build()


def _fork_values(metric: JsonPath, mode: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per fork: (sample values in the file's unit, iteration index of each sample)."""
    out: list[tuple[np.ndarray, np.ndarray]] = []
    raw = metric.key("rawData", required=False)
    if raw.value is not None and mode != "sample":
        forks = raw.items()
        if not forks:
            raise raw.error("expected at least one fork")
        for f in forks:
            v = f.numbers(positive=True)
            if v.size == 0:
                raise f.error("expected at least one iteration")
            out.append((v, np.arange(v.size, dtype=np.float64)))
        return out
    hist = metric.key("rawDataHistogram", required=False)
    if hist.value is None:
        raise metric.error(
            "expected 'rawData' (or 'rawDataHistogram' in sample mode): without it the "
            "file holds JMH's summary only"
        )
    forks = hist.items()
    if not forks:
        raise hist.error("expected at least one fork")
    # counts first, expansion after: a count of 1e15 would ask for petabytes
    parsed: list[list[tuple[np.ndarray, np.ndarray]]] = []
    total = 0.0
    for f in forks:
        per_iteration: list[tuple[np.ndarray, np.ndarray]] = []
        for it in f.items():
            pairs = _histogram(it)
            total += float(pairs[:, 1].sum())
            if total > MAX_EXPANDED_SAMPLES:
                raise it.error(
                    f"the histogram counts add up to more than {MAX_EXPANDED_SAMPLES:,} sampled "
                    "operations; tsanalyze keeps one row per operation and refuses to expand "
                    "this many (about 100 bytes each)"
                )
            per_iteration.append((pairs[:, 0], pairs[:, 1].astype(np.int64)))
        if sum(int(c.sum()) for _, c in per_iteration) == 0:
            raise f.error("expected at least one sampled operation")
        parsed.append(per_iteration)
    for per_iteration in parsed:
        values = [np.repeat(v, c) for v, c in per_iteration]
        iters = [np.full(int(c.sum()), float(i)) for i, (_, c) in enumerate(per_iteration)]
        out.append((np.concatenate(values), np.concatenate(iters)))
    return out


def _histogram(it: JsonPath) -> np.ndarray:
    """One iteration's ``[[value, count], ...]`` as an (n, 2) array, every bin checked."""
    bins = it.items()
    if not bins:
        return np.empty((0, 2))
    for b in bins:
        if not isinstance(b.value, list) or len(b.value) != 2:
            raise b.error("expected a [value, count] pair")
    pairs = np.asarray([b.numbers(non_negative=True) for b in bins], dtype=np.float64)
    bad = np.flatnonzero(pairs[:, 0] <= 0)
    if bad.size:
        raise bins[int(bad[0])].item(0).error(f"expected a value > 0, got {pairs[bad[0], 0]!r}")
    bad = np.flatnonzero(pairs[:, 1] != np.floor(pairs[:, 1]))
    if bad.size:
        raise bins[int(bad[0])].item(1).error(f"expected a whole-number count, got {pairs[bad[0], 1]!r}")
    return pairs
