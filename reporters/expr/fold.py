"""The parts of expr's optimizer (``optimizer/``, v1.17.7) that change what a program gives.

``expr.Compile`` optimizes by default, and some rewrites are visible: ``x and true`` becomes
``x`` (so a non-bool ``x`` is returned instead of failing), ``x or true`` is ``true`` without
evaluating ``x``, ``1 % 0`` is a compile error, ``x in ['a', 'b']`` looks ``x`` up in a set of
strings (so an integer ``x`` is an error, a nil one is ``""``), ``sum([a, b])`` is ``a + b``,
and ``filter(xs, p)[0]`` finds the first match or fails with reflect's message. Rewrites
that only make a program faster are left out.
"""

from __future__ import annotations

from collections.abc import Callable

from orchestrator.golang.durations import wrap64
from reporters.expr import nodes as n
from reporters.expr.errors import ExprSyntaxError, ExprUnsupported
from reporters.expr.operators import PowUnsupported, float_divide, go_pow


class StringSet(n.Node):
    """``map[string]struct{}`` that ``inArray`` puts on the right of ``in``."""

    def __init__(self, values: frozenset[str]) -> None:
        super().__init__()
        self.values = values


def walk(node: n.Node, visit: Callable[[n.Node], n.Node]) -> n.Node:
    """``ast.Walk``: children first, in Go's order, then the node; ``visit`` may replace it."""
    match node:
        case n.Unary() | n.Chain() | n.Predicate():
            node.node = walk(node.node, visit)
        case n.Binary():
            node.left = walk(node.left, visit)
            node.right = walk(node.right, visit)
        case n.Member():
            node.node = walk(node.node, visit)
            node.prop = walk(node.prop, visit)
        case n.Slice():
            node.node = walk(node.node, visit)
            if node.start is not None:
                node.start = walk(node.start, visit)
            if node.stop is not None:
                node.stop = walk(node.stop, visit)
        case n.Call():
            node.callee = walk(node.callee, visit)
            node.args = [walk(arg, visit) for arg in node.args]
        case n.Builtin():
            node.args = [walk(arg, visit) for arg in node.args]
        case n.Let():
            node.value = walk(node.value, visit)
            node.body = walk(node.body, visit)
        case n.Sequence() | n.Array():
            node.nodes = [walk(item, visit) for item in node.nodes]
        case n.Conditional():
            node.cond = walk(node.cond, visit)
            node.then = walk(node.then, visit)
            node.other = walk(node.other, visit)
        case n.Map():
            node.pairs = [walk(pair, visit) for pair in node.pairs]  # type: ignore[misc]
        case n.Pair():
            node.key = walk(node.key, visit)
            node.value = walk(node.value, visit)
    return visit(node)


def _patch(old: n.Node, new: n.Node) -> n.Node:
    new.loc = old.loc
    return new


def _in_array(node: n.Node) -> n.Node:
    if isinstance(node, n.Binary) and node.op == "in" and isinstance(node.right, n.Array):
        items = node.right.nodes
        if items and all(isinstance(item, n.String) for item in items):
            values = frozenset(item.value for item in items)  # type: ignore[attr-defined]
            return _patch(node, n.Binary("in", node.left, StringSet(values)))
    return node


class _Fold:
    def __init__(self, source: str) -> None:
        self.source = source
        self.applied = False

    def patch(self, old: n.Node, new: n.Node) -> n.Node:
        self.applied = True
        return _patch(old, new)

    def copy(self, old: n.Node, new: n.Node) -> n.Node:
        """``patchCopy``: the kept child takes the old node's place (and location)."""
        self.applied = True
        return _patch(old, new)

    def __call__(self, node: n.Node) -> n.Node:
        if isinstance(node, n.Unary):
            return self.unary(node)
        if isinstance(node, n.Binary):
            return self.binary(node)
        literals = n.Integer | n.Float | n.String | n.Bool
        if isinstance(node, n.Array) and all(isinstance(x, literals) for x in node.nodes):
            values = [x.value for x in node.nodes]  # type: ignore[attr-defined]
            if values:
                return self.patch(node, n.Constant(values))
        if isinstance(node, n.Builtin) and node.name == "filter" and len(node.args) == 2:
            base = node.args[0]
            if isinstance(base, n.Builtin) and base.name == "filter":
                first, second = base.args[1], node.args[1]
                assert isinstance(first, n.Predicate) and isinstance(second, n.Predicate)
                merged = n.Predicate(n.Binary("&&", first.node, second.node))
                return self.copy(node, n.Builtin("filter", [base.args[0], merged]))
        return node

    def unary(self, node: n.Unary) -> n.Node:
        inner = node.node
        if node.op in ("-", "+"):
            sign = -1 if node.op == "-" else 1
            if isinstance(inner, n.Integer):
                return self.patch(node, n.Integer(wrap64(sign * inner.value)))
            if isinstance(inner, n.Float):
                return self.patch(node, n.Float(sign * inner.value))
        if node.op in ("!", "not") and isinstance(inner, n.Bool):
            return self.patch(node, n.Bool(not inner.value))
        return node

    def binary(self, node: n.Binary) -> n.Node:
        op, left, right = node.op, node.left, node.right
        numbers = isinstance(left, n.Integer | n.Float) and isinstance(right, n.Integer | n.Float)
        ints = isinstance(left, n.Integer) and isinstance(right, n.Integer)
        if op in ("+", "-", "*") and numbers:
            a, b = left.value, right.value  # type: ignore[attr-defined]
            if ints:
                value = a + b if op == "+" else a - b if op == "-" else a * b
                return self.patch(node, n.Integer(wrap64(value)))
            x, y = float(a), float(b)
            return self.patch(node, n.Float(x + y if op == "+" else x - y if op == "-" else x * y))
        if op == "+" and isinstance(left, n.String) and isinstance(right, n.String):
            return self.patch(node, n.String(left.value + right.value))
        if op == "/" and numbers:
            value = float_divide(float(left.value), float(right.value))  # type: ignore[attr-defined]
            return self.patch(node, n.Float(value))
        if op == "%" and ints:
            assert isinstance(left, n.Integer) and isinstance(right, n.Integer)
            if right.value == 0:
                raise ExprSyntaxError("integer divide by zero", self.source, node.loc)
            remainder = abs(left.value) % abs(right.value)
            return self.patch(node, n.Integer(-remainder if left.value < 0 else remainder))
        if op in ("**", "^") and numbers:
            try:
                value = go_pow(float(left.value), float(right.value))  # type: ignore[attr-defined]
            except PowUnsupported as exc:
                raise ExprUnsupported(
                    "a power with a fractional exponent", self.source, node.loc, exc.hint
                ) from None
            return self.patch(node, n.Float(value))
        if op in ("and", "&&", "or", "||"):
            a = left.value if isinstance(left, n.Bool) else None
            b = right.value if isinstance(right, n.Bool) else None
            conjunction = op in ("and", "&&")
            if a is conjunction:
                return self.copy(node, right)
            if b is conjunction:
                return self.copy(node, left)
            if a is (not conjunction) or b is (not conjunction):
                return self.patch(node, n.Bool(not conjunction))
        if op == "==":
            for kind in (n.Integer, n.String, n.Bool):
                if isinstance(left, kind) and isinstance(right, kind):
                    same = left.value == right.value
                    return self.patch(node, n.Bool(same))
        return node


def _rewrites(node: n.Node) -> n.Node:
    """``filterFirst`` (``filter(..)[0]`` and ``first(filter(..))``) and ``sumArray``."""
    if isinstance(node, n.Member) and not node.optional and isinstance(node.prop, n.Integer):
        base = node.node
        if (
            node.prop.value == 0
            and isinstance(base, n.Builtin)
            and base.name == "filter"
            and len(base.args) == 2
        ):
            return _patch(node, n.Builtin("find", base.args, throws=True, map=base.map))
    if isinstance(node, n.Builtin) and node.name == "first" and len(node.args) == 1:
        base = node.args[0]
        if isinstance(base, n.Builtin) and base.name == "filter" and len(base.args) == 2:
            return _patch(node, n.Builtin("find", base.args, map=base.map))
    if isinstance(node, n.Builtin) and node.name == "sum" and len(node.args) == 1:
        array = node.args[0]
        if isinstance(array, n.Array) and len(array.nodes) >= 2:
            return _patch(node, _sum(array.nodes))
    return node


def _sum(items: list[n.Node]) -> n.Node:
    if len(items) == 2:
        return n.Binary("+", items[0], items[1])
    return n.Binary("+", items[0], _sum(items[1:]))


def optimize(root: n.Node, source: str) -> n.Node:
    root = walk(root, _in_array)
    for _ in range(1001):
        fold = _Fold(source)
        root = walk(root, fold)
        if not fold.applied:
            break
    return walk(root, _rewrites)


__all__ = ["StringSet", "optimize", "walk"]
