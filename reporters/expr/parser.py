"""expr's parser: tokens to a syntax tree, with expr's precedence, its sugar and its errors.

Mirrored by hand from expr v1.17.7 ``parser/parser.go``: precedence climbing over the
operator table below, ``not in``-style negation, chained comparisons (``1 < x < 3``),
``??`` that refuses to mix with other operators, pipes (``x | f()``), predicates (``#``,
``.field``) inside the builtins that take one, ``let``, ``if {} else {}``, ``;`` sequences.
Like the Go parser it records the first error and keeps going without building nodes, and
it pulls tokens lazily, so a lexing error past a parse error replaces it exactly when Go's
parser would have asked for that token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reporters.expr import nodes as n
from reporters.expr.errors import ExprSyntaxError, Location
from reporters.expr.gotext import is_identifier, quote
from reporters.expr.lexer import Kind, Token, tokenize

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


def _parse_int(text: str, base: int) -> tuple[int, str]:
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


def _parse_float(text: str) -> tuple[float, str]:
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


class Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens, self.lex_error = tokenize(source)
        self.position = 0
        self.current = Token(Kind.EOF, "", 0, 0)
        self.stashed: Token | None = None
        self.err: ExprSyntaxError | None = None
        self.depth = 0
        self.count = 0

    # -- plumbing --------------------------------------------------------------------------------

    def error_at(self, token: Token, message: str) -> None:
        if self.err is None:
            self.err = ExprSyntaxError(message, self.source, Location(token.start, token.end))

    def error(self, message: str) -> None:
        self.error_at(self.current, message)

    def next(self) -> None:
        if self.stashed is not None:
            self.current, self.stashed = self.stashed, None
            return
        if self.position < len(self.tokens):
            self.current = self.tokens[self.position]
            self.position += 1
        elif self.lex_error is not None:
            self.err = self.lex_error  # lexer errors replace an earlier parse error, as in Go
        else:
            self.error("unexpected end of expression")

    def expect(self, kind: Kind, *values: str) -> None:
        if self.current.is_(kind, *values):
            self.next()
        else:
            self.error(f"unexpected token {self.current}")

    def make(self, node: n.Node | None, start: int, end: int) -> n.Node | None:
        self.count += 1
        if self.count > MAX_NODES:
            self.error("compilation failed: expression exceeds maximum allowed nodes")
            return None
        if node is None or self.err is not None:
            return None
        node.loc = Location(start, end)
        return node

    def at(self, node: n.Node, token: Token) -> n.Node | None:
        return self.make(node, token.start, token.end)

    # -- grammar ---------------------------------------------------------------------------------

    def parse(self) -> n.Node:
        self.next()
        node = self.sequence()
        if not self.current.is_(Kind.EOF):
            self.error(f"unexpected token {self.current}")
        if self.err is not None:
            raise self.err
        assert node is not None
        return node

    def sequence(self) -> n.Node | None:
        nodes = [self.expression(0)]
        while self.current.is_(Kind.OPERATOR, ";") and self.err is None:
            self.next()
            if self.current.is_(Kind.EOF):
                break
            nodes.append(self.expression(0))
        if len(nodes) == 1:
            return nodes[0]
        first = nodes[0]
        loc = first.loc if first is not None else Location(0, 0)
        return self.make(n.Sequence([x for x in nodes if x is not None]), loc.start, loc.end)

    def expression(self, precedence: int) -> n.Node | None:
        if self.err is not None:
            return None
        if precedence == 0 and self.current.is_(Kind.OPERATOR, "let"):
            return self.let()
        if precedence == 0 and self.current.is_(Kind.OPERATOR, "if"):
            return self.if_()
        left = self.primary()
        previous = ""
        token = self.current
        while token.is_(Kind.OPERATOR) and self.err is None:
            negate = token.is_(Kind.OPERATOR, "not")
            not_token = token
            if negate:
                backup = self.current
                self.next()
                if self.current.value in NEGATABLE:
                    op = BINARY.get(self.current.value)
                    if op is not None and op.precedence >= precedence:
                        not_token = self.current
                        token = self.current
                    else:
                        self.stashed, self.current = self.current, backup
                        break
                else:
                    self.error(f"unexpected token {self.current}")
                    break
            op = BINARY.get(token.value)
            if op is None or op.precedence < precedence:
                break
            self.next()
            if token.value == "|":
                ident = self.current
                self.expect(Kind.IDENTIFIER)
                left = self.call(ident, [left], True)
            elif previous == "??" and token.value != "??" and not token.is_(Kind.BRACKET, "("):
                self.error_at(
                    token,
                    f"Operator ({token.value}) and coalesce expressions (??) cannot be mixed. "
                    "Wrap either by parentheses.",
                )
                break
            elif token.value in COMPARISONS:
                left = self.comparison(left, token, op.precedence)
            else:
                right = self.expression(op.precedence if op.right else op.precedence + 1)
                left = self.at(n.Binary(token.value, left, right), token)  # type: ignore[arg-type]
                if left is None:
                    return None
                if negate:
                    left = self.at(n.Unary("not", left), not_token)
                    if left is None:
                        return None
            previous = token.value
            token = self.current
        if precedence == 0:
            left = self.conditional(left)
        return left

    def let(self) -> n.Node | None:
        self.expect(Kind.OPERATOR, "let")
        name = self.current
        self.expect(Kind.IDENTIFIER)
        self.expect(Kind.OPERATOR, "=")
        value = self.expression(0)
        self.expect(Kind.OPERATOR, ";")
        body = self.sequence()
        return self.at(n.Let(name.value, value, body), name)  # type: ignore[arg-type]

    def if_(self) -> n.Node | None:
        self.next()
        if self.err is not None:
            return None
        cond = self.expression(0)
        self.expect(Kind.BRACKET, "{")
        then = self.sequence()
        self.expect(Kind.BRACKET, "}")
        self.expect(Kind.OPERATOR, "else")
        if self.current.is_(Kind.OPERATOR, "if"):
            other = self.if_()
        else:
            self.expect(Kind.BRACKET, "{")
            other = self.sequence()
            self.expect(Kind.BRACKET, "}")
        if self.err is not None:
            return None
        # Go builds this node without createNode: it keeps a zero location.
        return n.Conditional(cond, then, other, ternary=False)  # type: ignore[arg-type]

    def conditional(self, node: n.Node | None) -> n.Node | None:
        while self.current.is_(Kind.OPERATOR, "?") and self.err is None:
            self.next()
            if not self.current.is_(Kind.OPERATOR, ":"):
                then = self.expression(0)
                self.expect(Kind.OPERATOR, ":")
                other = self.expression(0)
            else:
                self.next()
                then, other = node, self.expression(0)
            node = self.at(n.Conditional(node, then, other), self.current)  # type: ignore[arg-type]
            if node is None:
                return None
        return node

    def primary(self) -> n.Node | None:
        token = self.current
        if token.is_(Kind.OPERATOR) and token.value in UNARY:
            self.next()
            inner = self.expression(UNARY[token.value].precedence)
            node = self.at(n.Unary(token.value, inner), token)  # type: ignore[arg-type]
            return None if node is None else self.postfix(node)
        if token.is_(Kind.BRACKET, "("):
            self.next()
            inner = self.sequence()
            self.expect(Kind.BRACKET, ")")
            return self.postfix(inner)
        if self.depth > 0 and (token.is_(Kind.OPERATOR, "#") or token.is_(Kind.OPERATOR, ".")):
            name = ""
            if token.is_(Kind.OPERATOR, "#"):
                self.next()
                if self.current.is_(Kind.IDENTIFIER):
                    name = self.current.value
                    self.next()
            node = self.at(n.Pointer(name), token)
            return None if node is None else self.postfix(node)
        if token.is_(Kind.OPERATOR, "::"):
            self.next()
            token = self.current
            self.expect(Kind.IDENTIFIER)
            return self.postfix(self.call(token, [], False))
        return self.secondary()

    def secondary(self) -> n.Node | None:
        token = self.current
        node: n.Node | None
        if token.kind is Kind.IDENTIFIER:
            self.next()
            if token.value in ("true", "false"):
                return self.at(n.Bool(token.value == "true"), token)
            if token.value == "nil":
                return self.at(n.Nil(), token)
            if self.current.is_(Kind.BRACKET, "("):
                node = self.call(token, [], True)
            else:
                node = self.at(n.Identifier(token.value), token)
                if node is None:
                    return None
        elif token.kind is Kind.NUMBER:
            self.next()
            return self.number(token)
        elif token.kind is Kind.STRING:
            self.next()
            node = self.at(n.String(token.value), token)
            if node is None:
                return None
        elif token.is_(Kind.BRACKET, "["):
            node = self.array(token)
        elif token.is_(Kind.BRACKET, "{"):
            node = self.map(token)
        else:
            self.error(f"unexpected token {token}")
            node = None
        return self.postfix(node)

    def number(self, token: Token) -> n.Node | None:
        value = token.value.replace("_", "")
        lowered = value.lower()
        if lowered.startswith("0x"):
            number, err = _parse_int(value, 0)
            if err:
                self.error(f"invalid hex literal: {err}")
            return self.integer(number, token)
        if "." in lowered or "e" in lowered:
            real, err = _parse_float(value)
            if err:
                self.error(f"invalid float literal: {err}")
            if real > MAX_FLOAT:
                self.error("float literal is too large")
                return None
            node = self.at(n.Float(real), self.current)
            if node is not None:
                node.loc = Location(token.start, token.end)
            return node
        kind = "binary" if lowered.startswith("0b") else "octal" if lowered.startswith("0o") else ""
        if kind:
            number, err = _parse_int(value, 0)
            if err:
                self.error(f"invalid {kind} literal: {err}")
        else:
            number, err = _parse_int(value, 10)
            if err:
                self.error(f"invalid integer literal: {err}")
        return self.integer(number, token)

    def integer(self, number: int, token: Token) -> n.Node | None:
        node = self.at(n.Integer(number), self.current)
        if node is not None:
            node.loc = Location(token.start, token.end)
        return node

    def call(self, token: Token, arguments: list[n.Node | None], overrides: bool) -> n.Node | None:
        shape = PREDICATES.get(token.value)
        if shape is not None:
            self.expect(Kind.BRACKET, "(")
            wanted = shape[len(arguments) :]
            for i, arg in enumerate(wanted):
                if arg & OPTIONAL:
                    if self.current.is_(Kind.BRACKET, ")"):
                        break
                elif self.current.is_(Kind.BRACKET, ")"):
                    self.error(f"expected at least {len(wanted)} arguments")
                if i > 0:
                    self.expect(Kind.OPERATOR, ",")
                arguments.append(self.expression(0) if arg & EXPR else self.predicate())
            if self.current.is_(Kind.OPERATOR, ","):
                self.next()
            self.expect(Kind.BRACKET, ")")
            return self.at(n.Builtin(token.value, arguments), token)  # type: ignore[arg-type]
        if token.value in BUILTINS:
            args = self.arguments(arguments)
            return self.at(n.Builtin(token.value, args), token)  # type: ignore[arg-type]
        callee = self.at(n.Identifier(token.value), token)
        if callee is None:
            return None
        args = self.arguments(arguments)
        return self.at(n.Call(callee, args), token)  # type: ignore[arg-type]

    def arguments(self, arguments: list[n.Node | None]) -> list[n.Node | None]:
        offset = len(arguments)
        self.expect(Kind.BRACKET, "(")
        while not self.current.is_(Kind.BRACKET, ")") and self.err is None:
            if len(arguments) > offset:
                self.expect(Kind.OPERATOR, ",")
            if self.current.is_(Kind.BRACKET, ")"):
                break
            arguments.append(self.expression(0))
        self.expect(Kind.BRACKET, ")")
        return arguments

    def predicate(self) -> n.Node | None:
        start = self.current
        brackets = self.current.is_(Kind.BRACKET, "{")
        if brackets:
            self.next()
        self.depth += 1
        if brackets:
            node = self.sequence()
        else:
            node = self.expression(0)
            if self.current.is_(Kind.OPERATOR, ";"):
                self.error("wrap predicate with brackets { and }")
        self.depth -= 1
        if brackets:
            self.expect(Kind.BRACKET, "}")
        return self.at(n.Predicate(node), start)  # type: ignore[arg-type]

    def array(self, token: Token) -> n.Node | None:
        items: list[n.Node | None] = []
        self.expect(Kind.BRACKET, "[")
        while not self.current.is_(Kind.BRACKET, "]") and self.err is None:
            if items:
                self.expect(Kind.OPERATOR, ",")
                if self.current.is_(Kind.BRACKET, "]"):
                    break
            items.append(self.expression(0))
        self.expect(Kind.BRACKET, "]")
        return self.at(n.Array(items), token)  # type: ignore[arg-type]

    def map(self, token: Token) -> n.Node | None:
        self.expect(Kind.BRACKET, "{")
        pairs: list[n.Node | None] = []
        while not self.current.is_(Kind.BRACKET, "}") and self.err is None:
            if pairs:
                self.expect(Kind.OPERATOR, ",")
                if self.current.is_(Kind.BRACKET, "}"):
                    break
                if self.current.is_(Kind.OPERATOR, ","):
                    self.error(f"unexpected token {self.current}")
            key: n.Node | None = None
            if self.current.kind in (Kind.NUMBER, Kind.STRING, Kind.IDENTIFIER):
                key = self.at(n.String(self.current.value), self.current)
                if key is None:
                    return None
                self.next()
            elif self.current.is_(Kind.BRACKET, "("):
                key = self.expression(0)
            else:
                self.error(
                    "a map key must be a quoted string, a number, a identifier, or an "
                    f"expression enclosed in parentheses (unexpected token {self.current})"
                )
            self.expect(Kind.OPERATOR, ":")
            value = self.expression(0)
            pair = self.at(n.Pair(key, value), token)  # type: ignore[arg-type]
            if pair is None:
                return None
            pairs.append(pair)
        self.expect(Kind.BRACKET, "}")
        return self.at(n.Map(pairs), token)  # type: ignore[arg-type]

    def postfix(self, node: n.Node | None) -> n.Node | None:
        token = self.current
        while (token.is_(Kind.OPERATOR) or token.is_(Kind.BRACKET)) and self.err is None:
            optional = token.value == "?."
            if token.value in (".", "?."):
                self.next()
                prop_token = self.current
                if optional and prop_token.is_(Kind.BRACKET, "["):
                    token = prop_token
                    node = self.index(node, token, optional)
                    if node is None and self.err is None:
                        return None
                    token = self.current
                    continue
                self.next()
                if prop_token.kind is not Kind.IDENTIFIER and (
                    prop_token.kind is not Kind.OPERATOR or not is_identifier(prop_token.value)
                ):
                    self.error("expected name")
                prop = self.at(n.String(prop_token.value), prop_token)
                if prop is None:
                    return None
                chained = isinstance(node, n.Chain)
                if isinstance(node, n.Chain):
                    node = node.node
                member = self.at(n.Member(node, prop, optional), prop_token)  # type: ignore[arg-type]
                if member is None:
                    return None
                if self.current.is_(Kind.BRACKET, "("):
                    assert isinstance(member, n.Member)
                    member.method = True
                    node = self.at(n.Call(member, self.arguments([])), prop_token)  # type: ignore[arg-type]
                    if node is None:
                        return None
                else:
                    node = member
                if chained or optional:
                    node = self.at(n.Chain(node), prop_token)
                    if node is None:
                        return None
            elif token.value == "[":
                node = self.index(node, token, optional)
                if node is None:
                    return None
            else:
                break
            token = self.current
        return node

    def index(self, node: n.Node | None, token: Token, optional: bool) -> n.Node | None:
        self.next()
        if self.current.is_(Kind.OPERATOR, ":"):
            self.next()
            stop = None
            if not self.current.is_(Kind.BRACKET, "]"):
                stop = self.expression(0)
            result = self.at(n.Slice(node, None, stop), token)  # type: ignore[arg-type]
            if result is None:
                return None
            self.expect(Kind.BRACKET, "]")
            return result
        start = self.expression(0)
        if self.current.is_(Kind.OPERATOR, ":"):
            self.next()
            stop = None
            if not self.current.is_(Kind.BRACKET, "]"):
                stop = self.expression(0)
            result = self.at(n.Slice(node, start, stop), token)  # type: ignore[arg-type]
            if result is None:
                return None
            self.expect(Kind.BRACKET, "]")
            return result
        result = self.at(n.Member(node, start, optional), token)  # type: ignore[arg-type]
        if result is None:
            return None
        if optional:
            result = self.at(n.Chain(result), token)
            if result is None:
                return None
        self.expect(Kind.BRACKET, "]")
        return result

    def comparison(self, left: n.Node | None, token: Token, precedence: int) -> n.Node | None:
        root: n.Node | None = None
        while True:
            right = self.expression(precedence + 1)
            node = self.at(n.Binary(token.value, left, right), token)  # type: ignore[arg-type]
            if node is None:
                return None
            if root is None:
                root = node
            else:
                root = self.at(n.Binary("&&", root, node), token)
                if root is None:
                    return None
            left = right
            token = self.current
            if not (token.is_(Kind.OPERATOR) and token.value in COMPARISONS and self.err is None):
                break
            self.next()
        return root


def parse(source: str) -> n.Node:
    """The tree of ``source``, or the first :class:`ExprSyntaxError` expr reports for it."""
    return Parser(source).parse()
