"""Go's template parser: tokens to trees, with text/template/parse's checks and messages.

Mirrored by hand (the grammar is small, but which mistakes are refused when, and how the
message reads, is the parser's own): three tokens of look-ahead, variables checked at
parse time, ``{{else if}}`` folded into nested ifs, ``define`` and ``block`` adding named
trees, and function names checked against the function map.
"""

from __future__ import annotations

from collections.abc import Callable

from orchestrator.golang.strconv import UnquoteError, unquote
from reporters.gotemplate.errors import TemplateSyntaxError
from reporters.gotemplate.lexer import Item, Kind, Lexer
from reporters.gotemplate.nodes import (
    ActionNode,
    BranchNode,
    BreakNode,
    CommentNode,
    ContinueNode,
    ElseNode,
    EndNode,
    IfNode,
    ListNode,
    Node,
    RangeNode,
    TemplateNode,
    TextNode,
    WithNode,
    is_empty_tree,
)
from reporters.gotemplate.pipelines import Abort, PipelineParser

_HINTS = {
    "not defined": "check the spelling, or see which functions Argo CD's templates offer "
    "(Go's builtins and sprig's, without env and expandenv)",
    "undefined variable": "declare it first with {{$name := ...}} in an enclosing block",
    "unclosed action": "close every {{ with }}",
    "unexpected EOF": "every {{if}}, {{range}}, {{with}}, {{define}} and {{block}} needs "
    "its {{end}}",
}


class _Tree(PipelineParser):
    """One tree being parsed: the top-level template or one {{define}}/{{block}}."""

    def __init__(self, parser: Parser, name: str) -> None:
        super().__init__(parser)
        self.p: Parser = parser
        self.name = name
        self.root: ListNode | None = None
        self.range_depth = 0

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
        except Abort as abort:
            raise syntax_error(self.name, self.text, abort) from None
        except RecursionError:
            raise TemplateSyntaxError(
                f"template: {self.name}: nested too deeply to parse",
                hint="use fewer nested parentheses and blocks",
            ) from None
        return self.trees


def syntax_error(name: str, text: str, abort: Abort) -> TemplateSyntaxError:
    message = f"template: {name}:{abort.line}: {abort.message}"
    from reporters.gotemplate.lexer import byte_column

    _, col = byte_column(text, min(abort.pos, len(text)))
    hint = next((h for key, h in _HINTS.items() if key in abort.message), "")
    return TemplateSyntaxError(message, line=abort.line, column=col + 1, hint=hint)
