"""The run-format registry: every key declared once, every check able to fail."""

from __future__ import annotations

import json

import pytest

from tsanalyze import schema


def _meta(**over):
    m = schema.new_metadata("r1", "2026-11-22T10:00:00Z", "rdtscp", clock={"hz": 3.0e9},
                            timer={"overhead_ns": 12.0, "precision_ns": 0.3})
    m.update(over)
    return m


def test_each_key_declared_once() -> None:
    paths = [k.path for k in schema.METADATA]
    assert len(paths) == len(set(paths))
    assert [c.name for c in schema.COLUMNS] == list(schema.COLUMN_NAMES)
    assert schema.SCHEMA_VERSION in schema.SUPPORTED_VERSIONS


def test_minimal_metadata_is_valid_and_round_trips() -> None:
    m = _meta()
    assert schema.validate_metadata(m) == []
    assert schema.decode_metadata(schema.encode_metadata(m)) == m


@pytest.mark.parametrize("path, value, needle", [
    ("clock.hz", -1.0, "clock.hz: must be a finite number > 0"),
    ("clock.hz", "fast", "clock.hz: expected"),
    ("timer.overhead_ns", -3.0, "timer.overhead_ns"),
    ("timer.precision_ns", 0.0, "timer.precision_ns"),
    ("clock.source", "sundial", "clock.source"),
    ("created_utc", "22/11/2026", "created_utc"),
    ("host.logical_cores", True, "host.logical_cores: expected int"),
    ("schema_version", schema.SCHEMA_VERSION + 1, "newer than this tsanalyze supports"),
])
def test_checks_fail_on_bad_values(path: str, value, needle: str) -> None:
    m = json.loads(json.dumps(_meta(host={"logical_cores": 2})))
    cur = m
    *parents, leaf = path.split(".")
    for p in parents:
        cur = cur.setdefault(p, {})
    cur[leaf] = value
    problems = schema.validate_metadata(m)
    assert any(needle in p for p in problems), problems


def test_imported_clock_source_accepted() -> None:
    assert schema.validate_metadata(_meta(clock={"source": "imported:pyperf"})) == []
    assert schema.validate_metadata(_meta(clock={"source": "imported:"}))


def test_not_an_object() -> None:
    assert schema.validate_metadata([1, 2]) == ["metadata: expected a JSON object, got list"]


def test_interleaved_reads_collector_interleave() -> None:
    assert schema.interleaved({"collector": {"interleave": True}})
    assert not schema.interleaved({"collector": {"interleave": False}})
    assert not schema.interleaved({"collector": {"evals_method": "imported from jmh"}})
    assert not schema.interleaved({"collector": None}) and not schema.interleaved(None)
    assert not schema.interleaved({"collector": {"interleave": "yes"}})  # only a real True


@pytest.mark.parametrize("raw", [b"[" * 100_000 + b"]" * 100_000, b'{"a": ' + b"9" * 5000 + b"}"])
def test_decode_metadata_refuses_hostile_json_with_value_error(raw: bytes) -> None:
    # a footer or a partial run nested too deeply raised RecursionError, which the
    # readers' ValueError handling did not catch (an internal error instead of a bad file)
    with pytest.raises(ValueError, match=r"nested|digits|JSON"):
        schema.decode_metadata(raw)
