"""What the builtin modules share: how they refuse a call they do not reproduce, and the
budget callback through which the ones that build collections count their size."""

from __future__ import annotations

from collections.abc import Callable

MAX_DEPTH = 10_000


class Unsupported(Exception):
    """A builtin call this implementation does not reproduce; the message says which."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


Budget = Callable[[int], None]
