"""The Dask engine at scale (issue 19, step 2): time and memory of the client and of each worker.

Two measurements, each a ``tsanalyze report … --engine dask`` (a 2-worker ``LocalCluster``
started by the command) run as a child process. Every process of its tree is polled with
psutil every 0.2 s: the peak resident memory of the client (the ``report`` process) and
of each worker process is printed, with the wall time and the load average (the machine
may be shared). The workers read their own series from the files (the client plans from
the footers: ``tsanalyze.io.series_source``), so the client's memory does not grow with
the samples.

``--runs R --samples n`` (default 1000 x 100000, the issue's target): R run files of one
benchmark, n samples each, the first half in ``old/``, the second (1% slower) in
``new/``, written once into ``--dir`` and reused; ``report old/ new/`` makes R series
analyses, two trials summaries (the runs of a side are its trials) and one run-level
comparison. ``--local`` also runs the local engine (``--jobs 2``), which reads every
file into one frame (so at 10^8 samples it does not fit here), and compares the JSON.

``--files F…``: the report on given files with both engines (e.g. the 10^7-sample files
of ``bench_scale.py``: 2 runs x 2 benchmarks x 2.5 x 10^6 rounds), and whether the JSON
documents are identical.

Measured here on 26 November 2026 (shared 2-core machine, 23 GB, nice -n 10, load average
8 to 17 from other jobs; see docs/src/dask.md):

- ``--files`` on bench_scale's 10^7-sample files: dask engine 327 s, client peak 0.63 GB,
  workers 1.53 and 1.53 GB (tree 3.68 GB); local engine (``--jobs 2``) 187 s, client
  2.75 GB (tree 4.75 GB); JSON documents identical. Again after issue 24's merge, load 6:
  dask 78 s, client 0.56 GB, workers 1.57 and 1.59 GB; local 49 s, client 2.63 GB;
  identical.
- ``--runs 100 --samples 100000``: 179 s, client 0.58 GB, workers 0.72 and 1.15 GB.
- ``--runs 1000 --samples 10000``: 431 s, client 0.60 GB, workers 0.64 and 1.16 GB.
- ``--runs 1000 --samples 100000`` (10^8 samples, run once, not extrapolated): 1584 s,
  client 2.06 GB, workers 1.52 and 6.98 GB (the latter: the one run-level comparison
  of 2 x 500 runs), tree 8.89 GB.

Run: ``nice -n 10 python benchmarks/bench_dask.py [--runs 1000] [--samples 100000]
[--dir DIR] [--local]`` or ``… --files old.parquet new.parquet``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GB = 1e9


def make_runs(directory: Path, runs: int, samples: int) -> tuple[Path, Path]:
    """``old/`` and ``new/`` with ``runs`` files of ``samples`` samples (reused when present)."""
    from tsanalyze.datasets import simulate_run
    from tsanalyze.io.runs import write_run

    out = directory / f"r{runs}-n{samples}"
    old, new = out / "old", out / "new"
    old.mkdir(parents=True, exist_ok=True)
    new.mkdir(parents=True, exist_ok=True)
    for i in range(runs):
        side, level = (old, 1000.0) if i < runs // 2 else (new, 1010.0)
        path = side / f"r{i:05d}.parquet"
        if path.exists():
            continue
        sim = simulate_run(
            {"bench": level}, n_rounds=samples, phi=0.2, rng=1000 + i, run=f"r{i:05d}"
        )
        (meta,) = sim.frame.attrs["runs"].values()
        write_run(sim.frame, path, meta)
    return old, new


def measure(args: list[str]) -> tuple[float, str, dict[str, float]]:
    """Wall time, stdout and the peak RSS (bytes) of each process of the command's tree:
    ``client`` (the command), ``worker <pid>`` (its children, but multiprocessing's
    resource tracker), polled every 0.2 s with psutil; ``tree`` is the peak of their sum."""
    import psutil

    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, text=True)
        root = psutil.Process(proc.pid)
        peaks: dict[str, float] = {}
        while proc.poll() is None:
            total = 0
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                procs = []
            for q in procs:
                try:
                    rss = q.memory_info().rss
                    if q.pid == root.pid:
                        name = "client"
                    elif "resource_tracker" in " ".join(q.cmdline()):
                        continue
                    else:
                        name = f"worker {q.pid}"
                except psutil.Error:
                    continue
                total += rss
                peaks[name] = max(peaks.get(name, 0.0), rss)
            peaks["tree"] = max(peaks.get("tree", 0.0), total)
            time.sleep(0.2)
        secs = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args[:6])}…: exit {proc.returncode}\n{err.read()[-2000:]}")
        return secs, out.read(), peaks


def _show(label: str, secs: float, peaks: dict[str, float]) -> None:
    workers = sorted(v for k, v in peaks.items() if k.startswith("worker"))
    print(
        f"{label}: {secs:.0f} s; peak RSS client {peaks.get('client', 0) / GB:.2f} GB, "
        f"workers {', '.join(f'{w / GB:.2f}' for w in workers) or '-'} GB "
        f"(whole tree {peaks.get('tree', 0) / GB:.2f} GB); load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()) / "tsanalyze-bench-dask"
    )
    ap.add_argument("--local", action="store_true", help="also run the local engine, compare")
    ap.add_argument("--files", type=Path, nargs="+", help="report these files with both engines")
    opts = ap.parse_args()

    cli = [sys.executable, "-m", "tsanalyze", "report"]
    common = ["-f", "json", "--seed", "1", "-q", "--jobs", str(opts.workers)]
    print(f"load average at start: {os.getloadavg()} ({os.cpu_count()} cores)", flush=True)
    if opts.files:
        inputs = [str(f) for f in opts.files]
        local_too = True
    else:
        t0 = time.perf_counter()
        inputs = [str(p) for p in make_runs(opts.dir, opts.runs, opts.samples)]
        print(
            f"{opts.runs} runs x {opts.samples} samples ({opts.runs * opts.samples:.3g}) "
            f"in {inputs[0]}, {inputs[1]} (made in {time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
        local_too = opts.local
    secs, dask_out, peaks = measure([*cli, *inputs, *common, "--engine", "dask"])
    _show(f"dask engine, {opts.workers} workers", secs, peaks)
    if local_too:
        secs, local_out, peaks = measure([*cli, *inputs, *common])
        _show(f"local engine, --jobs {opts.workers}", secs, peaks)
        print(f"identical JSON documents: {dask_out == local_out}")
    import json

    doc = json.loads(dask_out)
    for c in doc.get("comparisons", []):
        print(f"  {c['benchmark']}: {c['verdict']} (ratio {c['ratio']:.4f})")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
