"""sprig's arithmetic (numeric.go and functions.go, v3.3.0): int64 and decimal float math.

Integer functions convert every operand with cast.ToInt64 and wrap around like Go's int64;
``div`` and ``mod`` truncate toward zero (Python floors) and divide by zero as a Go
run-time panic. The ``f`` forms compute in decimal, as shopspring/decimal does, from each
operand's shortest float text.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from reporters.gotemplate.sprig_convert import ANY, to_float64, to_int, to_int64, wrap64
from reporters.gotemplate.values import GoError, GoFunc, GoInt, IntList

I64 = "int64"
F64 = "float64"


def _div(a: Any, b: Any) -> int:
    x, y = to_int64(a), to_int64(b)
    if y == 0:
        raise GoError("runtime error: integer divide by zero")
    q = abs(x) // abs(y)
    return wrap64(q if (x >= 0) == (y >= 0) else -q)


def _mod(a: Any, b: Any) -> int:
    x, y = to_int64(a), to_int64(b)
    if y == 0:
        raise GoError("runtime error: integer divide by zero")
    r = abs(x) % abs(y)
    return r if x >= 0 else -r


def _mul(a: Any, *rest: Any) -> int:
    val = to_int64(a)
    for b in rest:
        val = wrap64(val * to_int64(b))
    return val


def _max(a: Any, *rest: Any) -> int:
    return max([to_int64(a), *(to_int64(b) for b in rest)])


def _min(a: Any, *rest: Any) -> int:
    return min([to_int64(a), *(to_int64(b) for b in rest)])


def _maxf(a: Any, *rest: Any) -> float:
    val = to_float64(a)
    for b in rest:
        f = to_float64(b)
        val = math.nan if math.isnan(val) or math.isnan(f) else max(val, f)
    return val


def _minf(a: Any, *rest: Any) -> float:
    val = to_float64(a)
    for b in rest:
        f = to_float64(b)
        val = math.nan if math.isnan(val) or math.isnan(f) else min(val, f)
    return val


MAX_ITEMS = 1_000_000
"""Elements ``until``, ``untilStep`` and ``seq`` may build (a reporter's cap, not Go's)."""


def until_step(start: int, stop: int, step: int) -> IntList:
    if step and abs((stop - start) // step) > MAX_ITEMS:
        raise GoError(f"the range from {start} to {stop} is longer than {MAX_ITEMS} items")
    if stop < start:
        return IntList(range(start, stop, step)) if step < 0 else IntList()
    return IntList(range(start, stop, step)) if step > 0 else IntList()


def _until(count: int) -> IntList:
    return until_step(0, count, -1 if count < 0 else 1)


def _seq(*params: int) -> str:
    if len(params) == 1:
        start, end = 1, params[0]
        inc = -1 if end < start else 1
        items = until_step(start, end + inc, inc)
    elif len(params) == 2:
        start, end = params
        step = -1 if end < start else 1
        items = until_step(start, end + step, step)
    elif len(params) == 3:
        start, step, end = params
        inc = 1
        if end < start:
            inc = -1
            if step > 0:
                return ""
        items = until_step(start, end + inc, step)
    else:
        return ""
    return " ".join(str(i) for i in items)


def _round(a: Any, p: int, *opt: float) -> float:
    round_on = opt[0] if opt else 0.5
    val = to_float64(a)
    pw = math.pow(10, float(p))
    digit = pw * val
    frac = math.modf(digit)[0]
    rounded = math.ceil(digit) if frac >= round_on else math.floor(digit)
    return float(rounded) / pw


def _to_decimal(v: Any) -> int:
    from reporters.gotemplate.gofmt import sprint

    text = sprint(v)
    try:
        if not text or text != text.strip() or text[0] == "_" or "__" in text:
            return 0
        n = int(text, 8)
    except ValueError:
        return 0
    return n if -(1 << 63) <= n < (1 << 63) else 0


def _decimal_op(op: str) -> Any:
    def run(a: Any, *rest: Any) -> float:
        with localcontext() as ctx:
            ctx.prec = 60
            acc = Decimal(repr(to_float64(a)))
            for b in rest:
                d = Decimal(repr(to_float64(b)))
                if op == "+":
                    acc += d
                elif op == "-":
                    acc -= d
                elif op == "*":
                    acc *= d
                else:
                    if d == 0:
                        raise GoError("decimal division by 0")
                    acc = acc / d
            if op == "/":
                acc = acc.quantize(Decimal(1).scaleb(-16), rounding=ROUND_HALF_UP) if acc else acc
            result = float(acc)
            return 0.0 if result == 0 else result

    return run


def _atoi(s: str) -> GoInt:
    """strconv.Atoi, its error ignored: 0 for anything but a plain decimal integer."""
    body = s
    if body[:1] in "+-":
        body = body[1:]
    if not body.isdigit() or not body.isascii():
        return GoInt(0)
    n = int(s)
    return GoInt(n if -(1 << 63) <= n < (1 << 63) else 0)


FUNCS: dict[str, GoFunc] = {
    "add1": GoFunc(lambda i: wrap64(to_int64(i) + 1), (ANY,), returns=I64),
    "add": GoFunc(
        lambda *i: wrap64(sum(to_int64(x) for x in i)), (ANY,), variadic=True, returns=I64
    ),
    "sub": GoFunc(lambda a, b: wrap64(to_int64(a) - to_int64(b)), (ANY, ANY), returns=I64),
    "div": GoFunc(_div, (ANY, ANY), returns=I64),
    "mod": GoFunc(_mod, (ANY, ANY), returns=I64),
    "mul": GoFunc(_mul, (ANY, ANY), variadic=True, returns=I64),
    "add1f": GoFunc(lambda i: _decimal_op("+")(i, 1), (ANY,), returns=F64),
    "addf": GoFunc(lambda *i: _decimal_op("+")(0.0, *i), (ANY,), variadic=True, returns=F64),
    "subf": GoFunc(_decimal_op("-"), (ANY, ANY), variadic=True, returns=F64),
    "divf": GoFunc(_decimal_op("/"), (ANY, ANY), variadic=True, returns=F64),
    "mulf": GoFunc(_decimal_op("*"), (ANY, ANY), variadic=True, returns=F64),
    "biggest": GoFunc(_max, (ANY, ANY), variadic=True, returns=I64),
    "max": GoFunc(_max, (ANY, ANY), variadic=True, returns=I64),
    "min": GoFunc(_min, (ANY, ANY), variadic=True, returns=I64),
    "maxf": GoFunc(_maxf, (ANY, ANY), variadic=True, returns=F64),
    "minf": GoFunc(_minf, (ANY, ANY), variadic=True, returns=F64),
    "ceil": GoFunc(
        lambda a: (
            float(math.ceil(to_float64(a))) if math.isfinite(to_float64(a)) else to_float64(a)
        ),
        (ANY,),
        returns=F64,
    ),
    "floor": GoFunc(
        lambda a: (
            float(math.floor(to_float64(a))) if math.isfinite(to_float64(a)) else to_float64(a)
        ),
        (ANY,),
        returns=F64,
    ),
    "round": GoFunc(_round, (ANY, "int", F64), variadic=True, returns=F64),
    "int64": GoFunc(to_int64, (ANY,), returns=I64),
    "int": GoFunc(to_int, (ANY,), returns="int"),
    "float64": GoFunc(to_float64, (ANY,), returns=F64),
    "atoi": GoFunc(_atoi, ("string",), returns="int"),
    "seq": GoFunc(_seq, ("int",), variadic=True, returns="string"),
    "toDecimal": GoFunc(_to_decimal, (ANY,), returns=I64),
    "until": GoFunc(_until, ("int",), returns="[]int"),
    "untilStep": GoFunc(until_step, ("int", "int", "int"), returns="[]int"),
}
