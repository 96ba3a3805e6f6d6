"""expr's run-time operators (``vm/runtime``): equality, ordering, arithmetic and the type
assertions of the VM over Go values, with Go's results and Go's panic messages (indexing,
``in`` and slicing are in :mod:`.access`).

Mirrored by hand because expr's rules are its own: ``==`` compares any two numbers by value
but anything else only within one type (``1 == '1'`` is false, maps compare with
reflect.DeepEqual so ``{a: 1}`` is not ``{a: int64(1)}``); ``+ - *`` on two integers give a
Go ``int`` whatever their widths, and wrap on overflow; ``/`` always gives a float64 and
``%`` only takes integers; ``**`` is Go's ``math.Pow``, whose last bits are its own.
"""

from __future__ import annotations

import math
from typing import Any

from orchestrator.golang.durations import Duration, wrap64
from orchestrator.golang.gotime import Time
from reporters.expr.values import GoFunc, Int64, TypedList, Uint8
from reporters.expr.values import go_type as T


class GoPanic(Exception):
    """A Go panic inside the VM: expr turns it into a run-time error at the failing
    instruction, with ``%v`` of the panic value as its message."""


def is_int(value: Any) -> bool:
    """One of Go's integer kinds (not bool, not a Duration, Month or Weekday)."""
    return type(value) in (int, Int64, Uint8)


def is_number(value: Any) -> bool:
    return is_int(value) or type(value) is float


def conversion_panic(value: Any, wanted: str) -> GoPanic:
    """A failed type assertion ``value.(wanted)`` on an ``interface {}``."""
    shown = "nil" if value is None else T(value)
    return GoPanic(f"interface conversion: interface {{}} is {shown}, not {wanted}")


def as_bool(value: Any) -> bool:
    if type(value) is not bool:
        raise conversion_panic(value, "bool")
    return value


def as_string(value: Any) -> str:
    if type(value) is not str:
        raise conversion_panic(value, "string")
    return value


def deep_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` over the values conditions hold."""
    if T(a) != T(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return bool(a == b)
    if isinstance(a, GoFunc):
        return False
    return bool(a == b)


def equal(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        if type(a) is float or type(b) is float:
            return float(a) == float(b)
        return int(a) == int(b)
    if type(a) is list and (type(b) is list or (isinstance(b, TypedList) and b.elem in _SIMPLE)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, TypedList) and a.elem in _SIMPLE and isinstance(b, list):
        if type(b) is list:
            return equal(b, a)
        if isinstance(b, TypedList) and b.elem == a.elem:
            return list(a) == list(b)
    if type(a) is str and type(b) is str:
        return a == b
    if isinstance(a, Time) and isinstance(b, Time):
        return a.unix_nano() == b.unix_nano()
    if type(a) is Duration and type(b) is Duration:
        return int(a) == int(b)
    if type(a) is bool and type(b) is bool:
        return a == b
    if (a is None or getattr(a, "go_nil", False)) and (b is None or getattr(b, "go_nil", False)):
        return True  # runtime.IsNil: a typed nil pointer is nil too
    return deep_equal(a, b)


_SIMPLE = frozenset({"string", "int", "int8", "int16", "int32", "int64", "uint", "uint8",
                     "uint16", "uint32", "uint64", "float32", "float64"})  # fmt: skip


def _ordered(a: Any, b: Any, op: str) -> bool:
    x: Any
    y: Any
    if is_number(a) and is_number(b):
        x, y = (float(a), float(b)) if float in (type(a), type(b)) else (int(a), int(b))
    elif type(a) is str and type(b) is str:
        x, y = a.encode(), b.encode()  # Go compares strings byte by byte
        return _compare(x, y, op)
    elif isinstance(a, Time) and isinstance(b, Time):
        x, y = a.unix_nano(), b.unix_nano()
    elif type(a) is Duration and type(b) is Duration:
        x, y = int(a), int(b)
    else:
        raise GoPanic(f"invalid operation: {T(a)} {op} {T(b)}")
    return _compare(x, y, op)


def _compare(x: Any, y: Any, op: str) -> bool:
    if op == "<":
        return bool(x < y)
    if op == ">":
        return bool(x > y)
    if op == "<=":
        return bool(x <= y)
    return bool(x >= y)


def compare(op: str, a: Any, b: Any) -> bool:
    return _ordered(a, b, op)


def _arith(a: Any, b: Any, op: str, durations: bool = False) -> Any:
    """The generated numeric cases: int op int is an int, any float makes a float64, and
    (for ``*`` only) a Duration operand makes a Duration."""
    kinds = (type(a), type(b))
    numeric = (is_number(a) or (durations and type(a) is Duration)) and (
        is_number(b) or (durations and type(b) is Duration)
    )
    if not numeric:
        return NotImplemented
    if float in kinds:
        x, y = float(a), float(b)
        return x + y if op == "+" else x - y if op == "-" else x * y
    x, y = int(a), int(b)
    value = wrap64(x + y if op == "+" else x - y if op == "-" else x * y)
    return Duration(value) if Duration in kinds else value


def add(a: Any, b: Any) -> Any:
    value = _arith(a, b, "+")
    if value is not NotImplemented:
        return value
    if type(a) is str and type(b) is str:
        return a + b
    if isinstance(a, Time) and type(b) is Duration:
        return a.add(b)
    if type(a) is Duration and isinstance(b, Time):
        return b.add(a)
    if type(a) is Duration and type(b) is Duration:
        return Duration(int(a) + int(b))
    raise GoPanic(f"invalid operation: {T(a)} + {T(b)}")


def subtract(a: Any, b: Any) -> Any:
    value = _arith(a, b, "-")
    if value is not NotImplemented:
        return value
    if isinstance(a, Time) and isinstance(b, Time):
        return a.sub(b)
    if isinstance(a, Time) and type(b) is Duration:
        return a.add(-int(b))
    if type(a) is Duration and type(b) is Duration:
        return Duration(int(a) - int(b))
    raise GoPanic(f"invalid operation: {T(a)} - {T(b)}")


def multiply(a: Any, b: Any) -> Any:
    value = _arith(a, b, "*", durations=True)
    if value is not NotImplemented:
        return value
    raise GoPanic(f"invalid operation: {T(a)} * {T(b)}")


def float_divide(x: float, y: float) -> float:
    """IEEE division, as Go does it for float64 (no panic on zero)."""
    try:
        return x / y
    except ZeroDivisionError:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)


def divide(a: Any, b: Any) -> float:
    if not (is_number(a) and is_number(b)):
        raise GoPanic(f"invalid operation: {T(a)} / {T(b)}")
    return float_divide(float(a), float(b))


def modulo(a: Any, b: Any) -> int:
    if not (is_int(a) and is_int(b)):
        raise GoPanic(f"invalid operation: {T(a)} % {T(b)}")
    x, y = int(a), int(b)
    if y == 0:
        raise GoPanic("runtime error: integer divide by zero")
    remainder = abs(x) % abs(y)
    return -remainder if x < 0 else remainder


def go_pow(x: float, y: float) -> float:
    """``math.Pow`` as Go computes it (not C's pow: the last bits differ), special cases
    first, then ``x**yf`` through exp/log and ``x**yi`` by repeated squaring."""
    if y == 0 or x == 1:
        return 1.0
    if y == 1:
        return x
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0:
        odd = _odd_int(y)
        if y < 0:
            if math.copysign(1.0, x) < 0 and odd:
                return -math.inf
            return math.inf
        if math.copysign(1.0, x) < 0 and odd:
            return x
        return 0.0
    if math.isinf(y):
        if x == -1:
            return 1.0
        if (abs(x) < 1) == (y > 0):
            return 0.0
        return math.inf
    if math.isinf(x):
        if x < 0:
            return go_pow(1 / x, -y)
        return 0.0 if y < 0 else math.inf
    if y == 0.5:
        return math.sqrt(x) if x >= 0 else math.nan
    if y == -0.5:
        return 1 / math.sqrt(x) if x >= 0 else math.nan
    yf, yi = math.modf(abs(y))
    if yf != 0 and x < 0:
        return math.nan
    if yi >= 2**63:
        if x == -1:
            return 1.0
        if (abs(x) < 1) == (y > 0):
            return 0.0
        return math.inf
    a1, ae = 1.0, 0
    if yf != 0:
        raise PowUnsupported
        if yf > 0.5:
            yf -= 1
            yi += 1
        a1 = math.exp(yf * math.log(x))
    x1, xe = math.frexp(x)
    i = int(yi)
    while i != 0:
        if xe < -(1 << 12) or xe > (1 << 12):
            ae += xe
            break
        if i & 1 == 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1 = 1 / a1
        ae = -ae
    return _ldexp(a1, ae)


class PowUnsupported(Exception):
    """A power with a fractional exponent: Go's own exp and log (assembly on amd64) round
    differently from the C library's in the last bits, so the result is not reproduced."""

    hint = "use an integer exponent, or ** 0.5 for a square root"


def _odd_int(value: float) -> bool:
    if abs(value) >= 2**53:
        return False
    whole, frac = math.modf(value)
    return frac == 0 and int(whole) % 2 == 1


def _ldexp(frac: float, exp: int) -> float:
    try:
        return math.ldexp(frac, exp)
    except OverflowError:
        return math.copysign(math.inf, frac)


def to_float(value: Any) -> float:
    """``runtime.ToFloat64``."""
    if is_number(value):
        return float(value)
    raise GoPanic(f"invalid operation: float({T(value)})")


def to_int(value: Any) -> int:
    """``runtime.ToInt``: floats truncate toward zero."""
    if is_int(value):
        return int(value)
    if type(value) is float:
        if math.isnan(value) or math.isinf(value) or abs(value) >= 2**63:
            return -(2**63)
        return int(value)
    raise GoPanic(f"invalid operation: int({T(value)})")


def exponent(a: Any, b: Any) -> float:
    return go_pow(to_float(a), to_float(b))


def negate(value: Any) -> Any:
    if type(value) is float:
        return -value
    if type(value) is Int64:
        return Int64(wrap64(-int(value)))
    if type(value) is Uint8:
        return Uint8((-int(value)) % 256)
    if type(value) is int:
        return wrap64(-value)
    raise GoPanic(f"invalid operation: - {T(value)}")
