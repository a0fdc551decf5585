"""Citations: authors and years, never the project's own seed numbers; one bibliography.

The package cites its sources by author (numbered numpydoc References, "(Li et al. 2016,
§III-F)" in running text). "seed 00N" was the project's private shorthand for the five
source documents; it means nothing to a reader and must not come back, neither in a
docstring nor in a message a user sees. ``docs/src/references.md`` lists every work the
code cites: each DOI and arXiv identifier in the package must appear there.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "tsanalyze"
BIBLIOGRAPHY = REPO / "docs" / "src" / "references.md"

SEED_CITATION = re.compile(r"seeds? *0\d\d", re.IGNORECASE)
DOI = re.compile(r"\b10\.\d{4,9}/[^\s,;)>`\"']+")
ARXIV = re.compile(r"arXiv:\s?(\d{4}\.\d{4,5})")

# Modules allowed to say "seed 00N": none is left (issue 14); the set stays so that the
# test below keeps failing on a listed module that is already clean.
PENDING: frozenset[str] = frozenset()


def _sources() -> dict[str, str]:
    return {
        p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def _seed_citations() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for rel, text in _sources().items():
        lines = [
            f"{rel}:{i}: {line.strip()}"
            for i, line in enumerate(text.splitlines(), 1)
            if SEED_CITATION.search(line)
        ]
        if lines:
            found[rel] = lines
    return found


def test_the_package_cites_authors_not_seed_numbers() -> None:
    found = _seed_citations()
    new = [line for rel in sorted(found.keys() - PENDING) for line in found[rel]]
    assert not new, "cite the authors (see docs/src/references.md), not 'seed 00N':\n" + "\n".join(
        new
    )
    converted = sorted(PENDING - found.keys())
    assert not converted, f"no 'seed 00N' left in {converted}: remove them from PENDING"


def test_the_documentation_cites_authors_not_seed_numbers() -> None:
    src = REPO / "docs" / "src"  # reference/ is generated, from the package and gen_pages.py
    written = [p for p in sorted(src.rglob("*.md")) if p.relative_to(src).parts[0] != "reference"]
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.py")), *written]
    found = [
        f"{page.relative_to(REPO)}:{i}: {line.strip()}"
        for page in pages
        for i, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if SEED_CITATION.search(line)
    ]
    assert not found, "cite the authors, not 'seed 00N':\n" + "\n".join(found)


def test_the_pattern_catches_the_old_forms() -> None:
    for text in ("(seed 001 §III-F)", "Seed 004: Ou", "seeds 000 and 002", "seed 003's"):
        assert SEED_CITATION.search(text), text
    for text in ("the seed is recorded", "seed=0", "--seed 4", "rng seed 12345"):
        assert not SEED_CITATION.search(text), text


def test_the_bibliography_lists_every_doi_and_arxiv_id_the_code_cites() -> None:
    bibliography = BIBLIOGRAPHY.read_text(encoding="utf-8")
    cited: dict[str, str] = {}
    for rel, text in _sources().items():
        for m in DOI.finditer(text):
            cited.setdefault(m.group(0).rstrip("."), rel)
        for m in ARXIV.finditer(text):
            cited.setdefault(f"arXiv:{m.group(1)}", rel)
    assert "10.1109/MASCOTS.2016.31" in cited and "arXiv:1608.04295" in cited
    missing = [f"{ref} (cited in {rel})" for ref, rel in cited.items() if ref not in bibliography]
    assert not missing, "add to docs/src/references.md:\n" + "\n".join(missing)


def test_numpydoc_citations_become_a_markdown_list_with_links(
    griffe_references: ModuleType,
) -> None:
    convert = griffe_references.markdown_citations
    text = (
        "Welch's t on subsession means (Li et al. 2016) [1]_ and [2]_.\n"
        "\n"
        ".. [1] Li, Y. (2016). Pilot. MASCOTS 2016.\n"
        "   https://doi.org/10.1109/MASCOTS.2016.31\n"
        ".. [2] Ou, C. (2020). See <https://go.dev/issue/41641>."
    )
    assert convert(text) == (
        "Welch's t on subsession means (Li et al. 2016) [1] and [2].\n"
        "\n"
        "1. Li, Y. (2016). Pilot. MASCOTS 2016.\n"
        "   <https://doi.org/10.1109/MASCOTS.2016.31>\n"
        "2. Ou, C. (2020). See <https://go.dev/issue/41641>."
    )
