"""Git trailers of a commit message or note, parsed as ``git interpret-trailers --parse``
reads promoflow's own: the last paragraph, when every line of it is a ``Key: value``
trailer or the continuation (indented) of one.

Hand-written rather than run through ``git interpret-trailers``: one process per commit
would cost more than reading 20,000 commits. Git also accepts a block that is only a
quarter trailers when one of them is git's own (``Signed-off-by``); promoflow writes whole
trailer blocks (:func:`orchestrator.steps.message.with_trailers`), so that laxer case only
matters for hand commits, which are not read for trailers. ``tests/unit/test_history_
trailers.py`` checks the two readings agree over generated messages.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*)$")


def parse(text: str, *, subject: bool = True) -> list[tuple[str, str]]:
    """``(key, value)`` of each trailer, in order (keys as written). A commit message's
    first paragraph is its subject, never trailers (as git reads it); a note
    (``subject=False``) may be trailers alone."""
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text.strip("\n")) if p.strip()]
    if len(paragraphs) < (2 if subject else 1):
        return []
    found: list[tuple[str, str]] = []
    for line in paragraphs[-1].split("\n"):
        if line[:1] in (" ", "\t") and found:
            key, value = found[-1]
            found[-1] = (key, f"{value} {line.strip()}".strip())
            continue
        match = _LINE.match(line)
        if match is None:
            return []
        found.append((match.group(1), match.group(2).strip()))
    return found


def first(trailers: list[tuple[str, str]], key: str) -> str:
    """The first value of ``key`` (any case), or ``""``."""
    wanted = key.lower()
    return next((v for k, v in trailers if k.lower() == wanted), "")


def every(trailers: list[tuple[str, str]], key: str) -> list[str]:
    wanted = key.lower()
    return [v for k, v in trailers if k.lower() == wanted]
