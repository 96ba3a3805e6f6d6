"""Sender-chosen text as it may appear in a log line or a reply: escaped and bounded.

Delivery ids, refs, repository names and product names come from headers and bodies that
anyone can send (and, behind a signature, that a sender's users can choose: a branch name
with a newline, a 900 KB ref). Written as they are, a newline forges a log line, an ANSI
escape rewrites the operator's terminal and a long value buries the rest of the line.
Every such value goes through :func:`printable`, so each delivery is one bounded line.
"""

from __future__ import annotations

MAX_FIELD = 120
"""A field of a log line (a delivery id, a run's name), in characters."""
MAX_MESSAGE = 400
"""The reason a reply gives and the log line repeats, in characters."""
MAX_LINE = 1024
"""A whole log line of a delivery, in characters: every field is bounded below it."""
ELLIPSIS = "..."


def _escaped(char: str) -> str:
    if char == "\\":
        return "\\\\"
    return char.encode("unicode_escape").decode("ascii")


def printable(value: str, limit: int = MAX_FIELD) -> str:
    """``value`` with every character that is not printable (control, format, separator
    and unassigned characters, so newlines, ``ESC`` and U+2028 too) and the backslash
    written as Python escapes (``\\n``, ``\\x1b``, ``\\u2028``), cut to ``limit``
    characters with ``...``. Reads at most ``limit`` characters of ``value``."""
    head = value[: limit + 1]
    if head.isprintable() and "\\" not in head:
        text = head
    else:
        pieces: list[str] = []
        size = 0
        for char in head:
            piece = char if char.isprintable() and char != "\\" else _escaped(char)
            pieces.append(piece)
            size += len(piece)
            if size > limit:
                break
        text = "".join(pieces)
    if len(text) <= limit and len(head) <= limit:
        return text
    return text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS
