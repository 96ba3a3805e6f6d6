"""YAML paths that name one value inside a values file: ``image.tag``, ``containers[0].image``.

A segment is a plain key (letters, digits, ``_``, ``-``, ``/``), or a quoted key
(``"app.kubernetes.io/name"``) when the key itself contains dots; each may be followed by
list indexes. The grammar is deliberately small so a path means the same thing to the
validator, the promote step and a reviewer.
"""

from __future__ import annotations

import re

_SEGMENT = re.compile(
    r"""(?:(?P<plain>[A-Za-z0-9_\-/]+)|"(?P<dq>[^"]+)"|'(?P<sq>[^']+)')"""
    r"(?P<idx>(?:\[[0-9]{1,9}\])*)"  # ASCII digits, bounded: int() of 5,000 digits raises
)
_INDEX = re.compile(r"\[([0-9]{1,9})\]")

PathPart = str | int


class YamlPathError(ValueError):
    """A path that does not follow the grammar; the message says where it breaks."""


def _shown(text: str) -> str:
    """The path as written, cut short: an error stays one readable line."""
    return repr(text) if len(text) <= 80 else repr(text[:77]) + "..."


def parse_yaml_path(text: str) -> tuple[PathPart, ...]:
    """Split ``a.b[0]."c.d"`` into ``("a", "b", 0, "c.d")``."""
    parts: list[PathPart] = []
    pos = 0
    if not text:
        raise YamlPathError("a YAML path cannot be empty")
    while True:
        match = _SEGMENT.match(text, pos)
        if not match:
            raise YamlPathError(
                f"invalid YAML path {_shown(text)} at character {pos + 1}: expected a key "
                "(letters, digits, '_', '-', '/', or a quoted key)"
            )
        parts.append(match.group("plain") or match.group("dq") or match.group("sq"))
        parts.extend(int(i) for i in _INDEX.findall(match.group("idx")))
        pos = match.end()
        if pos == len(text):
            return tuple(parts)
        if text[pos] != ".":
            raise YamlPathError(
                f"invalid YAML path {_shown(text)} at character {pos + 1}: expected '.' or '['"
            )
        pos += 1


def format_yaml_path(parts: tuple[PathPart, ...]) -> str:
    """Inverse of :func:`parse_yaml_path` (quotes keys that contain dots)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        key = part
        if not re.fullmatch(r"[A-Za-z0-9_\-/]+", part):
            key = f"'{part}'" if '"' in part else f'"{part}"'
        out += f".{key}" if out else key
    return out
