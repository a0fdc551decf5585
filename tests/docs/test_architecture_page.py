"""The architecture page names real code: every function in its tables is importable and
defined in the file the table gives, every file path it mentions exists, and every public
name of tsanalyze appears in it. When code moves, this fails until the page follows."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import tsanalyze

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "src" / "architecture.md"
ROW = re.compile(
    r"^\| (?P<question>[^|]+?) \| `(?P<function>[\w.]+)` \| `(?P<file>[\w/.]+\.py)` \|$"
)


def _rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows.append((m["question"], m["function"], m["file"]))
    return rows


def _resolve(dotted: str) -> object:
    """``tsanalyze.estimate`` or ``tsanalyze.stats.tests.mann_whitney``: the longest
    importable module prefix, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def _defining_file(obj: object) -> str:
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        obj = inspect.getmodule(obj) if not inspect.ismodule(obj) else obj
    path = inspect.getsourcefile(inspect.unwrap(obj))  # type: ignore[arg-type]
    assert path is not None
    return Path(path).resolve().relative_to(REPO).as_posix()


def test_the_page_has_a_question_table_for_each_area() -> None:
    rows = _rows()
    assert len(rows) >= 50
    assert len({q for q, _, _ in rows}) == len(rows), "a question is asked twice"


@pytest.mark.parametrize(("question", "function", "file"), _rows(), ids=lambda v: str(v)[:40])
def test_each_function_lives_in_the_file_given(question: str, function: str, file: str) -> None:
    assert (REPO / file).is_file(), f"{file} does not exist"
    obj = _resolve(function)
    if inspect.isfunction(obj) or inspect.isclass(obj):
        assert _defining_file(obj) == file, f"{function} is defined elsewhere"
    else:  # a constant: it must be an attribute of the file's module
        module = file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        assert function.rsplit(".", 1)[0] in (module, "tsanalyze"), function


def test_every_public_name_is_on_the_page() -> None:
    named = {f for _, f, _ in _rows()}
    missing = [n for n in tsanalyze._API if f"tsanalyze.{n}" not in named]
    # evals_fit shares wps_fit's row and file; steady_state_trials shares steady_state's
    assert set(missing) <= {"evals_fit", "steady_state_trials"}, missing


def test_every_file_path_mentioned_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for path in set(re.findall(r"`(tsanalyze/[\w/.]+\.py|tests/[\w/.]+\.py)`", text)):
        assert (REPO / path).is_file(), path
    for path in set(
        re.findall(r"`((?:cli|report|analysis|stats|io|collector)/[\w/.<>]+\.py)`", text)
    ):
        if "<" not in path:
            assert (REPO / "tsanalyze" / path).is_file(), path
