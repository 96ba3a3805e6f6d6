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

from reporters.expr import nodes as n
from reporters.expr.errors import Location
from reporters.expr.gotext import is_identifier
from reporters.expr.grammar import (
    BINARY,
    BUILTINS,
    COMPARISONS,
    EXPR,
    NEGATABLE,
    OPTIONAL,
    PREDICATES,
    UNARY,
)
from reporters.expr.lexer import Kind, Token
from reporters.expr.parser_base import ParserBase


class Parser(ParserBase):
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
