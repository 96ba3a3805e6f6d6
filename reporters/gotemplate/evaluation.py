"""Evaluating pipelines, commands, fields, chains and variables, after Go's exec.go.

A field read goes through maps (``<no value>`` for a missing key), methods (a time's
``.Format``) and interfaces (a JSON null stops the chain with Go's "nil pointer evaluating
interface {}" error); an integer literal is an ``int`` unless it looks like a float.
"""

from __future__ import annotations

from typing import Any

from reporters.gotemplate.builtins import BUILTINS
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
from reporters.gotemplate.reflection import INVALID, Boxed, static_type, unbox
from reporters.gotemplate.state import MISSING, ExecState, as_gofunc
from reporters.gotemplate.values import (
    GoFunc,
    GoInt,
    StrMap,
)


class Evaluation(ExecState):
    """The expression half of execution; calls are in :mod:`reporters.gotemplate.calls`."""

    def eval_pipeline(self, dot: Any, pipe: PipeNode | None) -> Any:
        if pipe is None:
            return INVALID
        self.at(pipe)
        value: Any = MISSING
        for cmd in pipe.cmds:
            value = self.eval_command(dot, cmd, value)
            if isinstance(value, Boxed):
                value = unbox(value)
        for var in pipe.decl:
            if pipe.is_assign:
                self.set_var(var.ident[0], value)
            else:
                self.push(var.ident[0], value)
        return value

    def not_a_function(self, args: list[Node], final: Any) -> None:
        if len(args) > 1 or final is not MISSING:
            self.errorf(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot: Any, cmd: CommandNode, final: Any) -> Any:
        self.step()
        first = cmd.args[0]
        if isinstance(first, FieldNode):
            self.at(first)
            return self.eval_field_chain(dot, dot, first, first.ident, cmd.args, final)
        if isinstance(first, ChainNode):
            return self.eval_chain(dot, first, cmd.args, final)
        if isinstance(first, IdentifierNode):
            return self.eval_function(dot, first, cmd, cmd.args, final)
        if isinstance(first, PipeNode):
            self.not_a_function(cmd.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, VariableNode):
            return self.eval_variable(dot, first, cmd.args, final)
        self.at(first)
        self.not_a_function(cmd.args, final)
        if isinstance(first, BoolNode):
            return first.value
        if isinstance(first, DotNode):
            return dot
        if isinstance(first, NilNode):
            self.errorf("nil is not a command")
        if isinstance(first, NumberNode):
            return self.ideal_constant(first)
        if isinstance(first, StringNode):
            return first.text
        return self.errorf(f"can't evaluate command {first}")

    def ideal_constant(self, n: NumberNode) -> Any:
        self.at(n)
        text = n.text
        is_hex_int = (
            len(text) > 2
            and text[0] == "0"
            and text[1] in "xX"
            and not any(c in text for c in "pP")
        )
        if n.is_complex:
            return n.complex128
        if (
            n.is_float
            and not is_hex_int
            and not text.startswith("'")
            and any(c in text for c in ".eEpP")
        ):
            return n.float64
        if n.is_int:
            return GoInt(n.int64)
        if n.is_uint:
            self.errorf(f"{text} overflows int")
        return INVALID

    def eval_chain(self, dot: Any, chain: ChainNode, args: list[Node], final: Any) -> Any:
        self.at(chain)
        if isinstance(chain.node, NilNode):
            self.errorf(f"indirection through explicit nil in {chain}")
        pipe = self.eval_arg(dot, None, chain.node)
        return self.eval_field_chain(dot, pipe, chain, chain.fields, args, final)

    def eval_variable(self, dot: Any, v: VariableNode, args: list[Node], final: Any) -> Any:
        self.at(v)
        value = self.var_value(v.ident[0])
        if len(v.ident) == 1:
            self.not_a_function(args, final)
            return value
        return self.eval_field_chain(dot, value, v, v.ident[1:], args, final)

    def eval_field_chain(
        self,
        dot: Any,
        receiver: Any,
        node: Node,
        ident: list[str],
        args: list[Node] | None,
        final: Any,
    ) -> Any:
        for name in ident[:-1]:
            receiver = self.eval_field(dot, name, node, None, MISSING, receiver)
        return self.eval_field(dot, ident[-1], node, args, final, receiver)

    def eval_function(
        self, dot: Any, node: IdentifierNode, cmd: Node, args: list[Node] | None, final: Any
    ) -> Any:
        self.at(node)
        name = node.ident
        if name in BUILTINS and name not in self.funcs:
            return self.eval_call(dot, BUILTINS[name], True, cmd, name, args, final)
        fn = self.funcs.get(name)
        if fn is None:
            if name in BUILTINS:
                return self.eval_call(dot, BUILTINS[name], True, cmd, name, args, final)
            self.errorf(f'"{name}" is not a defined function')
        return self.eval_call(dot, as_gofunc(name, fn), False, cmd, name, args, final)

    def eval_field(
        self,
        dot: Any,
        name: str,
        node: Node,
        args: list[Node] | None,
        final: Any,
        receiver: Any,
    ) -> Any:
        if receiver is INVALID:
            return INVALID
        typ = static_type(receiver)
        if isinstance(receiver, Boxed):
            if receiver.value is None:
                self.errorf(f"nil pointer evaluating {typ}.{name}")
            receiver = receiver.value
        methods = getattr(receiver, "go_methods", None)
        if callable(methods):
            method = methods().get(name)
            if method is not None:
                return self.eval_call(dot, method, False, node, name, args, final)
        has_args = (args is not None and len(args) > 1) or final is not MISSING
        if isinstance(receiver, dict):
            if has_args:
                self.errorf(f"{name} is not a method but has arguments")
            if name not in receiver:
                return INVALID
            value = receiver[name]
            return value if isinstance(receiver, StrMap) else Boxed(value)
        fields = getattr(receiver, "go_field", None)
        if callable(fields):
            found, value = fields(name)
            if found and getattr(receiver, "go_nil", False):
                self.errorf(f"nil pointer evaluating {typ}.{name}")
            if found:
                if has_args:
                    self.errorf(f"{name} has arguments but cannot be invoked as function")
                return value
        if receiver is None and typ.startswith("map["):
            return INVALID
        return self.errorf(f"can't evaluate field {name} in type {typ}")

    def eval_call(
        self,
        dot: Any,
        fn: GoFunc,
        is_builtin: bool,
        node: Node,
        name: str,
        args: list[Node] | None,
        final: Any,
    ) -> Any:
        raise NotImplementedError

    def eval_arg(self, dot: Any, typ: str | None, n: Node) -> Any:
        raise NotImplementedError
