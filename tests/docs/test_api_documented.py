"""Every public name of ``tsanalyze`` has a numpydoc docstring and is in the API reference.

The docstrings are parsed with numpydoc's own parser (``numpydoc.docscrape``), the reference
implementation of the format. A function must have a summary, a Parameters section naming
every parameter of its signature (and nothing else), a Returns section and a References
section (STYLE.md convention 5: cite the seed or paper). A public class needs a summary and
References.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from types import ModuleType

import pytest

import tsanalyze

numpydoc_docscrape = pytest.importorskip("numpydoc.docscrape")

PUBLIC = sorted(tsanalyze._API)


def _parse(obj: object) -> tuple[object, list[str]]:
    """Parse with numpydoc; its warnings (unknown sections, bad headers) are problems too."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if inspect.isclass(obj):
            doc = numpydoc_docscrape.ClassDoc(obj, config={"show_class_members": False})
        else:
            doc = numpydoc_docscrape.FunctionDoc(obj)
    return doc, [f"numpydoc: {w.message}" for w in caught]


def docstring_problems(obj: object) -> list[str]:
    """What is missing from ``obj``'s numpydoc docstring (an empty list when complete)."""
    if not inspect.getdoc(obj):
        return ["no docstring"]
    doc, problems = _parse(obj)
    if not "".join(doc["Summary"]).strip():
        problems.append("no summary line")
    if not "".join(doc["References"]).strip():
        problems.append("no References section (cite the seed or paper)")
    if inspect.isclass(obj):
        return problems
    sig = inspect.signature(obj).parameters.values()
    params = [p.name for p in sig if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    # *args / **options may be documented (numpydoc: "**options"), but need not be
    variadic = {p.name for p in sig if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    documented: list[str] = []
    for p in doc["Parameters"]:
        # numpydoc allows "x, y : float" for several parameters at once
        documented += [n.strip().lstrip("*") for n in p.name.split(",")]
    if params and not documented:
        problems.append("no Parameters section")
    else:
        missing = [p for p in params if p not in documented]
        unknown = [p for p in documented if p not in params and p not in variadic]
        if missing:
            problems.append(f"parameters not documented: {missing}")
        if unknown:
            problems.append(f"documented but not in the signature: {unknown}")
    if not doc["Returns"] and not doc["Yields"]:
        problems.append("no Returns section")
    return problems


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_resolves(name: str) -> None:
    obj = getattr(tsanalyze, name)
    assert obj is getattr(importlib.import_module(tsanalyze._API[name]), name)
    assert name in dir(tsanalyze)


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_has_numpydoc_docstring(name: str) -> None:
    obj = getattr(tsanalyze, name)
    problems = docstring_problems(obj)
    assert not problems, f"tsanalyze.{name} ({tsanalyze._API[name]}): " + "; ".join(problems)


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_is_in_the_api_reference(name: str, gen_pages: ModuleType) -> None:
    page = gen_pages.api_page()
    assert f"::: {tsanalyze._API[name]}.{name}\n" in page


def test_checker_finds_gaps() -> None:
    # the checker itself must be able to fail: a bare function and a half-documented one
    def bare(x: float) -> float:
        return x

    def half(x: float, y: float = 1.0) -> float:
        """Add.

        Parameters
        ----------
        x : float
            A number.
        z : float
            Not a parameter.
        """
        return x + y

    assert docstring_problems(bare) == ["no docstring"]
    half_problems = docstring_problems(half)
    assert "no References section (cite the seed or paper)" in half_problems
    assert "parameters not documented: ['y']" in half_problems
    assert "documented but not in the signature: ['z']" in half_problems
    assert "no Returns section" in half_problems


def test_checker_accepts_a_complete_docstring() -> None:
    def full(x: float, *, scale: float = 2.0) -> float:
        """Scale a number.

        Parameters
        ----------
        x : float
            A number.
        scale : float, default 2.0
            The factor.

        Returns
        -------
        float
            ``x * scale``.

        References
        ----------
        .. [1] seed 000: Chen, Revels, Edelman (HPEC 2016).
        """
        return x * scale

    assert docstring_problems(full) == []


def test_checker_accepts_documented_variadic_parameters() -> None:
    def passes(x: float, **options: float) -> float:
        """Pass options on.

        Parameters
        ----------
        x : float
            A number.
        **options
            Passed on.

        Returns
        -------
        float
            ``x``.

        References
        ----------
        .. [1] seed 001: Li et al., Pilot (MASCOTS 2016).
        """
        return x

    assert docstring_problems(passes) == []
