"""sprig's dictionary functions (dict.go, v3.3.0): dict, get, set, hasKey, pick, dig ...

Dictionaries are ``map[string]interface {}``; ``set`` and ``unset`` change the map they are
given, as in Go. ``keys`` and ``values`` come out in Go's random map order there; here in
insertion order (pipe ``keys`` through ``sortAlpha`` for a stable result in both).
"""

from __future__ import annotations

import copy
from typing import Any

from reporters.gotemplate.sprig_convert import ANY, empty, strval
from reporters.gotemplate.values import GoError, GoFunc, StrList

MAP = "map[string]interface {}"


def _dict(*v: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i in range(0, len(v), 2):
        key = strval(v[i])
        out[key] = v[i + 1] if i + 1 < len(v) else ""
    return out


def _need_map(d: Any) -> dict[str, Any]:
    if d is None:
        return {}
    return d  # type: ignore[no-any-return]


def _get(d: Any, key: str) -> Any:
    d = _need_map(d)
    return d.get(key, "")


def _set(d: Any, key: str, value: Any) -> Any:
    if d is None:
        raise GoError("assignment to entry in nil map")
    d[key] = value
    return d


def _unset(d: Any, key: str) -> Any:
    if d is not None:
        d.pop(key, None)
    return d


def _pluck(key: str, *dicts: Any) -> list[Any]:
    return [d[key] for d in dicts if d is not None and key in d]


def _keys(*dicts: Any) -> StrList:
    return StrList(k for d in dicts if d is not None for k in d)


def _pick(d: Any, *keys: str) -> dict[str, Any]:
    d = _need_map(d)
    return {k: d[k] for k in keys if k in d}


def _omit(d: Any, *keys: str) -> dict[str, Any]:
    d = _need_map(d)
    return {k: v for k, v in d.items() if k not in keys}


def _values(d: Any) -> list[Any]:
    return list(_need_map(d).values())


def _merge_into(dst: dict[str, Any], src: dict[str, Any], overwrite: bool) -> None:
    """mergo.Merge / MergeWithOverwrite over maps of interface values."""
    for key, sval in src.items():
        if key in dst and isinstance(dst[key], dict) and isinstance(sval, dict):
            _merge_into(dst[key], sval, overwrite)
            continue
        if key in dst and not empty(dst[key]) and isinstance(sval, dict | list) and not overwrite:
            continue
        if key not in dst or empty(dst[key]) or (overwrite and not empty(sval)):
            dst[key] = sval


def _merge(overwrite: bool) -> Any:
    def merge(dst: Any, *srcs: Any) -> Any:
        if dst is None:
            return ""
        for src in srcs:
            _merge_into(dst, src or {}, overwrite)
        return dst

    return merge


def _dig(*ps: Any) -> Any:
    if len(ps) < 3:
        raise GoError("dig needs at least three arguments")
    d = ps[-1]
    default = ps[-2]
    keys = ps[:-2]
    for k in keys:
        if not isinstance(k, str):
            raise GoError(f"interface conversion: interface {{}} is {_tn(k)}, not string")
    if not isinstance(d, dict):
        raise GoError(
            f"interface conversion: interface {{}} is {_tn(d)}, not map[string]interface {{}}"
        )
    for i, k in enumerate(keys):
        if k not in d:
            return default
        step = d[k]
        if i == len(keys) - 1:
            return step
        if not isinstance(step, dict):
            raise GoError(
                f"interface conversion: interface {{}} is {_tn(step)}, not "
                "map[string]interface {}"
            )
        d = step
    return default


def _tn(v: Any) -> str:
    from reporters.gotemplate.values import go_type

    return "nil" if v is None else go_type(v)


FUNCS: dict[str, GoFunc] = {
    "dict": GoFunc(_dict, (ANY,), variadic=True, returns=MAP),
    "get": GoFunc(_get, (MAP, "string"), returns=ANY),
    "set": GoFunc(_set, (MAP, "string", ANY), returns=MAP),
    "unset": GoFunc(_unset, (MAP, "string"), returns=MAP),
    "hasKey": GoFunc(lambda d, k: k in _need_map(d), (MAP, "string"), returns="bool"),
    "pluck": GoFunc(_pluck, ("string", MAP), variadic=True, returns="[]interface {}"),
    "keys": GoFunc(_keys, (MAP,), variadic=True, returns="[]string"),
    "pick": GoFunc(_pick, (MAP, "string"), variadic=True, returns=MAP),
    "omit": GoFunc(_omit, (MAP, "string"), variadic=True, returns=MAP),
    "values": GoFunc(_values, (MAP,), returns="[]interface {}"),
    "merge": GoFunc(_merge(False), (MAP, MAP), variadic=True, returns=ANY),
    "mustMerge": GoFunc(_merge(False), (MAP, MAP), variadic=True, returns=ANY),
    "mergeOverwrite": GoFunc(_merge(True), (MAP, MAP), variadic=True, returns=ANY),
    "mustMergeOverwrite": GoFunc(_merge(True), (MAP, MAP), variadic=True, returns=ANY),
    "deepCopy": GoFunc(copy.deepcopy, (ANY,), returns=ANY),
    "mustDeepCopy": GoFunc(copy.deepcopy, (ANY,), returns=ANY),
    "dig": GoFunc(_dig, (ANY,), variadic=True, returns=ANY),
}
