"""The plumbing of expr's parser (token stream, first-error bookkeeping, node creation with
expr's node limit) and the literal structures it reads: numbers, arrays, maps, argument
lists. :mod:`.parser` builds the operators and postfix chains on top of it.
"""

from __future__ import annotations

from reporters.expr import nodes as n
from reporters.expr.errors import ExprSyntaxError, Location
from reporters.expr.grammar import MAX_FLOAT, MAX_NODES, parse_float, parse_int
from reporters.expr.lexer import Kind, Token, tokenize


class ParserBase:
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

    def sequence(self) -> n.Node | None:
        raise NotImplementedError

    def expression(self, precedence: int) -> n.Node | None:
        raise NotImplementedError

    def number(self, token: Token) -> n.Node | None:
        value = token.value.replace("_", "")
        lowered = value.lower()
        if lowered.startswith("0x"):
            number, err = parse_int(value, 0)
            if err:
                self.error(f"invalid hex literal: {err}")
            return self.integer(number, token)
        if "." in lowered or "e" in lowered:
            real, err = parse_float(value)
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
            number, err = parse_int(value, 0)
            if err:
                self.error(f"invalid {kind} literal: {err}")
        else:
            number, err = parse_int(value, 10)
            if err:
                self.error(f"invalid integer literal: {err}")
        return self.integer(number, token)

    def integer(self, number: int, token: Token) -> n.Node | None:
        node = self.at(n.Integer(number), self.current)
        if node is not None:
            node.loc = Location(token.start, token.end)
        return node

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
