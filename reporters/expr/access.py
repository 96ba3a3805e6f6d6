"""Reading into values as expr's ``runtime.Fetch``, ``In``, ``Len`` and ``Slice`` do: indexes
from the end, map keys that must be of the map's key type, a missing key that reads as the
element type's zero value, strings indexed and sliced by bytes, method values of times.
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang.durations import Duration
from orchestrator.golang.gotime import Month, Time, Weekday
from reporters.expr.operators import GoPanic, equal, to_int
from reporters.expr.values import GroupMap, StringMap, TypedList, Uint8, go_format
from reporters.expr.values import go_type as T


def _index_text(value: Any) -> str:
    return go_format(value)


def _map_key(mapping: dict[Any, Any], key: Any) -> Any:
    """``MapIndex(reflect.ValueOf(key))``: the key must be of the map's key type."""
    if isinstance(mapping, GroupMap):
        return key
    if key is None:
        return ""
    if type(key) is not str:
        raise GoPanic(
            f"reflect.Value.MapIndex: value of type {T(key)} is not assignable to type string"
        )
    return key


def has_methods(value: Any) -> bool:
    return isinstance(value, Time | Duration | Month | Weekday)


def fetch(base: Any, key: Any, methods: Any = None) -> Any:
    """``runtime.Fetch``: index, map key, or method value (``methods`` resolves those)."""
    if base is None:
        raise GoPanic(f"cannot fetch {_index_text(key)} from {T(base)}")
    struct_fetch = getattr(base, "expr_fetch", None)
    if callable(struct_fetch):  # a Go struct (Argo CD's repo functions return them)
        return struct_fetch(key)
    if has_methods(base) and type(key) is str and methods is not None:
        method = methods(base, key)
        if method is not None:
            return method
    if isinstance(base, list | str):
        index = to_int(key)
        data: Any = base.encode() if isinstance(base, str) else base
        length = len(data)
        if index < 0:
            index += length
        if index < 0 or index >= length:
            raise GoPanic(f"index out of range: {index} (array length is {length})")
        return Uint8(data[index]) if isinstance(base, str) else data[index]
    if isinstance(base, dict):
        key = _map_key(base, key)
        if key in base:
            return base[key]
        if isinstance(base, StringMap):
            return ""
        return None
    raise GoPanic(f"cannot fetch {_index_text(key)} from {T(base)}")


def contains_in(needle: Any, haystack: Any) -> bool:
    """``runtime.In``."""
    if haystack is None:
        return False
    if isinstance(haystack, list):
        return any(equal(item, needle) for item in haystack)
    if isinstance(haystack, dict):
        return _map_key(haystack, needle) in haystack
    raise GoPanic(f'operator "in" not defined on {T(haystack)}')


def go_len(value: Any) -> int:
    """``runtime.Len`` (strings in bytes)."""
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, list | dict):
        return len(value)
    raise GoPanic(f"invalid argument for len (type {T(value)})")


class SliceUnsupported(Exception):
    """Slicing a string inside a multi-byte rune (Go keeps the broken bytes)."""


def go_slice(base: Any, start: Any, stop: Any) -> Any:
    """``runtime.Slice``: clamped bounds, strings by bytes, slices keep their type."""
    if not isinstance(base, list | str):
        raise GoPanic(f"cannot slice {go_format(start)}")
    data: Any = base.encode() if isinstance(base, str) else base
    length = len(data)
    a, b = to_int(start), to_int(stop)
    if a < 0:
        a += length
    a = max(a, 0)
    if b < 0:
        b += length
    b = min(max(b, 0), length)
    a = min(a, b)
    if isinstance(base, str):
        try:
            return data[a:b].decode()
        except UnicodeDecodeError:
            raise SliceUnsupported from None
    if isinstance(base, TypedList):
        return TypedList(data[a:b], base.elem)
    return list(data[a:b])
