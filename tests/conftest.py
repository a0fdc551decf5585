"""Shared test fixtures and helpers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Property tests are deterministic by default (issue 18: a hypothesis test that drew a
# rare float once made the README's test command fail on a fresh machine). CI and a
# developer run the same examples; HYPOTHESIS_PROFILE=explore draws fresh ones.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = Path(__file__).resolve().parent / "data"


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or skip the test with a clear reason when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"needs {p} (the project's ../shared checkout, present in CI); not licensed for copying")
    return p


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """One in-process Dask cluster (two single-threaded workers in this process) for every
    Dask test of the session; skipped without dask.distributed."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(autouse=True)
def _no_ambient_git(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``tsanalyze collect`` records the commit of the git work tree it runs in: tests see
    no repository (not the project's own, whose state varies from a clean CI checkout to
    a developer's edits) unless they make one and unset ``GIT_DIR``."""
    monkeypatch.setenv("GIT_DIR", str(tmp_path_factory.getbasetemp() / "no-git-repository"))
