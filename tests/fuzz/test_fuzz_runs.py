"""Fuzzing run files and the Python API (issue 18).

Run files: a valid file with a few cells replaced by hostile values (any Arrow type), a
user's own ``kind`` or derived column added, or its metadata damaged. ``read_runs`` gives
a one-line error naming the file and the damaged column, or a frame that passes every
check with no row lost. ``write_run`` refuses what ``read_runs`` would refuse and leaves
no file behind.

API: every entry point on series of any dtype, masked, 0-d, huge or tiny values: a
:class:`~tsanalyze.errors.TsanalyzeError` or a finite estimate inside its own interval.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _fuzz_hostile import FUZZ, assert_one_line_naming, assert_valid_runs
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tsanalyze
from tsanalyze.datasets import simulate_run
from tsanalyze.errors import InvalidRunError, TsanalyzeError
from tsanalyze.io.runs import read_runs, write_run
from tsanalyze.stats.outliers import outlier_variance

DATA = Path(__file__).resolve().parents[1] / "data"
_SIM = simulate_run({"a": 1000.0, "b": 2000.0}, evals=4, n_rounds=8, rng=3)
_FRAME = _SIM.frame
_META = next(iter(_FRAME.attrs["runs"].values()))

#: Per column: hostile values and the Arrow types they are written with.
_CELLS: dict[str, tuple[list[Any], list[pa.DataType]]] = {
    "ns": ([float("nan"), float("inf"), -1.0, 0.0, 5e-324, 1e308, 2.0**63], [pa.float64(), pa.float32()]),
    "evals": ([0, -1, 2**63, 2**64 - 1], [pa.int64(), pa.uint64(), pa.float64()]),
    "sample": ([-1, -5, 2**40, 0], [pa.int64(), pa.int32()]),
    "round": ([-1, 2**62], [pa.int64()]),
    "position": ([-1, 2**15 - 1], [pa.int64(), pa.int16()]),
    "work": ([float("nan"), float("inf"), -1.0], [pa.float64()]),
    "kind": (["cpu", "", "Warmup", "value", "\x1b]0;x\x07"], [pa.string()]),
    "benchmark": (["", "\x00", "a", "é" * 300], [pa.string()]),
    "run": (["not-a-run", ""], [pa.string()]),
    "time_ns": ([1.0, -1.0], [pa.float64()]),
}  # fmt: skip


def _cell_column(values: list[Any], typ: pa.DataType) -> pa.Array | None:
    try:
        return pa.array(values, typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        return None  # the value does not fit the type: not a file anyone can write


@st.composite
def _damaged(draw: st.DrawFn, base: pa.Table) -> tuple[pa.Table, set[str]]:
    t = base
    touched: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(_CELLS)))
        values, types = _CELLS[name]
        col = t.column(name).to_pylist() if name in t.column_names else [None] * t.num_rows
        if name == "kind" and name not in t.column_names:
            col = ["value"] * t.num_rows
        if name == "time_ns" and name not in t.column_names:
            col = [1.0] * t.num_rows
        for _ in range(draw(st.integers(1, 2))):
            col[draw(st.integers(0, t.num_rows - 1))] = draw(st.sampled_from(values))
        arr = _cell_column(col, draw(st.sampled_from(types)))
        if arr is None:
            continue
        if name in t.column_names:
            t = t.set_column(t.schema.get_field_index(name), name, arr)
        else:
            t = t.append_column(name, arr)
        touched.add(name)
    return t, touched


@pytest.fixture(scope="module")
def good_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[pa.Table, dict[str, Any]]:
    p = write_run(_FRAME, tmp_path_factory.mktemp("runs") / "good.parquet", _META)
    t = pq.read_table(p)
    return t.replace_schema_metadata(None), json.loads(t.schema.metadata[b"tsanalyze"])


def test_fuzz_run_files(tmp_path: Path, good_table: tuple[pa.Table, dict[str, Any]]) -> None:
    # found before: a `kind` column of the user's dropped every row; negative sample
    # indices gave a false "duplicate" error; uint64 evals beyond int64 and 1e308 times
    # gave errors naming no file (or inf estimates in `report`)
    table, meta = good_table

    @FUZZ
    @given(damage=_damaged(table))
    def run(damage: tuple[pa.Table, set[str]]) -> None:
        t, touched = damage
        p = tmp_path / "f.parquet"
        pq.write_table(t.replace_schema_metadata({b"tsanalyze": json.dumps(meta).encode()}), p)
        try:
            df = read_runs(p)
        except InvalidRunError as exc:
            assert_one_line_naming(exc, p)
            msg = str(exc)
            assert "duplicate" not in msg or "sample" not in touched or (t.column("sample").to_numpy() >= 0).all(), msg  # fmt: skip
            assert any(f"column {c}" in msg for c in touched) or "duplicate" in msg or "warm-up" in msg, msg  # fmt: skip
            return
        assert_valid_runs(df)
        kinds = t.column("kind").to_pylist() if "kind" in t.column_names else ["value"] * t.num_rows
        assert len(df) == sum(k in (None, "value") for k in kinds)  # no row silently lost

    run()


_META_DAMAGE = st.sampled_from(
    [
        ("schema_version", 99), ("schema_version", "1"), ("schema_version", 2**70),
        ("run", None), ("run", 7), ("created_utc", "yesterday"), ("clock", []),
        ("timer", {"overhead_ns": float("nan")}), ("timer", {"overhead_ns": -5.0}),
        ("timer", {"overhead_ns": 10**400}), ("runs", []), ("runs", [{}]),
    ]
)  # fmt: skip


@FUZZ
@given(damage=st.lists(_META_DAMAGE, min_size=1, max_size=2))
def test_fuzz_run_metadata(tmp_path: Path, damage: list[tuple[str, Any]]) -> None:
    frame = _FRAME
    p = tmp_path / "m.parquet"
    if p.exists():
        p.unlink()
    good = write_run(frame, p, _META)
    t = pq.read_table(good)
    meta = json.loads(t.schema.metadata[b"tsanalyze"])
    for key, value in damage:
        meta[key] = value
    text = json.dumps(meta, allow_nan=True) if "runs" not in meta else json.dumps(meta)
    pq.write_table(t.replace_schema_metadata({b"tsanalyze": text.encode()}), p)
    try:
        df = read_runs(p)
    except InvalidRunError as exc:
        assert_one_line_naming(exc, p)
    else:
        assert_valid_runs(df)


_FRAME_CELLS = {
    "ns": [np.nan, np.inf, -1.0, 0.0, 5e-324, 1e308],
    "evals": [0, -3],
    "sample": [-1],
    "benchmark": [None],
}


@FUZZ
@given(
    edits=st.lists(
        st.tuples(
            st.sampled_from(sorted(_FRAME_CELLS)), st.integers(0, len(_FRAME) - 1), st.data()
        ),
        min_size=1,
        max_size=3,
    )
)
def test_fuzz_write_run(tmp_path: Path, edits: list[tuple[str, int, Any]]) -> None:
    # the writer refuses what the reader refuses, and leaves no file behind
    bad = _FRAME.copy()
    bad["benchmark"] = bad["benchmark"].astype(object)
    for col, row, data in edits:
        bad.loc[row, col] = data.draw(st.sampled_from(_FRAME_CELLS[col]))
    p = tmp_path / "w.parquet"
    if p.exists():
        p.unlink()
    try:
        write_run(bad, p, _META)
    except InvalidRunError as exc:
        assert "\n" not in str(exc)
        assert not p.exists()
        return
    assert_valid_runs(read_runs(p))


# ------------------------------------------------------------------ Python API
_API = {
    "estimate": lambda x: tsanalyze.estimate(x, rng=1, n_resamples=200),
    "steady_state": lambda x: tsanalyze.steady_state(x),
    "autocorrelation": lambda x: tsanalyze.autocorrelation(x),
    "changepoints": lambda x: tsanalyze.changepoints(x),
    ".tsa.estimate": lambda x: pd.Series(x).tsa.estimate(rng=1, n_resamples=200),
}

_ELEMENTS = st.one_of(
    st.floats(1.0, 1e4),
    st.sampled_from([0.0, -1096.8, np.nan, np.inf, 1e308, 5e-324, 1e-300, 1e149, 1e-149]),
)


@st.composite
def _series(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["float", "float", "int", "bool", "complex", "datetime", "masked", "0-d", "list"]))  # fmt: skip
    n = draw(st.integers(0, 40))
    values = np.array(draw(st.lists(_ELEMENTS, min_size=n, max_size=n)), dtype=np.float64)
    if kind == "int":
        return (
            np.abs(np.nan_to_num(values, nan=1, posinf=7, neginf=3)).clip(1, 1e9).astype(np.int64)
        )
    if kind == "bool":
        return values > 100
    if kind == "complex":
        return values + 1j
    if kind == "datetime":
        return np.arange(n).astype("datetime64[ns]")
    if kind == "masked":
        return np.ma.masked_array(values, mask=draw(hnp.arrays(bool, n)))
    if kind == "0-d":
        return np.float64(values[0] if n else 1.0)
    if kind == "list":
        return [None if not np.isfinite(v) else float(v) for v in values]
    return values


@pytest.mark.parametrize("entry", sorted(_API))
def test_fuzz_api_entry_points(entry: str) -> None:
    # found before: times <= 0 accepted (estimate -1096.8 ns), masks ignored, complex /
    # bool / datetime / 0-d converted, the median of 1e308-scale data inf with a finite CI
    call = _API[entry]

    @FUZZ
    @given(x=_series())
    def run(x: Any) -> None:
        try:
            r = call(x)
        except TsanalyzeError as exc:
            assert "\n" not in str(exc)
            return
        data = np.asarray(np.ma.getdata(x), dtype=np.float64)
        assert np.isfinite(data).all() and (data > 0).all()  # nothing hostile got through
        if entry.endswith("estimate"):
            assert np.isfinite(r.estimate) and data.min() <= r.estimate <= data.max()
            if np.isnan(r.ci_low) or np.isnan(r.ci_high):  # too little data: said so
                assert any(w.code == "too-few-samples" for w in r.warnings)
            else:
                assert r.ci_low <= r.estimate <= r.ci_high

    run()


@FUZZ
@given(
    mean=st.floats(1e-300, 1e300),
    rel=st.one_of(st.floats(0.0, 10.0), st.sampled_from([2.98e-167, 1e-300, 5e-324])),
    n=st.integers(1, 10**6),
)
def test_fuzz_outlier_variance_fraction_in_unit_interval(mean: float, rel: float, n: int) -> None:
    # found before: outlier_variance(117879.0, 117879.0*2.98e-167, 5).fraction = -1/3
    try:
        f = outlier_variance(mean, mean * rel, n).fraction
    except TsanalyzeError:
        return
    assert 0.0 <= f <= 1.0


def test_every_byte_of_the_dictionary_pages_flipped(tmp_path: Path) -> None:
    # found before: ArrowIndexError (an index beyond a damaged dictionary page) and
    # UnicodeDecodeError (a damaged string in it) as tracebacks. Every byte of the
    # dictionary-encoded string columns' chunks, set to 0x00, 0x7f and 0xff in turn.
    plain = tmp_path / "plain.parquet"
    pq.write_table(pq.read_table(DATA / "golden-v1.parquet"), plain, compression="none")
    src = plain.read_bytes()
    md = pq.ParquetFile(plain).metadata
    outcomes = {"read": 0, "refused": 0}
    p = tmp_path / "flip.parquet"
    for ci in range(md.num_columns):
        chunk = md.row_group(0).column(ci)
        if chunk.dictionary_page_offset is None or chunk.path_in_schema not in ("benchmark", "run"):
            continue
        start = chunk.dictionary_page_offset
        for pos in range(start, start + chunk.total_compressed_size):
            for value in (0x00, 0x7F, 0xFF):
                if src[pos] == value:
                    continue
                b = bytearray(src)
                b[pos] = value
                p.write_bytes(bytes(b))
                try:
                    df = read_runs(p)
                except InvalidRunError as exc:
                    assert_one_line_naming(exc, p)
                    outcomes["refused"] += 1
                else:
                    assert_valid_runs(df)
                    df["benchmark"].astype(str)
                    outcomes["read"] += 1
    assert outcomes["refused"] > 0 and outcomes["read"] > 0
