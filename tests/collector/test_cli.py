"""``tsanalyze collect`` on the command line."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from tsanalyze import schema
from tsanalyze.cli.app import app

MODULE = """
def sum_builtin():
    return sum(range(200))

def sum_loop():
    s = 0
    for i in range(200):
        s += i
    return s

def broken():
    raise RuntimeError("broken on purpose")
"""


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    mod = tmp_path / "cli_targets_mod.py"
    mod.write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TSANALYZE_CLOCK", "perf_counter")
    return mod


def _meta(path: Path) -> dict[str, object]:
    return json.loads(pq.read_schema(path).metadata[schema.METADATA_KEY.encode()])  # type: ignore[no-any-return]


def _collect(out: Path, args: str) -> Result:
    """``tsanalyze collect OUT ARGS...``, the arguments written as on a shell line."""
    return CliRunner().invoke(app, ["collect", str(out), *shlex.split(args)])


def test_collect_python_targets(tmp_path: Path, targets: Path) -> None:
    out = tmp_path / "r.parquet"
    res = _collect(
        out,
        "--python builtin=cli_targets_mod:sum_builtin "
        f"-p {shlex.quote(f'loop={targets}:sum_loop')} --rounds 7 --seed 5 --evals 3 --tag who=ci",
    )
    assert res.exit_code == 0, res.output
    assert f"wrote {out}" in res.output and "7 rounds, 14 samples" in res.output
    table = pq.read_table(out)
    assert table.num_rows == 14 and set(table.column("evals").to_pylist()) == {3}
    meta = _meta(out)
    assert meta["collector"]["seed"] == 5  # type: ignore[index]
    assert meta["user"] == {"who": "ci"}
    assert meta["target"]["spec"]["builtin"]["callable"] == "cli_targets_mod:sum_builtin"  # type: ignore[index]


def test_collect_commands_no_interleave(tmp_path: Path, targets: Path) -> None:
    out = tmp_path / "c.parquet"
    res = _collect(out, "--cmd t=true --cmd 'e=echo hi' --rounds 3 --no-interleave")
    assert res.exit_code == 0, res.output
    rows = pq.read_table(out).to_pylist()
    assert [r["benchmark"] for r in rows] == ["t"] * 3 + ["e"] * 3
    assert _meta(out)["target"]["kind"] == "command"  # type: ignore[index]


def test_overwrite_refused_then_allowed(tmp_path: Path, targets: Path) -> None:
    out = tmp_path / "o.parquet"
    out.write_text("keep me")
    args = "-p b=cli_targets_mod:sum_builtin --rounds 2 --evals 1"
    res = _collect(out, args)
    assert res.exit_code == 2 and "refusing to overwrite" in res.output
    assert out.read_text() == "keep me"
    res = _collect(out, f"{args} --overwrite --quiet")
    assert res.exit_code == 0, res.output
    assert pq.read_table(out).num_rows == 2


def test_failing_target_exit_code(tmp_path: Path, targets: Path) -> None:
    out = tmp_path / "f.parquet"
    res = _collect(out, "-p x=cli_targets_mod:broken --rounds 2 --evals 1")
    assert res.exit_code == 2
    assert "raised RuntimeError: broken on purpose" in res.output
    res = _collect(
        out,
        "-p x=cli_targets_mod:broken -p ok=cli_targets_mod:sum_builtin --rounds 2 --evals 1 "
        "--ignore-failures",
    )
    assert res.exit_code == 0 and "2 failing samples were skipped" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give at least one"),
        (["-p", "nonsense"], "NAME=VALUE"),
        (["-p", "a=cli_targets_mod:missing"], "has no attribute"),
        (["-p", "a=no_such_module_xyz:f"], "cannot import"),
        (["-p", "a=cli_targets_mod"], "module:function"),
        (["-p", "a=cli_targets_mod:sum_loop", "--evals", "lots"], "--evals"),
        (["-p", "a=cli_targets_mod:sum_loop", "-p", "a=cli_targets_mod:sum_loop"], "given twice"),
        (["-p", "a=cli_targets_mod:sum_loop", "--cmd", "b=true"], "not both"),
        (["-p", "a=cli_targets_mod:sum_loop", "--min-sample-ns", "-5"], "--min-sample-ns"),
        # issue 18: out-of-range numbers were tracebacks
        (
            ["-p", "a=cli_targets_mod:sum_loop", "--evals", "99999999999999999999999"],
            "evals must be 'auto' or an integer in [1, 9223372036854775807]",
        ),
        (["-p", "a=cli_targets_mod:sum_loop", "--evals", "²"], "--evals must be"),
        (["-p", "a=cli_targets_mod:sum_loop", "--rounds", "9223372036854775808"], "rounds must"),
        (["-p", "a=cli_targets_mod:sum_loop", "--seed", str(10**30)], "seed must"),
        (["-p", "a=cli_targets_mod:sum_loop", "--tau-prec", "1e-320"], "tau_prec is too small"),
        (
            ["-p", "a=cli_targets_mod:sum_loop", "--tag", "k=1", "--tag", "k=2"],
            "--tag: tag 'k' given twice",
        ),
    ],
)
def test_bad_arguments(tmp_path: Path, targets: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["collect", str(tmp_path / "b.parquet"), *args])
    assert res.exit_code == 2, res.output
    assert isinstance(res.exception, SystemExit)  # not a traceback
    assert message in res.output
    assert not (tmp_path / "b.parquet").exists()


def test_oracle_parameters_from_the_command_line(tmp_path: Path, targets: Path) -> None:
    out = tmp_path / "t.parquet"
    res = _collect(
        out,
        "-p b=cli_targets_mod:sum_builtin --rounds 2 --tau-acc 5000 --tau-prec 10 "
        "--min-sample-ns 250000 --quiet",
    )
    assert res.exit_code == 0, res.output
    oracle = _meta(out)["collector"]["oracle"]  # type: ignore[index]
    assert oracle["tau_acc"] == 5000.0 and oracle["tau_prec"] == 10.0
    assert oracle["min_sample_ns"] == 250000.0
    assert oracle["per_benchmark"]["b"]["j"] == 500


class _Accepted(Exception):
    """Raised by the stub that stands in for the timing: the arguments were accepted."""


def test_numeric_options_fuzz(
    tmp_path: Path, targets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 18: `collect --evals 99999999999999999999999` was a traceback. Fuzz every
    # numeric option (bounded: 120 examples, no deadline). The timing itself is stubbed
    # out: the arguments are either accepted (and within range) or refused with exit 2
    # and a message naming the option -- never a traceback, never a file.
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tsanalyze.collector import _collect
    from tsanalyze.collector.plan import MAX_EVALS, MAX_INT64, Plan

    accepted: list[Plan] = []

    def stub(plan: Plan, *args: object) -> None:
        accepted.append(plan)
        raise _Accepted

    monkeypatch.setattr(_collect, "_record", stub)
    number = st.one_of(
        st.integers(-(10**25), 10**25).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.sampled_from(
            ["0", "1", "9223372036854775807", "9223372036854775808", "1e309", "-0", "nan",
             "inf", "1e-320", "99999999999999999999999", "３", "²", "", " 5", "0x10", "1_000"]
        ),
    )  # fmt: skip
    options = ["--rounds", "--time-budget", "--evals", "--seed", "--tau-acc", "--tau-prec",
               "--min-sample-ns"]  # fmt: skip
    out = tmp_path / "fuzz.parquet"

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.dictionaries(st.sampled_from(options), number, min_size=1, max_size=4))
    def check(values: dict[str, str]) -> None:
        args = ["collect", str(out), "-p", "b=cli_targets_mod:sum_builtin", "-q"]
        for opt, v in values.items():
            args += [opt, v]
        accepted.clear()
        res = CliRunner().invoke(app, args)
        assert not out.exists()
        if accepted:  # the stub ran (the CLI reports its exception as an internal error)
            (plan,) = accepted
            assert plan.rounds is None or 1 <= plan.rounds <= MAX_INT64
            assert 0 <= plan.seed <= MAX_INT64
            assert all(v is None or 1 <= v <= MAX_EVALS for v in plan.evals.values())
            return
        assert res.exit_code == 2, (args, res.output, res.exception)
        assert isinstance(res.exception, SystemExit), res.exception
        assert "Traceback" not in res.output
        last = res.output.strip().splitlines()[-1]
        named = [o for o in values if o in last or o.lstrip("-").replace("-", "_") in last]
        assert named, (args, res.output)

    check()
