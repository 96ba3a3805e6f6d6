"""expr's compile-time checks for a program compiled without an environment.

notifications-engine calls ``expr.Compile`` without ``expr.Env``, so every variable is of
unknown type and the checker can only reject what literals, builtins and operators alone
make impossible: ``1 + 'a'``, ``len(1)``, ``'x'[0]``, ``nil.a``, ``!1``, a non-bool ternary
condition, an unknown ``#pointer``, a bad regular expression literal. This module follows
``checker/checker.go`` (v1.17.7) over the few Go types literals and builtins can have,
called natures here as there; anything of unknown type passes, as it does in Go.
"""

from __future__ import annotations

from dataclasses import dataclass

from reporters.expr import nodes as n
from reporters.expr.errors import ExprSyntaxError, ExprUnsupported, Location
from reporters.expr.regex import PatternError, PatternUnsupported, compile_re2

INTEGERS = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                      "uint32", "uint64"})  # fmt: skip
TIME, DURATION = "time.Time", "time.Duration"
ANY_ARRAY, ANY_MAP = "[]interface {}", "map[string]interface {}"


@dataclass(frozen=True)
class Nature:
    """A Go type as the checker knows it; ``go`` is None for unknown (or ``interface {}``)."""

    go: str | None = None
    nil: bool = False
    elem: Nature | None = None
    method: str = ""
    """For a method value: ``Time.Sub`` and so on (see :data:`METHODS`)."""

    @property
    def unknown(self) -> bool:
        return (self.go is None and not self.nil) or self.go == "interface {}"

    @property
    def is_integer(self) -> bool:
        return self.go in INTEGERS

    @property
    def is_float(self) -> bool:
        return self.go in ("float64", "float32")

    @property
    def is_number(self) -> bool:
        return self.is_integer or self.is_float

    @property
    def is_string(self) -> bool:
        return self.go == "string"

    @property
    def is_bool(self) -> bool:
        return self.go == "bool"

    @property
    def is_array(self) -> bool:
        return self.go is not None and self.go.startswith("[]")

    @property
    def is_map(self) -> bool:
        return self.go is not None and self.go.startswith("map[")

    @property
    def is_func(self) -> bool:
        return self.go is not None and self.go.startswith("func")

    def text(self) -> str:
        """``Nature.String``."""
        return self.go if self.go is not None else "unknown"

    def element(self) -> Nature:
        if self.elem is not None:
            return self.elem
        if self.go and self.go.startswith("[]"):
            return of(self.go[2:])
        if self.go and self.go.startswith("map["):
            return of(self.go[self.go.index("]") + 1 :])
        return UNKNOWN


UNKNOWN = Nature()
NIL = Nature(nil=True)


def of(go: str) -> Nature:
    """The nature of a Go type; ``interface {}`` is unknown too, but prints as itself."""
    return Nature(go)


BOOL, INT, FLOAT, STRING = of("bool"), of("int"), of("float64"), of("string")


def array_of(elem: Nature) -> Nature:
    return Nature(ANY_ARRAY, elem=elem)


def _maybe(left: Nature, right: Nature, *checks: str) -> bool:
    """``MaybeCompatible``: both unknown, or one unknown and the other of a listed kind."""

    def fits(nature: Nature) -> bool:
        return any(
            nature.go == _SPECIAL[check] if check in _SPECIAL else getattr(nature, "is_" + check)
            for check in checks
        )

    return (
        (left.unknown and right.unknown)
        or (left.unknown and fits(right))
        or (right.unknown and fits(left))
    )


_SPECIAL = {"time": TIME, "duration": DURATION}


def _comparable(left: Nature, right: Nature) -> bool:
    return (
        left.unknown
        or right.unknown
        or left.nil
        or right.nil
        or (left.is_number and right.is_number)
        or (left.go == right.go == DURATION)
        or (left.go == right.go == TIME)
        or (left.is_array and right.is_array)
        or _assignable(left, right)
    )


def _assignable(left: Nature, right: Nature) -> bool:
    if left.nil:
        return right.is_array or right.is_map or right.is_func or right.unknown
    if left.go is None or right.go is None:
        return False
    return left.go == right.go or right.go == "interface {}"


_TIME_ARITHMETIC: dict[str, dict[tuple[str | None, str | None], str]] = {
    "-": {(TIME, TIME): DURATION, (TIME, DURATION): TIME, (DURATION, DURATION): DURATION},
    "+": {(TIME, DURATION): TIME, (DURATION, TIME): TIME, (DURATION, DURATION): DURATION},
    "*": {(DURATION, DURATION): DURATION},
}
"""What the checker accepts between times and durations, and what they give."""

# Methods of the values Argo CD's functions and expr's date builtins return:
# receiver.Name -> (parameter types, result type).
METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "time.Time.Add": ((DURATION,), TIME), "time.Time.Sub": ((TIME,), DURATION),
    "time.Time.Before": ((TIME,), "bool"), "time.Time.After": ((TIME,), "bool"),
    "time.Time.Equal": ((TIME,), "bool"), "time.Time.Compare": ((TIME,), "int"),
    "time.Time.IsZero": ((), "bool"), "time.Time.Unix": ((), "int64"),
    "time.Time.UnixMilli": ((), "int64"), "time.Time.UnixMicro": ((), "int64"),
    "time.Time.UnixNano": ((), "int64"), "time.Time.Year": ((), "int"),
    "time.Time.Month": ((), "time.Month"), "time.Time.Day": ((), "int"),
    "time.Time.Hour": ((), "int"), "time.Time.Minute": ((), "int"),
    "time.Time.Second": ((), "int"), "time.Time.Nanosecond": ((), "int"),
    "time.Time.YearDay": ((), "int"), "time.Time.Weekday": ((), "time.Weekday"),
    "time.Time.UTC": ((), TIME), "time.Time.Format": (("string",), "string"),
    "time.Time.String": ((), "string"), "time.Time.Truncate": ((DURATION,), TIME),
    "time.Time.Round": ((DURATION,), TIME), "time.Time.AddDate": (("int", "int", "int"), TIME),
    "time.Duration.Hours": ((), "float64"), "time.Duration.Minutes": ((), "float64"),
    "time.Duration.Seconds": ((), "float64"), "time.Duration.Milliseconds": ((), "int64"),
    "time.Duration.Microseconds": ((), "int64"), "time.Duration.Nanoseconds": ((), "int64"),
    "time.Duration.String": ((), "string"), "time.Duration.Abs": ((), DURATION),
    "time.Duration.Round": ((DURATION,), DURATION),
    "time.Duration.Truncate": ((DURATION,), DURATION),
    "time.Month.String": ((), "string"), "time.Weekday.String": ((), "string"),
}  # fmt: skip


def method_names(receiver: str) -> list[str]:
    prefix = receiver + "."
    return [key[len(prefix) :] for key in METHODS if key.startswith(prefix)]


# The ``Types`` overloads of builtins checked by argument: name -> list of (params, result).
# A trailing "..." parameter is variadic.
OVERLOADS: dict[str, list[tuple[tuple[str, ...], str]]] = {
    "type": [(("interface {}",), "string")],
    "string": [(("interface {}",), "string")],
    "trim": [(("string",), "string"), (("string", "string"), "string")],
    "trimPrefix": [(("string", "string"), "string"), (("string",), "string")],
    "trimSuffix": [(("string", "string"), "string"), (("string",), "string")],
    "upper": [(("string",), "string")],
    "lower": [(("string",), "string")],
    "split": [(("string", "string"), "[]string"), (("string", "string", "int"), "[]string")],
    "splitAfter": [(("string", "string"), "[]string"),
                   (("string", "string", "int"), "[]string")],
    "replace": [(("string", "string", "string", "int"), "string"),
                (("string", "string", "string"), "string")],
    "repeat": [(("string", "int"), "string")],
    "join": [(("[]string", "string"), "string"), (("[]interface {}", "string"), "string"),
             (("[]interface {}",), "string"), (("[]string", "string"), "string"),
             (("[]string",), "string")],
    "indexOf": [(("string", "string"), "int")],
    "lastIndexOf": [(("string", "string"), "int")],
    "hasPrefix": [(("string", "string"), "bool")],
    "hasSuffix": [(("string", "string"), "bool")],
    "toJSON": [(("interface {}",), "string")],
    "fromJSON": [(("string",), "interface {}")],
    "toBase64": [(("string",), "string")],
    "fromBase64": [(("string",), "string")],
    "duration": [(("string",), DURATION)],
    "timezone": [(("string",), "*time.Location")],
    "sort": [(("[]interface {}", "string"), ANY_ARRAY), (("[]int", "string"), ANY_ARRAY),
             (("[]float64", "string"), ANY_ARRAY), (("[]string", "string"), ANY_ARRAY),
             (("[]interface {}",), ANY_ARRAY), (("[]float64",), ANY_ARRAY),
             (("[]string",), ANY_ARRAY), (("[]int",), ANY_ARRAY)],
    "bitand": [(("int", "int"), "int")], "bitor": [(("int", "int"), "int")],
    "bitxor": [(("int", "int"), "int")], "bitnand": [(("int", "int"), "int")],
    "bitshl": [(("int", "int"), "int")], "bitshr": [(("int", "int"), "int")],
    "bitushr": [(("int", "int"), "int")], "bitnot": [(("int",), "int")],
    "get": [],
}  # fmt: skip

ROUND_KINDS = INTEGERS | {"float64", "float32", "interface {}"}


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
        from reporters.expr.parser import BUILTINS

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
        if op in ("==", "!="):
            return BOOL if _comparable(l, r) else None
        if op in ("or", "||", "and", "&&"):
            return BOOL if (l.is_bool and r.is_bool) or _maybe(l, r, "bool") else None
        if op in ("<", ">", "<=", ">="):
            same = (l.is_number and r.is_number) or (l.is_string and r.is_string)
            same = same or (l.go == r.go == TIME) or (l.go == r.go == DURATION)
            ok = same or _maybe(l, r, "number", "string", "time", "duration")
            return BOOL if ok else None
        if op in ("-", "+", "*"):
            if l.is_number and r.is_number:
                if l.unknown or r.unknown:
                    return UNKNOWN
                return FLOAT if l.is_float or r.is_float else INT
            pairs = _TIME_ARITHMETIC[op]
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
            return UNKNOWN if _maybe(l, r, *checks) else None
        if op in ("/", "**", "^"):
            return FLOAT if (l.is_number and r.is_number) or _maybe(l, r, "number") else None
        if op == "%":
            return INT if (l.is_integer and r.is_integer) or _maybe(l, r, "integer") else None
        if op == "in":
            if (l.is_string or l.unknown) and r.go == TIME:
                return BOOL
            if r.is_map:
                key = r.go[4 : r.go.index("]")] if r.go else ""
                if not l.unknown and not _assignable(l, of(key)):
                    return self.error(node, f"cannot use {l.text()} as type {key} in map key")
                return BOOL
            if r.is_array:
                elem = r.element()
                if not _comparable(l, elem):
                    return self.error(node, f"cannot use {l.text()} as type {elem.text()} in array")
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
            return BOOL if ok or _maybe(l, r, "string") else None
        if op in ("contains", "startsWith", "endsWith"):
            return BOOL if (l.is_string and r.is_string) or _maybe(l, r, "string") else None
        if op == "..":
            ok = (l.is_integer and r.is_integer) or _maybe(l, r, "integer")
            return array_of(INT) if ok else None
        if op == "??":
            if l.nil and not r.nil:
                return r
            if r.nil and not l.nil:
                return l
            if l.nil and r.nil:
                return NIL
            return l if _assignable(r, l) else UNKNOWN
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
            if not _assignable(prop, key) and not prop.unknown:
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
            if not _assignable(nature, want) and not nature.unknown and wanted != "interface {}":
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
        from reporters.expr.parser import BUILTINS

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
        if _assignable(then, other):
            if then.is_array and other.is_array and then.element().go != other.element().go:
                return of(ANY_ARRAY)
            return then
        return UNKNOWN

    def visit_array(self, node: n.Array) -> Nature:
        natures = [self.visit(item) for item in node.nodes]
        kinds = {_kind(nature) for nature in natures}
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
        from reporters.expr.builtin_checks import check_builtin

        return check_builtin(self, node)


def _kind(nature: Nature) -> str:
    """reflect.Kind of a nature, for the array literal's "all of one kind" test."""
    go = nature.go
    if go is None:
        return "nil" if nature.nil else "invalid"
    if go == "interface {}":
        return "interface"
    if go.startswith("[]"):
        return "slice"
    if go.startswith("map["):
        return "map"
    if go.startswith("func"):
        return "func"
    if go == TIME:
        return "struct"
    if go == DURATION:
        return "int64"
    return go


def check(node: n.Node, source: str) -> None:
    Checker(source).check(node)


__all__ = ["Checker", "Location", "Nature", "check"]
