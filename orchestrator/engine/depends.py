"""Argo's enhanced ``depends`` logic, evaluated against task phases (pure).

``deploy-dev.Succeeded && (check.Failed || !check.Errored)``: a task waits until every task
its expression names is fulfilled, then runs if the expression holds and is Omitted if not.
Evaluation is three-valued, so a task whose expression is already false however the
pending tasks end is Omitted at once and its own dependants can be decided too.

The phase of a finished DAG follows Argo's branch rule: an Omitted or Skipped task inherits
the phase of the last task that completed above it, and the DAG fails if any leaf's branch
failed. ``a.Failed`` handlers therefore absorb a failure, while a plain chain broken by a
failure fails the run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.model import Phase

RESULTS = {
    "Succeeded": (Phase.SUCCEEDED,),
    "Failed": (Phase.FAILED,),
    "Errored": (Phase.ERROR,),
    "Skipped": (Phase.SKIPPED,),
    "Omitted": (Phase.OMITTED,),
    # No daemons and no task groups (withItems) run locally: these never hold.
    "Daemoned": (),
    "AnySucceeded": (),
    "AllFailed": (),
}
BARE = (Phase.SUCCEEDED, Phase.SKIPPED)
"""A bare ``task`` means ``task.Succeeded || task.Skipped || task.Daemoned``."""

_TOKEN = re.compile(r"\s*(?:(&&|\|\||[!()])|([A-Za-z0-9][A-Za-z0-9_-]*)(?:\.([A-Za-z]+))?)")

Truth = bool | None
"""True, False, or None while tasks it depends on are still to finish."""


@dataclass(frozen=True)
class _Atom:
    task: str
    phases: tuple[Phase, ...]

    def value(self, phases: Mapping[str, Phase]) -> Truth:
        phase = phases.get(self.task, Phase.PENDING)
        return phase in self.phases if phase.fulfilled else None


@dataclass(frozen=True)
class _Not:
    operand: _Expr

    def value(self, phases: Mapping[str, Phase]) -> Truth:
        inner = self.operand.value(phases)
        return None if inner is None else not inner


@dataclass(frozen=True)
class _And:
    left: _Expr
    right: _Expr

    def value(self, phases: Mapping[str, Phase]) -> Truth:
        left, right = self.left.value(phases), self.right.value(phases)
        if left is False or right is False:
            return False
        return None if left is None or right is None else True


@dataclass(frozen=True)
class _Or:
    left: _Expr
    right: _Expr

    def value(self, phases: Mapping[str, Phase]) -> Truth:
        left, right = self.left.value(phases), self.right.value(phases)
        if left is True or right is True:
            return True
        return None if left is None or right is None else False


_Expr = _Atom | _Not | _And | _Or


class Decision(Enum):
    WAIT = "wait"
    RUN = "run"
    OMIT = "omit"


@dataclass(frozen=True)
class Depends:
    """A parsed ``depends`` expression and the tasks it names."""

    text: str
    tasks: frozenset[str]
    _root: _Expr

    def value(self, phases: Mapping[str, Phase]) -> Truth:
        return self._root.value(phases)

    def decide(self, phases: Mapping[str, Phase]) -> Decision:
        """RUN once every named task is fulfilled and the expression holds (as Argo waits
        for all of them); OMIT as soon as no outcome of the pending ones could make it hold."""
        value = self.value(phases)
        if value is False:
            return Decision.OMIT
        if all(phases.get(t, Phase.PENDING).fulfilled for t in self.tasks):
            return Decision.RUN if value else Decision.OMIT
        return Decision.WAIT


def _tokens(text: str) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        match = _TOKEN.match(stripped, pos)
        if match is None or match.end() == pos:
            raise EngineError(f"depends {text!r}: unexpected text at {stripped[pos:]!r}")
        out.append((match.group(1) or "", match.group(2) or "", match.group(3) or ""))
        pos = match.end()
    return out


class _Parser:
    """Precedence as in Argo (expr): ``!`` binds tightest, then ``&&``, then ``||``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def fail(self, what: str) -> EngineError:
        return EngineError(f"depends {self.text!r}: {what}")

    def peek(self) -> str | None:
        return self.tokens[self.pos][0] if self.pos < len(self.tokens) else None

    def parse(self) -> _Expr:
        if not self.tokens:
            raise self.fail("empty expression")
        expr = self.disjunction()
        if self.pos != len(self.tokens):
            raise self.fail(f"unexpected {self.describe(self.pos)}")
        return expr

    def describe(self, index: int) -> str:
        op, name, result = self.tokens[index]
        return repr(op or (f"{name}.{result}" if result else name))

    def disjunction(self) -> _Expr:
        expr = self.conjunction()
        while self.peek() == "||":
            self.pos += 1
            expr = _Or(expr, self.conjunction())
        return expr

    def conjunction(self) -> _Expr:
        expr = self.unary()
        while self.peek() == "&&":
            self.pos += 1
            expr = _And(expr, self.unary())
        return expr

    def unary(self) -> _Expr:
        if self.pos >= len(self.tokens):
            raise self.fail("expression ends too early")
        op, name, result = self.tokens[self.pos]
        self.pos += 1
        if op == "!":
            return _Not(self.unary())
        if op == "(":
            expr = self.disjunction()
            if self.peek() != ")":
                raise self.fail("missing ')'")
            self.pos += 1
            return expr
        if op:
            raise self.fail(f"unexpected {op!r}")
        if not result:
            return _Atom(name, BARE)
        if result not in RESULTS:
            known = ", ".join(RESULTS)
            raise self.fail(f"unknown result {name}.{result} (use one of {known})")
        return _Atom(name, RESULTS[result])


def _names(expr: _Expr) -> set[str]:
    if isinstance(expr, _Atom):
        return {expr.task}
    if isinstance(expr, _Not):
        return _names(expr.operand)
    return _names(expr.left) | _names(expr.right)


def parse_depends(text: str) -> Depends:
    """Parse ``depends``; syntax errors name the expression."""
    root = _Parser(text).parse()
    return Depends(text, frozenset(_names(root)), root)


def from_dependencies(names: Iterable[str]) -> Depends:
    """The older ``dependencies: [a, b]`` list means ``a && b``."""
    return parse_depends(" && ".join(names))


def task_rule(task: Mapping[str, Any]) -> Depends | None:
    """A DAG task's ``depends`` (or older ``dependencies``); ``None`` when it waits for nothing."""
    if task.get("depends"):
        return parse_depends(str(task["depends"]))
    if task.get("dependencies"):
        return from_dependencies(task["dependencies"])
    return None


def task_depends(task: Mapping[str, Any]) -> frozenset[str]:
    """The tasks a DAG task waits for."""
    rule = task_rule(task)
    return rule.tasks if rule else frozenset()


def dag_phase(depends: Mapping[str, frozenset[str]], phases: Mapping[str, Phase]) -> Phase:
    """Phase of a finished DAG, Argo's way: walk each branch from its roots carrying the
    phase of the last completed task; a leaf reached by a failed branch fails the DAG."""
    children: dict[str, list[str]] = {task: [] for task in depends}
    for task, deps in depends.items():
        for dep in deps:
            children[dep].append(task)
    leaves = sorted(task for task, below in children.items() if not below)
    branch: dict[str, Phase] = {}
    queue = [(task, Phase.SUCCEEDED) for task, deps in depends.items() if not deps]
    seen: set[tuple[str, Phase]] = set()
    while queue:
        task, inherited = queue.pop(0)
        if (task, inherited) in seen:
            continue
        seen.add((task, inherited))
        phase = phases.get(task, Phase.PENDING)
        current = phase if phase.completed else inherited
        if not branch.get(task, Phase.SUCCEEDED).failed_or_error:
            branch[task] = current
        queue.extend((child, current) for child in children[task])
    result = Phase.SUCCEEDED
    for leaf in leaves:
        if branch.get(leaf, Phase.SUCCEEDED).failed_or_error:
            result = branch[leaf]
    return result
