"""Fixtures of the documentation tests: the modules that live in ``docs/``, not in the package."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _docs_module(name: str) -> ModuleType:
    sys.path.insert(0, str(DOCS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(DOCS))


@pytest.fixture(scope="session")
def gen_pages() -> ModuleType:
    """``docs/gen_pages.py``, the generator of the reference pages."""
    return _docs_module("gen_pages")


@pytest.fixture(scope="session")
def griffe_references() -> ModuleType:
    """``docs/griffe_references.py``, the mkdocstrings extension for numpydoc citations."""
    return _docs_module("griffe_references")
