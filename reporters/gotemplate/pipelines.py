"""The expression half of Go's template parser: pipelines, commands, operands and terms.

Mirrored by hand from text/template/parse (what ``$x := ...`` declares, where ``|`` may go,
which literals may not take fields, which functions exist), with the parser's token
look-ahead (three tokens, shared by every tree the text defines) and its error wording.
"""

from __future__ import annotations

from typing import Protocol

from orchestrator.golang.strconv import UnquoteError, unquote
from reporters.gotemplate.nodes import (
    BoolNode,
    ChainNode,
    CommandNode,
    DotNode,
    FieldNode,
    IdentifierNode,
    NilNode,
    Node,
    NumberNode,
    PipeNode,
    StringNode,
    VariableNode,
)
from reporters.gotemplate.numbers import new_number
from reporters.gotemplate.tokens import Item, Kind

MAX_STACK_DEPTH = 10000


class Stream(Protocol):
    """The token stream every tree of one text reads from (Go's shared lexer and look-ahead)."""

    name: str
    token: list[Item]
    peek_count: int

    def next(self) -> Item: ...

    def has_function(self, name: str) -> bool: ...


class Abort(Exception):
    def __init__(self, message: str, line: int, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.pos = pos


class PipelineParser:
    """Token handling and the expression grammar, shared by every tree being parsed."""

    def __init__(self, stream: Stream) -> None:
        self.p = stream
        self.vars: list[str] = ["$"]
        self.stack_depth = 0
        self.action_line = 0

    def next(self) -> Item:
        return self.p.next()

    def backup(self) -> None:
        self.p.peek_count += 1

    def backup2(self, t1: Item) -> None:
        self.p.token[1] = t1
        self.p.peek_count = 2

    def backup3(self, t2: Item, t1: Item) -> None:
        self.p.token[1] = t1
        self.p.token[2] = t2
        self.p.peek_count = 3

    def peek(self) -> Item:
        item = self.next()
        self.backup()
        return item

    def next_non_space(self) -> Item:
        while True:
            token = self.next()
            if token.kind is not Kind.SPACE:
                return token

    def peek_non_space(self) -> Item:
        token = self.next_non_space()
        self.backup()
        return token

    def errorf(self, message: str) -> None:
        token = self.p.token[0]
        raise Abort(message, token.line, token.pos)

    def expect(self, kind: Kind, context: str) -> Item:
        token = self.next_non_space()
        if token.kind is not kind:
            self.unexpected(token, context)
        return token

    def expect_one_of(self, k1: Kind, k2: Kind, context: str) -> Item:
        token = self.next_non_space()
        if token.kind is not k1 and token.kind is not k2:
            self.unexpected(token, context)
        return token

    def unexpected(self, token: Item, context: str) -> None:
        if token.kind is Kind.ERROR:
            extra = ""
            if self.action_line != 0 and self.action_line != token.line:
                extra = f" in action started at {self.p.name}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action") :]
            self.errorf(f"{token}{extra}")
        self.errorf(f"unexpected {token} in {context}")

    # -- grammar ----------------------------------------------------------------------------

    def pipeline(self, context: str, end: Kind) -> PipeNode:
        token = self.peek_non_space()
        pipe = PipeNode(token.pos, token.line)
        while True:  # declarations
            v = self.peek_non_space()
            if v.kind is not Kind.VARIABLE:
                break
            self.next()
            after = self.peek()
            nxt = self.peek_non_space()
            if nxt.kind in (Kind.ASSIGN, Kind.DECLARE):
                pipe.is_assign = nxt.kind is Kind.ASSIGN
                self.next_non_space()
                pipe.decl.append(VariableNode(v.pos, v.val.split(".")))
                self.vars.append(v.val)
            elif nxt.kind is Kind.CHAR and nxt.val == ",":
                self.next_non_space()
                pipe.decl.append(VariableNode(v.pos, v.val.split(".")))
                self.vars.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space().kind in (
                        Kind.VARIABLE,
                        Kind.RIGHT_DELIM,
                        Kind.RIGHT_PAREN,
                    ):
                        continue
                    self.errorf("range can only initialize variables")
                self.errorf(f"too many declarations in {context}")
            elif after.kind is Kind.SPACE:
                self.backup3(v, after)
            else:
                self.backup2(v)
            break
        while True:
            token = self.next_non_space()
            if token.kind is end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.kind in (
                Kind.BOOL,
                Kind.CHAR_CONSTANT,
                Kind.COMPLEX,
                Kind.DOT,
                Kind.FIELD,
                Kind.IDENTIFIER,
                Kind.NUMBER,
                Kind.NIL,
                Kind.RAW_STRING,
                Kind.STRING,
                Kind.VARIABLE,
                Kind.LEFT_PAREN,
            ):
                self.backup()
                pipe.cmds.append(self.command())
            else:
                self.unexpected(token, context)

    def check_pipeline(self, pipe: PipeNode, context: str) -> None:
        if not pipe.cmds:
            self.errorf(f"missing value for {context}")
        for i, c in enumerate(pipe.cmds[1:]):
            if isinstance(c.args[0], BoolNode | DotNode | NilNode | NumberNode | StringNode):
                self.errorf(f"non executable command in pipeline stage {i + 2}")

    def command(self) -> CommandNode:
        cmd = CommandNode(self.peek_non_space().pos)
        while True:
            self.peek_non_space()
            operand = self.operand()
            if operand is not None:
                cmd.args.append(operand)
            token = self.next()
            if token.kind is Kind.SPACE:
                continue
            if token.kind in (Kind.RIGHT_DELIM, Kind.RIGHT_PAREN):
                self.backup()
            elif token.kind is Kind.PIPE:
                pass
            else:
                self.unexpected(token, "operand")
            break
        if not cmd.args:
            self.errorf("empty command")
        return cmd

    def operand(self) -> Node | None:
        node = self.term()
        if node is None:
            return None
        if self.peek().kind is Kind.FIELD:
            chain = ChainNode(self.peek().pos, node)
            while self.peek().kind is Kind.FIELD:
                chain.fields.append(self.next().val[1:])
            if isinstance(node, FieldNode):
                return FieldNode(chain.pos, [*node.ident, *chain.fields], node.pos)
            if isinstance(node, VariableNode):
                return VariableNode(chain.pos, [*node.ident, *chain.fields], node.pos)
            if isinstance(node, BoolNode | StringNode | NumberNode | NilNode | DotNode):
                from orchestrator.golang.strconv import quote

                self.errorf(f"unexpected . after term {quote(str(node))}")
            return chain
        return node

    def term(self) -> Node | None:
        token = self.next_non_space()
        kind = token.kind
        if kind is Kind.IDENTIFIER:
            if not self.p.has_function(token.val):
                self.errorf(f'function "{token.val}" not defined')
            return IdentifierNode(token.pos, token.val)
        if kind is Kind.DOT:
            return DotNode(token.pos)
        if kind is Kind.NIL:
            return NilNode(token.pos)
        if kind is Kind.VARIABLE:
            return self.use_var(token)
        if kind is Kind.FIELD:
            return FieldNode(token.pos, token.val[1:].split("."))
        if kind is Kind.BOOL:
            return BoolNode(token.pos, token.val == "true")
        if kind in (Kind.CHAR_CONSTANT, Kind.COMPLEX, Kind.NUMBER):
            try:
                return new_number(token.pos, token.val, kind)
            except ValueError as exc:
                self.errorf(str(exc))
        if kind is Kind.LEFT_PAREN:
            if self.stack_depth >= MAX_STACK_DEPTH:
                self.errorf("max expression depth exceeded")
            self.stack_depth += 1
            try:
                return self.pipeline("parenthesized pipeline", Kind.RIGHT_PAREN)
            finally:
                self.stack_depth -= 1
        if kind in (Kind.STRING, Kind.RAW_STRING):
            try:
                return StringNode(token.pos, token.val, unquote(token.val))
            except UnquoteError as exc:
                self.errorf(str(exc))
        self.backup()
        return None

    def use_var(self, token: Item) -> Node:
        ident = token.val.split(".")
        if ident[0] in self.vars:
            return VariableNode(token.pos, ident)
        self.errorf(f'undefined variable "{ident[0]}"')
        raise AssertionError  # pragma: no cover
