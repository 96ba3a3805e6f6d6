"""A small, safe evaluator for the two condition languages a workflow carries.

``when`` is evaluated by Argo with govaluate after ``{{...}}`` substitution, and every word
that is not a number, ``true`` or ``false`` is taken as a string, so ``YES == YES`` holds.
``retryStrategy.expression`` is expr-lang with variables (``lastRetry.status``) and helper
functions (``asInt``). Both share one grammar here; the mode decides what a bare word is.
Nothing is handed to Python's ``eval``: the parser builds a tree of the few supported forms
and refuses anything else with the expression in the message.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.errors import EngineError

Value = str | float | bool

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<op>&&|\|\||==|!=|<=|>=|=~|!~|[<>!(),])
    | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<num>-?\d+(?:\.\d+)?(?![\w.:/-]))
    | (?P<word>[\w][\w.:/-]*)
    )""",
    re.VERBOSE,
)
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "=~", "!~")
_KEYWORDS = {"and": "&&", "or": "||", "not": "!"}
_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _as_int(value: Value) -> float:
    try:
        return float(int(str(value).strip()))
    except ValueError:
        raise EngineError(f"asInt: {value!r} is not an integer") from None


def _as_float(value: Value) -> float:
    try:
        return float(str(value).strip())
    except ValueError:
        raise EngineError(f"asFloat: {value!r} is not a number") from None


def _string(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return _format_number(value) if isinstance(value, float) else value


def _format_number(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


FUNCTIONS: dict[str, Callable[[Value], Value]] = {
    "asInt": _as_int,
    "asFloat": _as_float,
    "string": _string,
}


@dataclass(frozen=True)
class _Literal:
    value: Value


@dataclass(frozen=True)
class _Variable:
    name: str


@dataclass(frozen=True)
class _Call:
    function: str
    argument: _Node


@dataclass(frozen=True)
class _Unary:
    operand: _Node


@dataclass(frozen=True)
class _Binary:
    op: str
    left: _Node
    right: _Node


_Node = _Literal | _Variable | _Call | _Unary | _Binary


def _unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _tokens(text: str, variables: bool) -> list[tuple[str, Value]]:
    """(kind, value) pairs: kind is op, lit or var."""
    out: list[tuple[str, Value]] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None:
            raise EngineError(f"cannot evaluate {text!r}: unexpected text at {text[pos:]!r}")
        pos = match.end()
        if match.group("op"):
            out.append(("op", match.group("op")))
        elif match.group("str"):
            out.append(("lit", _unquote(match.group("str"))))
        elif match.group("num"):
            out.append(("lit", float(match.group("num"))))
        else:
            word = match.group("word")
            if word in ("true", "false"):
                out.append(("lit", word == "true"))
            elif variables and word in _KEYWORDS:
                out.append(("op", _KEYWORDS[word]))
            else:
                out.append(("var" if variables else "lit", word))
    return out


class _Parser:
    def __init__(self, text: str, variables: bool) -> None:
        self.text = text
        self.tokens = _tokens(text, variables)
        self.pos = 0

    def fail(self, what: str) -> EngineError:
        return EngineError(f"cannot evaluate {self.text!r}: {what}")

    def peek(self) -> tuple[str, Value] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take_op(self, *ops: str) -> str | None:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] in ops:
            self.pos += 1
            return str(token[1])
        return None

    def parse(self) -> _Node:
        if not self.tokens:
            raise self.fail("empty expression")
        node = self.disjunction()
        if self.pos != len(self.tokens):
            raise self.fail(f"unexpected {self.tokens[self.pos][1]!r}")
        return node

    def disjunction(self) -> _Node:
        node = self.conjunction()
        while self.take_op("||"):
            node = _Binary("||", node, self.conjunction())
        return node

    def conjunction(self) -> _Node:
        node = self.comparison()
        while self.take_op("&&"):
            node = _Binary("&&", node, self.comparison())
        return node

    def comparison(self) -> _Node:
        node = self.unary()
        op = self.take_op(*_COMPARISONS)
        return _Binary(op, node, self.unary()) if op else node

    def unary(self) -> _Node:
        if self.take_op("!"):
            return _Unary(self.unary())
        return self.primary()

    def primary(self) -> _Node:
        token = self.peek()
        if token is None:
            raise self.fail("expression ends too early")
        self.pos += 1
        kind, value = token
        if kind == "op" and value == "(":
            node = self.disjunction()
            if not self.take_op(")"):
                raise self.fail("missing ')'")
            return node
        if kind == "op":
            raise self.fail(f"unexpected {value!r}")
        if kind == "lit":
            return _Literal(value)
        name = str(value)
        if self.take_op("("):
            if name not in FUNCTIONS:
                raise self.fail(f"unknown function {name}() (supported: {', '.join(FUNCTIONS)})")
            argument = self.disjunction()
            if not self.take_op(")"):
                raise self.fail(f"{name}() takes one argument")
            return _Call(name, argument)
        return _Variable(name)


def _variables(node: _Node) -> set[str]:
    if isinstance(node, _Variable):
        return {node.name}
    if isinstance(node, _Call):
        return _variables(node.argument)
    if isinstance(node, _Unary):
        return _variables(node.operand)
    if isinstance(node, _Binary):
        return _variables(node.left) | _variables(node.right)
    return set()


class _Evaluator:
    def __init__(self, text: str, scope: Mapping[str, Value]) -> None:
        self.text = text
        self.scope = scope

    def fail(self, what: str) -> EngineError:
        return EngineError(f"cannot evaluate {self.text!r}: {what}")

    def boolean(self, node: _Node) -> bool:
        value = self.value(node)
        if not isinstance(value, bool):
            raise self.fail(f"expected true or false, got {value!r}")
        return value

    def value(self, node: _Node) -> Value:
        if isinstance(node, _Literal):
            return node.value
        if isinstance(node, _Variable):
            if node.name not in self.scope:
                raise self.fail(f"unknown variable {node.name}")
            return self.scope[node.name]
        if isinstance(node, _Call):
            return FUNCTIONS[node.function](self.value(node.argument))
        if isinstance(node, _Unary):
            return not self.boolean(node.operand)
        if node.op == "&&":
            return self.boolean(node.left) and self.boolean(node.right)
        if node.op == "||":
            return self.boolean(node.left) or self.boolean(node.right)
        return self.compare(node.op, self.value(node.left), self.value(node.right))

    def compare(self, op: str, left: Value, right: Value) -> bool:
        if op in ("==", "!="):
            same = type(left) is type(right) and left == right
            return same if op == "==" else not same
        if op in ("=~", "!~"):
            if not isinstance(left, str) or not isinstance(right, str):
                raise self.fail(f"{op} needs a string and a pattern")
            try:
                found = re.search(right, left) is not None
            except re.error as exc:
                raise self.fail(f"bad pattern {right!r}: {exc}") from None
            return found if op == "=~" else not found
        both_text = isinstance(left, str) and isinstance(right, str)
        both_numbers = isinstance(left, float) and isinstance(right, float)
        if not (both_text or both_numbers):
            raise self.fail(f"cannot order {left!r} and {right!r}")
        return _ORDER[op](left, right)


@dataclass(frozen=True)
class Expression:
    """A parsed retry expression; ``variables`` are the names it reads."""

    text: str
    variables: frozenset[str]
    _root: _Node

    def evaluate(self, scope: Mapping[str, Value]) -> bool:
        return _Evaluator(self.text, scope).boolean(self._root)


def parse_expression(text: str, known: frozenset[str]) -> Expression:
    """expr-lang style: words are variables, which must be among ``known``."""
    root = _Parser(text, variables=True).parse()
    names = frozenset(_variables(root))
    unknown = sorted(names - known)
    if unknown:
        raise EngineError(
            f"cannot evaluate {text!r}: unknown variable {unknown[0]} "
            f"(available: {', '.join(sorted(known))})"
        )
    return Expression(text, names, root)


def evaluate_when(text: str) -> bool:
    """govaluate style, after substitution: bare words are strings, numbers are numbers."""
    return _Evaluator(text, {}).boolean(_Parser(text, variables=False).parse())
