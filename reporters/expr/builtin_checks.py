"""The compile-time checks of expr's builtins (``checker.builtinNode`` and the builtins'
``Validate`` functions, v1.17.7): which argument types each one refuses, in its words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reporters.expr import nodes as n
from reporters.expr.errors import ExprSyntaxError
from reporters.expr.natures import (
    ANY_ARRAY,
    ANY_MAP,
    BOOL,
    DURATION,
    INT,
    TIME,
    UNKNOWN,
    Nature,
    array_of,
    of,
)
from reporters.expr.signatures import OVERLOADS, ROUND_KINDS

if TYPE_CHECKING:
    from reporters.expr.checker import Checker

_COLLECTION_BOOL = ("all", "none", "any", "one")
_PREDICATE_OUT_BOOL = ("filter", "find", "findLast", "findIndex", "findLastIndex", "count")
_LOOPS = frozenset({*_COLLECTION_BOOL, "filter", "map", "count", "sum", "find", "findIndex",
                    "findLast", "findLastIndex", "groupBy", "sortBy", "reduce"})  # fmt: skip
NUMBER_KINDS = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
                "uint64", "float32", "float64"}  # fmt: skip


def _arg_type(nature: Nature) -> str:
    """The reflect.Type a Validate function sees: interface {} for anything unknown."""
    if nature.unknown:
        return "interface {}"
    if nature.nil:
        return "%!s(<nil>)"  # a nil reflect.Type printed with %s
    return nature.go or "interface {}"


def _kind(go: str) -> str:
    if go.startswith("[]"):
        return "slice"
    if go.startswith("map["):
        return "map"
    if go in ("interface {}",):
        return "interface"
    if go == "%!s(<nil>)":
        return "invalid"
    if go == DURATION:
        return "int64"
    if go == TIME:
        return "struct"
    return go


def _predicate(checker: Checker, node: n.Builtin, collection: Nature, *names: str) -> Nature:
    variables = {name: (INT if name == "index" else UNKNOWN) for name in names}
    checker.scopes.append((collection, variables))
    try:
        return checker.visit(node.args[1])
    finally:
        checker.scopes.pop()


def check_builtin(checker: Checker, node: n.Builtin) -> Nature:
    name, args = node.name, node.args
    if name in _LOOPS:
        collection = checker.visit(args[0])
        if not collection.is_array and not collection.unknown:
            return checker.error(
                args[0], f"builtin {name} takes only array (got {collection.text()})"
            )
        if name == "count" and len(args) == 1:
            return INT
        if name == "sum" and len(args) == 1:
            return UNKNOWN if collection.unknown else collection.element()
        extra = ("index",) if name == "map" else ("index", "acc") if name == "reduce" else ()
        predicate = _predicate(checker, node, collection, *extra)
        if name in ("sortBy", "reduce") and len(args) == 3:
            checker.visit(args[2])
        body = predicate.elem or UNKNOWN
        if body.nil:
            inputs = "two" if name == "reduce" else "one"
            return checker.error(
                args[1], f"predicate should has {inputs} input and one output param"
            )
        # The predicate's Go type returns interface {} for a body of unknown type.
        out = of("interface {}") if body.unknown else body
        if name in _COLLECTION_BOOL + _PREDICATE_OUT_BOOL and not out.is_bool and not out.unknown:
            return checker.error(args[1], f"predicate should return boolean (got {out.text()})")
        if name in _COLLECTION_BOOL:
            return BOOL
        if name in ("count", "findIndex", "findLastIndex"):
            return INT
        if name == "filter":
            return of(ANY_ARRAY) if collection.unknown else array_of(collection.element())
        if name == "map":
            return array_of(body)
        if name in ("find", "findLast"):
            return UNKNOWN if collection.unknown else collection.element()
        if name == "groupBy":
            return of("map[interface {}][]interface {}")
        if name == "sortBy":
            return collection
        return out if name == "sum" else body  # reduce gives the body's own nature
    if name == "get":
        return _get(checker, node)
    if name in OVERLOADS:
        return _overloads(checker, node)
    natures = [checker.visit(arg) for arg in args]
    types = [_arg_type(nature) for nature in natures]
    try:
        result = _validate(name, types)
    except ValueError as exc:
        return checker.error(node, str(exc))
    return of(result)


def _count(expected: int, types: list[str]) -> None:
    if len(types) != expected:
        raise ValueError(f"invalid number of arguments (expected {expected}, got {len(types)})")


def _validate(name: str, types: list[str]) -> str:
    """The builtins' ``Validate`` functions; ValueError carries the message."""
    kinds = [_kind(t) for t in types]
    if name == "len":
        _count(1, types)
        if kinds[0] in ("slice", "map", "string", "interface"):
            return "int"
        raise ValueError(f"invalid argument for len (type {types[0]})")
    if name == "abs":
        _count(1, types)
        if types[0] in NUMBER_KINDS or kinds[0] == "interface" or kinds[0] == "int64":
            return types[0]
        raise ValueError(f"invalid argument for abs (type {types[0]})")
    if name in ("ceil", "floor", "round"):
        _count(1, types)
        if types[0] in ROUND_KINDS or kinds[0] == "int64":
            return "float64"
        raise ValueError(f"invalid argument for {name} (type {types[0]})")
    if name in ("int", "float"):
        _count(1, types)
        if types[0] in NUMBER_KINDS | {"string", "interface {}"} or kinds[0] == "int64":
            return "int" if name == "int" else "float64"
        raise ValueError(f"invalid argument for {name} (type {types[0]})")
    if name in ("max", "min", "mean", "median"):
        if not types:
            raise ValueError(f"not enough arguments to call {name}")
        for go, kind in zip(types, kinds, strict=True):
            if kind in ("interface", "slice"):
                return "interface {}"
            if go not in NUMBER_KINDS and kind != "int64":
                raise ValueError(f"invalid argument for {name} (type {go})")
        return types[0]
    if name == "now":
        if not types:
            return TIME
        if len(types) == 1 and types[0] == "*time.Location":
            return TIME
        raise ValueError(f"invalid number of arguments (expected 0, got {len(types)})")
    if name == "date":
        if not types:
            raise ValueError("invalid number of arguments (expected at least 1, got 0)")
        rest = types[1:] if types[0] == "*time.Location" else types
        if len(rest) > 3:
            raise ValueError(f"invalid number of arguments (expected at most 3, got {len(rest)})")
        return TIME
    if name in ("first", "last"):
        _count(1, types)
        if kinds[0] == "interface":
            return "interface {}"
        if kinds[0] == "slice":
            return types[0][2:]
        raise ValueError(f"cannot get {name} element from {types[0]}")
    if name == "take":
        _count(2, types)
        if kinds[0] not in ("interface", "slice"):
            raise ValueError(f"cannot take from {types[0]}")
        if kinds[1] not in ("interface", "int", "int8", "int16", "int32", "int64"):
            raise ValueError(f"cannot take {types[1]} elements")
        return types[0]
    words = {
        "keys": "cannot get keys from",
        "values": "cannot get values from",
        "toPairs": "cannot transform",
        "fromPairs": "cannot transform",
        "reverse": "cannot reverse",
        "uniq": "cannot uniq",
        "flatten": "cannot flatten",
    }
    if name in words:
        _count(1, types)
        allowed = (
            ("interface", "map")
            if name in ("keys", "values", "toPairs")
            else ("interface", "slice")
        )
        if kinds[0] in allowed:
            return ANY_MAP if name == "fromPairs" else ANY_ARRAY
        suffix = " to pairs" if name == "toPairs" else " from pairs" if name == "fromPairs" else ""
        raise ValueError(f"{words[name]} {types[0]}{suffix}")
    if name == "concat":
        if not types:
            raise ValueError("invalid number of arguments (expected at least 1, got 0)")
        for go, kind in zip(types, kinds, strict=True):
            if kind not in ("interface", "slice"):
                raise ValueError(f"cannot concat {go}")
        return ANY_ARRAY
    raise ValueError(f"unknown builtin {name}")


def _get(checker: Checker, node: n.Builtin) -> Nature:
    if len(node.args) != 2:
        return checker.error(
            node, f"invalid number of arguments (expected 2, got {len(node.args)})"
        )
    base = checker.visit(node.args[0])
    prop = checker.visit(node.args[1])
    if base.unknown:
        return UNKNOWN
    if base.is_array:
        if not prop.is_integer and not prop.unknown:
            return checker.error(node.args[1], f"non-integer slice index {prop.text()}")
        return base.element()
    if base.is_map:
        if not prop.is_string and not prop.unknown and not prop.nil:
            return checker.error(
                node.args[1], f"cannot use {prop.text()} to get an element from {base.text()}"
            )
        return base.element()
    return checker.error(node.args[0], f"type {base.text()} does not support indexing")


def _overloads(checker: Checker, node: n.Builtin) -> Nature:
    last: ExprSyntaxError | None = None
    for params, result in OVERLOADS[node.name]:
        err = checker.arguments(node.name, params, node.args, node)
        if err is None:
            return of(result)
        last = err
    if last is not None and checker.err is None:
        checker.err = last
    return UNKNOWN


__all__ = ["check_builtin"]
