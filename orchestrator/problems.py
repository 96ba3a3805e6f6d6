"""Problems found in a configuration, reported as ``FILE:LINE:COL: error: message``.

Loading and validation never stop at the first problem: they return every one they find,
sorted by position, so one run of ``promoflow validate`` shows a user all there is to fix.
A problem that only follows from another (a reference to a resource whose document failed
to load) names its ``cause`` and is listed right after it: the line to fix comes first,
its knock-on effects under it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Position:
    """A place in a configuration file, 1-based as editors show it."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, order=True)
class Problem:
    position: Position
    message: str
    severity: Severity = "error"
    cause: Position | None = field(default=None, compare=False)
    """Where the problem this one follows from is reported (its message says so too)."""

    def __str__(self) -> str:
        return f"{self.position}: {self.severity}: {self.message}"


def suggest(word: str, candidates: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` when a close candidate exists, else an empty string."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _order(problem: Problem) -> tuple[str, int, int, bool, str, int, int, str]:
    anchor, at = problem.cause or problem.position, problem.position
    return (anchor.file, anchor.line, anchor.col, problem.cause is not None,
            at.file, at.line, at.col, problem.message)  # fmt: skip


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Stable order for output: by file, line, column, then message, each consequence right
    after its cause; duplicates dropped."""
    return sorted(set(problems), key=_order)
