"""JMH importer: every rawData value (and every sampled operation) arrives as a sample.

The fixture tests/data/importers/handmade/jmh.json is hand-made from JMH's
JSONResultFormat (see the README there). The tests re-read it with the standard
library and check the mapping; JMH's own score (mean over every iteration of every
fork) is the known answer for the per-operation mean.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import tsanalyze
from tsanalyze import schema
from tsanalyze.cli.app import app
from tsanalyze.errors import ImportFormatError
from tsanalyze.io.importers import load, load_table, sniff

H = Path(__file__).resolve().parents[2] / "data" / "importers" / "handmade"
JMH = H / "jmh.json"
SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"


def _raw() -> list[dict]:  # type: ignore[type-arg]
    return json.loads(JMH.read_text())


def test_sniff_and_runs_per_fork() -> None:
    assert sniff(JMH) == "jmh"
    runs = load(JMH)
    assert len(runs) == 2  # two forks: two runs (trials of every benchmark)
    assert [r.metadata["source"]["metadata"]["fork"] for r in runs] == [0, 1]
    for r in runs:
        assert schema.validate_metadata(r.metadata) == []
        assert r.metadata["clock"]["source"] == "imported:jmh"
        assert r.metadata["source"]["version"] == "1.37"
        assert r.metadata["source"]["metadata"]["jdkVersion"] == "21.0.4"
        assert (r.frame["evals"] == 1).all() and (r.frame["ns"] > 0).all()
    again = load(JMH)
    assert [r.metadata["run"] for r in runs] == [r.metadata["run"] for r in again]


def test_avgt_values_and_params() -> None:
    frame = load_table(JMH).frame
    for res in _raw():
        if res["mode"] != "avgt":
            continue
        name = f"{res['benchmark']}[size={res['params']['size']}]"
        sub = frame[frame["benchmark"] == name]
        got = [sub[sub["run"] == run]["ns"].to_numpy() for run in sub["run"].unique()]
        want = [np.asarray(fork) * 1e3 for fork in res["primaryMetric"]["rawData"]]  # us
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-15)
        assert set(sub["param_size"]) == {res["params"]["size"]}
        # JMH's score is the mean over all iterations of all forks
        assert sub["ns"].mean() == pytest.approx(res["primaryMetric"]["score"] * 1e3, rel=1e-12)


def test_thrpt_is_inverted_to_time_per_operation() -> None:
    frame = load_table(JMH).frame
    res = next(r for r in _raw() if r["mode"] == "thrpt")
    sub = frame[frame["benchmark"] == "org.example.MapBench.get:thrpt"]
    ops_per_s = 1e9 / sub["ns"].to_numpy()
    np.testing.assert_allclose(ops_per_s, np.concatenate(res["primaryMetric"]["rawData"]), rtol=1e-12)
    assert ops_per_s.mean() == pytest.approx(res["primaryMetric"]["score"], rel=1e-12)


def test_sample_mode_expands_the_histogram() -> None:
    frame = load_table(JMH).frame
    res = next(r for r in _raw() if r["mode"] == "sample")
    sub = frame[frame["benchmark"] == "org.example.MapBench.get:sample"]
    hist = res["primaryMetric"]["rawDataHistogram"]
    assert len(sub) == sum(c for fork in hist for it in fork for _, c in it)
    assert sub["ns"].mean() == pytest.approx(res["primaryMetric"]["score"], rel=1e-12)
    first = sub[sub["run"] == sub["run"].iloc[0]]
    # iteration index of each sample; values in bin order within an iteration
    counts = [sum(c for _, c in it) for it in hist[0]]
    assert first["iteration"].value_counts().sort_index().tolist() == counts
    assert first["sample"].tolist() == list(range(len(first)))


def test_report_reads_jmh_directly(tmp_path: Path) -> None:
    df = tsanalyze.read_runs(JMH)
    assert df["benchmark"].nunique() == 4 and df["run"].nunique() == 2
    res = CliRunner().invoke(app, ["report", str(JMH), "--format", "json"])
    assert res.exit_code in (0, 1), res.output
    doc = json.loads(res.output)
    assert len(doc["series"]) == 8  # 4 benchmarks x 2 forks
    out = tmp_path / "jmh.parquet"
    imp = CliRunner().invoke(app, ["import", "auto", str(JMH), "-o", str(out)])
    assert imp.exit_code == 0, imp.output


@pytest.mark.parametrize(
    ("doc", "path", "expected"),
    [
        ([], "$", "expected at least one benchmark result"),
        (
            [{"benchmark": "B", "mode": "avgt", "primaryMetric": {"scoreUnit": "us/op"}}],
            "$[0].primaryMetric",
            "expected 'rawData'",
        ),
        (
            [{"benchmark": "B", "mode": "avgt",
              "primaryMetric": {"scoreUnit": "furlongs/op", "rawData": [[1.0]]}}],
            "$[0].primaryMetric.scoreUnit",
            "expected a time per operation",
        ),
        (
            [{"benchmark": "B", "mode": "burst",
              "primaryMetric": {"scoreUnit": "us/op", "rawData": [[1.0]]}}],
            "$[0].mode",
            "expected one of thrpt, avgt, sample, ss",
        ),
        (
            [{"benchmark": "B", "mode": "avgt",
              "primaryMetric": {"scoreUnit": "us/op", "rawData": [[1.0, -2.0]]}}],
            "$[0].primaryMetric.rawData[0][1]",
            "> 0",
        ),
        (
            [{"benchmark": "B", "mode": "sample",
              "primaryMetric": {"scoreUnit": "ns/op", "rawDataHistogram": [[[[5.0, 1.5]]]]}}],
            "$[0].primaryMetric.rawDataHistogram[0][0][0][1]",
            "whole-number count",
        ),
    ],
)  # fmt: skip
def test_errors_name_the_json_path(tmp_path: Path, doc: object, path: str, expected: str) -> None:
    p = tmp_path / "jmh.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ImportFormatError) as err:
        load(p, "jmh")
    msg = str(err.value)
    assert msg.startswith(f"{p}: {path}"), msg
    assert expected in msg


def test_same_benchmark_twice_in_one_mode_is_refused(tmp_path: Path) -> None:
    entry = {"benchmark": "B", "mode": "avgt",
             "primaryMetric": {"scoreUnit": "us/op", "rawData": [[1.0]]}}  # fmt: skip
    p = tmp_path / "dup.json"
    p.write_text(json.dumps([entry, entry]))
    with pytest.raises(ImportFormatError, match="appears twice"):
        load(p, "jmh")


def test_real_jmh_series_in_jmh_layout(tmp_path: Path) -> None:
    # Traini et al.'s JMH series (10 forks x 3000 iteration means in s/op; no licence, so
    # read from ../shared, never copied) put into JMH's result layout: every value
    # arrives, one run per fork, and the report's trials analysis sees 10 trials
    src = SHARED / "data" / "external" / "jmh-traini2022" / "timeseries_all" / (
        "RoaringBitmap__RoaringBitmap#org.roaringbitmap.iteration.BatchIteratorBenchmark."
        "batchIterateAsIntIterator#bufferSize=64&dirtiness=0.5&keys=8&runniness=0.5.json"
    )
    if not src.exists():
        pytest.skip(f"needs {src} (the project's ../shared checkout, present in CI); not licensed for copying")
    forks = json.loads(src.read_text())
    doc = [{"jmhVersion": "1.21", "benchmark": "BatchIteratorBenchmark.batchIterateAsIntIterator",
            "mode": "avgt", "forks": len(forks), "params": {"bufferSize": "64"},
            "primaryMetric": {"scoreUnit": "s/op", "rawData": forks}}]  # fmt: skip
    p = tmp_path / "roaring.json"
    p.write_text(json.dumps(doc))
    runs = load(p)
    assert len(runs) == len(forks) == 10
    for r, fork in zip(runs, forks, strict=True):
        np.testing.assert_allclose(r.frame["ns"].to_numpy(), np.asarray(fork) * 1e9, rtol=1e-15)
    df = tsanalyze.read_runs(p)
    assert len(df) == 30_000 and df["benchmark"].nunique() == 1


def test_sub_nanosecond_throughput_is_not_floored_at_1_ns(tmp_path: Path) -> None:
    # issue 15: 3.376e9 ops/s is 0.296 ns/op; read_runs floored the time per evaluation at
    # 1 ns ("1.000 ns ± 0%, all samples are equal"). The floor belongs to what a clock
    # measured minus its overhead, never to a per-operation figure a tool reported.
    doc = [{"benchmark": "b.Fast.get", "mode": "thrpt", "forks": 2,
            "primaryMetric": {"score": 3.376e9, "scoreUnit": "ops/s",
                              "rawData": [[3.376e9, 3.30e9, 3.41e9], [3.35e9, 3.39e9, 3.37e9]]}}]  # fmt: skip
    p = tmp_path / "fast.json"
    p.write_text(json.dumps(doc))
    df = tsanalyze.read_runs(p)
    assert df["time_ns"].iloc[0] == pytest.approx(1e9 / 3.376e9, rel=1e-12)  # 0.2962 ns
    assert df["time_ns"].max() < 0.31 and df["time_ns"].nunique() == 6
    out = tmp_path / "fast.parquet"
    assert CliRunner().invoke(app, ["import", "auto", str(p), "-o", str(out)]).exit_code == 0
    np.testing.assert_array_equal(tsanalyze.read_runs(out)["time_ns"], df["time_ns"])
    e = tsanalyze.estimate(df["time_ns"], "median", rng=1)
    assert 0.29 < e.ci_low <= e.estimate <= e.ci_high < 0.31
