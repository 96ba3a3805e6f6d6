"""expr's grammar tables (``parser/operator``, the predicate builtins, ``builtin.Builtins``)
and its numeric literals, read with the ``strconv`` rules and errors Go's parser reports."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reporters.expr.gotext import quote

MAX_NODES = 10_000
"""``conf.DefaultMaxNodes``."""

MAX_INT = 2**63 - 1
MAX_FLOAT = 1.7976931348623157e308


@dataclass(frozen=True)
class Op:
    precedence: int
    right: bool = False


UNARY = {"not": Op(50), "!": Op(50), "-": Op(90), "+": Op(90)}
BINARY = {
    "|": Op(0), "or": Op(10), "||": Op(10), "and": Op(15), "&&": Op(15),
    "==": Op(20), "!=": Op(20), "<": Op(20), ">": Op(20), ">=": Op(20), "<=": Op(20),
    "in": Op(20), "matches": Op(20), "contains": Op(20), "startsWith": Op(20),
    "endsWith": Op(20), "..": Op(25), "+": Op(30), "-": Op(30), "*": Op(60), "/": Op(60),
    "%": Op(60), "**": Op(100, True), "^": Op(100, True), "??": Op(500),
}  # fmt: skip
COMPARISONS = frozenset({"<", ">", ">=", "<="})
NEGATABLE = frozenset({"contains", "matches", "startsWith", "endsWith", "in"})

EXPR, PREDICATE, OPTIONAL = 1, 2, 128
PREDICATES: dict[str, tuple[int, ...]] = {
    "all": (EXPR, PREDICATE), "none": (EXPR, PREDICATE), "any": (EXPR, PREDICATE),
    "one": (EXPR, PREDICATE), "filter": (EXPR, PREDICATE), "map": (EXPR, PREDICATE),
    "count": (EXPR, PREDICATE | OPTIONAL), "sum": (EXPR, PREDICATE | OPTIONAL),
    "find": (EXPR, PREDICATE), "findIndex": (EXPR, PREDICATE), "findLast": (EXPR, PREDICATE),
    "findLastIndex": (EXPR, PREDICATE), "groupBy": (EXPR, PREDICATE),
    "sortBy": (EXPR, PREDICATE, EXPR | OPTIONAL), "reduce": (EXPR, PREDICATE, EXPR | OPTIONAL),
}  # fmt: skip

BUILTINS = frozenset({
    "all", "none", "any", "one", "filter", "map", "find", "findIndex", "findLast",
    "findLastIndex", "count", "sum", "groupBy", "sortBy", "reduce", "len", "type", "abs", "ceil",
    "floor", "round", "int", "float", "string", "trim", "trimPrefix", "trimSuffix", "upper",
    "lower", "split", "splitAfter", "replace", "repeat", "join", "indexOf", "lastIndexOf",
    "hasPrefix", "hasSuffix", "max", "min", "mean", "median", "toJSON", "fromJSON", "toBase64",
    "fromBase64", "now", "duration", "date", "timezone", "first", "last", "get", "take", "keys",
    "values", "toPairs", "fromPairs", "reverse", "uniq", "concat", "flatten", "sort", "bitand",
    "bitor", "bitxor", "bitnand", "bitshl", "bitshr", "bitushr", "bitnot",
})  # fmt: skip
"""``builtin.Builtins`` of v1.17.7, in its order."""


def parse_int(text: str, base: int) -> tuple[int, str]:
    """``strconv.ParseInt(text, base, 64)``: the value and the error text, if any."""
    body, sign = text, 1
    if body[:1] in "+-":
        sign, body = (-1 if body[0] == "-" else 1), body[1:]
    radix = base
    if base == 0:
        radix = 10
        prefix = body[:2].lower()
        if prefix in ("0x", "0o", "0b"):
            radix, body = {"0x": 16, "0o": 8, "0b": 2}[prefix], body[2:]
        elif body[:1] == "0" and len(body) > 1:
            radix, body = 8, body[1:]
    try:
        if not body or not all(c.isascii() and c.isalnum() for c in body):
            raise ValueError
        value = sign * int(body, radix)
    except ValueError:
        return 0, f"strconv.ParseInt: parsing {quote(text)}: invalid syntax"
    if value > MAX_INT or value < -MAX_INT - 1:
        return (MAX_INT if value > 0 else -MAX_INT - 1), (
            f"strconv.ParseInt: parsing {quote(text)}: value out of range"
        )
    return value, ""


def parse_float(text: str) -> tuple[float, str]:
    """``strconv.ParseFloat(text, 64)`` for the decimal forms the lexer lets through."""
    try:
        if not text or text.lower() in ("inf", "nan") or "_" in text:
            raise ValueError
        value = float(text)
    except ValueError:
        return 0.0, f"strconv.ParseFloat: parsing {quote(text)}: invalid syntax"
    if math.isinf(value):
        return value, f"strconv.ParseFloat: parsing {quote(text)}: value out of range"
    return value, ""
