"""Cost of the HTML report against the terminal report (issue 15): ratio <= 2.

Two inputs, each timed end to end as a user types it, in a fresh process (start-up,
reading, analysis, rendering), best of ``--repeat`` runs:

* the bundled samples (``data/samples/*.parquet``: 6 series, 150 to 3000 samples);
* a JMH-shaped input: a ``-rf json`` result file of 4 benchmarks x 10 forks x 3000
  iterations (JMH's ``JSONResultFormat``, ``avgt`` mode, ``rawData`` per fork; the shape
  of the JMH steady-state data sets of Traini et al. 2022), written here with a seeded
  warm-up, a slow drift in one benchmark, fork-to-fork level differences and delays.

``tsanalyze report FILES`` and ``tsanalyze report FILES --html out.html`` are timed; the
ratio of the two is the figure of merit (target: at most 2). Run as
``python benchmarks/bench_html.py [--repeat 3] [--jobs N]``. Timings on a shared machine
are inflated by other load; the ratio much less so, since both commands pay it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(str(p) for p in (ROOT / "data" / "samples").glob("*.parquet"))


def jmh_file(path: Path, *, forks: int = 10, iterations: int = 3000, seed: int = 15) -> Path:
    """A JMH ``-rf json`` file: 4 benchmarks (us/op), ``forks`` forks of ``iterations``."""
    rng = np.random.default_rng(seed)
    common = {
        "jmhVersion": "1.37", "threads": 1, "forks": forks,
        "jvm": "/usr/lib/jvm/java-21-openjdk-amd64/bin/java", "jvmArgs": ["-Xmx2g"],
        "jdkVersion": "21.0.4", "vmName": "OpenJDK 64-Bit Server VM", "vmVersion": "21.0.4+7-LTS",
        "warmupIterations": 0, "warmupTime": "1 s", "warmupBatchSize": 1,
        "measurementIterations": iterations, "measurementTime": "100 ms",
        "measurementBatchSize": 1, "mode": "avgt", "params": {}, "secondaryMetrics": {},
    }  # fmt: skip
    results = []
    for b, (name, t0, drift) in enumerate(
        (("Parse.json", 41.0, 0.0), ("Parse.xml", 97.0, 0.0), ("Sort.ints", 12.5, 0.04),
         ("Map.get", 0.35, 0.0))
    ):  # fmt: skip
        raw = []
        for _ in range(forks):
            level = t0 * (1 + 0.01 * rng.standard_normal())  # each JVM settles elsewhere
            i = np.arange(iterations)
            warm = 1 + 0.8 * np.exp(-i / (60 + 40 * b))
            slow = 1 + drift * i / iterations
            noise = 1 + 0.01 * rng.standard_normal(iterations)
            delays = np.where(rng.random(iterations) < 0.01, rng.uniform(1.5, 20, iterations), 1)
            raw.append((level * warm * slow * noise * delays).tolist())
        flat = np.concatenate(raw)
        err = 3.3 * flat.std(ddof=1) / np.sqrt(flat.size)
        metric = {"score": flat.mean(), "scoreError": err, "scoreUnit": "us/op", "rawData": raw,
                  "scoreConfidence": [flat.mean() - err, flat.mean() + err]}  # fmt: skip
        results.append({**common, "benchmark": f"org.example.{name}", "primaryMetric": metric})
    path.write_text(json.dumps(results))
    return path


def timed(args: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(args, capture_output=True, text=True, check=False)
        secs = time.perf_counter() - t0
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(args[3:])}: exit {proc.returncode}: {proc.stderr[-500:]}")
        best = min(best, secs)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per command (best is kept)")
    parser.add_argument("--jobs", type=int, default=None, help="workers (default: all cores)")
    opts = parser.parse_args()
    jobs = ["--jobs", str(opts.jobs)] if opts.jobs else []
    cmd = [sys.executable, "-c", "from tsanalyze.cli.app import main; main()"]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        inputs = {"samples": SAMPLES, "JMH 4 x 10 forks x 3000": [str(jmh_file(d / "jmh.json"))]}
        print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
        worst = 0.0
        for label, files in inputs.items():
            base = [*cmd, "report", *files, "-q", *jobs]
            term = timed(base, opts.repeat)
            html = timed([*base, "--html", str(d / "r.html")], opts.repeat)
            size = (d / "r.html").stat().st_size / 1e6
            ratio = html / term
            worst = max(worst, ratio)
            print(
                f"{label:28s} terminal {term:6.1f} s   --html {html:6.1f} s   "
                f"ratio {ratio:4.2f}   ({size:.1f} MB)"
            )
        print(f"worst ratio {worst:.2f} (target <= 2): {'ok' if worst <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
