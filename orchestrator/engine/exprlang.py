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
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.gotext import go_value_text
from orchestrator.engine.re2subset import PatternError as WhenError
from orchestrator.engine.re2subset import compile_re2 as _compile

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

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
    | (?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\],+-])
    )""",
    re.VERBOSE,
)
_WORD_OPERATORS = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "in": "in",
    "matches": "matches",
    "contains": "contains",
    "startsWith": "startsWith",
    "endsWith": "endsWith",
}
_COMPARISONS = frozenset(
    {"==", "!=", "<", "<=", ">", ">=", "in", "matches", "contains", "startsWith", "endsWith"}
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
FUNCTIONS = {
    "asInt": "int",
    "int": "int",
    "asFloat": "float",
    "float": "float",
    "string": "str",
    "len": "int",
}
_ATOI = re.compile(r"[+-]?[0-9]+")
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_GO_FLOAT = re.compile(
    rf"[+-]?(?:(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
    r"|inf|infinity|nan)",
    re.IGNORECASE,
)


class ExprError(EngineError):
    """The expression failed while evaluating (Argo marks the node ``Error``)."""


@dataclass(frozen=True)
class Node:
    op: str
    args: tuple[Any, ...]
    type: str
    """Static type: ``bool``, ``int``, ``float``, ``str``, ``list``, or ``any`` (a value
    expr only types at run time: ``lastRetry.*``, a string then)."""


class _Parser:
    def __init__(self, text: str, known: frozenset[str]) -> None:
        self.text = text
        self.known = known
        self.tokens = self._tokens()
        self.pos = 0

    def fail(self, what: str) -> EngineError:
        return EngineError(f"cannot evaluate {self.text!r}: {what}")

    def _tokens(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        pos, end = 0, len(self.text.rstrip())
        while pos < end:
            match = _TOKEN.match(self.text, pos)
            if match is None or match.end() == pos:
                rest = self.text[pos:].strip()
                raise self.fail(f"unsupported syntax at {rest!r} in a local run")
            pos = match.end()
            if match.group("num"):
                raw = match.group("num")
                if raw[:2].lower() == "0x":
                    out.append(("lit", int(raw, 16)))
                elif any(c in raw for c in ".eE"):
                    out.append(("lit", float(raw)))
                else:
                    out.append(("lit", int(raw)))
            elif match.group("str"):
                out.append(("lit", self._unquote(match.group("str"))))
            elif match.group("name"):
                name = match.group("name")
                if name in ("true", "false"):
                    out.append(("lit", name == "true"))
                elif name in _WORD_OPERATORS:
                    out.append(("op", _WORD_OPERATORS[name]))
                else:
                    out.append(("name", name))
            else:
                out.append(("op", match.group("op")))
        return out

    def _unquote(self, quoted: str) -> str:
        body, out, i = quoted[1:-1], [], 0
        while i < len(body):
            if body[i] == "\\":
                escaped = body[i + 1 : i + 2]
                if escaped not in _ESCAPES:
                    raise self.fail(f"unsupported escape \\{escaped} in a local run")
                out.append(_ESCAPES[escaped])
                i += 2
            else:
                out.append(body[i])
                i += 1
        return "".join(out)

    def peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, *ops: str) -> str | None:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] in ops:
            self.pos += 1
            return str(token[1])
        return None

    def parse(self) -> Node:
        if not self.tokens:
            raise self.fail("empty expression")
        node = self.disjunction()
        if self.pos != len(self.tokens):
            raise self.fail(f"unexpected {self.tokens[self.pos][1]!r}")
        if node.type != "bool":
            raise self.fail(f"the result is a {node.type}, not true or false")
        return node

    def logical(self, op: str, left: Node, right: Node) -> Node:
        for side in (left, right):
            if side.type != "bool":
                raise self.fail(f"{op} needs true or false on both sides, not a {side.type}")
        return Node(op, (left, right), "bool")

    def disjunction(self) -> Node:
        node = self.conjunction()
        while self.take("||"):
            node = self.logical("||", node, self.conjunction())
        return node

    def conjunction(self) -> Node:
        node = self.comparison()
        while self.take("&&"):
            node = self.logical("&&", node, self.comparison())
        return node

    def comparison(self) -> Node:
        left = self.additive()
        op = self.take(*_COMPARISONS)
        if op is None:
            return left
        right = self.list_literal() if op == "in" else self.additive()
        if self.take(*_COMPARISONS):
            raise self.fail("chained comparisons are not supported in a local run")
        return Node(op, (left, right), self.compare_type(op, left, right))

    def compare_type(self, op: str, left: Node, right: Node) -> str:
        numbers = {"int", "float"}
        types = {left.type, right.type}
        if op == "in":
            items = [item.type for item in right.args]
            if left.type != "any" and any(
                t != "any" and t != left.type and not {t, left.type} <= numbers for t in items
            ):
                raise self.fail(f"cannot use {left.type} as the type of the list items")
            return "bool"
        if op in ("==", "!="):
            # expr compares untyped values at run time (different types: not equal) but
            # refuses two known, different types when compiling
            if "any" in types or types <= numbers or left.type == right.type:
                return "bool"
            raise self.fail(
                f"invalid operation: {op} (mismatched types {left.type} and {right.type})"
            )
        if op in ("<", "<=", ">", ">="):
            if types <= numbers or types <= {"str", "any"}:
                return "bool"
            raise self.fail(f"invalid operation: {left.type} {op} {right.type}")
        if not types <= {"str", "any"}:
            raise self.fail(f"{op} needs two strings, not {left.type} and {right.type}")
        if op == "matches" and right.op == "lit":
            try:
                _compile(right.args[0])
            except WhenError as exc:
                raise self.fail(str(exc)) from None
        return "bool"

    def list_literal(self) -> Node:
        if not self.take("["):
            raise self.fail("in needs a [list] in a local run")
        items: list[Node] = []
        if not self.take("]"):
            while True:
                items.append(self.additive())
                if self.take("]"):
                    break
                if not self.take(","):
                    raise self.fail("missing ',' or ']' in a list")
        return Node("list", tuple(items), "list")

    def additive(self) -> Node:
        node = self.unary()
        while True:
            op = self.take("+", "-")
            if op is None:
                return node
            right = self.unary()
            numbers = {"int", "float"}
            if {node.type, right.type} <= numbers:
                kind = "int" if node.type == right.type == "int" else "float"
            elif op == "+" and {node.type, right.type} <= {"str", "any"}:
                kind = "str"
            else:
                raise self.fail(f"invalid operation: {node.type} {op} {right.type}")
            node = Node(op, (node, right), kind)

    def unary(self) -> Node:
        """expr's unary operators bind tighter than any binary one this subset has
        (``!``/``not``: 50, ``-``/``+``: 90; ``+``/``-`` binary: 30): ``!a == b`` is
        ``(!a) == b``."""
        op = self.take("!", "-", "+")
        if op is None:
            return self.primary()
        operand = self.unary()
        if op == "!":
            if operand.type != "bool":
                raise self.fail(f"! needs true or false, not a {operand.type}")
            return Node("!", (operand,), "bool")
        if operand.type not in ("int", "float"):
            raise self.fail(f"unary {op} needs a number, not a {operand.type}")
        return Node("neg" if op == "-" else "pos", (operand,), operand.type)

    def primary(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.fail("expression ends too early")
        self.pos += 1
        kind, value = token
        if kind == "op" and value == "(":
            node = self.disjunction()
            if not self.take(")"):
                raise self.fail("missing ')'")
            return node
        if kind == "op":
            raise self.fail(f"unexpected {value!r}")
        if kind == "lit":
            type_ = {bool: "bool", int: "int", float: "float", str: "str"}[type(value)]
            return Node("lit", (value,), type_)
        name = str(value)
        if self.take("("):
            if name not in FUNCTIONS:
                known = ", ".join(FUNCTIONS)
                raise self.fail(f"function {name}() is not supported locally (use {known})")
            argument = self.disjunction()
            if not self.take(")"):
                raise self.fail(f"{name}() takes one argument")
            if argument.type == "bool" and FUNCTIONS[name] in ("int", "float"):
                raise self.fail(f"invalid operation: {name}(bool)")
            if name == "len" and argument.type not in ("str", "list", "any"):
                raise self.fail(f"invalid argument for len ({argument.type})")
            return Node("call", (name, argument), FUNCTIONS[name])
        if name not in self.known:
            available = ", ".join(sorted(self.known))
            raise self.fail(f"unknown variable {name} (available: {available})")
        # expr knows the top-level ``retries`` is a string; ``lastRetry`` is a nested map whose
        # fields it only sees at run time (they are strings then too)
        return Node("var", (name,), "str" if name == "retries" else "any")


def _as_int(value: Any) -> int:
    """expr's ``int()``: ``strconv.Atoi`` for strings, truncation for floats."""
    if isinstance(value, bool):
        raise ExprError(f"invalid operation: int({go_value_text(value)})")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if not _ATOI.fullmatch(value):
        raise ExprError(f"invalid operation: int({value})")
    return int(value)


def _as_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ExprError(f"invalid operation: float({go_value_text(value)})")
    if isinstance(value, int | float):
        return float(value)
    if not _GO_FLOAT.fullmatch(value):
        raise ExprError(f"invalid operation: float({value})")
    return float(value.replace("_", ""))


def _string(value: Any) -> str:
    if isinstance(value, bool | float):
        return go_value_text(value)
    return str(value)


def _equal(left: Any, right: Any) -> bool:
    """expr's ``runtime.Equal``: numbers by value, everything else by type and value."""
    numbers = (int, float)
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, numbers) and isinstance(right, numbers):
        return bool(left == right)
    return type(left) is type(right) and bool(left == right)


@dataclass(frozen=True)
class Expression:
    """A parsed retry expression; ``variables`` are the names it reads."""

    text: str
    variables: frozenset[str]
    _root: Node

    def evaluate(self, scope: Mapping[str, str]) -> bool:
        """True or False; :class:`ExprError` when a value cannot be converted."""
        return bool(self._value(self._root, scope))

    def _value(self, node: Node, scope: Mapping[str, str]) -> Any:
        op, args = node.op, node.args
        if op == "lit":
            return args[0]
        if op == "var":
            return scope[args[0]]
        if op == "list":
            return [self._value(item, scope) for item in args]
        if op == "call":
            value = self._value(args[1], scope)
            if args[0] in ("asInt", "int"):
                return _as_int(value)
            if args[0] in ("asFloat", "float"):
                return _as_float(value)
            if args[0] == "len":
                return len(value)
            return _string(value)
        if op == "!":
            return not self._value(args[0], scope)
        if op in ("neg", "pos"):
            value = self._value(args[0], scope)
            return -value if op == "neg" else value
        if op == "&&":
            return bool(self._value(args[0], scope)) and bool(self._value(args[1], scope))
        if op == "||":
            return bool(self._value(args[0], scope)) or bool(self._value(args[1], scope))
        left, right = self._value(args[0], scope), self._value(args[1], scope)
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "==":
            return _equal(left, right)
        if op == "!=":
            return not _equal(left, right)
        if op == "in":
            return any(_equal(left, item) for item in right)
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        if op == ">=":
            return left >= right
        if op == "matches":
            try:
                return _compile(right).search(left) is not None
            except WhenError as exc:
                raise ExprError(str(exc)) from None
        if op == "contains":
            return right in left
        if op == "startsWith":
            return bool(left.startswith(right))
        return bool(left.endswith(right))


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
    root = _Parser(text, known).parse()
    return Expression(text, frozenset(_variables(root)), _fold(root))
