"""expr's virtual machine, as a walk over the optimized tree.

expr compiles to bytecode; this module evaluates the same tree in the order the bytecode
would (call arguments before the callee, a slice's end before its start, ``and``/``or`` that
check only their left side is a bool) and reports a failure where Go does: at the node whose
instruction panicked. ``?.`` ends its chain with nil, a missing map key is nil, and a budget
of steps and of collection sizes bounds every run (expr's own memory budget included).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from orchestrator.golang.gotime import Time
from orchestrator.golang.regexp import PatternUnsupported, matches
from reporters.expr import nodes as n
from reporters.expr.access import SliceUnsupported, contains_in, fetch, go_len, go_slice
from reporters.expr.builtins import FAST, GROWING, PLAIN, Unsupported, b_now
from reporters.expr.calls import call
from reporters.expr.errors import (
    BudgetExceeded,
    ExprRuntimeError,
    ExprUnsupported,
)
from reporters.expr.fold import StringSet
from reporters.expr.loops import LOOPS, Scope, pointer
from reporters.expr.methods import method
from reporters.expr.operators import (
    GoPanic,
    PowUnsupported,
    add,
    as_bool,
    as_string,
    compare,
    conversion_panic,
    divide,
    equal,
    exponent,
    modulo,
    multiply,
    negate,
    subtract,
    to_int,
)
from reporters.expr.values import TypedList, go_type

MEMORY_BUDGET = 1_000_000
"""``conf.DefaultMemoryBudget``: elements of arrays, maps and ranges a run may build."""


@dataclass(frozen=True)
class Limits:
    """How much one run may do: ``steps`` nodes evaluated (loop iterations included), about
    a quarter of a second by default, and ``memory`` collection elements built, expr's own
    budget. Go has no step limit; a trigger condition reads a few fields, so one that loops
    this long is a mistake to report, not a result to wait for."""

    steps: int = 250_000
    memory: int = MEMORY_BUDGET


class _ChainNil(Exception):
    """A ``?.`` met nil: the enclosing chain is nil."""


class Evaluator:
    def __init__(
        self, source: str, env: Mapping[str, Any], limits: Limits, clock: Callable[[], Time]
    ) -> None:
        self.source = source
        self.env = env
        self.limits = limits
        self.clock = clock
        self.steps = 0
        self.memory = 0
        self.variables: list[tuple[str, Any]] = []
        self.scopes: list[Scope] = []

    # -- plumbing ------------------------------------------------------------------------------

    @contextmanager
    def at(self, node: n.Node) -> Iterator[None]:
        """Turn a Go panic, or a refusal, into an error at ``node``."""
        try:
            yield
        except GoPanic as exc:
            raise ExprRuntimeError(str(exc), self.source, node.loc) from None
        except Unsupported as exc:
            raise ExprUnsupported(str(exc), self.source, node.loc, exc.hint) from None
        except PatternUnsupported as exc:
            raise ExprUnsupported(str(exc), self.source, node.loc, exc.hint) from None
        except PowUnsupported as exc:
            raise ExprUnsupported(
                "a power with a fractional exponent", self.source, node.loc, exc.hint
            ) from None
        except SliceUnsupported:
            raise ExprUnsupported(
                "slicing a string inside a multi-byte character",
                self.source,
                node.loc,
                "slice at character boundaries, or compare with startsWith",
            ) from None

    def grow(self, size: int) -> None:
        self.memory += size
        if self.memory >= self.limits.memory:
            raise GoPanic("memory budget exceeded")

    def step(self, node: n.Node) -> None:
        self.steps += 1
        if self.steps > self.limits.steps:
            raise BudgetExceeded(
                f"evaluation stopped after {self.limits.steps} steps",
                self.source,
                node.loc,
                "a condition should look at a few fields; loop over smaller collections",
            )

    def run(self, node: n.Node) -> Any:
        try:
            return self.eval(node)
        except RecursionError:
            raise BudgetExceeded(
                "evaluation nested too deeply", self.source, node.loc, "simplify the condition"
            ) from None

    def eval(self, node: n.Node) -> Any:
        self.step(node)
        handler: Callable[[Any], Any] = getattr(self, "eval_" + type(node).__name__.lower())
        return handler(node)

    # -- literals and names --------------------------------------------------------------------

    def eval_nil(self, node: n.Nil) -> Any:
        return None

    def eval_integer(self, node: n.Integer) -> Any:
        return node.value

    def eval_float(self, node: n.Float) -> Any:
        return node.value

    def eval_bool(self, node: n.Bool) -> Any:
        return node.value

    def eval_string(self, node: n.String) -> Any:
        return node.value

    def eval_constant(self, node: n.Constant) -> Any:
        return list(node.value)

    def eval_identifier(self, node: n.Identifier) -> Any:
        for name, value in reversed(self.variables):
            if name == node.name:
                return value
        if node.name == "$env":
            return self.env
        return self.env.get(node.name)

    # -- operators -----------------------------------------------------------------------------

    def eval_unary(self, node: n.Unary) -> Any:
        value = self.eval(node.node)
        with self.at(node):
            if node.op in ("!", "not"):
                return not as_bool(value)
            if node.op == "-":
                return negate(value)
            return value

    def eval_binary(self, node: n.Binary) -> Any:
        op = node.op
        if op in ("and", "&&", "or", "||"):
            left = self.eval(node.left)
            with self.at(node):
                truth = as_bool(left)
            if truth is (op in ("or", "||")):
                return left
            return self.eval(node.right)
        if op == "??":
            left = self.eval(node.left)
            return left if left is not None else self.eval(node.right)
        if op == "in" and isinstance(node.right, StringSet):
            needle = self.eval(node.left)
            with self.at(node):
                if needle is None:
                    return "" in node.right.values
                if type(needle) is not str:
                    raise GoPanic(
                        f"reflect.Value.MapIndex: value of type {go_type(needle)} is not "
                        "assignable to type string"
                    )
                return needle in node.right.values
        if op == "matches" and isinstance(node.right, n.String):
            subject = self.eval(node.left)
            with self.at(node):
                if subject is None:
                    return False
                if type(subject) is not str:
                    raise conversion_panic(subject, "[]uint8")
                return matches(node.right.value, subject)
        left = self.eval(node.left)
        right = self.eval(node.right)
        with self.at(node):
            return self.binary(op, left, right)

    def binary(self, op: str, left: Any, right: Any) -> Any:
        if op == "==":
            return equal(left, right)
        if op == "!=":
            return not equal(left, right)
        if op in ("<", ">", "<=", ">="):
            return compare(op, left, right)
        if op == "+":
            return add(left, right)
        if op == "-":
            return subtract(left, right)
        if op == "*":
            return multiply(left, right)
        if op == "/":
            return divide(left, right)
        if op == "%":
            return modulo(left, right)
        if op in ("**", "^"):
            return exponent(left, right)
        if op == "in":
            return contains_in(left, right)
        if op == "matches":
            if left is None or right is None:
                return False
            pattern = as_string(right)
            if type(left) is not str:
                raise conversion_panic(left, "[]uint8")
            return matches(pattern, left)
        if op in ("contains", "startsWith", "endsWith"):
            if left is None or right is None:
                return False
            text, part = as_string(left), as_string(right)
            if op == "contains":
                return part in text
            return text.startswith(part) if op == "startsWith" else text.endswith(part)
        if op == "..":
            low, high = to_int(left), to_int(right)
            size = max(high - low + 1, 0)
            self.grow(size)
            return TypedList(range(low, high + 1), "int")
        raise GoPanic(f"unknown operator ({op})")

    # -- access --------------------------------------------------------------------------------

    def eval_chain(self, node: n.Chain) -> Any:
        try:
            return self.eval(node.node)
        except _ChainNil:
            return None

    def eval_member(self, node: n.Member) -> Any:
        base = self.eval(node.node)
        if node.optional and base is None:
            raise _ChainNil
        prop = self.eval(node.prop)
        with self.at(node):
            return fetch(base, prop, method)

    def eval_slice(self, node: n.Slice) -> Any:
        base = self.eval(node.node)
        if node.stop is not None:
            stop = self.eval(node.stop)
        else:
            with self.at(node):
                stop = go_len(base)
        start = self.eval(node.start) if node.start is not None else 0
        with self.at(node):
            return go_slice(base, start, stop)

    def eval_call(self, node: n.Call) -> Any:
        args = [self.eval(arg) for arg in node.args]
        callee = self.eval(node.callee)
        with self.at(node):
            return call(callee, args)

    def eval_builtin(self, node: n.Builtin) -> Any:
        loop = LOOPS.get(node.name)
        if loop is not None:
            return loop(self, node)
        args = [self.eval(arg) for arg in node.args]
        with self.at(node):
            return self.builtin(node.name, args)

    def builtin(self, name: str, args: list[Any]) -> Any:
        if name in FAST:
            return PLAIN[name](args[0])
        if name in GROWING:
            if name in ("repeat", "reverse", "flatten"):
                return GROWING[name](*args, self.grow)
            return GROWING[name](*args, grow=self.grow)
        if name == "now":
            return b_now(*args, clock=self.clock)
        fn = PLAIN.get(name)
        if fn is None:
            raise Unsupported(f"the builtin {name}()", "see reporters.expr.builtins.PLAIN")
        return fn(*args)  # the checker has already refused a wrong number of arguments

    def eval_predicate(self, node: n.Predicate) -> Any:
        return self.eval(node.node)

    def eval_pointer(self, node: n.Pointer) -> Any:
        scope = self.scopes[-1]
        if node.name == "index":
            return scope.index
        if node.name == "acc":
            return scope.acc
        return pointer(self, node, scope)

    # -- structure -----------------------------------------------------------------------------

    def eval_conditional(self, node: n.Conditional) -> Any:
        cond = self.eval(node.cond)
        with self.at(node):
            truth = as_bool(cond)
        return self.eval(node.then if truth else node.other)

    def eval_let(self, node: n.Let) -> Any:
        value = self.eval(node.value)
        self.variables.append((node.name, value))
        try:
            return self.eval(node.body)
        finally:
            self.variables.pop()

    def eval_sequence(self, node: n.Sequence) -> Any:
        value = None
        for item in node.nodes:
            value = self.eval(item)
        return value

    def eval_array(self, node: n.Array) -> Any:
        items = [self.eval(item) for item in node.nodes]
        with self.at(node):
            self.grow(len(items))
        return items

    def eval_map(self, node: n.Map) -> Any:
        pairs = [(self.eval(p.key), self.eval(p.value)) for p in node.pairs]
        with self.at(node):
            self.grow(len(pairs))
            # OpMap stores the pairs from the last to the first: the last bad key is the one
            # reported, and of two equal keys the first one's value stays.
            for key, _ in reversed(pairs):
                as_string_key(key)
            out: dict[str, Any] = {}
            for key, value in pairs:
                out.setdefault(key, value)
        return out


def as_string_key(key: Any) -> str:
    if type(key) is not str:
        raise conversion_panic(key, "string")
    return key


__all__ = ["Evaluator", "Limits"]
