"""Refuse deeply nested input before a recursive parser sees it.

Why: libyaml's composer (through PyYAML's C extension) recurses once per nesting level in C
and crashes the process (SIGSEGV) somewhere past ten thousand levels: no Python exception is
raised that could be caught. ``json.loads`` and the pure-Python YAML loader raise
``RecursionError`` instead, which is a traceback, not an error message. No configuration or
step argument needs more than a few levels, so a generous bound is checked first, with a scan
that cannot recurse:

- JSON: one pass over the brackets outside strings (a regular expression, no parser);
- YAML: libyaml's own event stream (flat: it holds its state on a heap stack), counting
  collection starts and ends, so the bound follows exactly the nesting the composer would
  build, whatever mix of flow and block style, anchors or comments the text uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DEPTH = 100
"""Levels of nested lists/mappings allowed; real configurations use fewer than ten."""

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
_YAML_DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?=\s|$)", re.MULTILINE)
_COLLECTION_STARTERS = "[{-:?"
"""Every YAML collection starts with one of these: ``[``/``{`` (flow), ``-`` (a block
sequence), ``:`` (a mapping's first implicit key), ``?`` (an explicit key)."""


@dataclass(frozen=True)
class TooDeep:
    """Where the nesting first went past the limit (1-based line and column)."""

    line: int
    col: int
    limit: int

    @property
    def message(self) -> str:
        return f"nested more than {self.limit} levels deep; flatten the structure"


def json_too_deep(text: str, limit: int = MAX_DEPTH) -> TooDeep | None:
    """The first place ``text`` (JSON) nests past ``limit``, or ``None``."""
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                line = text.count("\n", 0, match.start()) + 1
                col = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
                return TooDeep(line, col, limit)
        elif token in "]}":
            depth = max(depth - 1, 0)
    return None


def _could_nest_past(text: str, limit: int) -> bool:
    """A sound, cheap bound: nesting depth is at most the number of collection-starting
    characters in a document, plus one. Document markers (``---``/``...`` at column 0) end a
    document wherever they stand in libyaml, so counting per document is sound too. Most
    configuration files have small documents and skip the exact scan entirely."""
    return any(
        sum(part.count(c) for c in _COLLECTION_STARTERS) + 1 > limit
        for part in _YAML_DOCUMENT_MARKER.split(text)
    )


def yaml_too_deep(text: str, limit: int = MAX_DEPTH) -> TooDeep | None:
    """The first place ``text`` (YAML, every document) nests past ``limit``, or ``None``.

    Syntax errors end the scan quietly: the real parse reports them with their position."""
    if not _could_nest_past(text, limit):
        return None
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > limit:
                    mark = event.start_mark
                    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
                    return TooDeep(line, col, limit)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None
