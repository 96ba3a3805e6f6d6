"""A retry expression's text to a typed tree: expr-lang's lexer, parser and checker.

The tokens, the grammar and the static types of the subset :mod:`.exprlang` describes, with
expr's precedence (``||`` below ``&&`` below comparisons below ``+``/``-`` below unary
operators) and its compile-time type errors. Every variable is a string (``retries``) or a
value expr only types at run time (``lastRetry.*``), so what could fail on a type is refused
here, before the run, naming the expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.re2subset import PatternError as WhenError
from orchestrator.engine.re2subset import compile_re2 as _compile

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


def parse(text: str, known: frozenset[str]) -> Node:
    """The tree of ``text`` once parsed and type-checked (expr's checker);
    :class:`EngineError` names what a local run cannot do."""
    return _Parser(text, known).parse()
