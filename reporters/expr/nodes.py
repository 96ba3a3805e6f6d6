"""The syntax tree of expr programs, shaped as expr's ``ast`` package so that the parser,
the constant folding and the evaluator can follow the Go code node for node.

Each node keeps its rune span (:class:`Location`): expr reports compile errors at the node
the checker rejects and run-time errors at the instruction that failed, and both point back
to these spans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reporters.expr.errors import Location

NOWHERE = Location(0, 0)


@dataclass(eq=False)
class Node:
    loc: Location = field(default=NOWHERE, kw_only=True)


@dataclass(eq=False)
class Nil(Node):
    pass


@dataclass(eq=False)
class Identifier(Node):
    name: str


@dataclass(eq=False)
class Integer(Node):
    value: int


@dataclass(eq=False)
class Float(Node):
    value: float


@dataclass(eq=False)
class Bool(Node):
    value: bool


@dataclass(eq=False)
class String(Node):
    value: str


@dataclass(eq=False)
class Constant(Node):
    """A folded literal array (``[1, 'a']``): its value is built once."""

    value: Any


@dataclass(eq=False)
class Unary(Node):
    op: str
    node: Node


@dataclass(eq=False)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(eq=False)
class Chain(Node):
    """The extent of a ``?.`` chain: a nil anywhere in it makes the whole chain nil."""

    node: Node


@dataclass(eq=False)
class Member(Node):
    node: Node
    prop: Node
    optional: bool = False
    method: bool = False


@dataclass(eq=False)
class Slice(Node):
    node: Node
    start: Node | None
    stop: Node | None


@dataclass(eq=False)
class Call(Node):
    callee: Node
    args: list[Node]


@dataclass(eq=False)
class Builtin(Node):
    name: str
    args: list[Node]
    throws: bool = False
    map: Node | None = None


@dataclass(eq=False)
class Predicate(Node):
    node: Node


@dataclass(eq=False)
class Pointer(Node):
    name: str


@dataclass(eq=False)
class Conditional(Node):
    cond: Node
    then: Node
    other: Node
    ternary: bool = True


@dataclass(eq=False)
class Let(Node):
    name: str
    value: Node
    body: Node


@dataclass(eq=False)
class Sequence(Node):
    nodes: list[Node]


@dataclass(eq=False)
class Array(Node):
    nodes: list[Node]


@dataclass(eq=False)
class Pair(Node):
    key: Node
    value: Node


@dataclass(eq=False)
class Map(Node):
    pairs: list[Pair]


def children(node: Node) -> list[Node]:
    """The direct children, in source order."""
    out: list[Node | None]
    match node:
        case Unary(node=inner) | Chain(node=inner) | Predicate(node=inner):
            out = [inner]
        case Binary(left=left, right=right):
            out = [left, right]
        case Member(node=inner, prop=prop):
            out = [inner, prop]
        case Slice(node=inner, start=start, stop=stop):
            out = [inner, start, stop]
        case Call(callee=callee, args=args):
            out = [callee, *args]
        case Builtin(args=args, map=mapped):
            out = [*args, mapped]
        case Conditional(cond=cond, then=then, other=other):
            out = [cond, then, other]
        case Let(value=value, body=body):
            out = [value, body]
        case Sequence(nodes=nodes) | Array(nodes=nodes):
            out = list(nodes)
        case Map(pairs=pairs):
            out = list(pairs)
        case Pair(key=key, value=value):
            out = [key, value]
        case _:
            out = []
    return [child for child in out if child is not None]
