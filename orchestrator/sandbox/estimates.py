"""How long a result would be, told before the call that makes it runs.

``9**(9**10)``, ``"x" * 10**12`` or ``"{:>999999999}".format(1)`` is one C-level call that
nothing can interrupt once it has started, so every operator, str method and filter that
can make a value much larger than its operands is sized first: each estimate here is at
least the length of the result (or :data:`~.limits.UNBOUNDED` when none can be told), and
is checked against :class:`~.limits.Limits` before the call is made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from orchestrator.sandbox.limits import LIMITS, UNBOUNDED, size_of

MAX_INDENT = 16
"""The widest indent ``tojson`` takes."""


def text_size(value: Any) -> int:
    """At most how long ``value`` prints, for the sizes checked before a call."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, int):
        return value.bit_length() // 3 + 2
    if isinstance(value, float):
        return 24
    return size_of(value)


_NUMBER = re.compile(r"\d+")
_NESTED = re.compile(r"\{[^{}]*\{")


def format_size(text: str, *args: Any, **kwargs: Any) -> int:
    """At most what ``text % args`` or ``text.format(*args)`` prints: every field the
    longest argument, padded to the widest number in the format or among the arguments
    (``%*d``)."""
    flat: list[Any] = []
    for value in [*args, *kwargs.values()]:
        if isinstance(value, tuple | list):
            flat += value
        elif isinstance(value, Mapping):
            flat += value.values()
        else:
            flat.append(value)
    numbers = _NUMBER.findall(text)
    if any(len(n) > 9 for n in numbers):
        return UNBOUNDED
    widths = [int(n) for n in numbers]
    if "*" in text or _NESTED.search(text):  # widths taken from the arguments
        widths += [abs(v) for v in flat if isinstance(v, int)]
    width = max(widths, default=0)
    longest = max((text_size(v) for v in flat), default=0)
    fields = text.count("%") + text.count("{")
    return len(text) + fields * (longest + width)


Bound = Callable[..., int]
"""At most how long a call's result would be, given the call's arguments."""


def _int(value: Any, default: int = 0) -> int:
    try:
        return abs(int(value))
    except (TypeError, ValueError, OverflowError):
        return default


def _replace_size(s: Any, old: Any = "", new: Any = "", count: Any = None, *_: Any) -> int:
    text, old, new = str(s), str(old), str(new)
    times = text.count(old) if old else len(text) + 1
    if count is not None and _int(count, -1) >= 0:
        times = min(times, _int(count))
    return len(text) + times * max(len(new) - len(old), 0)


def _join_size(sep: Any, items: Any, *_: Any, **__: Any) -> int:
    if not isinstance(items, Mapping | str | list | tuple | range | set | frozenset):
        return 0  # a generator: the result is checked once made
    separators = len(str(sep)) * max(len(items) - 1, 0)
    if separators > LIMITS.max_length:
        return separators
    return separators + sum(map(len, map(str, items)))  # no Python call per item


def _padded(s: Any, width: Any = 0, *_: Any, **__: Any) -> int:
    return max(text_size(s), _int(width))


def _expandtabs(s: str, tabsize: Any = 8) -> int:
    return len(s) + s.count("\t") * _int(tabsize)


def _translate(s: str, table: Any = None) -> int:
    if isinstance(table, Mapping):
        longest = max((text_size(v) for v in table.values()), default=1)
        return len(s) * max(longest, 1)
    return len(s)


def _indent(s: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    text = str(s)
    pad = len(width) if isinstance(width, str) else _int(width)
    return len(text) + (text.count("\n") + 1) * pad


def _wordwrap(s: Any, width: Any = 79, _long: Any = True, wrapstring: Any = None,
              *_: Any, **kwargs: Any) -> int:  # fmt: skip
    wrap = kwargs.get("wrapstring", wrapstring)
    return len(str(s)) * (1 + len(str(wrap) if wrap is not None else "\n"))


def _format(s: Any, *args: Any, **kwargs: Any) -> int:
    return format_size(str(s), *args, **kwargs)


def _batch(value: Any, linecount: Any = 1, *_: Any, **__: Any) -> int:
    return max(size_of(value), _int(linecount))


def _truncate(s: Any, length: Any = 255, _kill: Any = False, end: Any = "...",
              *_: Any, **kwargs: Any) -> int:  # fmt: skip
    return len(str(s)) + len(str(kwargs.get("end", end)))


def _tojson(value: Any, indent: Any = None) -> int:
    """Indented JSON grows with the indent times the depth of every line: a small one
    only (Go's and Python's pretty printers use 2 or 4)."""
    return UNBOUNDED if indent is not None and _int(indent) > MAX_INDENT else 0


STR_BOUNDS: dict[str, Bound] = {
    "center": _padded,
    "ljust": _padded,
    "rjust": _padded,
    "zfill": _padded,
    "expandtabs": _expandtabs,
    "replace": lambda s, *a, **k: _replace_size(s, *a, **k),
    "join": _join_size,
    "translate": _translate,
}
"""str methods whose result can be much longer than the string, and that length."""

FILTER_BOUNDS: dict[str, Bound] = {
    "center": _padded,
    "indent": _indent,
    "wordwrap": _wordwrap,
    "format": _format,
    "join": lambda value, d="", *_, **k: _join_size(k.get("d", d), value),
    "replace": _replace_size,
    "batch": _batch,
    "slice": _batch,
    "tojson": _tojson,
    "truncate": _truncate,
}
"""Jinja's filters whose result can be much longer than their input, and that length."""
