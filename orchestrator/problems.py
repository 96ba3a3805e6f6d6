"""Problems found in a configuration, reported as ``FILE:LINE:COL: error: message``.

Loading and validation never stop at the first problem: they return every one they find,
sorted by position, so one run of ``promoflow validate`` shows a user all there is to fix.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from orchestrator.model.base import Position

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Problem:
    position: Position
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.position}: {self.severity}: {self.message}"


def suggest(word: str, candidates: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` when a close candidate exists, else an empty string."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Stable order for output: by file, line, column, then message; duplicates dropped."""
    return sorted(
        set(problems), key=lambda p: (p.position.file, p.position.line, p.position.col, p.message)
    )
