"""Regenerate the hand-made importer fixtures in this directory (seeded, deterministic).

No real exported files of these tools with a usable licence were available (see
../README.md), so these fixtures were written by hand from each tool's documented
format and source code, with plausible numbers drawn from a seeded generator.
Run: python make_handmade.py
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
rng = np.random.default_rng(20261122)


def delay(t0: float, n: int, scale: float = 0.02) -> list[float]:
    """Timing-like values: t0 plus a positive, right-skewed delay."""
    return [float(v) for v in t0 * (1 + rng.gamma(2.0, scale / 2, n))]


def hyperfine() -> None:
    results = []
    for delay_s in ("0.01", "0.02"):
        times = delay(float(delay_s) + 0.0012, 10, 0.05)
        results.append({
            "command": f"sleep {delay_s}",
            "mean": statistics.mean(times),
            "stddev": statistics.stdev(times),
            "median": statistics.median(times),
            "user": 0.00071,
            "system": 0.00102,
            "min": min(times),
            "max": max(times),
            "times": times,
            "memory_usage_byte": [1802240 + 4096 * int(k) for k in rng.integers(0, 4, 10)],
            "exit_codes": [0] * 10,
            "parameters": {"delay": delay_s},
        })
    (HERE / "hyperfine.json").write_text(json.dumps({"results": results}, indent=2) + "\n")


def gbench() -> None:
    context = {
        "date": "2026-11-20T14:03:51+01:00",
        "host_name": "bench-box",
        "executable": "./build/bench_memcpy",
        "num_cpus": 8,
        "mhz_per_cpu": 3600,
        "cpu_scaling_enabled": False,
        "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 2}],
        "load_avg": [0.31, 0.4, 0.38],
        "library_version": "v1.8.3",
        "library_build_type": "release",
    }
    benchmarks = []
    for fam, (name, unit, t0, iters) in enumerate((("BM_memcpy/8", "ns", 4.1, 170000000), ("BM_sort/1024", "us", 21.7, 32000))):
        reals = delay(t0, 3)
        for rep, real in enumerate(reals):
            benchmarks.append({
                "name": name, "family_index": fam, "per_family_instance_index": 0, "run_name": name,
                "run_type": "iteration", "repetitions": 3, "repetition_index": rep, "threads": 1,
                "iterations": iters, "real_time": real, "cpu_time": real * 0.998, "time_unit": unit,
            })
            if name.startswith("BM_memcpy"):
                benchmarks[-1]["bytes_per_second"] = 8 / (real * 0.998 * 1e-9)
        for agg, value in (("mean", statistics.mean(reals)), ("median", statistics.median(reals)), ("stddev", statistics.stdev(reals))):
            benchmarks.append({
                "name": f"{name}_{agg}", "family_index": fam, "per_family_instance_index": 0, "run_name": name,
                "run_type": "aggregate", "repetitions": 3, "threads": 1, "aggregate_name": agg,
                "aggregate_unit": "time", "iterations": 3, "real_time": value, "cpu_time": value * 0.998, "time_unit": unit,
            })
    (HERE / "gbench.json").write_text(json.dumps({"context": context, "benchmarks": benchmarks}, indent=2) + "\n")


def criterion() -> None:
    root = HERE / "criterion"
    specs = (("fib", "fib", "20", 26500.0, None), ("sum", "sum", "1024", 310.0, {"Bytes": 4096}))
    for group, _function, value, t0, throughput in specs:
        bench_dir = root / group / value
        for baseline, factor in (("new", 1.0), ("base", 1.04)):
            d = bench_dir / baseline
            d.mkdir(parents=True, exist_ok=True)
            iters = [float(k * 3) for k in range(1, 21)]  # Linear sampling: d, 2d, 3d, ...
            times = [it * v for it, v in zip(iters, delay(t0 * factor, 20), strict=True)]
            (d / "sample.json").write_text(json.dumps({"sampling_mode": "Linear", "iters": iters, "times": times}))
            info = {
                "group_id": group, "function_id": None, "value_str": value, "throughput": throughput,
                "full_id": f"{group}/{value}", "directory_name": f"{group}/{value}", "title": f"{group}/{value}",
            }
            (d / "benchmark.json").write_text(json.dumps(info))
        (bench_dir / "change").mkdir(exist_ok=True)
        (bench_dir / "change" / "estimates.json").write_text(json.dumps({"mean": {"point_estimate": -0.04}}))


def benchmarktools() -> None:
    def trial(t0: float, n: int, evals: int) -> list:
        times = delay(t0, n)
        gctimes = [0.0] * n
        gctimes[n // 2] = 1500.0
        params = ["Parameters", {
            "seconds": 5.0, "samples": 10000, "evals": evals, "evals_set": False, "overhead": 0.0,
            "gctrial": True, "gcsample": False, "time_tolerance": 0.05, "memory_tolerance": 0.01,
        }]
        return ["Trial", {"params": params, "times": times, "gctimes": gctimes, "memory": 0, "allocs": 0}]

    suite = ["BenchmarkGroup", {"data": {
        "sum": trial(1180.0, 12, 10),
        "sort": ["BenchmarkGroup", {"data": {"100": trial(2410.0, 8, 5)}, "tags": ["sorting"]}],
    }, "tags": []}]
    doc = [{"Julia": "1.10.4", "BenchmarkTools": "1.5.0"}, [suite]]
    (HERE / "benchmarktools.json").write_text(json.dumps(doc) + "\n")


def pytest_benchmark() -> None:
    data = delay(2.2e-7, 25)
    s = sorted(data)
    n = len(s)
    q1 = statistics.median(s[: n // 2]) if n % 2 == 0 else 0.75 * s[n // 4] + 0.25 * s[n // 4 + 1]
    q3 = statistics.median(s[n // 2 :]) if n % 2 == 0 else 0.25 * s[3 * (n // 4) + 1] + 0.75 * s[3 * (n // 4) + 2]
    mean, sd = statistics.mean(data), statistics.stdev(data)
    stats = {
        "min": s[0], "max": s[-1], "mean": mean, "stddev": sd, "rounds": n, "median": statistics.median(data),
        "iqr": q3 - q1, "q1": q1, "q3": q3,
        "iqr_outliers": sum(1 for v in data if v < q1 - 1.5 * (q3 - q1) or v > q3 + 1.5 * (q3 - q1)),
        "stddev_outliers": sum(1 for v in data if v < mean - sd or v > mean + sd),
        "outliers": "", "ld15iqr": s[0], "hd15iqr": s[-1], "ops": 1 / mean, "total": sum(data) * 4096,
        "data": data, "iterations": 4096,
    }
    stats["outliers"] = f"{stats['stddev_outliers']};{stats['iqr_outliers']}"
    doc = {
        "machine_info": {"node": "bench-box", "processor": "x86_64", "machine": "x86_64", "python_compiler": "GCC 12.2.0",
                         "python_implementation": "CPython", "python_version": "3.12.3", "release": "6.8.0-45-generic",
                         "system": "Linux", "cpu": {"brand_raw": "AMD Ryzen 7 5800X 8-Core Processor", "count": 16}},
        "commit_info": {"id": "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "dirty": False, "branch": "main"},
        "benchmarks": [{
            "group": None, "name": "test_parse[small]", "fullname": "tests/test_perf.py::test_parse[small]",
            "params": {"size": "small"}, "param": "small", "extra_info": {},
            "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5, "max_time": 1.0, "min_time": 5e-06, "warmup": False},
            "stats": stats,
        }],
        "datetime": "2026-11-20T13:55:02.114233+00:00",
        "version": "4.0.0",
    }
    (HERE / "pytest-benchmark-data.json").write_text(json.dumps(doc, indent=4) + "\n")


def csv_table() -> None:
    lines = ["bench,trial,time_us,iterations,host"]
    for trial in ("a", "b"):
        for name, t0 in (("parse", 12.5), ("render", 40.2)):
            for v in delay(t0, 5):
                lines.append(f"{name},{trial},{v:.4f},100,box1")
    (HERE / "timings.csv").write_text("\n".join(lines) + "\n")


def jmh() -> None:
    """JMH -rf json (JSONResultFormat): avgt with params, thrpt, and sample mode."""
    def score(values: list[float]) -> dict:
        # JMH: score = mean over all iterations of all forks, error = 99.9% t half-width
        from scipy import stats as st

        n = len(values)
        mean = statistics.mean(values)
        err = float(st.t.ppf(0.9995, n - 1)) * statistics.stdev(values) / n**0.5
        return {"score": mean, "scoreError": err, "scoreConfidence": [mean - err, mean + err]}

    common = {
        "jmhVersion": "1.37", "threads": 1, "forks": 2,
        "jvm": "/usr/lib/jvm/java-21-openjdk-amd64/bin/java", "jvmArgs": ["-Xmx2g"],
        "jdkVersion": "21.0.4", "vmName": "OpenJDK 64-Bit Server VM", "vmVersion": "21.0.4+7-LTS",
        "warmupIterations": 5, "warmupTime": "1 s", "warmupBatchSize": 1,
        "measurementIterations": 6, "measurementTime": "1 s", "measurementBatchSize": 1,
    }
    results = []
    for size, t0 in (("100", 412.0), ("1000", 4630.0)):
        raw = [delay(t0, 6), delay(t0 * 1.01, 6)]  # us/op, two forks
        results.append({**common, "benchmark": "org.example.SortBench.sort", "mode": "avgt",
                        "params": {"size": size},
                        "primaryMetric": {**score(raw[0] + raw[1]), "scoreUnit": "us/op", "rawData": raw},
                        "secondaryMetrics": {}})
    thr = [[1e9 / v for v in delay(212.0, 6)], [1e9 / v for v in delay(215.0, 6)]]  # ops/s
    results.append({**common, "benchmark": "org.example.MapBench.get", "mode": "thrpt", "params": {},
                    "primaryMetric": {**score(thr[0] + thr[1]), "scoreUnit": "ops/s", "rawData": thr},
                    "secondaryMetrics": {"·gc.alloc.rate": {"score": 0.01, "scoreUnit": "MB/sec"}}})
    hist = []
    for _fork in range(2):
        iterations = []
        for _it in range(3):
            vals = np.round(np.asarray(delay(95.0, 40)), 1)  # ns/op
            uniq, cnt = np.unique(vals, return_counts=True)
            iterations.append([[float(v), int(c)] for v, c in zip(uniq, cnt, strict=True)])
        hist.append(iterations)
    flat = [v for f in hist for it in f for v, c in it for _ in range(c)]
    results.append({**common, "benchmark": "org.example.MapBench.get", "mode": "sample", "params": {},
                    "primaryMetric": {**score(flat), "scoreUnit": "ns/op", "rawDataHistogram": hist},
                    "secondaryMetrics": {}})
    (HERE / "jmh.json").write_text(json.dumps(results, indent=4) + "\n")


if __name__ == "__main__":
    hyperfine()
    gbench()
    criterion()
    benchmarktools()
    pytest_benchmark()
    csv_table()
    jmh()
