"""expr's builtins over collections and encodings: ``toJSON``/``fromJSON`` (encoding/json's
output and errors), base64, ``first``/``last``/``get``/``take``, ``keys``/``values``/pairs,
``reverse``, ``uniq``, ``concat``, ``flatten``, ``sort``."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any

from orchestrator.golang.gotime import Time
from reporters.expr.access import fetch
from reporters.expr.builtin_base import MAX_DEPTH, Budget, Unsupported
from reporters.expr.methods import method
from reporters.expr.operators import (
    GoPanic,
    as_string,
    compare,
    equal,
    is_int,
    to_int,
)
from reporters.expr.values import (
    AnyMap,
    GoFunc,
    NilSlice,
    TypedList,
    Uint8,
    Unmarshalable,
    go_format,
    go_type,
    marshal,
)


def b_to_json(value: Any) -> str:
    try:
        return marshal(value, indent=True)
    except Unmarshalable as exc:
        raise GoPanic(str(exc)) from None


def b_from_json(text: Any) -> Any:
    value = as_string(text)
    stripped = value.lstrip(" \t\r\n")
    if not stripped:
        raise GoPanic("unexpected end of JSON input")
    if stripped[0] not in '{["-0123456789tfn':
        raise GoPanic(f"invalid character {_go_char(stripped[0])} looking for beginning of value")
    decoder = json.JSONDecoder(parse_int=float, parse_constant=_no_constant)
    try:
        data, end = decoder.raw_decode(value, len(value) - len(stripped))
    except json.JSONDecodeError as exc:
        if exc.pos >= len(value):
            raise GoPanic("unexpected end of JSON input") from None
        raise Unsupported(
            "this invalid JSON (its exact error is not reproduced)", "pass valid JSON"
        ) from None
    except (ValueError, RecursionError):
        raise Unsupported("this JSON", "pass valid JSON") from None
    rest = value[end:].lstrip(" \t\r\n")
    if rest:
        raise GoPanic(f"invalid character {_go_char(rest[0])} after top-level value")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _go_char(char: str) -> str:
    """``quoteChar``: ``'x'``, with ``\\'`` and ``\\"`` escaped as Go does."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    from reporters.expr.gotext import quote

    return "'" + quote(char)[1:-1] + "'"


def b_to_base64(text: Any) -> str:
    return base64.b64encode(as_string(text).encode()).decode()


_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def b_from_base64(text: Any) -> str:
    value = as_string(text)
    for index, char in enumerate(value):
        if char not in _B64 and char not in "=\r\n":
            raise GoPanic(f"illegal base64 data at input byte {index}")
    if "=" not in value and "\r" not in value and "\n" not in value and len(value) % 4:
        # Go reads whole quanta, and fails at the start of the incomplete last one.
        raise GoPanic(f"illegal base64 data at input byte {len(value) - len(value) % 4}")
    try:
        data = base64.b64decode(value, validate=True)
    except binascii.Error:
        raise Unsupported(
            "this malformed base64 (its exact error is not reproduced)",
            "pass standard base64 with its = padding",
        ) from None
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise Unsupported(
            "base64 that decodes to bytes which are not UTF-8", "decode only base64 of text"
        ) from None


def b_first(value: Any) -> Any:
    try:
        return fetch(value, 0, method)
    except GoPanic:
        return None


def b_last(value: Any) -> Any:
    try:
        return fetch(value, -1, method)
    except GoPanic:
        return None


def b_get(base: Any, key: Any) -> Any:
    if base is None:
        return None
    if isinstance(key, str):
        bound = method(base, key)
        if bound is not None:
            return bound
    if isinstance(base, list | str):
        index = to_int(key)
        data: Any = base.encode() if isinstance(base, str) else base
        if index < 0:
            index += len(data)
        if 0 <= index < len(data):
            return Uint8(data[index]) if isinstance(base, str) else data[index]
        return None
    if isinstance(base, dict):
        if key is not None and type(key) is not str:
            raise GoPanic(
                f"reflect.Value.MapIndex: value of type {go_type(key)} is not assignable to "
                "type string"
            )
        return base.get(key if key is not None else "")
    return None


def b_take(items: Any, count: Any) -> Any:
    if not isinstance(items, list):
        raise GoPanic(f"cannot take from {_kind(items)}")
    if not is_int(count):
        raise GoPanic(f"cannot take {_kind(count)} elements")
    size = min(int(count), len(items))
    if size < 0:
        raise GoPanic("reflect: slice index out of range")
    return TypedList(items[:size], items.elem) if isinstance(items, TypedList) else items[:size]


def _kind(value: Any) -> str:
    """reflect.Kind's name."""
    if value is None:
        return "invalid"
    if isinstance(value, list):
        return "slice"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, Time):
        return "struct"
    if isinstance(value, GoFunc):
        return "func"
    name = go_type(value)
    return {"time.Duration": "int64", "time.Month": "int", "time.Weekday": "int"}.get(name, name)


def b_keys(value: Any) -> list[Any]:
    if not isinstance(value, dict):
        raise GoPanic(f"cannot get keys from {_kind(value)}")
    return list(value.keys())


def b_values(value: Any) -> list[Any]:
    if not isinstance(value, dict):
        raise GoPanic(f"cannot get values from {_kind(value)}")
    return list(value.values())


def b_to_pairs(value: Any) -> TypedList:
    if not isinstance(value, dict):
        raise GoPanic(f"cannot transform {_kind(value)} to pairs")
    return TypedList([[k, v] for k, v in value.items()], "[2]interface {}")


def b_from_pairs(value: Any) -> AnyMap:
    if not isinstance(value, list):
        raise GoPanic(f"cannot transform {go_format(value)} from pairs")
    out = AnyMap()
    for pair in value:
        if not isinstance(pair, list):
            raise GoPanic(f"invalid pair {go_format(pair)}")
        if len(pair) != 2:
            raise GoPanic(f"invalid pair length {go_format(pair)}")
        key = pair[0]
        if isinstance(key, list | dict):
            raise GoPanic(f"hash of unhashable type: {go_type(key)}")
        if any(k == key and go_type(k) != go_type(key) for k in out):
            raise Unsupported(
                "fromPairs keys that are equal numbers of different types",
                "convert the keys with string() first",
            )
        out[key] = pair[1]
    return out


def b_reverse(value: Any, grow: Budget) -> list[Any]:
    if not isinstance(value, list):
        raise GoPanic(f"cannot reverse {_kind(value)}")
    grow(len(value))
    return list(reversed(value))


def b_uniq(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise GoPanic(f"cannot uniq {_kind(value)}")
    out: list[Any] = []
    for item in value:
        if not any(equal(item, seen) for seen in out):
            out.append(item)
    return out


def b_concat(*args: Any, grow: Budget) -> list[Any]:
    if not args:
        raise GoPanic("invalid number of arguments (expected at least 1, got 0)")
    out: list[Any] = []
    for arg in args:
        if not isinstance(arg, list):
            raise GoPanic(f"cannot concat {_kind(arg)}")
        out.extend(arg)
    grow(len(out))
    return out if out else NilSlice()


def _flatten(value: list[Any], depth: int) -> list[Any]:
    if depth > MAX_DEPTH:
        raise GoPanic("recursion depth exceeded")
    out: list[Any] = []
    for item in value:
        if isinstance(item, list):
            out.extend(_flatten(item, depth + 1))
        else:
            out.append(item)
    return out


def b_flatten(value: Any, grow: Budget) -> list[Any]:
    if not isinstance(value, list):
        raise GoPanic(f"cannot flatten {_kind(value)}")
    out = _flatten(value, 0)
    grow(len(out))
    return out


def go_sort(items: list[Any], less: Callable[[Any, Any], bool]) -> list[Any]:
    """sort.Sort for the short lists conditions sort: insertion sort below 13 elements is
    what Go's pdqsort does, so ties keep Go's order."""
    if len(items) > 12:
        raise Unsupported(
            "sorting more than 12 elements (Go's unstable sort orders ties its own way)",
            "sort fewer elements",
        )
    out = list(items)
    for i in range(1, len(out)):
        j = i
        while j > 0 and less(out[j], out[j - 1]):
            out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


def b_sort(*args: Any, grow: Budget) -> list[Any]:
    if len(args) not in (1, 2):
        raise GoPanic(f"invalid number of arguments (expected 1 or 2, got {len(args)})")
    items = args[0]
    if isinstance(items, TypedList) and items.elem in ("int", "float64", "string"):
        array: list[Any] | None = list(items)
    elif type(items) is list:
        array = list(items)
    else:
        array = None
    desc = False
    if len(args) == 2:
        order = as_string(args[1])
        if order not in ("asc", "desc"):
            raise GoPanic(f"invalid order {order}, expected asc or desc")
        desc = order == "desc"
    if array is None:
        return NilSlice()
    result = go_sort(array, (lambda a, b: compare("<", b, a)) if desc else
                     (lambda a, b: compare("<", a, b)))  # fmt: skip
    grow(len(array))
    return result
