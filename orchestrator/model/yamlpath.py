"""YAML paths that name one value inside a values file: ``image.tag``, ``containers[0].image``,
``images[name=ghcr.io/acme/web].newTag``.

A segment is a plain key (letters, digits, ``_``, ``-``, ``/``), or a quoted key
(``"app.kubernetes.io/name"``) when the key itself contains dots; each may be followed by
list selectors: ``[0]`` (an index) or ``[field=value]`` (the one item of the list whose
``field`` is ``value``). Selecting by key is what keeps a promotion on the right image once
someone reorders ``images:``, and it is how Kustomize users name images. The grammar is
deliberately small so a path means the same thing to the validator, the promote step and a
reviewer.

:func:`lookup` walks plain data (what a YAML or JSON parser returns) along a path; every
reader of a path (the promote step, the webhook triggers, the HTTP gate) goes through it, so
a selector selects the same item everywhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_PLAIN_KEY = r"[A-Za-z0-9_\-/]+"
_KEY = re.compile(rf"""(?:(?P<plain>{_PLAIN_KEY})|"(?P<dq>[^"]+)"|'(?P<sq>[^']+)')""")
_INDEX = re.compile(r"\[([0-9]{1,9})\]")  # ASCII digits, bounded: int() of 5,000 digits raises
_SELECTOR = re.compile(
    rf"""\[(?:(?P<fplain>{_PLAIN_KEY})|"(?P<fdq>[^"]+)"|'(?P<fsq>[^']+)')="""
    r"""(?:"(?P<vdq>[^"]*)"|'(?P<vsq>[^']*)'|(?P<vplain>[^\]"'\s](?:[^\]]*[^\]\s])?))\]"""
)
_PLAIN_VALUE = re.compile(r"[^\]\"'\s](?:[^\]]*[^\]\s])?")


@dataclass(frozen=True)
class Selector:
    """``[field=value]``: the item of a list whose ``field`` reads as ``value``."""

    field: str
    value: str

    def matches(self, item: Any) -> bool:
        return (
            isinstance(item, dict)
            and self.field in item
            and text_of(item[self.field]) == (self.value)
        )

    def __str__(self) -> str:
        return f"[{_quoted_key(self.field)}={_quoted_value(self.value)}]"


PathPart = str | int | Selector


class YamlPathError(ValueError):
    """A path that does not follow the grammar; the message says where it breaks."""


class PathNotFound(LookupError):
    """A path that names nothing in a document: ``depth`` is the index of the first part
    that could not be followed (the parts before it exist). ``blocked``: what is there
    cannot hold the part at all (a scalar where a mapping should be), so no spelling of
    the path's rest would exist either."""

    def __init__(
        self, path: tuple[PathPart, ...], depth: int, reason: str, *, blocked: bool = False
    ) -> None:
        super().__init__(reason)
        self.path, self.depth, self.reason, self.blocked = path, depth, reason, blocked

    @classmethod
    def at(cls, path: tuple[PathPart, ...], depth: int, node: Any, count: int = 0) -> PathNotFound:
        """Why ``path[depth]`` names nothing (or, ``count`` > 1, several items) in ``node``,
        the value at ``path[:depth]``: ``image has no key 'tg'``."""
        part = path[depth]
        where = format_yaml_path(path[:depth]) if depth else "the document"
        if isinstance(part, Selector) and count > 1:
            reason = (
                f"{count} items of {where} have {part.field}={part.value!r}: a selector must "
                "name one item"
            )
            return cls(path, depth, reason, blocked=True)
        wanted = "a mapping" if isinstance(part, str) else "a list"
        if not (isinstance(node, dict) if isinstance(part, str) else isinstance(node, list)):
            return cls(path, depth, f"{where} is {_kind(node)}, not {wanted}", blocked=True)
        if isinstance(part, Selector):
            return cls(path, depth, f"{where} has no item with {part.field}={part.value!r}")
        if isinstance(part, int):
            return cls(path, depth, f"{where} has no item [{part}] (it has {len(node)})")
        return cls(path, depth, f"{where} has no key {part!r}")


def _shown(text: str) -> str:
    """The path as written, cut short: an error stays one readable line."""
    return repr(text) if len(text) <= 80 else repr(text[:77]) + "..."


def parse_yaml_path(text: str) -> tuple[PathPart, ...]:
    """Split ``a.b[0][name=x]."c.d"`` into ``("a", "b", 0, Selector("name", "x"), "c.d")``."""
    parts: list[PathPart] = []
    pos = 0
    if not text:
        raise YamlPathError("a YAML path cannot be empty")
    while True:
        match = _KEY.match(text, pos)
        if not match:
            raise YamlPathError(
                f"invalid YAML path {_shown(text)} at character {pos + 1}: expected a key "
                "(letters, digits, '_', '-', '/', or a quoted key)"
            )
        parts.append(match.group("plain") or match.group("dq") or match.group("sq"))
        pos = match.end()
        while pos < len(text) and text[pos] == "[":
            index = _INDEX.match(text, pos)
            if index:
                parts.append(int(index.group(1)))
                pos = index.end()
                continue
            selector = _SELECTOR.match(text, pos)
            if not selector:
                raise YamlPathError(
                    f"invalid YAML path {_shown(text)} at character {pos + 1}: expected "
                    "an index [0] or a selector [field=value]"
                )
            field = selector.group("fplain") or selector.group("fdq") or selector.group("fsq")
            value = next(v for v in selector.group("vdq", "vsq", "vplain") if v is not None)
            parts.append(Selector(field, value))
            pos = selector.end()
        if pos == len(text):
            return tuple(parts)
        if text[pos] != ".":
            raise YamlPathError(
                f"invalid YAML path {_shown(text)} at character {pos + 1}: expected '.' or '['"
            )
        pos += 1


def _quoted_key(key: str) -> str:
    if re.fullmatch(_PLAIN_KEY, key):
        return key
    return f"'{key}'" if '"' in key else f'"{key}"'


def _quoted_value(value: str) -> str:
    if _PLAIN_VALUE.fullmatch(value):
        return value
    return f"'{value}'" if '"' in value else f'"{value}"'


def format_yaml_path(parts: tuple[PathPart, ...]) -> str:
    """Inverse of :func:`parse_yaml_path` (quotes keys and values only where needed)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, Selector):
            out += str(part)
        else:
            key = _quoted_key(part)
            out += f".{key}" if out else key
    return out


def split_assignment(text: str) -> tuple[str, str] | None:
    """``PATH=VALUE`` split at the first ``=`` outside a selector's brackets and quotes
    (``images[name=web].digest=sha256:...``); ``None`` when there is no such ``=``."""
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        elif ch == "=" and depth == 0:
            return text[:i], text[i + 1 :]
    return None


def text_of(value: Any) -> str | None:
    """A scalar as a selector compares it (``None`` for mappings and lists): strings as they
    are, numbers and booleans as YAML and JSON write them, so ``[port=80]`` finds ``80``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if value is None:
        return "null"
    return None


def step(node: Any, part: PathPart) -> Iterator[tuple[int | str, Any]]:
    """The children of ``node`` that ``part`` names, as ``(key or index, value)``: none,
    one, or (for a selector that is not unique) several."""
    if isinstance(part, Selector):
        if isinstance(node, list):
            yield from ((i, item) for i, item in enumerate(node) if part.matches(item))
    elif isinstance(part, int):
        if isinstance(node, list) and part < len(node):
            yield part, node[part]
    elif isinstance(node, dict) and part in node:
        yield part, node[part]


def resolve(data: Any, path: tuple[PathPart, ...]) -> tuple[tuple[str | int, ...], Any]:
    """The concrete path (selectors replaced by their indexes) and the value it names;
    :class:`PathNotFound` saying why when some part names nothing, or a selector more
    than one item."""
    node = data
    concrete: list[str | int] = []
    for depth, part in enumerate(path):
        found = list(step(node, part))
        if len(found) != 1:
            raise PathNotFound.at(path, depth, node, len(found))
        key, node = found[0]
        concrete.append(key)
    return tuple(concrete), node


def lookup(data: Any, path: tuple[PathPart, ...]) -> Any:
    """The value ``path`` names in ``data`` (:class:`PathNotFound` when there is none)."""
    return resolve(data, path)[1]


def _kind(node: Any) -> str:
    if isinstance(node, dict):
        return "a mapping"
    if isinstance(node, list):
        return "a list"
    if node is None:
        return "null"
    shown = text_of(node)
    return f"the value {shown!r}" if shown is not None else "a value"


def existing_paths(
    data: Any, like: tuple[PathPart, ...] = (), limit: int = 20_000
) -> Iterator[tuple[PathPart, ...]]:
    """Every path to a value in ``data`` (leaves and the collections on the way), spelled
    like ``like`` where it can be: a list item reached through ``[name=...]`` there is
    named by its ``name`` here too, so a suggestion reads as the user wrote the path."""
    stack: list[tuple[tuple[PathPart, ...], Any]] = [((), data)]
    seen = 0
    while stack and seen < limit:
        prefix, node = stack.pop()
        if prefix:
            seen += 1
            yield prefix
        hint = like[len(prefix)] if len(prefix) < len(like) else None
        children: list[tuple[PathPart, Any]] = []
        if isinstance(node, dict):
            children = [(k, v) for k, v in node.items() if isinstance(k, str)]
        elif isinstance(node, list):
            for i, item in enumerate(node):
                part: PathPart = i
                if isinstance(hint, Selector) and isinstance(item, dict):
                    value = text_of(item.get(hint.field))
                    if value is not None:
                        part = Selector(hint.field, value)
                children.append((part, item))
        stack.extend(((*prefix, k), v) for k, v in reversed(children))
