"""How sprig turns any value into a string, a number or a truth (strval, spf13/cast, empty).

Most sprig functions take ``interface {}`` and convert with these rules, so they decide
what ``add "3" 4`` or ``quote 1.5`` gives; they follow sprig v3.3.0 and spf13/cast v1.7.1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from reporters.gotemplate.gofmt import Spec, format_value
from reporters.gotemplate.numbers import parse_float, parse_int
from reporters.gotemplate.values import GoError, GoFunc, GoInt, go_kind

ANY = "interface {}"


def wrap64(n: int) -> int:
    """Go's int64 arithmetic wraps around."""
    n &= 0xFFFFFFFFFFFFFFFF
    return n - (1 << 64) if n >= 1 << 63 else n


def strval(v: Any) -> str:
    """sprig's strval: strings as they are, Stringers by String, the rest with %v."""
    if isinstance(v, str):
        return v
    if isinstance(v, bytes | bytearray):
        return bytes(v).decode("utf-8", "replace")
    return format_value(v, Spec())


def _trim_zero_decimal(s: str) -> str:
    found_zero = False
    for i in range(len(s), 0, -1):
        c = s[i - 1]
        if c == ".":
            if found_zero:
                return s[: i - 1]
        elif c == "0":
            found_zero = True
        else:
            return s
    return s


def _go_float_to_int(f: float) -> int:
    if math.isnan(f) or math.isinf(f):
        return -(1 << 63)
    n = int(f)
    if not -(1 << 63) <= n < (1 << 63):
        return -(1 << 63)
    return n


def to_int64(v: Any) -> int:
    """cast.ToInt64 (0 when it cannot convert)."""
    if v is None:
        return 0
    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return _go_float_to_int(v)
    if isinstance(v, str):
        if v != v.strip() or not v:
            return 0
        parsed = parse_int(_trim_zero_decimal(v))
        if parsed is None or not -(1 << 63) <= parsed < (1 << 63):
            return 0
        return parsed
    return 0


def to_float64(v: Any) -> float:
    """cast.ToFloat64 (0 when it cannot convert)."""
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        if v != v.strip() or not v:
            return 0.0
        f = parse_float(v)
        if f is None:
            lowered = v.lower().lstrip("+-")
            if lowered in ("inf", "infinity"):
                return -math.inf if v.startswith("-") else math.inf
            if lowered == "nan":
                return math.nan
            return 0.0
        return f
    return 0.0


def to_int(v: Any) -> GoInt:
    """cast.ToInt."""
    return GoInt(to_int64(v))


def empty(v: Any) -> bool:
    """sprig's empty: the zero value of its type (nil, "", 0, false, empty collections)."""
    if v is None:
        return True
    kind = go_kind(v)
    if isinstance(v, bool):
        return not v
    if isinstance(v, int | float):
        return v == 0
    if isinstance(v, str | list | dict | bytes | bytearray):
        return len(v) == 0
    if kind == "struct":
        return False
    return False


def gofunc(
    params: tuple[str, ...], returns: str = ANY, *, variadic: bool = False
) -> Callable[[Callable[..., Any]], GoFunc]:
    """Declare a sprig function's Go signature."""

    def wrap(fn: Any) -> GoFunc:
        return GoFunc(fn, params, variadic=variadic, returns=returns, name=fn.__name__)

    return wrap


def kind_name(v: Any) -> str:
    """reflect.TypeOf(v).Kind() as sprig's error messages print it."""
    if v is None:
        raise GoError("runtime error: invalid memory address or nil pointer dereference")
    return go_kind(v)
