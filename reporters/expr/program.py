"""Compiling and running conditions: the public face of :mod:`reporters.expr`.

``compile`` does what ``expr.Compile(text)`` does in notifications-engine (parse, check
without an environment, optimize); ``Program.run`` what ``expr.Run(program, vars)`` does.
``Program.names`` lists every variable path and function a condition uses, with its
position, so that a configuration can be checked for names Argo CD would not provide before
anything runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.golang.gotime import Time
from reporters.expr import nodes as n
from reporters.expr.builtins import system_clock
from reporters.expr.checker import check
from reporters.expr.errors import (
    ExprRuntimeError,
    ExprSyntaxError,
    ExprUnsupported,
    Location,
    bind,
)
from reporters.expr.evaluator import Evaluator, Limits
from reporters.expr.fold import optimize
from reporters.expr.parser import parse
from reporters.expr.values import go_format


@dataclass(frozen=True)
class Name:
    """A name a condition reads: ``app.status.health.status`` (``kind`` "variable"), a
    function it calls (``time.Parse``, "function") or a builtin (``len``, "builtin")."""

    path: str
    kind: str
    line: int
    column: int
    """1-based, as expr prints positions."""


@dataclass(frozen=True)
class Program:
    """A compiled condition."""

    source: str
    tree: n.Node
    syntax: n.Node
    """The tree as parsed, before folding (what :meth:`names` reads)."""

    def run(
        self,
        env: Mapping[str, Any],
        limits: Limits = Limits(),
        clock: Callable[[], Time] = system_clock,
    ) -> Any:
        """The condition's value for ``env``; :class:`ExprRuntimeError` as expr.Run fails,
        :class:`BudgetExceeded` past ``limits``, :class:`ExprUnsupported` for what this
        implementation refuses to guess. ``clock`` stands for ``time.Now`` in ``now()``."""
        return Evaluator(self.source, env, limits, clock).run(self.tree)

    def triggered(self, env: Mapping[str, Any], limits: Limits = Limits()) -> bool:
        """notifications-engine's reading of a ``when``: true only for a bool true."""
        return self.run(env, limits) is True

    def once_per(self, env: Mapping[str, Any], limits: Limits = Limits()) -> str:
        """An ``oncePer`` key: ``fmt.Sprintf("%v", value)`` of the result, as notifications-engine
        keys it (``""`` when the expression fails, which it only logs)."""
        try:
            return go_format(self.run(env, limits))
        except ExprRuntimeError:
            return ""

    def names(self) -> Iterator[Name]:
        yield from _names(self.source, self.syntax, set())


def compile(text: str) -> Program:
    """``expr.Compile(text)`` as notifications-engine calls it (an empty ``when`` is
    ``false``); :class:`ExprSyntaxError` with expr's message and position when it fails."""
    source = text if text else "false"
    try:
        syntax = parse(source)
        check(syntax, source)
        # The optimizer rewrites the tree in place; names() reads the text as written.
        tree = optimize(parse(source), source)
    except RecursionError:
        raise ExprUnsupported(
            "expression nested too deeply", source, Location(0, 0), "split the condition"
        ) from None
    return Program(source, tree, syntax)


def _path(node: n.Node) -> list[str] | None:
    """``app.status.sync`` as ["app", "status", "sync"]; None when not a plain path."""
    if isinstance(node, n.Identifier):
        return [node.name]
    if isinstance(node, n.Chain):
        return _path(node.node)
    if isinstance(node, n.Member):
        base = _path(node.node)
        if base is None:
            return None
        if isinstance(node.prop, n.String):
            return [*base, node.prop.value]
        if isinstance(node.prop, n.Integer):
            return [*base, f"[{node.prop.value}]"]
        return base
    return None


def _text(parts: list[str]) -> str:
    out = parts[0]
    for part in parts[1:]:
        out += part if part.startswith("[") else "." + part
    return out


def _names(source: str, node: n.Node, local: set[str]) -> Iterator[Name]:
    def name(path: str, kind: str, at: n.Node) -> Name:
        line, column, _ = bind(source, at.loc.start)
        return Name(path, kind, line, column + 1)

    if isinstance(node, n.Let):
        yield from _names(source, node.value, local)
        yield from _names(source, node.body, local | {node.name})
        return
    if isinstance(node, n.Builtin):
        yield name(node.name, "builtin", node)
        for arg in node.args:
            yield from _names(source, arg, local)
        return
    if isinstance(node, n.Call):
        path = _path(node.callee)
        if path is not None and path[0] not in local:
            yield name(_text(path), "function", _root(node.callee))
            for arg in node.args:
                yield from _names(source, arg, local)
            return
        if isinstance(node.callee, n.Member):
            yield from _names(source, node.callee.node, local)
        for arg in node.args:
            yield from _names(source, arg, local)
        return
    if isinstance(node, n.Member | n.Chain | n.Identifier):
        path = _path(node)
        if path is not None:
            if path[0] not in local and path[0] not in ("$env",):
                yield name(_text(path), "variable", _root(node))
            if isinstance(node, n.Member) and not isinstance(node.prop, n.String | n.Integer):
                yield from _names(source, node.prop, local)
            return
    for child in n.children(node):
        yield from _names(source, child, local)


def _root(node: n.Node) -> n.Node:
    while isinstance(node, n.Member | n.Chain):
        node = node.node
    return node


__all__ = ["ExprSyntaxError", "Name", "Program", "compile"]
