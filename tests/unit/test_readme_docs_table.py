"""The README's "What is in the box" table lists every page under docs/, so a new page is
found from the README and a renamed one does not leave a dead link there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\((docs/[^)#\s]+\.md)(?:#[^)]*)?\)")


def docs_row(readme: str) -> str:
    """The table row of the ``docs/`` folder."""
    rows = [line for line in readme.splitlines() if line.startswith("| `docs/` |")]
    assert len(rows) == 1, "README.md has one table row for `docs/`"
    return rows[0]


def listed(readme: str) -> set[str]:
    return set(LINK.findall(docs_row(readme)))


def test_the_docs_row_lists_every_page_and_only_pages_that_exist() -> None:
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert pages, "docs/ holds pages"
    named = listed((ROOT / "README.md").read_text(encoding="utf-8"))
    assert sorted(pages - named) == [], "docs pages missing from README.md's docs/ row"
    assert sorted(named - pages) == [], "README.md's docs/ row links pages that do not exist"


def test_a_page_left_out_of_the_row_is_noticed() -> None:
    row = "| `docs/` | [`a.md`](docs/a.md): one; [`b.md`](docs/b.md#part): two |"
    assert listed(f"# promoflow\n\n{row}\n") == {"docs/a.md", "docs/b.md"}
    assert listed("| `docs/` | [`a.md`](docs/a.md): one |\n") == {"docs/a.md"}
