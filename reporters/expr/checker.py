"""expr's compile-time checks for a program compiled without an environment.

notifications-engine calls ``expr.Compile`` without ``expr.Env``, so every variable is of
unknown type and the checker can only reject what literals, builtins and operators alone
make impossible: ``1 + 'a'``, ``len(1)``, ``'x'[0]``, ``nil.a``, ``!1``, a non-bool ternary
condition, an unknown ``#pointer``, a bad regular expression literal. This module follows
``checker/checker.go`` (v1.17.7) over the few Go types literals and builtins can have,
called natures here as there; anything of unknown type passes, as it does in Go.
"""

from __future__ import annotations

from orchestrator.golang.regexp import PatternError, PatternUnsupported, compile_re2
from reporters.expr import nodes as n
from reporters.expr.builtin_checks import check_builtin
from reporters.expr.errors import ExprSyntaxError, ExprUnsupported
from reporters.expr.grammar import BUILTINS
from reporters.expr.natures import (
    ANY_ARRAY,
    ANY_MAP,
    BOOL,
    DURATION,
    FLOAT,
    INT,
    NIL,
    STRING,
    TIME,
    UNKNOWN,
    Nature,
    array_of,
    assignable,
    comparable,
    maybe_compatible,
    of,
    reflect_kind,
)
from reporters.expr.signatures import METHODS, OVERLOADS, TIME_ARITHMETIC


class Checker:
    def __init__(self, source: str) -> None:
        self.source = source
        self.err: ExprSyntaxError | ExprUnsupported | None = None
        self.scopes: list[tuple[Nature, dict[str, Nature]]] = []
        self.variables: list[tuple[str, Nature]] = []

    def error(self, node: n.Node, message: str) -> Nature:
        if self.err is None:
            self.err = ExprSyntaxError(message, self.source, node.loc)
        return UNKNOWN

    def refuse(self, node: n.Node, message: str, hint: str) -> Nature:
        if self.err is None:
            self.err = ExprUnsupported(message, self.source, node.loc, hint)
        return UNKNOWN

    def check(self, node: n.Node) -> None:
        self.visit(node)
        if self.err is not None:
            raise self.err

    def visit(self, node: n.Node) -> Nature:
        method = getattr(self, "visit_" + type(node).__name__.lower())
        nature: Nature = method(node)
        return nature

    def visit_nil(self, node: n.Nil) -> Nature:
        return NIL

    def visit_integer(self, node: n.Integer) -> Nature:
        return INT

    def visit_float(self, node: n.Float) -> Nature:
        return FLOAT

    def visit_bool(self, node: n.Bool) -> Nature:
        return BOOL

    def visit_string(self, node: n.String) -> Nature:
        return STRING

    def visit_identifier(self, node: n.Identifier) -> Nature:
        for name, nature in reversed(self.variables):
            if name == node.name:
                return nature
        if node.name in BUILTINS:
            overloads = OVERLOADS.get(node.name)
            if overloads:
                params, result = overloads[0]
                return Nature(f"func({', '.join(params)}) {result}")
            return Nature("func(...interface {}) (interface {}, error)")
        return UNKNOWN

    def visit_unary(self, node: n.Unary) -> Nature:
        nature = self.visit(node.node)
        if node.op in ("!", "not"):
            if nature.is_bool or nature.unknown:
                return BOOL
        elif nature.is_number:
            return nature
        elif nature.unknown:
            return UNKNOWN
        return self.error(node, f"invalid operation: {node.op} (mismatched type {nature.text()})")

    def visit_binary(self, node: n.Binary) -> Nature:
        left, right = self.visit(node.left), self.visit(node.right)
        op = node.op
        result = self._binary(node, op, left, right)
        if result is not None:
            return result
        return self.error(
            node,
            f"invalid operation: {op} (mismatched types {left.text()} and {right.text()})",
        )

    def _binary(self, node: n.Binary, op: str, l: Nature, r: Nature) -> Nature | None:  # noqa: E741
        def fits(same: bool, *checks: str) -> bool:
            """Of the right kinds, or possibly so at run time (``MaybeCompatible``)."""
            return same or maybe_compatible(l, r, *checks)

        if op in ("==", "!="):
            return BOOL if comparable(l, r) else None
        if op in ("or", "||", "and", "&&"):
            return BOOL if (l.is_bool and r.is_bool) or maybe_compatible(l, r, "bool") else None
        if op in ("<", ">", "<=", ">="):
            same = (l.is_number and r.is_number) or (l.is_string and r.is_string)
            same = same or (l.go == r.go == TIME) or (l.go == r.go == DURATION)
            ok = same or maybe_compatible(l, r, "number", "string", "time", "duration")
            return BOOL if ok else None
        if op in ("-", "+", "*"):
            if l.is_number and r.is_number:
                if l.unknown or r.unknown:
                    return UNKNOWN
                return FLOAT if l.is_float or r.is_float else INT
            pairs = TIME_ARITHMETIC[op]
            if (l.go, r.go) in pairs:
                return of(pairs[(l.go, r.go)])
            if op == "*" and (
                (l.is_number and r.go == DURATION) or (l.go == DURATION and r.is_number)
            ):
                return of(DURATION)
            if op == "+" and l.is_string and r.is_string:
                return STRING
            checks = {"-": ("number", "time", "duration"), "+": ("number", "string", "time",
                      "duration"), "*": ("number", "duration")}[op]  # fmt: skip
            return UNKNOWN if maybe_compatible(l, r, *checks) else None
        if op in ("/", "**", "^"):
            return FLOAT if fits(l.is_number and r.is_number, "number") else None
        if op == "%":
            return INT if fits(l.is_integer and r.is_integer, "integer") else None
        if op == "in":
            if (l.is_string or l.unknown) and r.go == TIME:
                return BOOL
            if r.is_map:
                key = r.go[4 : r.go.index("]")] if r.go else ""
                if not l.unknown and not assignable(l, of(key)):
                    return self.error(node, f"cannot use {l.text()} as type {key} in map key")
                return BOOL
            if r.is_array:
                elem = r.element()
                if not comparable(l, elem):
                    message = f"cannot use {l.text()} as type {elem.text()} in array"
                    return self.error(node, message)
                return BOOL
            if l.unknown and (r.is_string or r.is_array or r.is_map):
                return BOOL
            return BOOL if r.unknown else None
        if op == "matches":
            if isinstance(node.right, n.String):
                try:
                    compile_re2(node.right.value)
                except PatternError as exc:
                    return self.error(node, str(exc))
                except PatternUnsupported as exc:
                    return self.refuse(node, str(exc), exc.hint)
            ok = (l.is_string or l.go == "[]uint8") and r.is_string
            return BOOL if ok or maybe_compatible(l, r, "string") else None
        if op in ("contains", "startsWith", "endsWith"):
            return BOOL if fits(l.is_string and r.is_string, "string") else None
        if op == "..":
            ok = (l.is_integer and r.is_integer) or maybe_compatible(l, r, "integer")
            return array_of(INT) if ok else None
        if op == "??":
            if l.nil and not r.nil:
                return r
            if r.nil and not l.nil:
                return l
            if l.nil and r.nil:
                return NIL
            return l if assignable(r, l) else UNKNOWN
        return self.error(node, f"unknown operator ({op})")

    def visit_chain(self, node: n.Chain) -> Nature:
        return self.visit(node.node)

    def visit_member(self, node: n.Member) -> Nature:
        base = self.visit(node.node)
        prop = self.visit(node.prop)
        if base.unknown:
            return UNKNOWN
        name = node.prop.value if isinstance(node.prop, n.String) else None
        if name is not None:
            if base.nil:
                return self.error(node, f"type nil has no field {name}")
            if base.go is not None and f"{base.go}.{name}" in METHODS:
                return Nature("func", method=f"{base.go}.{name}")
        if base.is_map:
            key = of(base.go[4 : base.go.index("]")]) if base.go else UNKNOWN
            if not assignable(prop, key) and not prop.unknown:
                return self.error(
                    node.prop, f"cannot use {prop.text()} to get an element from {base.text()}"
                )
            return base.element()
        if base.is_array:
            if not prop.is_integer and not prop.unknown:
                return self.error(
                    node.prop,
                    f"array elements can only be selected using an integer (got {prop.text()})",
                )
            return base.element()
        if name is not None:
            kind = "method" if node.method else "field"
            return self.error(node, f"type {base.text()} has no {kind} {name}")
        return self.error(node, f"type {base.text()}[{prop.text()}] is undefined")

    def visit_slice(self, node: n.Slice) -> Nature:
        nature = self.visit(node.node)
        if nature.unknown:
            return UNKNOWN
        if not (nature.is_string or nature.is_array):
            return self.error(node, f"cannot slice {nature.text()}")
        for bound in (node.start, node.stop):
            if bound is not None:
                value = self.visit(bound)
                if not value.is_integer and not value.unknown:
                    return self.error(bound, f"non-integer slice index {value.text()}")
        return nature

    def visit_call(self, node: n.Call) -> Nature:
        callee = self.visit(node.callee)
        if callee.unknown:
            return UNKNOWN  # Go checks no argument of a callee it knows nothing about
        name = "function"
        if isinstance(node.callee, n.Identifier):
            name = node.callee.name
        if isinstance(node.callee, n.Member) and isinstance(node.callee.prop, n.String):
            name = node.callee.prop.value
        if callee.nil:
            return self.error(node, f"{name} is nil; cannot call nil as function")
        if callee.method:
            params, result = METHODS[callee.method]
            err = self.arguments(name, params, node.args, node)
            if err is not None:
                if self.err is None:
                    self.err = err
                return UNKNOWN
            return of(result)
        if callee.is_func:
            return UNKNOWN
        return self.error(node, f"{callee.text()} is not callable")

    def arguments(
        self, name: str, params: tuple[str, ...], args: list[n.Node], node: n.Node
    ) -> ExprSyntaxError | None:
        """``checkArguments`` for a function of known parameter types."""
        variadic = bool(params) and params[-1].startswith("...")
        count = len(params)
        message = ""
        if variadic:
            if len(args) < count - 1:
                message = f"not enough arguments to call {name}"
        elif len(args) > count:
            message = f"too many arguments to call {name}"
        elif len(args) < count:
            message = f"not enough arguments to call {name}"
        if message:
            for arg in args:
                self.visit(arg)
            return ExprSyntaxError(message, self.source, node.loc)
        for i, arg in enumerate(args):
            nature = self.visit(arg)
            wanted = params[min(i, count - 1)].removeprefix("...")
            want = of(wanted)
            if want.is_float and nature.is_integer:
                continue
            if want.is_integer and nature.is_integer:
                continue
            if nature.nil:
                if wanted.startswith("*") or wanted == "interface {}":
                    continue
                return ExprSyntaxError(
                    f"cannot use nil as argument (type {wanted}) to call {name}",
                    self.source,
                    arg.loc,
                )
            if not assignable(nature, want) and not nature.unknown and wanted != "interface {}":
                return ExprSyntaxError(
                    f"cannot use {nature.text()} as argument (type {wanted}) to call {name} ",
                    self.source,
                    arg.loc,
                )
        return None

    def visit_predicate(self, node: n.Predicate) -> Nature:
        inner = self.visit(node.node)
        return Nature("func", elem=inner)

    def visit_pointer(self, node: n.Pointer) -> Nature:
        if not self.scopes:
            return self.error(node, "cannot use pointer accessor outside predicate")
        collection, variables = self.scopes[-1]
        if node.name == "":
            if collection.unknown:
                return UNKNOWN
            if collection.is_array:
                return collection.element()
            return self.error(node, f"cannot use {collection.text()} as array")
        if node.name in variables:
            return variables[node.name]
        return self.error(node, f"unknown pointer #{node.name}")

    def visit_let(self, node: n.Let) -> Nature:
        if node.name in BUILTINS:
            return self.error(node, f"cannot redeclare builtin {node.name}")
        if any(name == node.name for name, _ in self.variables):
            return self.error(node, f"cannot redeclare variable {node.name}")
        value = self.visit(node.value)
        self.variables.append((node.name, value))
        body = self.visit(node.body)
        self.variables.pop()
        return body

    def visit_sequence(self, node: n.Sequence) -> Nature:
        if not node.nodes:
            return self.error(node, "empty sequence expression")
        last = UNKNOWN
        for item in node.nodes:
            last = self.visit(item)
        return last

    def visit_conditional(self, node: n.Conditional) -> Nature:
        cond = self.visit(node.cond)
        if not cond.is_bool and not cond.unknown:
            return self.error(
                node.cond, f"non-bool expression (type {cond.text()}) used as condition"
            )
        then, other = self.visit(node.then), self.visit(node.other)
        if then.nil and not other.nil:
            return other
        if other.nil and not then.nil:
            return then
        if then.nil and other.nil:
            return NIL
        if assignable(then, other):
            if then.is_array and other.is_array and then.element().go != other.element().go:
                return of(ANY_ARRAY)
            return then
        return UNKNOWN

    def visit_array(self, node: n.Array) -> Nature:
        natures = [self.visit(item) for item in node.nodes]
        kinds = {reflect_kind(nature) for nature in natures}
        if len(kinds) <= 1:
            return array_of(natures[-1] if natures else UNKNOWN)
        return of(ANY_ARRAY)

    def visit_map(self, node: n.Map) -> Nature:
        for pair in node.pairs:
            self.visit(pair)
        return of(ANY_MAP)

    def visit_pair(self, node: n.Pair) -> Nature:
        self.visit(node.key)
        self.visit(node.value)
        return NIL

    def visit_constant(self, node: n.Constant) -> Nature:
        return of(ANY_ARRAY)

    # -- builtins ------------------------------------------------------------------------------

    def visit_builtin(self, node: n.Builtin) -> Nature:
        return check_builtin(self, node)


def check(node: n.Node, source: str) -> None:
    Checker(source).check(node)


__all__ = ["Checker", "Nature", "check"]
