"""What a template reads and calls, found without running it.

A configuration loader wants to flag ``.app.spec.sourc.repoURL`` or an unknown function
when the ConfigMap is read, not when the first notification fails. Walking the tree while
tracking what dot, ``$`` and each variable stand for (``with`` moves dot, ``range`` makes it
an element, written ``[]``; ``{{template "x" .app}}`` gives ``x`` its dot) yields every
field path whose root is statically known, and every function name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from reporters.gotemplate.nodes import (
    ActionNode,
    BranchNode,
    ChainNode,
    CommandNode,
    DotNode,
    FieldNode,
    IdentifierNode,
    ListNode,
    Node,
    PipeNode,
    RangeNode,
    TemplateNode,
    VariableNode,
    WithNode,
)

MAX_TEMPLATE_DEPTH = 20


@dataclass(frozen=True)
class Reference:
    """A field path (``kind="field"``, e.g. ``.app.spec.source.repoURL``) or a function
    name (``kind="function"``), with where it is (line, 1-based byte column, offset)."""

    kind: str
    path: str
    line: int
    column: int
    pos: int


Scope = dict[str, str | None]


def _join(base: str | None, fields: list[str]) -> str | None:
    if base is None:
        return None
    return (base if base != "." else "") + "".join("." + f for f in fields)


class _Walker:
    def __init__(self, trees: Mapping[str, ListNode]) -> None:
        self.trees = trees
        self.found: list[Reference] = []
        self.called: set[str] = set()

    def ref(self, kind: str, path: str, pos: int) -> None:
        self.found.append(Reference(kind, path, 0, 0, pos))

    def walk(self, node: Node, dot: str | None, scope: Scope, depth: int) -> None:
        if isinstance(node, ListNode):
            for n in node.nodes:
                self.walk(n, dot, scope, depth)
        elif isinstance(node, ActionNode):
            self.pipe(node.pipe, dot, scope)
        elif isinstance(node, BranchNode):
            inner = dict(scope)
            value = self.pipe(node.pipe, dot, inner)
            body_dot = dot
            if isinstance(node, WithNode):
                body_dot = value
            elif isinstance(node, RangeNode):
                elem = None if value is None else value + "[]"
                body_dot = elem
                decl = node.pipe.decl
                if len(decl) == 2:
                    inner[decl[0].ident[0]] = None
                    inner[decl[1].ident[0]] = elem
                elif len(decl) == 1:
                    inner[decl[0].ident[0]] = elem
            self.walk(node.list, body_dot, inner, depth)
            if node.else_list is not None:
                self.walk(node.else_list, dot, dict(scope), depth)
        elif isinstance(node, TemplateNode):
            value = self.pipe(node.pipe, dot, scope) if node.pipe is not None else None
            self.called.add(node.name)
            tree = self.trees.get(node.name)
            if tree is not None and depth < MAX_TEMPLATE_DEPTH:
                self.walk(tree, value, {"$": value}, depth + 1)

    def pipe(self, pipe: PipeNode, dot: str | None, scope: Scope) -> str | None:
        value: str | None = None
        for i, cmd in enumerate(pipe.cmds):
            value = self.command(cmd, dot, scope)
            if i > 0:
                value = None if len(cmd.args) > 1 or not _is_path(cmd.args[0]) else value
        for var in pipe.decl:
            scope[var.ident[0]] = value
        return value

    def command(self, cmd: CommandNode, dot: str | None, scope: Scope) -> str | None:
        results = [self.operand(arg, dot, scope) for arg in cmd.args]
        if len(cmd.args) == 1:
            return results[0]
        return None

    def operand(self, node: Node, dot: str | None, scope: Scope) -> str | None:
        if isinstance(node, FieldNode):
            path = _join(dot, node.ident)
            if path is not None:
                self.ref("field", path, node.start if node.start >= 0 else node.pos)
            return path
        if isinstance(node, VariableNode):
            base = scope.get(node.ident[0])
            if len(node.ident) == 1:
                return base
            path = _join(base, node.ident[1:])
            if path is not None:
                self.ref("field", path, node.start if node.start >= 0 else node.pos)
            return path
        if isinstance(node, DotNode):
            return dot
        if isinstance(node, IdentifierNode):
            self.ref("function", node.ident, node.pos)
            return None
        if isinstance(node, PipeNode):
            return self.pipe(node, dot, dict(scope))
        if isinstance(node, ChainNode):
            base = self.operand(node.node, dot, scope)
            path = _join(base, node.fields)
            if path is not None:
                self.ref("field", path, node.pos)
            return path
        return None


def _is_path(node: Node) -> bool:
    return isinstance(node, FieldNode | VariableNode | DotNode | ChainNode)


def collect_references(trees: Mapping[str, ListNode], name: str) -> Iterator[Reference]:
    """References of the template ``name`` and of every template it defines."""
    walker = _Walker(trees)
    root = trees.get(name)
    if root is not None:
        walker.walk(root, ".", {"$": "."}, 0)
    for other, tree in trees.items():
        if other != name and other not in walker.called:
            walker.walk(tree, None, {"$": None}, 1)
    seen: set[tuple[str, str, int]] = set()
    for ref in sorted(walker.found, key=lambda r: r.pos):
        key = (ref.kind, ref.path, ref.pos)
        if key not in seen:
            seen.add(key)
            yield ref
