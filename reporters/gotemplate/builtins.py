"""text/template's own functions (``eq``, ``index``, ``printf``, ``len`` ...), after funcs.go.

They take ``reflect.Value`` arguments in Go, so they see missing values and interfaces
(:mod:`reporters.gotemplate.reflection`) and answer with Go's errors (``incompatible types
for comparison``, ``index out of range: 5``). ``and``, ``or`` and ``call`` are handled by
the executor, which evaluates their arguments lazily or needs the callee's name.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

from orchestrator.golang.strconv import is_print
from reporters.gotemplate.gofmt import Spec, format_value, sprint, sprintf, sprintln
from reporters.gotemplate.reflection import INVALID, Boxed, is_true, unbox
from reporters.gotemplate.values import (
    GoError,
    GoFunc,
    GoInt,
    GoPanic,
    GoUint8,
    StrList,
    StrMap,
    go_kind,
    go_type,
)

RV = "reflect.Value"
ANY = "interface {}"


def _basic_kind(value: Any) -> str:
    if value is INVALID:
        return "invalid"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "uint" if isinstance(value, GoUint8) else "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "invalid"


def _rtype(value: Any) -> str:
    return go_type(value)


def _kind(value: Any) -> str:
    return "invalid" if value is INVALID else go_kind(value)


def _is_nil(value: Any) -> bool:
    return value is INVALID or value is None


def _s(value: Any) -> str:
    return format_value(value, Spec("s"))


def eq(arg1: Any, *rest: Any) -> bool:
    arg1 = unbox(arg1)
    if not rest:
        raise GoError("missing argument for comparison")
    k1 = _basic_kind(arg1)
    for arg in rest:
        arg = unbox(arg)
        k2 = _basic_kind(arg)
        truth = False
        if k1 != k2:
            if {k1, k2} == {"int", "uint"}:
                truth = arg1 == arg
            elif arg1 is not INVALID and arg is not INVALID:
                raise GoError(
                    f"incompatible types for comparison: {_rtype(arg1)} and {_rtype(arg)}"
                )
        elif k1 != "invalid":
            truth = arg1 == arg
        else:
            ka, kb = _kind(arg1), _kind(arg)
            if ka != kb and "invalid" not in (ka, kb):
                raise GoError(
                    f"non-comparable types {_s(arg1)}: {_rtype(arg1)}, {_rtype(arg)}: "
                    f"{format_value(arg, Spec())}"
                )
            if _is_nil(arg1) or _is_nil(arg):
                truth = _is_nil(arg1) == _is_nil(arg)
            elif isinstance(arg, dict | list | bytes) or callable(arg):
                raise GoError(f"non-comparable type {_s(arg)}: {_rtype(arg)}")
            else:
                truth = _rtype(arg1) == _rtype(arg) and arg1 == arg
        if truth:
            return True
    return False


def ne(arg1: Any, arg2: Any) -> bool:
    return not eq(arg1, arg2)


def lt(arg1: Any, arg2: Any) -> bool:
    arg1 = unbox(arg1)
    k1 = _basic_kind(arg1)
    if k1 == "invalid":
        raise GoError("invalid type for comparison")
    arg2 = unbox(arg2)
    k2 = _basic_kind(arg2)
    if k2 == "invalid":
        raise GoError("invalid type for comparison")
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return bool(arg1 < arg2)
        raise GoError(f"incompatible types for comparison: {_rtype(arg1)} and {_rtype(arg2)}")
    if k1 == "bool":
        raise GoError("invalid type for comparison")
    return bool(arg1 < arg2)


def le(arg1: Any, arg2: Any) -> bool:
    return lt(arg1, arg2) or eq(arg1, arg2)


def gt(arg1: Any, arg2: Any) -> bool:
    return not le(arg1, arg2)


def ge(arg1: Any, arg2: Any) -> bool:
    return not lt(arg1, arg2)


def not_(arg: Any) -> bool:
    return not is_true(arg)


def _index_arg(index: Any, cap: int) -> int:
    if index is INVALID:
        raise GoError("cannot index slice/array with nil")
    if not isinstance(index, int) or isinstance(index, bool):
        raise GoError(f"cannot index slice/array with type {go_type(index)}")
    if index < 0 or index > cap:
        raise GoError(f"index out of range: {index}")
    return int(index)


def index(item: Any, *indexes: Any) -> Any:
    item = unbox(item)
    if item is INVALID:
        raise GoError("index of untyped nil")
    for idx in indexes:
        idx = unbox(idx)
        if isinstance(item, Boxed):
            if item.value is None:
                raise GoError("index of nil pointer")
            item = item.value
        if isinstance(item, str | list | bytes):
            x = _index_arg(idx, len(item) if not isinstance(item, str) else len(item.encode()))
            if isinstance(item, str):
                data = item.encode()
                if x >= len(data):
                    raise GoPanic("reflect: string index out of range")
                item = GoUint8(data[x])
            elif isinstance(item, bytes):
                if x >= len(item):
                    raise GoPanic("reflect: slice index out of range")
                item = GoUint8(item[x])
            else:
                if x >= len(item):
                    raise GoPanic("reflect: slice index out of range")
                element = item[x]
                item = element if isinstance(item, StrList) else Boxed(element)
        elif isinstance(item, dict):
            if idx is INVALID:
                raise GoError("value is nil; should be of type string")
            if not isinstance(idx, str):
                raise GoError(f"value has type {go_type(idx)}; should be string")
            item = item.get(idx, "") if isinstance(item, StrMap) else Boxed(item.get(idx))
        elif item is None:
            raise GoError("index of nil pointer")
        else:
            raise GoError(f"can't index item of type {go_type(item)}")
    return item


def slice_(item: Any, *indexes: Any) -> Any:
    item = unbox(item)
    if item is INVALID:
        raise GoError("slice of untyped nil")
    if len(indexes) > 3:
        raise GoError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise GoError("cannot 3-index slice a string")
        data = item.encode()
        cap = len(data)
    elif isinstance(item, list | bytes):
        data = item  # type: ignore[assignment]
        cap = len(item)
    else:
        raise GoError(f"can't slice item of type {go_type(item)}")
    idx = [0, len(data), 0]
    for i, raw in enumerate(indexes):
        idx[i] = _index_arg(unbox(raw), cap)
    if idx[0] > idx[1] or (len(indexes) == 3 and idx[1] > idx[2]):
        what = "string slice" if isinstance(item, str) else "slice"
        raise GoPanic(f"reflect.Value.Slice: {what} index out of bounds")
    part = data[idx[0] : idx[1]]
    if isinstance(item, str):
        return bytes(part).decode("utf-8", "replace")
    return type(item)(part) if isinstance(item, StrList) else list(part)  # type: ignore[arg-type]


def length(item: Any) -> GoInt:
    if isinstance(item, Boxed) and item.value is None:
        raise GoError("len of nil pointer")
    item = unbox(item)
    if item is INVALID:
        raise GoPanic("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(item, str):
        return GoInt(len(item.encode()))
    if isinstance(item, list | dict | bytes):
        return GoInt(len(item))
    if item is None:
        return GoInt(0)
    raise GoError(f"len of type {go_type(item)}")


def _eval_args(args: tuple[Any, ...]) -> str:
    """evalArgs: one string as it is; otherwise Sprint, nil printed as <no value>."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return sprint(*(_NO_VALUE if a is None else a for a in args))


class _NoValue:
    def go_string(self) -> str:
        return "<no value>"


_NO_VALUE = _NoValue()


def html_escape(text: str) -> str:
    out = []
    for ch in text:
        out.append(
            {
                "\0": "\ufffd",
                '"': "&#34;",
                "'": "&#39;",
                "&": "&amp;",
                "<": "&lt;",
                ">": "&gt;",
            }.get(ch, ch)
        )
    return "".join(out)


_JS = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "<": "\\u003C",
    ">": "\\u003E",
    "&": "\\u0026",
    "=": "\\u003D",
}


def js_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in _JS:
            out.append(_JS[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u00{ord(ch):02X}")
        elif ord(ch) >= 0x80 and not is_print(ch):
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


def urlquery(*args: Any) -> str:
    return quote_plus(_eval_args(args), safe="-_.~")


def _printf(fmt: str, *args: Any) -> str:
    return sprintf(fmt, *args)


def _and_or_placeholder(*_: Any) -> Any:  # pragma: no cover - the executor handles them
    raise AssertionError


BUILTINS: dict[str, GoFunc] = {
    "and": GoFunc(_and_or_placeholder, (RV, RV), variadic=True, returns=RV, name="and"),
    "or": GoFunc(_and_or_placeholder, (RV, RV), variadic=True, returns=RV, name="or"),
    "call": GoFunc(_and_or_placeholder, (RV, RV), variadic=True, returns=RV, name="call"),
    "html": GoFunc(lambda *a: html_escape(_eval_args(a)), (ANY,), variadic=True, returns="string"),
    "index": GoFunc(index, (RV, RV), variadic=True, returns=RV),
    "slice": GoFunc(slice_, (RV, RV), variadic=True, returns=RV),
    "js": GoFunc(lambda *a: js_escape(_eval_args(a)), (ANY,), variadic=True, returns="string"),
    "len": GoFunc(length, (RV,), returns="int"),
    "not": GoFunc(not_, (RV,), returns="bool"),
    "print": GoFunc(sprint, (ANY,), variadic=True, returns="string"),
    "printf": GoFunc(_printf, ("string", ANY), variadic=True, returns="string"),
    "println": GoFunc(sprintln, (ANY,), variadic=True, returns="string"),
    "urlquery": GoFunc(urlquery, (ANY,), variadic=True, returns="string"),
    "eq": GoFunc(eq, (RV, RV), variadic=True, returns="bool"),
    "ge": GoFunc(ge, (RV, RV), returns="bool"),
    "gt": GoFunc(gt, (RV, RV), returns="bool"),
    "le": GoFunc(le, (RV, RV), returns="bool"),
    "lt": GoFunc(lt, (RV, RV), returns="bool"),
    "ne": GoFunc(ne, (RV, RV), returns="bool"),
}
