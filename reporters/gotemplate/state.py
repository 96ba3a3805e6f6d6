"""The state of one execution: where it is, its variables, its output and its budget.

Go's exec.go keeps the same state (the node for error messages, the variable stack that
``{{end}}`` unwinds); the budget is this package's own, so a template cannot run or write
without end.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from reporters.gotemplate.errors import TemplateExecError, TemplateLimitError
from reporters.gotemplate.lexer import byte_column
from reporters.gotemplate.nodes import (
    ListNode,
    Node,
)
from reporters.gotemplate.values import GoFunc

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


class BreakLoop(Exception):
    pass


class ContinueLoop(Exception):
    pass


class ExecFailure(Exception):
    def __init__(self, error: TemplateExecError) -> None:
        super().__init__(str(error))
        self.error = error


def can_be_nil(typ: str) -> bool:
    return typ in (ANY, RV) or typ.startswith(_NILLABLE_PREFIXES)


class ExecState:
    """Bookkeeping shared by evaluation and walking."""

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
        hint = hint or exec_hint(message)
        if self.node is None:
            text = f"template: {self.tmpl_name}: {message}"
            raise ExecFailure(TemplateExecError(text, hint=hint))
        line, col = byte_column(self.text, self.node.pos)
        location = f"{self.parse_name}:{line}:{col}"
        context = str(self.node)
        text = f'template: {location}: executing "{self.tmpl_name}" at <{context}>: {message}'
        raise ExecFailure(TemplateExecError(text, line=line, column=col + 1, hint=hint))

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise ExecFailure(
                TemplateLimitError(
                    f"template: {self.parse_name}: execution stopped after "
                    f"{self.limits.max_steps} steps",
                    hint="the template loops too long; range over less data",
                )
            )

    def write(self, text: str) -> None:
        self.size += len(text)
        if self.size > self.limits.max_output:
            raise ExecFailure(
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


def as_gofunc(name: str, fn: Callable[..., Any]) -> GoFunc:
    """A caller's plain Python function, seen as ``func(...interface {}) interface {}``."""
    if isinstance(fn, GoFunc):
        return fn
    return GoFunc(fn, (ANY,), variadic=True, returns=ANY, name=name)


_EXEC_HINTS = (
    ("nil pointer evaluating", "a value on the path is null; guard it with {{ with ... }}"),
    ("expected int; got int64", "numbers from the Application are int64: convert with int"),
    ("expected string; got", "convert the value first with toString"),
    (
        "incompatible types for comparison",
        "compare values of one type: int64 fields with "
        "int64 (a number from the data), strings with strings; convert with int64 or toString",
    ),
    ("wrong number of args", "check how many arguments the function takes"),
    ("can't evaluate field", "the value has no such field; print it to see its shape"),
    (
        "is not a defined function",
        "functions of the data are called with call: "
        "{{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}",
    ),
    ("index out of range", "check the length first: {{ if gt (len .items) 2 }}"),
    ("range can't iterate over", "range takes a list, a map or a number"),
    ("error calling", "the function refused its arguments; see the message after it"),
)


def exec_hint(message: str) -> str:
    """What to write instead, for the execution errors people meet most."""
    return next((hint for key, hint in _EXEC_HINTS if key in message), "")
