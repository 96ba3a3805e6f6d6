"""Calling functions and methods as Go's evalCall does: counts, argument types, results.

Go checks each argument against the parameter's type (a literal ``3`` can be an ``int``
or an ``int64``, a field's ``int64`` cannot become an ``int``), lets ``and``/``or``
short-circuit, and reports a failing call as ``error calling NAME: ...``. A caller's plain
Python function is treated as ``func(...interface {}) interface {}``.
"""

from __future__ import annotations

from typing import Any

from reporters.gotemplate.evaluation import Evaluation
from reporters.gotemplate.gofmt import Spec, format_value
from reporters.gotemplate.nodes import (
    BoolNode,
    ChainNode,
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
from reporters.gotemplate.reflection import INVALID, Boxed, is_true, static_type, unbox
from reporters.gotemplate.state import ANY, MISSING, RV, ExecFailure, as_gofunc, can_be_nil
from reporters.gotemplate.values import (
    GoError,
    GoFunc,
    GoInt,
    GoPanic,
    go_type,
)


class Calls(Evaluation):
    """Function and method calls, and the conversion of their arguments."""

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
        except ExecFailure:
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
            if can_be_nil(typ):
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
        if value is None and can_be_nil(typ):
            return None
        return self.errorf(f"wrong type for value; expected {typ}; got {actual}")

    def eval_arg(self, dot: Any, typ: str | None, n: Node) -> Any:
        self.at(n)
        if isinstance(n, DotNode):
            return self.validate_type(dot, typ)
        if isinstance(n, NilNode):
            if typ is not None and can_be_nil(typ):
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


def prepare_arg(value: Any, typ: str, i: int) -> Any:
    """call's argument conversion (funcs.go prepareArg), errors prefixed with the index."""
    if value is INVALID:
        if not can_be_nil(typ):
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
