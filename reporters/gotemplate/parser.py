"""Go's template parser: tokens to trees, with text/template/parse's checks and messages.

Mirrored by hand (the grammar is small, but which mistakes are refused when, and how the
message reads, is the parser's own): three tokens of look-ahead, variables checked at
parse time, ``{{else if}}`` folded into nested ifs, ``define`` and ``block`` adding named
trees, and function names checked against the function map.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from reporters.gotemplate.errors import TemplateSyntaxError
from reporters.gotemplate.gostrings import UnquoteError, unquote, unquote_char
from reporters.gotemplate.lexer import Item, Kind, Lexer
from reporters.gotemplate.nodes import (
    ActionNode,
    BoolNode,
    BranchNode,
    BreakNode,
    ChainNode,
    CommandNode,
    CommentNode,
    ContinueNode,
    DotNode,
    ElseNode,
    EndNode,
    FieldNode,
    IdentifierNode,
    IfNode,
    ListNode,
    NilNode,
    Node,
    NumberNode,
    PipeNode,
    RangeNode,
    StringNode,
    TemplateNode,
    TextNode,
    VariableNode,
    WithNode,
    is_empty_tree,
)

MAX_STACK_DEPTH = 10000

_HINTS = {
    "not defined": "check the spelling, or see which functions Argo CD's templates offer "
    "(Go's builtins and sprig's, without env and expandenv)",
    "undefined variable": "declare it first with {{$name := ...}} in an enclosing block",
    "unclosed action": "close every {{ with }}",
    "unexpected EOF": "every {{if}}, {{range}}, {{with}}, {{define}} and {{block}} needs "
    "its {{end}}",
}


class _Abort(Exception):
    def __init__(self, message: str, line: int, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.pos = pos


class _Tree:
    """One tree being parsed: the top-level template or one {{define}}/{{block}}."""

    def __init__(self, parser: Parser, name: str) -> None:
        self.p = parser
        self.name = name
        self.root: ListNode | None = None
        self.vars: list[str] = ["$"]
        self.range_depth = 0
        self.stack_depth = 0
        self.action_line = 0

    # -- token handling (shared lexer and look-ahead, as Go shares them between trees) --

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
        raise _Abort(message, token.line, token.pos)

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

    def parse(self) -> None:
        self.root = ListNode(self.peek().pos)
        while self.peek().kind is not Kind.EOF:
            if self.peek().kind is Kind.LEFT_DELIM:
                delim = self.next()
                if self.next_non_space().kind is Kind.DEFINE:
                    new = _Tree(self.p, "definition")
                    new.parse_definition()
                    continue
                self.backup2(delim)
            n = self.text_or_action()
            if isinstance(n, EndNode | ElseNode):
                self.errorf(f"unexpected {n}")
            else:
                self.root.nodes.append(n)

    def parse_definition(self) -> None:
        context = "define clause"
        name = self.expect_one_of(Kind.STRING, Kind.RAW_STRING, context)
        try:
            self.name = unquote(name.val)
        except UnquoteError as exc:
            self.errorf(str(exc))
        self.expect(Kind.RIGHT_DELIM, context)
        self.root, end = self.item_list()
        if not isinstance(end, EndNode):
            self.errorf(f"unexpected {end} in {context}")
        self.p.add(self)

    def item_list(self) -> tuple[ListNode, Node]:
        lst = ListNode(self.peek_non_space().pos)
        while self.peek_non_space().kind is not Kind.EOF:
            n = self.text_or_action()
            if isinstance(n, EndNode | ElseNode):
                return lst, n
            lst.nodes.append(n)
        self.errorf("unexpected EOF")
        raise AssertionError  # pragma: no cover

    def text_or_action(self) -> Node:
        token = self.next_non_space()
        if token.kind is Kind.TEXT:
            return TextNode(token.pos, token.val)
        if token.kind is Kind.LEFT_DELIM:
            self.action_line = token.line
            try:
                return self.action()
            finally:
                self.action_line = 0
        if token.kind is Kind.COMMENT:
            return CommentNode(token.pos, token.val)
        self.unexpected(token, "input")
        raise AssertionError  # pragma: no cover

    def action(self) -> Node:
        token = self.next_non_space()
        kind = token.kind
        if kind is Kind.BLOCK:
            return self.block_control()
        if kind is Kind.BREAK:
            return self.break_control(token)
        if kind is Kind.CONTINUE:
            return self.continue_control(token)
        if kind is Kind.ELSE:
            return self.else_control()
        if kind is Kind.END:
            return EndNode(self.expect(Kind.RIGHT_DELIM, "end").pos)
        if kind is Kind.IF:
            return self.branch(IfNode, "if")
        if kind is Kind.RANGE:
            return self.branch(RangeNode, "range")
        if kind is Kind.TEMPLATE:
            return self.template_control()
        if kind is Kind.WITH:
            return self.branch(WithNode, "with")
        self.backup()
        token = self.peek()
        return ActionNode(token.pos, token.line, self.pipeline("command", Kind.RIGHT_DELIM))

    def break_control(self, at: Item) -> Node:
        token = self.next_non_space()
        if token.kind is not Kind.RIGHT_DELIM:
            self.unexpected(token, "{{break}}")
        if self.range_depth == 0:
            self.errorf("{{break}} outside {{range}}")
        return BreakNode(at.pos, at.line)

    def continue_control(self, at: Item) -> Node:
        token = self.next_non_space()
        if token.kind is not Kind.RIGHT_DELIM:
            self.unexpected(token, "{{continue}}")
        if self.range_depth == 0:
            self.errorf("{{continue}} outside {{range}}")
        return ContinueNode(at.pos, at.line)

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

    def branch(self, cls: type[BranchNode], context: str) -> Node:
        mark = len(self.vars)
        try:
            pipe = self.pipeline(context, Kind.RIGHT_DELIM)
            if context == "range":
                self.range_depth += 1
            lst, nxt = self.item_list()
            if context == "range":
                self.range_depth -= 1
            else_list: ListNode | None = None
            if isinstance(nxt, ElseNode):
                if context == "if" and self.peek().kind is Kind.IF:
                    self.next()
                    else_list = ListNode(nxt.pos, [self.branch(IfNode, "if")])
                elif context == "with" and self.peek().kind is Kind.WITH:
                    self.next()
                    else_list = ListNode(nxt.pos, [self.branch(WithNode, "with")])
                else:
                    else_list, nxt = self.item_list()
                    if not isinstance(nxt, EndNode):
                        self.errorf(f"expected end; found {nxt}")
            return cls(pipe.pos, pipe.line, pipe, lst, else_list, context)
        finally:
            del self.vars[mark:]

    def else_control(self) -> Node:
        peek = self.peek_non_space()
        if peek.kind in (Kind.IF, Kind.WITH):
            return ElseNode(peek.pos, peek.line)
        token = self.expect(Kind.RIGHT_DELIM, "else")
        return ElseNode(token.pos, token.line)

    def block_control(self) -> Node:
        context = "block clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = self.pipeline(context, Kind.RIGHT_DELIM)
        block = _Tree(self.p, name)
        block.root, end = block.item_list()
        if not isinstance(end, EndNode):
            self.errorf(f"unexpected {end} in {context}")
        self.p.add(block)
        return TemplateNode(token.pos, token.line, name, pipe)

    def template_control(self) -> Node:
        context = "template clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = None
        if self.next_non_space().kind is not Kind.RIGHT_DELIM:
            self.backup()
            pipe = self.pipeline(context, Kind.RIGHT_DELIM)
        return TemplateNode(token.pos, token.line, name, pipe)

    def parse_template_name(self, token: Item, context: str) -> str:
        if token.kind in (Kind.STRING, Kind.RAW_STRING):
            try:
                return unquote(token.val)
            except UnquoteError as exc:
                self.errorf(str(exc))
        self.unexpected(token, context)
        raise AssertionError  # pragma: no cover

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
                from reporters.gotemplate.gostrings import quote

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


class Parser:
    """Parses one template text into its named trees."""

    def __init__(self, name: str, text: str, has_function: Callable[[str], bool]) -> None:
        self.name = name
        self.text = text
        self.lexer = Lexer(text)
        self.token: list[Item] = [Item(Kind.EOF, 0, "EOF", 1)] * 3
        self.peek_count = 0
        self.has_function = has_function
        self.trees: dict[str, ListNode] = {}

    def next(self) -> Item:
        if self.peek_count > 0:
            self.peek_count -= 1
        else:
            self.token[0] = self.lexer.next_item()
        return self.token[self.peek_count]

    def add(self, tree: _Tree) -> None:
        assert tree.root is not None
        old = self.trees.get(tree.name)
        if old is None or is_empty_tree(old):
            self.trees[tree.name] = tree.root
            return
        if not is_empty_tree(tree.root):
            tree.errorf(f'template: multiple definition of template "{tree.name}"')

    def parse(self) -> dict[str, ListNode]:
        top = _Tree(self, self.name)
        try:
            top.parse()
            self.add(top)
        except _Abort as abort:
            raise syntax_error(self.name, self.text, abort) from None
        except RecursionError:
            raise TemplateSyntaxError(
                f"template: {self.name}: nested too deeply to parse",
                hint="use fewer nested parentheses and blocks",
            ) from None
        return self.trees


def syntax_error(name: str, text: str, abort: _Abort) -> TemplateSyntaxError:
    message = f"template: {name}:{abort.line}: {abort.message}"
    from reporters.gotemplate.lexer import byte_column

    _, col = byte_column(text, min(abort.pos, len(text)))
    hint = next((h for key, h in _HINTS.items() if key in abort.message), "")
    return TemplateSyntaxError(message, line=abort.line, column=col + 1, hint=hint)


_UNDERSCORE_OK = re.compile(r"^(0[xXoObB]_?)?[0-9a-fA-F]+(_[0-9a-fA-F]+)*$")


def _parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64) without the range check (None: not an integer)."""
    body = text
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        return None
    base = 10
    digits = body
    if body[:2] in ("0x", "0X"):
        base, digits = 16, body[2:]
    elif body[:2] in ("0o", "0O"):
        base, digits = 8, body[2:]
    elif body[:2] in ("0b", "0B"):
        base, digits = 2, body[2:]
    elif body[0] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    if "_" in body:
        if not _UNDERSCORE_OK.match(body):
            return None
        digits = digits.replace("_", "")
    if not digits:
        return None
    try:
        return sign * int(digits, base)
    except ValueError:
        return None


_FLOAT = re.compile(r"^[+-]?(\d[\d_]*\.?[\d_]*([eE][+-]?[\d_]+)?|\.[\d_]+([eE][+-]?[\d_]+)?)$")
_HEX_FLOAT = re.compile(r"^[+-]?0[xX][0-9a-fA-F_]*\.?[0-9a-fA-F_]*[pP][+-]?[\d_]+$")


def _parse_float(text: str) -> float | None:
    if _FLOAT.match(text):
        if "_" in text:
            return None
        try:
            value = float(text)
        except ValueError:
            return None
        return value
    if _HEX_FLOAT.match(text):
        try:
            return float.fromhex(text.replace("_", ""))
        except ValueError:
            return None
    return None


def new_number(pos: int, text: str, kind: Kind) -> NumberNode:
    """parse.newNumber: which Go types the literal can be."""
    n = NumberNode(pos, text)
    if kind is Kind.CHAR_CONSTANT:
        try:
            code = unquote_char(text)
        except UnquoteError as exc:
            raise ValueError(str(exc)) from None
        n.is_int = n.is_uint = n.is_float = True
        n.int64 = n.uint64 = code
        n.float64 = float(code)
        return n
    if kind is Kind.COMPLEX:
        raise ValueError(f"complex constants are not supported: {text}")
    if text.endswith("i"):
        imag = _parse_float(text[:-1]) if text[:-1] else None
        if imag is None:
            imag_int = _parse_int(text[:-1])
            imag = float(imag_int) if imag_int is not None else None
        if imag is None:
            raise ValueError(f"complex constants are not supported: {text}")
        n.is_complex = True
        n.complex128 = complex(0, imag)
        if imag == 0:
            n.is_int = n.is_uint = n.is_float = True
        return n
    u = _parse_int(text) if text[:1] not in "+-" else None
    if u is not None and 0 <= u < 2**64:
        n.is_uint, n.uint64 = True, u
    i = _parse_int(text)
    if i is not None and -(2**63) <= i < 2**63:
        n.is_int, n.int64 = True, i
        if i == 0:
            n.is_uint, n.uint64 = True, 0
    if n.is_int:
        n.is_float, n.float64 = True, float(n.int64)
    elif n.is_uint:
        n.is_float, n.float64 = True, float(n.uint64)
    else:
        f = _parse_float(text)
        if f is not None:
            if not any(c in text for c in ".eEpP"):
                from reporters.gotemplate.gostrings import quote

                raise ValueError(f"integer overflow: {quote(text)}")
            n.is_float, n.float64 = True, f
            if math.isfinite(f) and f == int(f):
                if -(2**63) <= f < 2**63:
                    n.is_int, n.int64 = True, int(f)
                if 0 <= f < 2**64:
                    n.is_uint, n.uint64 = True, int(f)
    if not (n.is_int or n.is_uint or n.is_float):
        from reporters.gotemplate.gostrings import quote

        raise ValueError(f"illegal number syntax: {quote(text)}")
    return n
