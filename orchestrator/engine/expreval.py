"""A parsed ``retryStrategy.expression`` evaluated with expr-lang's run-time semantics.

After each failed attempt the expression is evaluated over that attempt's values (all
strings): ``==`` is false between different types but compares ints and floats by value,
``asInt``/``asFloat`` convert as Go's ``strconv`` does, ``&&``/``||`` short-circuit. The
errors left for run time are value errors (``asInt("abc")``, an invalid ``matches``
pattern), raised as :class:`ExprError` with expr's message: Argo marks the node ``Error``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.exprparse import Node
from orchestrator.engine.gotext import go_value_text
from orchestrator.engine.re2subset import PatternError as WhenError
from orchestrator.engine.re2subset import compile_re2 as _compile

_ATOI = re.compile(r"[+-]?[0-9]+")
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_GO_FLOAT = re.compile(
    rf"[+-]?(?:(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
    r"|inf|infinity|nan)",
    re.IGNORECASE,
)


class ExprError(EngineError):
    """The expression failed while evaluating (Argo marks the node ``Error``)."""


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
