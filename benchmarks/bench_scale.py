"""Scale on one machine (issue 19, step 1): time and peak memory as the data grows.

Data: 2 runs ("old", "new") x 2 interleaved benchmarks, n/4 rounds each, so n samples in
all, simulated once into ``--dir`` (kept for the next call). For n = 10^5, 10^6, 10^7:

- ``tsanalyze report old.parquet new.parquet --format json --seed 1`` (all cores) and
  ``tsanalyze info`` on the same files, each in a fresh process: wall time and the peak of
  the summed resident memory of the process and every descendant (its worker processes),
  sampled every 0.1 s with psutil (else ``ru_maxrss`` of the largest child, a lower bound);
- writing: :func:`tsanalyze.write_run` of the samples against a plain
  ``pyarrow.parquet.write_table`` of the same table (zstd, as write_run), best of 3 in
  CPU time (``bench_io.py`` gives wall times and the baselines with fsyncs).

Targets (issue 19): report peak <= 6 GB at 10^7 samples and growing linearly; report
time growing no worse than n log n (per decade: <= 10 x log(10 n) / log(n)); write_run
within 1.3x of pyarrow. The machine may be shared: the load average is printed.

With ``--single N``: one benchmark of N samples in one run file (``one.parquet``) and a
second such run (``two.parquet``, 1% slower): ``tsanalyze report one.parquet`` and
``tsanalyze compare one.parquet two.parquet``, wall time, CPU time and peak memory of the
process tree, and the estimates the compare prints (the slowdown must be found).

Run: ``nice -n 10 python benchmarks/bench_scale.py [--dir DIR] [--sizes 1e5 1e6 1e7]``
or ``python benchmarks/bench_scale.py --single 1e7``
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import poll_tree

GB = 1e9


def make_files(directory: Path, n: int) -> tuple[Path, Path]:
    """old.parquet and new.parquet with n samples in all (reused when present)."""
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    out = directory / f"n{n:.0e}".replace("+", "")
    paths = (out / "old.parquet", out / "new.parquet")
    out.mkdir(parents=True, exist_ok=True)
    rounds = n // 4
    for k, path in enumerate(paths):
        if path.exists():
            continue
        sim = simulate_run(
            {"a": 1000.0, "b": 1500.0}, n_rounds=rounds, phi=0.3,
            warmup=(max(1, rounds // 50), 0.3), rng=10 + k, run=path.stem,
        )  # fmt: skip
        (meta,) = sim.frame.attrs["runs"].values()
        write_run(sim.frame, path, meta)
    return paths


def make_single(directory: Path, n: int) -> tuple[Path, Path]:
    """one.parquet and two.parquet: one benchmark of n samples each, the second 3% slower
    (reused when present)."""
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    out = directory / f"single{n:.0e}".replace("+", "")
    paths = (out / "one.parquet", out / "two.parquet")
    out.mkdir(parents=True, exist_ok=True)
    for k, path in enumerate(paths):
        if path.exists():
            continue
        sim = simulate_run(
            {"a": 1000.0 * (1.0 + 0.03 * k)}, n_rounds=n, phi=0.3,
            warmup=(max(1, n // 50), 0.3), rng=20 + k, run=path.stem,
        )  # fmt: skip
        (meta,) = sim.frame.attrs["runs"].values()
        write_run(sim.frame, path, meta)
    return paths


def single(directory: Path, n: int) -> None:
    """report of one run of n samples and compare of two such runs (``--single``)."""
    import json

    cli = [sys.executable, "-m", "tsanalyze"]
    t0 = time.perf_counter()
    one, two = make_single(directory, n)
    print(f"n = {n:,} per run, files ready in {time.perf_counter() - t0:.0f} s", flush=True)
    for name, args in (
        ("report one", [*cli, "report", str(one), "--format", "json", "--seed", "1", "-q"]),
        ("compare one two", [*cli, "compare", str(one), str(two), "--format", "json", "--seed", "1"]),
    ):
        secs, peak, cpu = measure(args)
        print(f"  {name}: {secs:7.1f} s wall, {cpu:7.1f} s cpu, peak {peak / GB:5.2f} GB", flush=True)
    out = subprocess.run(
        [*cli, "compare", str(one), str(two), "--format", "json", "--seed", "1"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for row in json.loads(out).get("comparisons", []):
        print(
            "  verdict:",
            {k: row.get(k) for k in ("benchmark", "verdict", "ratio", "ci_low", "ci_high")},
        )


def measure(args: list[str]) -> tuple[float, float, float]:
    """Wall time (s), peak summed RSS (bytes) and CPU time (s, user + system) of a command
    and every descendant (its fork server and worker processes, which ``RUSAGE_CHILDREN``
    misses), sampled every 0.1 s with psutil; on a shared machine the CPU time says more
    than the wall time. Without psutil: ``ru_maxrss`` of the largest child (a lower
    bound) and the CPU time of the reaped children only."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil missing: lower bounds
        psutil = None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    errors = tempfile.TemporaryFile("w+")  # a pipe could fill up while nobody reads it
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=errors, text=True)
    peak = 0.0
    cpu_of: dict[int, float] = {}
    if psutil is not None:
        _, peak, cpu_of = poll_tree(proc)
    proc.wait()
    secs = time.perf_counter() - t0
    errors.seek(0)
    err = errors.read()
    errors.close()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:5])}...: exit {proc.returncode}\n{err[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if psutil is None:
        return secs, after.ru_maxrss * 1024.0, reaped
    return secs, peak, max(reaped, sum(cpu_of.values()))


def write_times(old: Path) -> tuple[float, float]:
    """write_run of the samples against pyarrow.parquet.write_table of its table, best of
    3, CPU seconds (the steadier measure on a shared machine; ``bench_io.py`` gives the
    wall times and the baselines with fsyncs too)."""
    from bench_io import write_ratios  # the same directory: benchmarks/

    from tsanalyze.io.runs import read_runs

    df = read_runs(old)
    (meta,) = df.attrs["runs"].values()
    meta = {k: v for k, v in meta.items() if k != "file"}
    with tempfile.TemporaryDirectory() as tmp:
        best = write_ratios(df, meta, Path(tmp), repeats=3)
    return best["write_run cpu"], best["write_table cpu"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()) / "tsanalyze-bench-scale"
    )
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6, 1e7])
    ap.add_argument("--no-write", action="store_true", help="skip the write_run timing")
    ap.add_argument("--single", type=float, default=None, help="one run of this many samples")
    opts = ap.parse_args()
    if opts.single is not None:
        print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
        single(opts.dir, int(opts.single))
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
        return
    sizes = [int(s) for s in opts.sizes]
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    cli = [sys.executable, "-m", "tsanalyze"]
    rows = []
    for n in sizes:
        t0 = time.perf_counter()
        old, new = make_files(opts.dir, n)
        made = time.perf_counter() - t0
        rep = measure([*cli, "report", str(old), str(new), "--format", "json", "--seed", "1", "-q"])
        inf = measure([*cli, "info", str(old), str(new), "--format", "json"])
        wr = (math.nan, math.nan) if opts.no_write else write_times(old)
        rows.append((n, rep, inf, wr))
        print(
            f"n = {n:>10,} (files {made:.0f} s): report {rep[0]:7.1f} s (cpu {rep[2]:7.1f} s) "
            f"{rep[1] / GB:5.2f} GB | info {inf[0]:6.1f} s (cpu {inf[2]:5.1f} s) "
            f"{inf[1] / GB:5.2f} GB | write_run {wr[0]:6.2f} s cpu, "
            f"pyarrow {wr[1]:6.2f} s cpu ({wr[0] / wr[1]:.2f}x)",
            flush=True,
        )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    print("\nissue 19, step 1:")
    for (n0, r0, _, _), (n1, r1, _, _) in itertools.pairwise(rows):
        allowed = (n1 / n0) * math.log(n1) / math.log(n0)
        print(
            f"  {n0:.0e} -> {n1:.0e}: report time x{r1[0] / r0[0]:.1f}, cpu x{r1[2] / r0[2]:.1f} (n log n allows "
            f"x{allowed:.1f}), peak memory x{r1[1] / r0[1]:.1f} (data x{n1 / n0:.0f})"
        )
    big = [r for r in rows if r[0] >= 10**7]
    if big:
        peak = big[0][1][1] / GB
        print(f"  report peak at 10^7: {peak:.2f} GB (<= 6: {'met' if peak <= 6 else 'NOT met'})")
    worst = max((w[0] / w[1] for *_, w in rows if not math.isnan(w[0])), default=math.nan)
    print(
        f"  write_run / pyarrow, worst: {worst:.2f}x (<= 1.3: {'met' if worst <= 1.3 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
