"""sprig's list functions (list.go, v3.3.0): list, first, rest, append, uniq, has ...

Each takes any slice (``[]interface {}``, ``[]string``, ``[]int``) and, but for
``sortAlpha``, answers ``[]interface {}``; the ``must`` forms return Go's error where the
plain ones panic (text/template reports both as ``error calling X: ...``).
"""

from __future__ import annotations

import math
from typing import Any

from reporters.gotemplate.sprig_convert import ANY, empty, kind_name, strval, to_int
from reporters.gotemplate.values import GoError, GoFunc, StrList

LIST = "[]interface {}"


def _items(value: Any, what: str) -> list[Any]:
    kind = kind_name(value)
    if kind in ("slice", "array"):
        if isinstance(value, bytes | bytearray):
            from reporters.gotemplate.values import GoUint8

            return [GoUint8(b) for b in value]
        return list(value)
    raise GoError(f"{what} {kind}")


def deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual over template values: same Go type and equal contents."""
    from reporters.gotemplate.values import go_type

    if go_type(a) != go_type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return False
    return bool(a == b)


def _push(lst: Any, v: Any) -> list[Any]:
    return [*_items(lst, "Cannot push on type"), v]


def _prepend(lst: Any, v: Any) -> list[Any]:
    return [v, *_items(lst, "Cannot prepend on type")]


def _chunk(size: int, lst: Any) -> list[Any]:
    items = _items(lst, "Cannot chunk type")
    n = len(items)
    if size <= 0:
        raise GoError("runtime error: makeslice: len out of range")
    count = int(math.floor((n - 1) / size) + 1)
    out = []
    for i in range(count):
        clen = size
        if i == count - 1:
            clen = int(math.fmod(n, size)) or size
        out.append(items[i * size : i * size + clen])
    return out


def _last(lst: Any) -> Any:
    items = _items(lst, "Cannot find last on type")
    return items[-1] if items else None


def _first(lst: Any) -> Any:
    items = _items(lst, "Cannot find first on type")
    return items[0] if items else None


def _rest(lst: Any) -> list[Any] | None:
    return _items(lst, "Cannot find rest on type")[1:]


def _initial(lst: Any) -> list[Any] | None:
    return _items(lst, "Cannot find initial on type")[:-1]


def _sort_alpha(lst: Any) -> StrList:
    from reporters.gotemplate.sprig_convert import kind_name as kn

    if lst is not None and kn(lst) in ("slice", "array"):
        return StrList(sorted(to_strings(lst), key=lambda s: s.encode()))
    return StrList([strval(lst)])


def to_strings(v: Any) -> StrList:
    """sprig's strslice: nil elements dropped, the rest through strval."""
    if isinstance(v, StrList):
        return v
    if isinstance(v, list):
        return StrList(strval(x) for x in v if x is not None)
    if v is None:
        return StrList()
    return StrList([strval(v)])


def _reverse(lst: Any) -> list[Any]:
    return list(reversed(_items(lst, "Cannot find reverse on type")))


def _compact(lst: Any) -> list[Any]:
    return [x for x in _items(lst, "Cannot compact on type") if not empty(x)]


def _uniq(lst: Any) -> list[Any]:
    out: list[Any] = []
    for x in _items(lst, "Cannot find uniq on type"):
        if not any(deep_equal(x, y) for y in out):
            out.append(x)
    return out


def _without(lst: Any, *omit: Any) -> list[Any]:
    items = _items(lst, "Cannot find without on type")
    return [x for x in items if not any(deep_equal(x, o) for o in omit)]


def _has(needle: Any, haystack: Any) -> bool:
    if haystack is None:
        return False
    return any(deep_equal(needle, x) for x in _items(haystack, "Cannot find has on type"))


def _slice(lst: Any, *indices: Any) -> Any:
    kind = kind_name(lst)
    if kind not in ("slice", "array"):
        raise GoError(f"list should be type of slice or array but {kind}")
    items = list(lst)
    if not items:
        return None
    start = to_int(indices[0]) if indices else 0
    end = to_int(indices[1]) if len(indices) >= 2 else len(items)
    if not 0 <= start <= end <= len(items):
        raise GoError("reflect.Value.Slice: slice index out of bounds")
    part = items[start:end]
    return type(lst)(part) if isinstance(lst, StrList) else part


def _concat(*lists: Any) -> list[Any]:
    res: list[Any] = []
    for lst in lists:
        kind = kind_name(lst)
        if kind not in ("slice", "array"):
            raise GoError(f"Cannot concat type {kind} as list")
        res = res + list(lst)
    return res


def _pair(
    name: str, fn: Any, params: tuple[str, ...], returns: str, *, variadic: bool = False
) -> dict[str, GoFunc]:
    must = "must" + name[0].upper() + name[1:]
    return {
        name: GoFunc(fn, params, variadic=variadic, returns=returns, name=name),
        must: GoFunc(fn, params, variadic=variadic, returns=returns, name=must),
    }


FUNCS: dict[str, GoFunc] = {
    "list": GoFunc(lambda *v: list(v), (ANY,), variadic=True, returns=LIST),
    "tuple": GoFunc(lambda *v: list(v), (ANY,), variadic=True, returns=LIST),
    "append": GoFunc(_push, (ANY, ANY), returns=LIST),
    "push": GoFunc(_push, (ANY, ANY), returns=LIST),
    "mustAppend": GoFunc(_push, (ANY, ANY), returns=LIST),
    "mustPush": GoFunc(_push, (ANY, ANY), returns=LIST),
    **_pair("prepend", _prepend, (ANY, ANY), LIST),
    **_pair("chunk", _chunk, ("int", ANY), "[][]interface {}"),
    **_pair("first", _first, (ANY,), ANY),
    **_pair("rest", _rest, (ANY,), LIST),
    **_pair("last", _last, (ANY,), ANY),
    **_pair("initial", _initial, (ANY,), LIST),
    **_pair("reverse", _reverse, (ANY,), LIST),
    **_pair("uniq", _uniq, (ANY,), LIST),
    **_pair("without", _without, (ANY, ANY), LIST, variadic=True),
    **_pair("has", _has, (ANY, ANY), "bool"),
    **_pair("slice", _slice, (ANY, ANY), ANY, variadic=True),
    **_pair("compact", _compact, (ANY,), LIST),
    "concat": GoFunc(_concat, (ANY,), variadic=True, returns=ANY),
    "sortAlpha": GoFunc(_sort_alpha, (ANY,), returns="[]string"),
    "toStrings": GoFunc(to_strings, (ANY,), returns="[]string"),
    "join": GoFunc(lambda sep, v: sep.join(to_strings(v)), ("string", ANY), returns="string"),
}
