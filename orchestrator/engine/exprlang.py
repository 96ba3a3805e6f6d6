"""``retryStrategy.expression``: the part of expr-lang that a local run evaluates exactly.

Argo evaluates the expression after each failed attempt (``processNodeRetries`` in
``workflow/controller/operator.go``) with ``argoexpr.EvalBool`` (``util/expr/argoexpr``) over
``env.GetFuncMap`` (``util/expr/env``) of ``buildRetryStrategyLocalScope``: ``retries`` and
``lastRetry.exitCode``/``status``/``duration``/``message``, all strings, plus ``asInt`` and
``asFloat`` (expr's ``int``/``float`` builtins). The library is expr-lang v1.17.7.

This module accepts a subset of that language and gives it expr's semantics:

* literals: integers, floats, ``"..."``/``'...'`` strings, ``true``/``false``; ``[a, b]`` lists
  on the right of ``in``;
* ``! not && and || or``, ``== != < <= > >=``, ``+ -``, ``in``, ``matches``, ``contains``,
  ``startsWith``, ``endsWith``, parentheses;
* ``asInt``/``int`` (``strconv.Atoi`` on strings: ``" 7"`` and ``"1.5"`` are errors),
  ``asFloat``/``float`` (``strconv.ParseFloat``), ``string``, ``len``.

``==`` is false between different types (``lastRetry.exitCode == 75`` is false: a string is
not a number) but compares ints and floats by value; ordering and arithmetic need matching
types. Types are checked before the run: every variable is a string, so an expression that
could fail on a type at some point is refused up front, where Argo would end the node in
``Error`` (or, inside a short-circuited branch, not at all). What remains for run time are
value errors (``asInt("abc")``), which Argo reports the same way. Anything outside the
subset is refused with the expression in the message.

:mod:`.exprparse` reads and type-checks the text, this module folds its constants (as expr's
optimizer does) and :mod:`.expreval` evaluates what is left after each failed attempt.
"""

from __future__ import annotations

from typing import Any

from orchestrator.engine.expreval import Expression
from orchestrator.engine.exprparse import Node, parse

RETRY_VARIABLES = frozenset(
    {
        "retries",
        "lastRetry.exitCode",
        "lastRetry.status",
        "lastRetry.duration",
        "lastRetry.message",
    }
)
"""``buildRetryStrategyLocalScope`` (operator.go): every one of them is a string."""


def _variables(node: Node) -> set[str]:
    if node.op == "var":
        return {node.args[0]}
    names: set[str] = set()
    for arg in node.args:
        if isinstance(arg, Node):
            names |= _variables(arg)
    return names


def _literal(node: Node, *types: type) -> Any:
    if node.op == "lit" and type(node.args[0]) in types:
        return node.args[0]
    return None


def _fold_once(node: Node) -> Node:
    """One bottom-up pass of expr's constant folding (``optimizer/fold.go``)."""
    if node.op in ("lit", "var"):
        return node
    args = tuple(_fold_once(a) if isinstance(a, Node) else a for a in node.args)
    node = Node(node.op, args, node.type)
    if node.op in ("neg", "pos") and _literal(args[0], int, float) is not None:
        value = _literal(args[0], int, float)
        return Node("lit", (-value if node.op == "neg" else value,), node.type)
    if node.op == "!" and _literal(args[0], bool) is not None:
        return Node("lit", (not args[0].args[0],), "bool")
    if node.op in ("&&", "||"):
        left, right = _literal(args[0], bool), _literal(args[1], bool)
        absorbing = node.op == "||"  # true absorbs ||, false absorbs &&
        if left is not None and left is not absorbing:
            return args[1]
        if right is not None and right is not absorbing:
            return args[0]
        if left is absorbing or right is absorbing:
            return Node("lit", (absorbing,), "bool")
    if node.op == "==":
        for kinds in ((int,), (str,), (bool,)):
            left, right = _literal(args[0], *kinds), _literal(args[1], *kinds)
            if left is not None and right is not None:
                return Node("lit", (left == right,), "bool")
    if node.op in ("+", "-"):
        left, right = _literal(args[0], int, float), _literal(args[1], int, float)
        if left is not None and right is not None:
            return Node("lit", (left + right if node.op == "+" else left - right,), node.type)
        left, right = _literal(args[0], str), _literal(args[1], str)
        if node.op == "+" and left is not None and right is not None:
            return Node("lit", (left + right,), "str")
    return node


def _fold(node: Node) -> Node:
    for _ in range(1000):
        folded = _fold_once(node)
        if folded == node:
            break
        node = folded
    return node


def parse_expression(text: str, known: frozenset[str] = RETRY_VARIABLES) -> Expression:
    """Parse and type-check (expr's checker), then fold constants (its optimizer);
    :class:`EngineError` names what a local run cannot do."""
    root = parse(text, known)
    return Expression(text, frozenset(_variables(root)), _fold(root))
