"""expr's builtin functions (``builtin/builtin.go``, ``builtin/lib.go``, v1.17.7) that take
plain arguments; the ones with a predicate (``all``, ``filter``, ``map``...) are loops of the
evaluator. Each gives Go's result type and fails with Go's message, raised as
:class:`GoPanic` for the evaluator to place.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from reporters.expr.errors import ExprUnsupported
from reporters.expr.gotext import is_space
from reporters.expr.gotime import (
    SECOND,
    Duration,
    Time,
    TimeParseError,
    days_from_civil,
    days_in,
    parse_duration,
)
from reporters.expr.gotime import parse_rfc3339 as _rfc3339
from reporters.expr.methods import method
from reporters.expr.operators import (
    GoPanic,
    as_string,
    compare,
    equal,
    fetch,
    is_int,
    is_number,
    to_int,
)
from reporters.expr.values import (
    AnyMap,
    GoFunc,
    Int64,
    NilSlice,
    StringMap,
    TypedList,
    Uint8,
    Unmarshalable,
    go_format,
    go_type,
    marshal,
)

MAX_DEPTH = 10_000


class Unsupported(Exception):
    """A builtin call this implementation does not reproduce; the message says which."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


Budget = Callable[[int], None]


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
        raise Unsupported("this malformed base64 (its exact error is not reproduced)", "") from None
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise Unsupported("base64 that decodes to bytes which are not UTF-8", "") from None


def b_duration(text: Any) -> Duration:
    try:
        return parse_duration(as_string(text))
    except ValueError as exc:
        raise GoPanic(str(exc)) from None


_DATE_FORMS = {
    "2006-01-02": re.compile(r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"),
    "15:04:05": re.compile(r"(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})(?P<f>[.,]\d+)?"),
    "2006-01-02 15:04:05": re.compile(
        r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2}) "
        r"(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})(?P<f>[.,]\d+)?"
    ),
}
"""How Go's time.Parse reads these layouts: ``15`` takes one or two digits, the others
exactly their width, and a fraction may follow the seconds."""
_WORDY = re.compile(
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
)


def _date_in(layout: str, text: str) -> Time | None:
    """``time.Parse(layout, text)`` in UTC for the plain layouts, or None where Go fails."""
    match = _DATE_FORMS[layout].fullmatch(text)
    if not match:
        return None
    parts = match.groupdict()
    year = int(parts.get("y") or 0)
    month = int(parts.get("mo") or 1)
    day = int(parts.get("d") or 1)
    hour, minute, second = (int(parts.get(k) or 0) for k in ("h", "mi", "s"))
    if not 1 <= month <= 12 or not 1 <= day <= days_in(year, month):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    fraction = parts.get("f") or ""
    nanos = int((fraction[1:] + "000000000")[:9]) if fraction else 0
    days = days_from_civil(year, month, day)
    return Time(days * 86400 + hour * 3600 + minute * 60 + second, nanos)


def _date_default(text: str) -> Time:
    for layout in _DATE_FORMS:
        parsed = _date_in(layout, text)
        if parsed is not None:
            return parsed
    try:
        return _rfc3339(text)
    except TimeParseError:
        pass
    if _WORDY.search(text):
        raise Unsupported(
            f"date({text!r}) in an RFC 822, 850 or 1123 layout",
            "write the date as 2024-03-05T10:00:00Z",
        )
    raise GoPanic(f"invalid date {text}")


def b_date(*args: Any) -> Time:
    if len(args) == 1:
        return _date_default(as_string(args[0]))
    text, layout = as_string(args[0]), as_string(args[1])
    if len(args) == 3 and as_string(args[2]) != "UTC":
        raise Unsupported("date() in a time zone other than UTC", "convert to UTC first")
    if layout in _DATE_FORMS:
        parsed = _date_in(layout, text)
        if parsed is not None:
            return parsed
    elif layout == "2006-01-02T15:04:05Z07:00":
        try:
            return _rfc3339(text)
        except TimeParseError as exc:
            raise GoPanic(str(exc)) from None
    raise Unsupported(f"date() with the layout {layout!r}", "use RFC 3339 text and no layout")


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
            raise Unsupported("fromPairs keys that are equal numbers of different types", "")
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
        from reporters.expr.gotime import wrap64

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


def b_now(*args: Any, clock: Callable[[], Time]) -> Time:
    if args:
        raise Unsupported("now() with a time zone", "use now()")
    return clock()


def b_timezone(name: Any) -> Any:
    raise Unsupported("timezone()", "work in UTC")


def system_clock() -> Time:
    """``time.Now()``: the machine's clock, in UTC."""
    now = datetime.now(UTC)
    return Time(int(now.timestamp()), now.microsecond * 1000)


PLAIN: dict[str, Callable[..., Any]] = {
    "len": b_len, "type": b_type, "abs": b_abs,
    "ceil": _rounding("ceil", math.ceil), "floor": _rounding("floor", math.floor),
    "round": _rounding("round", _go_round), "int": b_int, "float": b_float,
    "string": go_format, "trim": b_trim, "trimPrefix": b_trim_prefix,
    "trimSuffix": b_trim_suffix, "upper": b_upper, "lower": b_lower, "split": b_split,
    "splitAfter": b_split_after, "replace": b_replace, "join": b_join, "indexOf": b_index_of,
    "lastIndexOf": b_last_index_of, "hasPrefix": b_has_prefix, "hasSuffix": b_has_suffix,
    "max": b_max, "min": b_min, "mean": b_mean, "median": b_median, "toJSON": b_to_json,
    "fromJSON": b_from_json, "toBase64": b_to_base64, "fromBase64": b_from_base64,
    "duration": b_duration, "date": b_date, "timezone": b_timezone, "first": b_first,
    "last": b_last, "get": b_get, "take": b_take, "keys": b_keys, "values": b_values,
    "toPairs": b_to_pairs, "fromPairs": b_from_pairs, "uniq": b_uniq,
    "bitand": _bits("bitand", lambda x, y: x & y), "bitor": _bits("bitor", lambda x, y: x | y),
    "bitxor": _bits("bitxor", lambda x, y: x ^ y),
    "bitnand": _bits("bitnand", lambda x, y: x & ~y),
    "bitshl": _bits("bitshl", _shift("shl")), "bitshr": _bits("bitshr", _shift("shr")),
    "bitushr": _bits("bitushr", _shift("ushr")), "bitnot": b_bitnot,
}  # fmt: skip
"""Builtins called with their evaluated arguments."""

GROWING: dict[str, Callable[..., Any]] = {
    "repeat": b_repeat,
    "reverse": b_reverse,
    "concat": b_concat,
    "flatten": b_flatten,
    "sort": b_sort,
}
"""Builtins that count against the memory budget (``Safe`` in expr)."""

FAST = frozenset({"len", "type", "abs", "ceil", "floor", "round", "int", "float", "string",
                  "upper", "lower"})  # fmt: skip
"""Builtins with a ``Fast`` form: expr passes them the argument as it is (no deref)."""

__all__ = ["GROWING", "PLAIN", "SECOND", "ExprUnsupported", "Int64", "StringMap", "Unsupported"]
