"""Executing a parsed template over data, as Go's text/template/exec.go does.

Mirrored by hand, walk for walk, because what a notification says depends on details no
Python template engine shares: a missing key prints ``<no value>``, a field read through a
JSON null is an error, variables are scoped to the end of their block, arguments are
type-checked (``wrong type for value; expected int; got int64``) and every error names the
node it stopped at. Unlike Go, execution is bounded: :class:`Limits` caps the steps, the
output and the depth of template calls, so no template can hang or flood a reporter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from reporters.gotemplate.builtins import BUILTINS
from reporters.gotemplate.errors import TemplateExecError, TemplateLimitError
from reporters.gotemplate.gofmt import Spec, format_value
from reporters.gotemplate.lexer import byte_column
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
)
from reporters.gotemplate.reflection import INVALID, Boxed, is_true, static_type, unbox
from reporters.gotemplate.values import (
    GoError,
    GoFunc,
    GoInt,
    GoPanic,
    IntList,
    StrList,
    StrMap,
    go_type,
)

RV = "reflect.Value"
ANY = "interface {}"
_NILLABLE_PREFIXES = ("[]", "map[", "*", "func(")


@dataclass(frozen=True)
class Limits:
    """How much one execution may do (Go has no such limits; a reporter needs them)."""

    max_steps: int = 1_000_000
    """Nodes walked, commands evaluated and range iterations, all counted together."""
    max_output: int = 1_000_000
    """Characters written."""
    max_depth: int = 100
    """Nested {{template}} calls (Go allows 100000; Python's stack does not)."""


class _Missing:
    """No final value from an earlier pipeline stage (Go's missingVal)."""


MISSING = _Missing()


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Fail(Exception):
    def __init__(self, error: TemplateExecError) -> None:
        super().__init__(str(error))
        self.error = error


def _can_be_nil(typ: str) -> bool:
    return typ in (ANY, RV) or typ.startswith(_NILLABLE_PREFIXES)


class Executor:
    """One execution of one template over one datum."""

    def __init__(
        self,
        *,
        name: str,
        text: str,
        trees: Mapping[str, ListNode],
        funcs: Mapping[str, Callable[..., Any]],
        limits: Limits,
    ) -> None:
        self.parse_name = name
        self.text = text
        self.trees = trees
        self.funcs = funcs
        self.limits = limits
        self.tmpl_name = name
        self.node: Node | None = None
        self.vars: list[list[Any]] = []
        self.out: list[str] = []
        self.size = 0
        self.steps = 0
        self.depth = 0

    # -- errors and bookkeeping ---------------------------------------------------------------

    def at(self, node: Node) -> None:
        self.node = node

    def errorf(self, message: str, *, hint: str = "") -> NoReturn:
        if self.node is None:
            text = f"template: {self.tmpl_name}: {message}"
            raise _Fail(TemplateExecError(text, hint=hint))
        line, col = byte_column(self.text, self.node.pos)
        location = f"{self.parse_name}:{line}:{col}"
        context = str(self.node)
        text = f'template: {location}: executing "{self.tmpl_name}" at <{context}>: {message}'
        raise _Fail(TemplateExecError(text, line=line, column=col + 1, hint=hint))

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise _Fail(
                TemplateLimitError(
                    f"template: {self.parse_name}: execution stopped after "
                    f"{self.limits.max_steps} steps",
                    hint="the template loops too long; range over less data",
                )
            )

    def write(self, text: str) -> None:
        self.size += len(text)
        if self.size > self.limits.max_output:
            raise _Fail(
                TemplateLimitError(
                    f"template: {self.parse_name}: output longer than "
                    f"{self.limits.max_output} characters",
                    hint="the notification would be too large; print less",
                )
            )
        self.out.append(text)

    # -- variables ----------------------------------------------------------------------------

    def mark(self) -> int:
        return len(self.vars)

    def pop(self, mark: int) -> None:
        del self.vars[mark:]

    def push(self, name: str, value: Any) -> None:
        self.vars.append([name, value])

    def set_var(self, name: str, value: Any) -> None:
        for entry in reversed(self.vars):
            if entry[0] == name:
                entry[1] = value
                return
        self.errorf(f"undefined variable: {name}")

    def set_top_var(self, n: int, value: Any) -> None:
        self.vars[len(self.vars) - n][1] = value

    def var_value(self, name: str) -> Any:
        for entry in reversed(self.vars):
            if entry[0] == name:
                return entry[1]
        return self.errorf(f"undefined variable: {name}")

    # -- walking ------------------------------------------------------------------------------

    def execute(self, data: Any) -> str:
        root = self.trees.get(self.tmpl_name)
        if root is None:
            raise TemplateExecError(
                f'template: {self.tmpl_name}: "{self.tmpl_name}" is an incomplete or empty template'
            )
        if data is None:
            data = INVALID
        self.vars = [["$", data]]
        try:
            self.walk(data, root)
        except _Fail as fail:
            raise fail.error from None
        except RecursionError:
            raise TemplateLimitError(
                f"template: {self.parse_name}: nested too deeply to execute",
                hint="simplify the template's nesting",
            ) from None
        return "".join(self.out)

    def walk(self, dot: Any, node: Node) -> None:
        self.step()
        self.at(node)
        if isinstance(node, ActionNode):
            val = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.print_value(node, val)
        elif isinstance(node, TextNode):
            self.write(node.text)
        elif isinstance(node, ListNode):
            for n in node.nodes:
                self.walk(dot, n)
        elif isinstance(node, IfNode | WithNode):
            self.walk_if_or_with(isinstance(node, WithNode), dot, node)
        elif isinstance(node, RangeNode):
            self.walk_range(dot, node)
        elif isinstance(node, TemplateNode):
            self.walk_template(dot, node)
        elif isinstance(node, BreakNode):
            raise _Break
        elif isinstance(node, ContinueNode):
            raise _Continue
        elif isinstance(node, CommentNode):
            pass
        else:  # pragma: no cover
            self.errorf(f"unknown node: {node}")

    def walk_if_or_with(self, is_with: bool, dot: Any, node: BranchNode) -> None:
        mark = self.mark()
        try:
            val = self.eval_pipeline(dot, node.pipe)
            if is_true(val):
                self.walk(val if is_with else dot, node.list)
            elif node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            self.pop(mark)

    def walk_range(self, dot: Any, r: RangeNode) -> None:
        self.at(r)
        outer = self.mark()
        try:
            val = unbox(self.eval_pipeline(dot, r.pipe))
            mark = self.mark()
            decl = r.pipe.decl

            def one(index: Any, elem: Any) -> bool:
                self.step()
                if decl:
                    if r.pipe.is_assign:
                        if len(decl) > 1:
                            self.set_var(decl[0].ident[0], index)
                        else:
                            self.set_var(decl[0].ident[0], elem)
                    else:
                        self.set_top_var(1, elem)
                if len(decl) > 1:
                    if r.pipe.is_assign:
                        self.set_var(decl[1].ident[0], elem)
                    else:
                        self.set_top_var(2, index)
                try:
                    self.walk(elem, r.list)
                except _Continue:
                    pass
                finally:
                    self.pop(mark)
                return True

            ran = False
            try:
                if isinstance(val, bool) or val is None:
                    if val is not None:
                        self.errorf(f"range can't iterate over {format_value(val, Spec())}")
                elif isinstance(val, int):
                    if len(decl) > 1:
                        self.errorf(f"can't use {val} to iterate over more than one variable")
                    for i in range(int(val)):
                        ran = one(INVALID, type(val)(i))
                elif isinstance(val, list | bytes):
                    boxed = not isinstance(val, StrList | IntList | bytes)
                    for i, elem in enumerate(val):
                        ran = one(GoInt(i), Boxed(elem) if boxed else elem)
                elif isinstance(val, dict):
                    boxed = not isinstance(val, StrMap)
                    for key in sorted(val):
                        ran = one(key, Boxed(val[key]) if boxed else val[key])
                elif val is INVALID:
                    pass
                else:
                    self.errorf(f"range can't iterate over {format_value(val, Spec())}")
            except _Break:
                return
            if not ran and r.else_list is not None:
                self.walk(dot, r.else_list)
        finally:
            self.pop(outer)

    def walk_template(self, dot: Any, t: TemplateNode) -> None:
        self.at(t)
        root = self.trees.get(t.name)
        if root is None:
            self.errorf(f'template "{t.name}" not defined')
        if self.depth >= self.limits.max_depth:
            raise _Fail(
                TemplateLimitError(
                    f"template: {self.parse_name}: exceeded maximum template depth "
                    f"({self.limits.max_depth})",
                    hint="a template calls itself without end",
                )
            )
        new_dot = self.eval_pipeline(dot, t.pipe)
        saved = (self.vars, self.tmpl_name)
        self.vars = [["$", new_dot]]
        self.tmpl_name = t.name
        self.depth += 1
        try:
            assert root is not None
            self.walk(new_dot, root)
        finally:
            self.vars, self.tmpl_name = saved
            self.depth -= 1

    # -- evaluating -----------------------------------------------------------------------------

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
        args = args[1:] if args is not None else []
        num_in = len(args) + (0 if final is MISSING else 1)
        params = fn.params
        num_fixed = len(args)
        if fn.variadic:
            num_fixed = len(params) - 1
            if num_in < num_fixed:
                self.errorf(
                    f"wrong number of args for {name}: want at least {len(params) - 1} "
                    f"got {len(args)}"
                )
        elif num_in != len(params):
            self.errorf(f"wrong number of args for {name}: want {len(params)} got {num_in}")

        if is_builtin and name in ("and", "or"):
            v: Any = INVALID
            for arg in args:
                v = self.eval_arg(dot, RV, arg)
                if is_true(v) == (name == "or"):
                    return v
            if final is not MISSING:
                v = self.validate_type(final, RV)
            return v

        argv: list[Any] = []
        i = 0
        while i < num_fixed and i < len(args):
            argv.append(self.eval_arg(dot, params[i], args[i]))
            i += 1
        if fn.variadic:
            elem = params[-1]
            while i < len(args):
                argv.append(self.eval_arg(dot, elem, args[i]))
                i += 1
        if final is not MISSING:
            t = params[-1]
            if fn.variadic and num_in - 1 < num_fixed:
                t = params[num_in - 1]
            argv.append(self.validate_type(final, t))

        if is_builtin and name == "call":
            callee = str(args[0]) if args else format_value(unbox(final), Spec())
            try:
                result = self.call_builtin(callee, argv[0], argv[1:])
            except (GoError, GoPanic) as exc:
                self.at(node)
                self.errorf(f"error calling {name}: {exc}")
            return result
        try:
            result = fn(
                *[
                    self._to_param(a, p)
                    for a, p in zip(argv, self._param_types(fn, len(argv)), strict=True)
                ]
            )
        except (GoError, GoPanic) as exc:
            self.at(node)
            return self.errorf(f"error calling {name}: {exc}")
        except _Fail:
            raise
        except (ValueError, TypeError, ArithmeticError, KeyError, IndexError) as exc:
            self.at(node)
            return self.errorf(f"error calling {name}: {exc}")
        return self._wrap_result(fn, result)

    @staticmethod
    def _param_types(fn: GoFunc, count: int) -> list[str]:
        if not fn.variadic:
            return list(fn.params)
        fixed = list(fn.params[:-1])
        return fixed + [fn.params[-1]] * (count - len(fixed))

    @staticmethod
    def _to_param(value: Any, typ: str) -> Any:
        """What the Go function receives: reflect.Values as they are, others unwrapped."""
        if typ == RV:
            return value
        if isinstance(value, Boxed):
            return value.value
        if value is INVALID:
            return None
        return value

    @staticmethod
    def _wrap_result(fn: GoFunc, result: Any) -> Any:
        if fn.returns == RV:
            return result
        if fn.returns == ANY:
            return Boxed(result)
        return result

    def call_builtin(self, name: str, fn_value: Any, args: list[Any]) -> Any:
        """text/template's ``call``: the callee is a value (a func in a map, say)."""
        fn = unbox(fn_value)
        if fn is INVALID or fn is None:
            raise GoError("call of nil")
        if not isinstance(fn, GoFunc):
            if callable(fn):
                fn = as_gofunc(name, fn)
            else:
                raise GoError(f"non-function {name} of type {go_type(fn)}")
        params = fn.params
        if fn.variadic:
            if len(args) < len(params) - 1:
                raise GoError(
                    f"wrong number of args for {name}: got {len(args)} want at least "
                    f"{len(params) - 1}"
                )
        elif len(args) != len(params):
            raise GoError(f"wrong number of args for {name}: got {len(args)} want {len(params)}")
        argv = []
        for i, raw in enumerate(args):
            arg = unbox(raw)
            typ = params[-1] if fn.variadic and i >= len(params) - 1 else params[i]
            argv.append(prepare_arg(arg, typ, i))
        result = fn(
            *[
                self._to_param(a, t)
                for a, t in zip(argv, self._param_types(fn, len(argv)), strict=True)
            ]
        )
        return self._wrap_result(fn, result)

    def validate_type(self, value: Any, typ: str | None) -> Any:
        if value is INVALID:
            if typ is None:
                return INVALID
            if typ == RV:
                return INVALID
            if _can_be_nil(typ):
                return Boxed(None) if typ == ANY else None
            self.errorf(f"invalid value; expected {typ}")
        if typ is None or typ == RV:
            return value
        if typ == ANY:
            return value
        actual = static_type(value)
        if actual == typ:
            return value
        if isinstance(value, Boxed) and value.value is not None:
            inner = value.value
            if go_type(inner) == typ:
                return inner
            actual = go_type(inner)
        if value is None and _can_be_nil(typ):
            return None
        return self.errorf(f"wrong type for value; expected {typ}; got {actual}")

    def eval_arg(self, dot: Any, typ: str | None, n: Node) -> Any:
        self.at(n)
        if isinstance(n, DotNode):
            return self.validate_type(dot, typ)
        if isinstance(n, NilNode):
            if typ is not None and _can_be_nil(typ):
                return INVALID if typ == RV else (Boxed(None) if typ == ANY else None)
            self.errorf(f"cannot assign nil to {typ}")
        if isinstance(n, FieldNode):
            return self.validate_type(
                self.eval_field_chain(dot, dot, n, n.ident, [n], MISSING), typ
            )
        if isinstance(n, VariableNode):
            return self.validate_type(self.eval_variable(dot, n, [], MISSING), typ)
        if isinstance(n, PipeNode):
            return self.validate_type(self.eval_pipeline(dot, n), typ)
        if isinstance(n, IdentifierNode):
            return self.validate_type(self.eval_function(dot, n, n, None, MISSING), typ)
        if isinstance(n, ChainNode):
            return self.validate_type(self.eval_chain(dot, n, [], MISSING), typ)
        if typ is None:
            typ = ANY
        if typ == "bool":
            if isinstance(n, BoolNode):
                return n.value
            self.errorf(f"expected bool; found {n}")
        if typ in ("float64", "float32"):
            if isinstance(n, NumberNode) and n.is_float:
                return n.float64
            self.errorf(f"expected float; found {n}")
        if typ in ("int", "int64", "int32", "int8", "int16"):
            if isinstance(n, NumberNode) and n.is_int:
                return GoInt(n.int64) if typ == "int" else n.int64
            self.errorf(f"expected integer; found {n}")
        if typ in (ANY, RV):
            if isinstance(n, BoolNode):
                return n.value
            if isinstance(n, NumberNode):
                return self.ideal_constant(n)
            if isinstance(n, StringNode):
                return n.text
            self.errorf(f"can't handle assignment of {n} to empty interface argument")
        if typ == "string":
            if isinstance(n, StringNode):
                return n.text
            self.errorf(f"expected string; found {n}")
        if typ in ("uint", "uint8", "uint16", "uint32", "uint64"):
            if isinstance(n, NumberNode) and n.is_uint:
                return n.uint64
            self.errorf(f"expected unsigned integer; found {n}")
        return self.errorf(f"can't handle {n} for arg of type {typ}")

    def print_value(self, n: Node, v: Any) -> None:
        self.at(n)
        v = unbox(v)
        if v is INVALID:
            self.write("<no value>")
            return
        if isinstance(v, GoFunc) or (callable(v) and not hasattr(v, "go_string")):
            typ = v.go_type if isinstance(v, GoFunc) else "func"
            self.errorf(f"can't print {n} of type {typ}")
        self.write(format_value(v, Spec()))


def prepare_arg(value: Any, typ: str, i: int) -> Any:
    """call's argument conversion (funcs.go prepareArg), errors prefixed with the index."""
    if value is INVALID:
        if not _can_be_nil(typ):
            raise GoError(f"arg {i}: value is nil; should be of type {typ}")
        return None
    if typ in (ANY, RV):
        return value
    actual = go_type(value)
    if actual == typ:
        return value
    if actual in ("int", "int64") and typ in ("int", "int64"):
        return GoInt(value) if typ == "int" else int(value)
    raise GoError(f"arg {i}: value has type {actual}; should be {typ}")


def as_gofunc(name: str, fn: Callable[..., Any]) -> GoFunc:
    """A caller's plain Python function, seen as ``func(...interface {}) interface {}``."""
    if isinstance(fn, GoFunc):
        return fn
    return GoFunc(fn, (ANY,), variadic=True, returns=ANY, name=name)
