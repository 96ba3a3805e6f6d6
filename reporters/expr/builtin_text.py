"""expr's string builtins, as Go's ``strings`` package computes them: rune by rune case
mapping (no ``ß`` to ``SS``), byte offsets from ``indexOf``, ``[]string`` from ``split``."""

from __future__ import annotations

from typing import Any

from reporters.expr.builtin_base import Budget, Unsupported
from reporters.expr.gotext import is_space
from reporters.expr.operators import (
    GoPanic,
    as_string,
    to_int,
)
from reporters.expr.values import (
    TypedList,
    go_type,
)


def _go_trim_space(text: str) -> str:
    start, end = 0, len(text)
    while start < end and is_space(text[start]):
        start += 1
    while end > start and is_space(text[end - 1]):
        end -= 1
    return text[start:end]


def b_trim(*args: Any) -> str:
    if len(args) == 1:
        return _go_trim_space(as_string(args[0]))
    if len(args) == 2:
        return as_string(args[0]).strip(as_string(args[1]))
    raise GoPanic(f"invalid number of arguments for trim (expected 1 or 2, got {len(args)})")


def b_trim_prefix(*args: Any) -> str:
    text = as_string(args[0])
    prefix = as_string(args[1]) if len(args) == 2 else " "
    return text[len(prefix) :] if prefix and text.startswith(prefix) else text


def b_trim_suffix(*args: Any) -> str:
    text = as_string(args[0])
    suffix = as_string(args[1]) if len(args) == 2 else " "
    return text[: -len(suffix)] if suffix and text.endswith(suffix) else text


def _case(text: str, upper: bool) -> str:
    """strings.ToUpper/ToLower map rune by rune: no ``ß`` to ``SS`` as Python does."""
    out = []
    for char in text:
        mapped = char.upper() if upper else char.lower()
        out.append(mapped if len(mapped) == 1 else char)
    return "".join(out)


def b_upper(value: Any) -> str:
    return _case(as_string(value), True)


def b_lower(value: Any) -> str:
    return _case(as_string(value), False)


def _split(text: str, sep: str, limit: int, after: bool) -> TypedList:
    if limit == 0:
        raise Unsupported("split with a count of 0 (Go returns a nil slice)", "use a count > 0")
    if sep == "":
        chars = list(text)
        if 0 < limit < len(chars):
            chars = [*chars[: limit - 1], "".join(chars[limit - 1 :])]
        return TypedList(chars, "string")
    parts = text.split(sep) if limit < 0 else text.split(sep, limit - 1)
    if after:
        parts = [part + sep for part in parts[:-1]] + parts[-1:]
    return TypedList(parts, "string")


def b_split(*args: Any) -> TypedList:
    if len(args) not in (2, 3):
        raise GoPanic(f"invalid number of arguments for split (expected 2 or 3, got {len(args)})")
    limit = to_int(args[2]) if len(args) == 3 else -1
    return _split(as_string(args[0]), as_string(args[1]), limit, False)


def b_split_after(*args: Any) -> TypedList:
    if len(args) not in (2, 3):
        raise GoPanic(
            f"invalid number of arguments for splitAfter (expected 2 or 3, got {len(args)})"
        )
    limit = to_int(args[2]) if len(args) == 3 else -1
    return _split(as_string(args[0]), as_string(args[1]), limit, True)


def b_replace(*args: Any) -> str:
    if len(args) == 4:
        count = to_int(args[3])
        text, old, new = as_string(args[0]), as_string(args[1]), as_string(args[2])
        return text.replace(old, new, count if count >= 0 else -1)
    if len(args) == 3:
        return as_string(args[0]).replace(as_string(args[1]), as_string(args[2]))
    raise GoPanic(f"invalid number of arguments for replace (expected 3 or 4, got {len(args)})")


def b_repeat(text: Any, count: Any, grow: Budget) -> str:
    value = as_string(text)
    times = to_int(count)
    if times < 0:
        raise GoPanic(f"invalid argument for repeat (expected positive integer, got {times})")
    if times > 1_000_000:
        raise GoPanic("memory budget exceeded")
    grow(len(value.encode()) * times)
    return value * times


def b_join(*args: Any) -> str:
    glue = as_string(args[1]) if len(args) == 2 else ""
    items = args[0]
    if isinstance(items, TypedList) and items.elem == "string":
        return glue.join(items)
    if type(items) is list:
        return glue.join(as_string(item) for item in items)
    shown = "%!s(<nil>)" if items is None else go_type(items)
    raise GoPanic(f"invalid argument for join (type {shown})")


def _byte_index(text: str, index: int) -> int:
    return -1 if index < 0 else len(text[:index].encode())


def b_index_of(text: Any, sub: Any) -> int:
    value = as_string(text)
    return _byte_index(value, value.find(as_string(sub)))


def b_last_index_of(text: Any, sub: Any) -> int:
    value = as_string(text)
    return _byte_index(value, value.rfind(as_string(sub)))


def b_has_prefix(text: Any, prefix: Any) -> bool:
    return as_string(text).startswith(as_string(prefix))


def b_has_suffix(text: Any, suffix: Any) -> bool:
    return as_string(text).endswith(as_string(suffix))
