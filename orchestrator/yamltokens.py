"""The scalar tokens of a values file: where one is in the text, how a string is spelled as
one, and what every reader makes of the one at a path.

An edit replaces a scalar's token in the original text and leaves every other byte as it
was, so it needs the token's exact extent (ruamel.yaml reports only where a value starts)
and its style, to write the new value as the old one was written: plain, in single quotes,
or in double quotes with YAML's escapes. Styles that span lines (block scalars, a quoted
scalar broken over lines) and tokens with anchors, tags or aliases have no extent here: an
edit of those goes through ruamel.yaml's round trip instead.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

import yaml
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from orchestrator import goscalars, yamlscalars
from orchestrator.yamlplaces import Concrete, walk

Style = Literal["plain", "single", "double", "other"]


@dataclass(frozen=True)
class Span:
    """Where a scalar's token is in the text (``text[start:end]``), and how it is written."""

    start: int
    end: int
    style: Style


def _offset(text: str, line: int, col: int) -> int:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts[line] + col


def _span(text: str, start: int, flow: bool) -> Span | None:
    """Extent of the scalar token starting at ``start``; ``None`` for styles we don't edit."""
    first = text[start : start + 1]
    if first == '"':
        i = start + 1
        while i < len(text) and text[i] != '"':
            if text[i] == "\n":
                return None
            i += 2 if text[i] == "\\" else 1
        return Span(start, i + 1, "double") if i < len(text) else None
    if first == "'":
        i = start + 1
        while i < len(text):
            if text[i] == "\n":
                return None
            if text[i] == "'":
                if text[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                return Span(start, i + 1, "single")
            i += 1
        return None
    if not first or first in "|>&!*\n":
        return None
    end = text.find("\n", start)
    end = len(text) if end == -1 else end
    stops = [text.find(" #", start, end)]
    if flow:
        stops += [text.find(c, start, end) for c in ",]}"]
    found = [s for s in stops if s != -1]
    end = min(found) if found else end
    return Span(start, len(text[start:end].rstrip()) + start, "plain")


_NULLS = ("~", "null", "Null", "NULL")


def locate(text: str, root: Any, path: Concrete) -> Span | None:
    """The token of the value at ``path`` (``root`` is the text's round-trip reading);
    ``None`` when it has no one-line token to replace."""
    found = walk(root, path)
    if found is None:
        return None
    parent, last = found
    try:
        if isinstance(parent, CommentedMap):
            if last not in parent:
                return None
            line, col = parent.lc.value(last)
        elif isinstance(parent, CommentedSeq) and isinstance(last, int) and last < len(parent):
            line, col = parent.lc.item(last)
        else:
            return None
    except (KeyError, TypeError):
        return None
    flow = bool(parent.fa.flow_style())
    span = _span(text, _offset(text, line, col), flow)
    if span is not None and parent[last] is None:
        # an empty value (``key:``) has no token of its own: the position is whatever
        # follows, so only an explicit null is replaced in place
        token = text[span.start : span.end]
        return span if token in _NULLS else None
    return span


def spelled(data: str, style: Style) -> str | None:
    """``data`` as a one-line token in ``style``, whatever the readers make of it (that is
    :func:`orchestrator.yamledit.render`'s question); ``None`` when the style cannot hold it."""
    if style == "plain":
        return data if "\n" not in data else None
    if style == "single":  # line breaks would fold: only double quotes escape them
        return "'" + data.replace("'", "''") + "'" if "\n" not in data else None
    if style == "double":
        return _double_quoted(data)
    return None


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _double_quoted(data: str) -> str:
    """``data`` in double quotes on one line: what YAML does not allow raw (control
    characters, line and paragraph separators, a byte order mark) is escaped."""
    out = []
    for ch in data:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif (
            0x20 <= code <= 0x7E
            or code >= 0x10000
            or (
                0xA0 <= code <= 0xFFFD
                and code not in (0x2028, 0x2029, 0xFEFF)
                and not 0xD800 <= code <= 0xDFFF
            )
        ):
            out.append(ch)
        else:
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
    return '"' + "".join(out) + '"'


@functools.lru_cache(maxsize=8)
def quote_style(text: str) -> Literal["single", "double"]:
    """The quotes a file uses most for its scalars (double when it uses none, or as many of
    each): a value that must become quoted is quoted as its neighbours are."""
    counts = {"'": 0, '"': 0}
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.ScalarEvent) and event.style in counts:
                counts[event.style] += 1
    except yaml.YAMLError:
        pass
    return "single" if counts["'"] > counts['"'] else "double"


_QUOTED_OR_BLOCK = (
    SingleQuotedScalarString,
    DoubleQuotedScalarString,
    LiteralScalarString,
    FoldedScalarString,
)


def misread_at(
    text: str, root: Any, path: Concrete, wanted: str
) -> tuple[yamlscalars.Reader, Any] | None:
    """A reader that does not read the string at ``path`` (``root`` is the text's round-trip
    reading) as ``wanted``, with what it reads instead; ``None`` when every reader does."""
    span = locate(text, root, path)
    if span is not None:
        return yamlscalars.misread(text[span.start : span.end], wanted)
    # no one-line token: a block scalar, or a scalar over several lines. ruamel.yaml's
    # round-trip reading is YAML 1.2's; quoted and block scalars are strings to Go, and a
    # plain one is resolved as it reads.
    found = walk(root, path)
    try:
        node = found[0][found[1]] if found else None
    except (KeyError, IndexError, TypeError):
        node = None
    if not isinstance(node, str) or str(node) != wanted:
        return "YAML 1.2", node
    if isinstance(node, _QUOTED_OR_BLOCK):
        return None
    go: tuple[tuple[yamlscalars.Reader, bool], ...] = (("Go yaml.v2", False), ("Go yaml.v3", True))
    for reader, v3 in go:
        got = goscalars.resolve_plain(wanted, v3=v3)
        if not got.is_string(wanted):
            return reader, got
    return None
