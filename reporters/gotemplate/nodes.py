"""The parse tree of a Go template, with Go's way of printing each node.

Execution errors quote the node they happened at (``at <index .a 5>``), so every node
prints itself exactly as text/template/parse's ``String`` methods do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator.golang.strconv import quote


class Node:
    """A node of the tree; ``pos`` is its character offset in the template text."""

    pos: int

    def __str__(self) -> str:  # pragma: no cover - every node overrides it
        raise NotImplementedError


@dataclass(eq=False)
class ListNode(Node):
    pos: int
    nodes: list[Node] = field(default_factory=list)

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


@dataclass(eq=False)
class TextNode(Node):
    pos: int
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(eq=False)
class CommentNode(Node):
    pos: int
    text: str

    def __str__(self) -> str:
        return "{{" + self.text + "}}"


@dataclass(eq=False)
class IdentifierNode(Node):
    pos: int
    ident: str

    def __str__(self) -> str:
        return self.ident


@dataclass(eq=False)
class VariableNode(Node):
    pos: int
    ident: list[str]
    start: int = -1
    """Where the text of the whole path begins (Go's ``pos`` is its second part's)."""

    def __str__(self) -> str:
        return ".".join(self.ident)


@dataclass(eq=False)
class DotNode(Node):
    pos: int

    def __str__(self) -> str:
        return "."


@dataclass(eq=False)
class NilNode(Node):
    pos: int

    def __str__(self) -> str:
        return "nil"


@dataclass(eq=False)
class FieldNode(Node):
    pos: int
    ident: list[str]
    start: int = -1
    """Where the text of the whole path begins (Go's ``pos`` is its second part's)."""

    def __str__(self) -> str:
        return "".join("." + i for i in self.ident)


@dataclass(eq=False)
class BoolNode(Node):
    pos: int
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(eq=False)
class NumberNode(Node):
    """A numeric literal and every Go type it can stand for (as parse.NumberNode)."""

    pos: int
    text: str
    is_int: bool = False
    is_uint: bool = False
    is_float: bool = False
    is_complex: bool = False
    int64: int = 0
    uint64: int = 0
    float64: float = 0.0
    complex128: complex = 0j

    def __str__(self) -> str:
        return self.text


@dataclass(eq=False)
class StringNode(Node):
    pos: int
    quoted: str
    text: str

    def __str__(self) -> str:
        return self.quoted


@dataclass(eq=False)
class CommandNode(Node):
    pos: int
    args: list[Node] = field(default_factory=list)

    def __str__(self) -> str:
        parts = []
        for arg in self.args:
            parts.append(f"({arg})" if isinstance(arg, PipeNode) else str(arg))
        return " ".join(parts)


@dataclass(eq=False)
class PipeNode(Node):
    pos: int
    line: int
    is_assign: bool = False
    decl: list[VariableNode] = field(default_factory=list)
    cmds: list[CommandNode] = field(default_factory=list)

    def __str__(self) -> str:
        head = ""
        if self.decl:
            head = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return head + " | ".join(str(c) for c in self.cmds)


@dataclass(eq=False)
class ChainNode(Node):
    pos: int
    node: Node
    fields: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        base = f"({self.node})" if isinstance(self.node, PipeNode) else str(self.node)
        return base + "".join("." + f for f in self.fields)


@dataclass(eq=False)
class ActionNode(Node):
    pos: int
    line: int
    pipe: PipeNode

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


@dataclass(eq=False)
class EndNode(Node):
    pos: int

    def __str__(self) -> str:
        return "{{end}}"


@dataclass(eq=False)
class ElseNode(Node):
    pos: int
    line: int

    def __str__(self) -> str:
        return "{{else}}"


@dataclass(eq=False)
class BranchNode(Node):
    """if, range and with: a pipeline, its list and an optional else list."""

    pos: int
    line: int
    pipe: PipeNode
    list: ListNode
    else_list: ListNode | None
    keyword: str = ""

    def __str__(self) -> str:
        text = "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.list)
        if self.else_list is not None:
            text += "{{else}}" + str(self.else_list)
        return text + "{{end}}"


class IfNode(BranchNode):
    pass


class RangeNode(BranchNode):
    pass


class WithNode(BranchNode):
    pass


@dataclass(eq=False)
class BreakNode(Node):
    pos: int
    line: int

    def __str__(self) -> str:
        return "{{break}}"


@dataclass(eq=False)
class ContinueNode(Node):
    pos: int
    line: int

    def __str__(self) -> str:
        return "{{continue}}"


@dataclass(eq=False)
class TemplateNode(Node):
    pos: int
    line: int
    name: str
    pipe: PipeNode | None

    def __str__(self) -> str:
        text = "{{template " + quote(self.name)
        if self.pipe is not None:
            text += " " + str(self.pipe)
        return text + "}}"


def is_empty_tree(node: Node | None) -> bool:
    """parse.IsEmptyTree: nothing but space and comments."""
    if node is None or isinstance(node, CommentNode):
        return True
    if isinstance(node, ListNode):
        return all(is_empty_tree(n) for n in node.nodes)
    if isinstance(node, TextNode):
        return node.text.strip(" \t\n\r\v\f\x85\xa0") == ""
    return False
