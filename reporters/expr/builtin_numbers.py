"""expr's numeric builtins (``builtin/lib.go``): ``len``, ``type``, ``abs``, ``ceil``,
``floor``, ``round``, ``int``, ``float``, ``max``, ``min``, ``mean``, ``median`` and the ``bit*``
functions, with Go's result types (``ceil(1)`` is a float64) and panic messages."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from reporters.expr.builtin_base import MAX_DEPTH
from reporters.expr.operators import (
    GoPanic,
    compare,
    is_int,
    is_number,
    to_int,
)
from reporters.expr.values import (
    GoFunc,
    Uint8,
    go_type,
)


def b_len(value: Any) -> int:
    if isinstance(value, list | dict):
        return len(value)
    if isinstance(value, str):
        return len(value)
    raise GoPanic(f"invalid argument for len (type {go_type(value)})")


def b_type(value: Any) -> str:
    if value is None:
        return "nil"
    name = go_type(value)
    if name.startswith("time."):
        return name
    if type(value) is bool:
        return "bool"
    if is_int(value):
        return "uint" if isinstance(value, Uint8) else "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, GoFunc):
        return "func"
    return "unknown"


def b_abs(value: Any) -> Any:
    if is_number(value):
        return type(value)(-value) if value < 0 else value
    raise GoPanic(f"invalid argument for abs (type {go_type(value)})")


def _rounding(name: str, fn: Callable[[float], float]) -> Callable[[Any], Any]:
    def apply(value: Any) -> Any:
        if type(value) is float:
            return float(fn(value))
        if is_int(value):
            return float(value)
        raise GoPanic(f"invalid argument for {name} (type {go_type(value)})")

    return apply


def _go_round(value: float) -> float:
    """``math.Round``: halves away from zero."""
    if math.isnan(value) or math.isinf(value):
        return value
    return math.copysign(math.floor(abs(value) + 0.5), value)


_ATOI = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9](?:_?[0-9])*)?\.?[0-9]*(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.I
)


def b_int(value: Any) -> int:
    if is_number(value):
        return to_int(value)
    if value is None:
        raise GoPanic("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(value, str):
        if not _ATOI.fullmatch(value) or abs(int(value)) > 2**63:
            raise GoPanic(f"invalid operation: int({value})")
        number = int(value)
        if number > 2**63 - 1 or number < -(2**63):
            raise GoPanic(f"invalid operation: int({value})")
        return number
    raise GoPanic(f"invalid operation: int({go_type(value)})")


def parse_go_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for decimal text; None where it fails."""
    body = text.lstrip("+-")
    if not body or not _FLOAT.fullmatch(text) or "_" in text:
        return None
    if body.lower() in ("inf", "infinity", "nan"):
        value = float(text.replace("infinity", "inf").replace("Infinity", "inf"))
        return value
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isinf(value):
        return None
    return value


def b_float(value: Any) -> float:
    if is_number(value):
        return float(value)
    if isinstance(value, str):
        number = parse_go_float(value)
        if number is None:
            raise GoPanic(f"invalid operation: float({value})")
        return number
    raise GoPanic(f"invalid operation: float({go_type(value)})")


def _min_max(name: str, op: str, args: tuple[Any, ...], depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise GoPanic("recursion depth exceeded")
    best: Any = None
    for arg in args:
        if isinstance(arg, list):
            for item in arg:
                value = _min_max(name, op, (item,), depth + 1)
                if not is_number(value):
                    raise GoPanic(f"invalid argument for {name} (type {go_type(value)})")
                if best is None or compare(op, best, value):
                    best = value
        elif is_number(arg):
            if best is None or compare(op, best, arg):
                best = arg
        else:
            if len(args) == 1:
                return args[0]
            raise GoPanic(f"invalid argument for {name} (type {go_type(arg)})")
    return best


def b_max(*args: Any) -> Any:
    return _min_max("max", "<", args)


def b_min(*args: Any) -> Any:
    return _min_max("min", ">", args)


def _numbers(name: str, args: tuple[Any, ...], depth: int = 0) -> list[float]:
    if depth > MAX_DEPTH:
        raise GoPanic("recursion depth exceeded")
    out: list[float] = []
    for arg in args:
        if isinstance(arg, list):
            for item in arg:
                out += _numbers(name, (item,), depth + 1)
        elif is_number(arg):
            out.append(float(arg))
        else:
            raise GoPanic(f"invalid argument for {name} (type {go_type(arg)})")
    return out


def b_mean(*args: Any) -> float:
    values = _numbers("mean", args)
    if not values:
        return 0.0
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


def b_median(*args: Any) -> float:
    values = sorted(_numbers("median", args))
    if not values:
        return 0.0
    middle = len(values) // 2
    if len(values) % 2 == 1:
        return values[middle]
    return (values[middle - 1] + values[middle]) / 2


def _bit_int(value: Any, name: str) -> int:
    if is_int(value):
        return int(value)
    raise GoPanic(f"cannot use {go_type(value)} as argument (type int) to call {name}")


def _bits(name: str, fn: Callable[[int, int], int]) -> Callable[..., int]:
    def apply(*args: Any) -> int:
        if len(args) != 2:
            raise GoPanic(f"invalid number of arguments for {name} (expected 2, got {len(args)})")
        x, y = _bit_int(args[0], name), _bit_int(args[1], name)
        return fn(x, y)

    return apply


def _shift(kind: str) -> Callable[[int, int], int]:
    def apply(x: int, y: int) -> int:
        if y < 0:
            raise GoPanic(f"invalid operation: negative shift count {y} (type int)")
        from orchestrator.golang.durations import wrap64

        if kind == "shl":
            return wrap64(x << y) if y < 64 else 0
        if kind == "shr":
            return x >> min(y, 63)
        return wrap64((x % 2**64) >> y) if y < 64 else 0

    return apply


def b_bitnot(*args: Any) -> int:
    if len(args) != 1:
        raise GoPanic(f"invalid number of arguments for bitnot (expected 1, got {len(args)})")
    return ~_bit_int(args[0], "bitnot")


b_ceil = _rounding("ceil", math.ceil)
b_floor = _rounding("floor", math.floor)
b_round = _rounding("round", _go_round)
b_bitand = _bits("bitand", lambda x, y: x & y)
b_bitor = _bits("bitor", lambda x, y: x | y)
b_bitxor = _bits("bitxor", lambda x, y: x ^ y)
b_bitnand = _bits("bitnand", lambda x, y: x & ~y)
b_bitshl = _bits("bitshl", _shift("shl"))
b_bitshr = _bits("bitshr", _shift("shr"))
b_bitushr = _bits("bitushr", _shift("ushr"))
