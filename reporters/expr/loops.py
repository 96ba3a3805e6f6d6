"""The builtins that take a predicate (``all``, ``filter``, ``map``, ``reduce``...): loops over
a collection as expr compiles them (``emitLoop``), with ``#``, ``#index`` and ``#acc`` in scope.

Their failures are Go's: a collection that is not one fails in reflect (``Len`` on an int),
a predicate that does not give a bool fails its type assertion, ``filter(..)[0]`` that finds
nothing fails with reflect's slice index message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from orchestrator.golang.gotime import Time
from reporters.expr import nodes as n
from reporters.expr.builtin_base import Unsupported
from reporters.expr.builtins import go_sort
from reporters.expr.operators import GoPanic, add, as_bool, as_string, compare
from reporters.expr.values import GoFunc, GroupMap, Uint8, go_type

if TYPE_CHECKING:
    from reporters.expr.evaluator import Evaluator


def reflect_kind(value: Any) -> str:
    if value is None:
        return "zero"
    if isinstance(value, Time):
        return "struct"
    if isinstance(value, GoFunc) or callable(value):
        return "func"
    name = go_type(value)
    return {"time.Duration": "int64", "time.Month": "int", "time.Weekday": "int"}.get(name, name)


@dataclass
class Scope:
    collection: Any
    length: int
    index: int = 0
    count: int = 0
    acc: Any = None


def begin(ev: Evaluator, node: n.Builtin) -> Scope:
    collection = ev.eval(node.args[0])
    with ev.at(node):
        if isinstance(collection, list | dict):
            length = len(collection)
        elif isinstance(collection, str):
            length = len(collection.encode())
        else:
            raise GoPanic(f"reflect: call of reflect.Value.Len on {reflect_kind(collection)} Value")
    scope = Scope(collection, length)
    ev.scopes.append(scope)
    return scope


def element(ev: Evaluator, scope: Scope) -> Any:
    collection = scope.collection
    if isinstance(collection, dict):
        raise GoPanic("reflect: call of reflect.Value.Index on map Value")
    if isinstance(collection, str):
        data = collection.encode()
        if not 0 <= scope.index < len(data):
            raise GoPanic("reflect: string index out of range")
        return Uint8(data[scope.index])
    if not 0 <= scope.index < len(collection):
        raise GoPanic("reflect: slice index out of range")
    return collection[scope.index]


def iterate(ev: Evaluator, node: n.Builtin, scope: Scope, backwards: bool = False) -> Iterator[int]:
    indexes = range(scope.length - 1, -1, -1) if backwards else range(scope.length)
    for index in indexes:
        scope.index = index
        ev.step(node)
        yield index


def truth(ev: Evaluator, node: n.Builtin, value: Any) -> bool:
    with ev.at(node):
        return as_bool(value)


def loop_all(ev: Evaluator, node: n.Builtin) -> Any:
    return _quantifier(ev, node, stop_on=False, result=True)


def loop_any(ev: Evaluator, node: n.Builtin) -> Any:
    return _quantifier(ev, node, stop_on=True, result=False)


def loop_none(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        return all(not truth(ev, node, ev.eval(node.args[1])) for _ in iterate(ev, node, scope))
    finally:
        ev.scopes.pop()


def _quantifier(ev: Evaluator, node: n.Builtin, stop_on: bool, result: bool) -> Any:
    scope = begin(ev, node)
    try:
        for _ in iterate(ev, node, scope):
            if truth(ev, node, ev.eval(node.args[1])) is stop_on:
                return stop_on
        return result
    finally:
        ev.scopes.pop()


def loop_one(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        for _ in iterate(ev, node, scope):
            if truth(ev, node, ev.eval(node.args[1])):
                scope.count += 1
        return scope.count == 1
    finally:
        ev.scopes.pop()


def pointer(ev: Evaluator, node: n.Node, scope: Scope) -> Any:
    with ev.at(node):
        return element(ev, scope)


def loop_filter(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        out = []
        for _ in iterate(ev, node, scope):
            if truth(ev, node, ev.eval(node.args[1])):
                scope.count += 1
                if node.map is not None:
                    out.append(ev.eval(node.map))
                else:
                    out.append(pointer(ev, node, scope))
        with ev.at(node):
            ev.grow(len(out))
        return out
    finally:
        ev.scopes.pop()


def loop_map(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        out = [ev.eval(node.args[1]) for _ in iterate(ev, node, scope)]
        with ev.at(node):
            ev.grow(len(out))
        return out
    finally:
        ev.scopes.pop()


def loop_count(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        for _ in iterate(ev, node, scope):
            value = ev.eval(node.args[1]) if len(node.args) == 2 else pointer(ev, node, scope)
            if truth(ev, node, value):
                scope.count += 1
        return scope.count
    finally:
        ev.scopes.pop()


def loop_sum(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        scope.acc = 0
        for _ in iterate(ev, node, scope):
            value = ev.eval(node.args[1]) if len(node.args) == 2 else pointer(ev, node, scope)
            with ev.at(node):
                scope.acc = add(value, scope.acc)
        return scope.acc
    finally:
        ev.scopes.pop()


def _find(ev: Evaluator, node: n.Builtin, backwards: bool, index: bool) -> Any:
    scope = begin(ev, node)
    try:
        for position in iterate(ev, node, scope, backwards):
            if truth(ev, node, ev.eval(node.args[1])):
                if index:
                    return position
                if node.map is not None:
                    return ev.eval(node.map)
                return pointer(ev, node, scope)
        if node.throws:
            with ev.at(node):
                raise GoPanic("reflect: slice index out of range")
        return None
    finally:
        ev.scopes.pop()


def loop_find(ev: Evaluator, node: n.Builtin) -> Any:
    return _find(ev, node, False, False)


def loop_find_index(ev: Evaluator, node: n.Builtin) -> Any:
    return _find(ev, node, False, True)


def loop_find_last(ev: Evaluator, node: n.Builtin) -> Any:
    return _find(ev, node, True, False)


def loop_find_last_index(ev: Evaluator, node: n.Builtin) -> Any:
    return _find(ev, node, True, True)


def loop_group_by(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        groups = GroupMap()
        kinds: set[str] = set()
        for _ in iterate(ev, node, scope):
            key = ev.eval(node.args[1])
            with ev.at(node):
                if isinstance(key, list | dict):
                    raise GoPanic(f"hash of unhashable type: {go_type(key)}")
                kinds.add(go_type(key))
                if len(kinds) > 1:
                    raise Unsupported(
                        "groupBy keys of different types", "group by string(...) of the key"
                    )
                groups.setdefault(key, []).append(element(ev, scope))
        return groups
    finally:
        ev.scopes.pop()


def loop_sort_by(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        order = ev.eval(node.args[2]) if len(node.args) == 3 else "asc"
        with ev.at(node):
            text = as_string(order)
            if text not in ("asc", "desc"):
                raise GoPanic("unknown order, use asc or desc")
        pairs = []
        for _ in iterate(ev, node, scope):
            value = ev.eval(node.args[1])
            with ev.at(node):
                pairs.append((value, element(ev, scope)))
        with ev.at(node):
            if text == "desc":
                ordered = go_sort(pairs, lambda a, b: compare("<", b[0], a[0]))
            else:
                ordered = go_sort(pairs, lambda a, b: compare("<", a[0], b[0]))
            ev.grow(scope.length)
        return [item for _, item in ordered]
    finally:
        ev.scopes.pop()


def loop_reduce(ev: Evaluator, node: n.Builtin) -> Any:
    scope = begin(ev, node)
    try:
        start = 0
        if len(node.args) == 3:
            scope.acc = ev.eval(node.args[2])
        else:
            with ev.at(node):
                scope.acc = element(ev, scope)
            start = 1
        for position in iterate(ev, node, scope):
            if position < start:
                continue
            scope.acc = ev.eval(node.args[1])
        return scope.acc
    finally:
        ev.scopes.pop()


LOOPS: dict[str, Callable[[Evaluator, n.Builtin], Any]] = {
    "all": loop_all, "any": loop_any, "none": loop_none, "one": loop_one,
    "filter": loop_filter, "map": loop_map, "count": loop_count, "sum": loop_sum,
    "find": loop_find, "findIndex": loop_find_index, "findLast": loop_find_last,
    "findLastIndex": loop_find_last_index, "groupBy": loop_group_by, "sortBy": loop_sort_by,
    "reduce": loop_reduce,
}  # fmt: skip
