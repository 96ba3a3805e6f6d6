"""Argo's enhanced ``depends`` logic, evaluated against task phases (pure).

``deploy-dev.Succeeded && (check.Failed || !check.Errored)``: a task waits until **every**
task its expression names is fulfilled (Succeeded, Failed, Error, Skipped or Omitted), then
runs if the expression holds and is Omitted if not. It is never decided early, even when
the outcome is already certain: that is how the controller does it
(``workflow/controller/dag.go``, ``evaluateDependsLogic`` returns ``proceed=false`` while any
dependency is unfulfilled), and it fixes when dependants of an Omitted task are omitted.

A bare name means ``(task.Succeeded || task.Skipped || task.Daemoned)``
(``workflow/common/ancestry.go``, ``expandDependency``); the older ``dependencies: [a, b]``
list is those joined with ``&&`` (``getTaskDependsLogic``), so a Failed or Errored
dependency omits the dependant in both forms. Task names follow ``taskNameRegex``
(``[a-zA-Z0-9][-a-zA-Z0-9]*``), results start with a capital letter.

The phase of a finished DAG follows ``assessDAGPhase``: an Omitted or Skipped task inherits
the phase of the last task that completed above it, failures win over successes, and the
leaf tasks decide the DAG's phase. ``a.Failed`` handlers therefore absorb a failure, while a
plain chain broken by a failure fails the run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.model import Phase

RESULTS: dict[str, tuple[Phase, ...]] = {
    "Succeeded": (Phase.SUCCEEDED,),
    "Failed": (Phase.FAILED,),
    "Errored": (Phase.ERROR,),
    "Skipped": (Phase.SKIPPED,),
    "Omitted": (Phase.OMITTED,),
    # No daemons run locally, and AnySucceeded/AllFailed are only true of task groups
    # (withItems/withParam), which a local run refuses: for a plain task Argo evaluates
    # them false too (TaskResults in evaluateDependsLogic).
    "Daemoned": (),
    "AnySucceeded": (),
    "AllFailed": (),
}
ITEM_RESULTS = frozenset({"AnySucceeded", "AllFailed"})
"""Results Argo only accepts on tasks with ``withItems``/``withParam``/``withSequence``."""
BARE = (Phase.SUCCEEDED, Phase.SKIPPED)
"""A bare ``task`` means ``task.Succeeded || task.Skipped || task.Daemoned``."""

TASK_NAME = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9]*")
"""``workflowFieldNameFmt`` (validate.go), also ``taskNameRegex`` (ancestry.go)."""
EXPR_RESERVED = frozenset(
    {
        "and",
        "or",
        "not",
        "in",
        "matches",
        "contains",
        "startsWith",
        "endsWith",
        "true",
        "false",
        "nil",
        "let",
        "if",
        "else",
    }
)
"""Task names expr-lang cannot read as a variable: Argo fails to evaluate a ``depends``
naming them (the node ends in Error), so a local run refuses them."""

_TOKEN = re.compile(r"\s*(?:(&&|\|\||[!()])|([a-zA-Z0-9][-a-zA-Z0-9]*)(?:\.([A-Z][a-zA-Z]+))?)")


@dataclass(frozen=True)
class _Atom:
    task: str
    result: str
    phases: tuple[Phase, ...]

    def value(self, phases: Mapping[str, Phase]) -> bool:
        return phases.get(self.task, Phase.PENDING) in self.phases


@dataclass(frozen=True)
class _Not:
    operand: _Expr

    def value(self, phases: Mapping[str, Phase]) -> bool:
        return not self.operand.value(phases)


@dataclass(frozen=True)
class _And:
    left: _Expr
    right: _Expr

    def value(self, phases: Mapping[str, Phase]) -> bool:
        return self.left.value(phases) and self.right.value(phases)


@dataclass(frozen=True)
class _Or:
    left: _Expr
    right: _Expr

    def value(self, phases: Mapping[str, Phase]) -> bool:
        return self.left.value(phases) or self.right.value(phases)


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
    item_results: frozenset[str]
    """Tasks named with ``.AnySucceeded``/``.AllFailed`` (task-group results)."""
    _root: _Expr

    def value(self, phases: Mapping[str, Phase]) -> bool:
        """The expression over the phases (a task with no phase yet is Pending)."""
        return self._root.value(phases)

    def decide(self, phases: Mapping[str, Phase]) -> Decision:
        """``evaluateDependsLogic``: WAIT while any named task is unfulfilled (``proceed``
        false), then RUN if the expression holds (``execute``), else OMIT."""
        if not all(phases.get(t, Phase.PENDING).fulfilled for t in self.tasks):
            return Decision.WAIT
        return Decision.RUN if self.value(phases) else Decision.OMIT


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
    """Precedence as in expr-lang: ``!`` binds tightest, then ``&&``, then ``||``."""

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
            return _Atom(name, "", BARE)
        if result not in RESULTS:
            known = ", ".join(RESULTS)
            raise self.fail(f"task result '{result}' for task '{name}' is invalid (use {known})")
        return _Atom(name, result, RESULTS[result])


def _atoms(expr: _Expr) -> list[_Atom]:
    if isinstance(expr, _Atom):
        return [expr]
    if isinstance(expr, _Not):
        return _atoms(expr.operand)
    return _atoms(expr.left) + _atoms(expr.right)


def parse_depends(text: str) -> Depends:
    """Parse ``depends``; syntax errors name the expression."""
    root = _Parser(text).parse()
    atoms = _atoms(root)
    return Depends(
        text,
        frozenset(a.task for a in atoms),
        frozenset(a.task for a in atoms if a.result in ITEM_RESULTS),
        root,
    )


def from_dependencies(names: Iterable[str]) -> Depends:
    """``dependencies: [a, b]`` is ``(a.Succeeded || a.Skipped || a.Daemoned) && (...)``
    (``getTaskDependsLogic``): the same as the bare names joined with ``&&``."""
    names = list(names)
    for name in names:
        if not isinstance(name, str) or not TASK_NAME.fullmatch(name):
            raise EngineError(f"dependencies: {name!r} is not a task name")
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


def ancestors(depends: Mapping[str, frozenset[str]], task: str) -> set[str]:
    """Every task above ``task`` (``GetTaskAncestry``): whose outputs it can read."""
    seen: set[str] = set()
    stack = list(depends.get(task, ()))
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(depends.get(current, ()))
    return seen


def find_cycle(depends: Mapping[str, frozenset[str]]) -> list[str] | None:
    """A dependency cycle (``verifyNoCycles`` refuses them), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(task: str) -> list[str] | None:
        state[task] = 1
        path.append(task)
        for dep in sorted(depends.get(task, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep in depends and dep not in state:
                found = visit(dep)
                if found:
                    return found
        path.pop()
        state[task] = 2
        return None

    for task in sorted(depends):
        if task not in state:
            found = visit(task)
            if found:
                return found
    return None


def leaves(depends: Mapping[str, frozenset[str]]) -> list[str]:
    """``findLeafTaskNames``: tasks nothing depends on, sorted (the DAG's targets)."""
    named = {dep for deps in depends.values() for dep in deps}
    return sorted(task for task in depends if task not in named)


def dag_phase(
    depends: Mapping[str, frozenset[str]], phases: Mapping[str, Phase], fail_fast: bool = True
) -> Phase:
    """``assessDAGPhase`` once every task is fulfilled.

    Breadth first from the root tasks, each branch carries the phase of the last task that
    completed on it (Skipped and Omitted tasks pass the inherited phase on); a leaf keeps
    the first Failed/Error phase it is reached with. The leaves are then read in name
    order: with ``failFast`` (the default) the first failed leaf decides, without it the
    last one does; no failed leaf means Succeeded.
    """
    children: dict[str, list[str]] = {task: [] for task in depends}
    for task, deps in depends.items():
        for dep in sorted(deps):
            children[dep].append(task)
    targets = leaves(depends)
    branch: dict[str, Phase] = {}
    queue = [(task, Phase.SUCCEEDED) for task, deps in depends.items() if not deps]
    seen = set(queue)
    while queue:
        task, inherited = queue.pop(0)
        phase = phases.get(task, Phase.PENDING)
        current = phase if phase.completed else inherited
        if task in targets and not branch.get(task, Phase.SUCCEEDED).failed_or_error:
            branch[task] = current
        for child in children[task]:
            if (child, current) not in seen:
                seen.add((child, current))
                queue.append((child, current))
    result = Phase.SUCCEEDED
    for target in targets:
        if branch.get(target, Phase.SUCCEEDED).failed_or_error:
            result = branch[target]
            if fail_fast:
                break
    return result
