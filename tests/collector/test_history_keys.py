"""The collector records where a run stands in the project's history (issue 25's inputs:
``commit``, ``commit_time``, ``branch``, ``machine``, ``env``), from git or from the
options, so that ``tsanalyze history`` can order the runs it wrote."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tsanalyze
from tsanalyze import schema
from tsanalyze.cli.app import app
from tsanalyze.collector import collect
from tsanalyze.collector.metadata import git_commit
from tsanalyze.errors import InvalidArgumentError


def _git(repo: Path, *args: str, when: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    env.pop("GIT_DIR", None)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    out = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True,
                         check=True)  # fmt: skip
    return out.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git work tree with one commit and a target module, as the current directory."""
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.setenv("TSANALYZE_CLOCK", "perf_counter")
    r = tmp_path / "repo"
    r.mkdir()
    _git(r, "init", "-q", "-b", "main")
    (r / "hist_target_mod.py").write_text("def f():\n    return sum(range(50))\n")
    _git(r, "add", "hist_target_mod.py")
    _git(r, "commit", "-q", "-m", "one", when="2026-03-01T10:00:00+01:00")
    monkeypatch.chdir(r)
    monkeypatch.syspath_prepend(str(r))
    return r


def _meta(path: Path) -> dict[str, object]:
    return json.loads(pq.read_schema(path).metadata[schema.METADATA_KEY.encode()])  # type: ignore[no-any-return]


def test_git_commit_reads_head_as_git_does(repo: Path, tmp_path: Path) -> None:
    found, dirty = git_commit(repo)
    assert found == {
        "commit": _git(repo, "rev-parse", "HEAD"),
        "commit_time": _git(repo, "show", "-s", "--format=%cI", "HEAD"),
        "branch": "main",
    }
    assert found["commit_time"] == "2026-03-01T10:00:00+01:00" and not dirty
    (repo / "untracked.txt").write_text("x")  # untracked files are not the code measured
    assert git_commit(repo)[1] is False
    (repo / "hist_target_mod.py").write_text("def f():\n    return 0\n")
    assert git_commit(repo)[1] is True
    # a named commit: its hash and time, no branch; outside a work tree: nothing
    assert git_commit(repo, commit="main")[0].keys() == {"commit", "commit_time"}
    assert git_commit(repo, commit="no-such-commit") == ({}, False)
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git_commit(outside) == ({}, False)


def test_collect_writes_the_history_keys_and_checks_them(tmp_path: Path) -> None:
    keys = {"commit": "abc123", "commit_time": "2026-03-01T10:00:00Z", "branch": "main",
            "machine": "ci-1", "env": "py3.12"}  # fmt: skip
    out = tmp_path / "r.parquet"
    collect({"f": lambda: None}, out, rounds=3, clock="perf_counter", history=keys)
    meta = _meta(out)
    assert {k: meta[k] for k in keys} == keys
    assert not schema.validate_metadata(meta)
    for bad, match in (({"colour": "red"}, "colour: unknown key"),
                       ({"commit_time": "yesterday"}, "commit_time: must be an ISO 8601"),
                       ({"machine": ""}, "machine")):  # fmt: skip
        with pytest.raises(InvalidArgumentError, match=match):
            collect({"f": lambda: None}, tmp_path / "x.parquet", rounds=3, history=bad)
        assert not (tmp_path / "x.parquet").exists()


def _collect(out: Path, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["collect", str(out), "-p", "f=hist_target_mod:f", "--rounds",
                                 "3", "-q", *args])  # fmt: skip
    return r.exit_code, r.output


def test_cli_records_git_head_or_what_it_is_told(repo: Path) -> None:
    code, out = _collect(repo / "a.parquet")
    head = _git(repo, "rev-parse", "HEAD")
    assert code == 0 and f"commit {head[:12]}" in out, out
    meta = _meta(repo / "a.parquet")
    assert meta["commit"] == head and meta["branch"] == "main"
    assert meta["commit_time"] == "2026-03-01T10:00:00+01:00" and "machine" not in meta
    code, out = _collect(repo / "b.parquet", "--commit", "none", "--machine", "ci-1", "--env", "py")
    meta = _meta(repo / "b.parquet")
    assert code == 0 and "commit" not in meta and (meta["machine"], meta["env"]) == ("ci-1", "py")
    code, out = _collect(repo / "c.parquet", "--commit", "release-7", "--commit-time",
                         "2026-04-01T00:00:00Z")  # fmt: skip
    meta = _meta(repo / "c.parquet")
    assert (meta["commit"], meta["commit_time"]) == ("release-7", "2026-04-01T00:00:00Z")
    # uncommitted edits: what runs is not HEAD, so no commit is recorded, and it is said
    (repo / "hist_target_mod.py").write_text("def f():\n    return 1\n")
    code, out = _collect(repo / "d.parquet")
    assert code == 0 and "differ from git's HEAD" in out and "commit" not in _meta(repo / "d.parquet")
    code, out = _collect(repo / "e.parquet", "--commit-time", "last tuesday")
    assert code == 2 and len(out.strip().splitlines()) == 1 and "--commit-time" in out
    assert not (repo / "e.parquet").exists()


def test_runs_collected_at_successive_commits_make_a_history(repo: Path) -> None:
    runs = repo / "runs"
    runs.mkdir()
    for i in range(6):
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"c{i}",
             when=f"2026-03-0{2 + i}T10:00:00+00:00")  # fmt: skip
        # written out of commit order: the history orders by the commits' times
        assert _collect(runs / f"run-{5 - i}.parquet", "--machine", "ci-1")[0] == 0
    h = tsanalyze.history(tsanalyze.read_runs(runs), seed=0)
    order = _git(repo, "rev-list", "--reverse", "HEAD").splitlines()[1:]
    assert list(h.commits) == order
    assert h.series["machine"].tolist() == ["ci-1"] and h.series["commits"].tolist() == [6]
