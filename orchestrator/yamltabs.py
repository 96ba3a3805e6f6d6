"""A tab in YAML indentation, named as such.

YAML indents with spaces only; a tab there makes libyaml, PyYAML and ruamel.yaml say
``found character that cannot start any token`` (or, inside a block scalar, ``found a tab
character where an indentation space is expected``), at a column that may be the tab's or
the first space's. Neither tells a reader that the fix is to replace a tab, and editors that
show a tab as spaces hide it. Given where the parser stopped, this finds the tab in that
line's indentation, so the error can name it at its own position. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

MESSAGE = "a tab in the indentation; YAML indents with spaces only (replace the tab with spaces)"


@dataclass(frozen=True)
class Tab:
    line: int
    """1-based."""
    column: int
    """1-based, counting characters (a tab is one)."""


def indentation_tab(text: str, line: int) -> Tab | None:
    """The first tab in the indentation of 0-based ``line`` of ``text``, if there is one.

    Indentation is the run of spaces and tabs a line starts with; a tab after the first
    other character is separation, which YAML allows, and is not reported."""
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return None
    row = lines[line]
    indent = row[: len(row) - len(row.lstrip(" \t"))]
    at = indent.find("\t")
    return Tab(line + 1, at + 1) if at >= 0 else None


def tab_problem(text: str, line: int | None, problem: str | None) -> Tab | None:
    """Where a parser's error (its 0-based ``line`` and ``problem``) comes from a tab in
    the indentation: only errors about a character that cannot start a token or about a
    tab, so a tab inside a block scalar's text is not blamed for some other error."""
    reason = problem or ""
    if line is None or not ("cannot start any token" in reason or "tab" in reason):
        return None
    return indentation_tab(text, line)
