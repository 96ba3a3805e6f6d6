"""Refuse, before anything runs, a workflow the local engine would not run as Argo does.

Every field the engine does not implement is named in the error, so a flow that works
locally works the same on the cluster and nothing is silently dropped. Fields that only
shape the pod (image, resources, labels) are accepted: locally there is no pod to shape.
References in ``{{...}}`` are checked too, so a typo fails here and not in the middle of a
promotion.

What Argo itself refuses at submission is refused the same way (``workflow/validate``:
``validateDAG``, ``validateLeaf``/``validateNonLeaf``), and so is what the controller would
run differently from the engine or end in Error for a reason already known: template-level
``failFast: true``, task-group results without loops, task names expr-lang cannot read,
retry settings ``processNodeRetries`` cannot parse, a task reading a task it does not
depend on (``buildLocalScopeFromTask`` never resolves it).

This module walks the workflow: its spec, every template it reaches once, each DAG's and
step group's names, dependencies and references. Which fields are implemented, and the
checks of a template's own settings, are in :mod:`.fields`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.engine.conditions import WhenRefused, check_when
from orchestrator.engine.depends import (
    EXPR_RESERVED,
    TASK_NAME,
    ancestors,
    find_cycle,
    task_rule,
)
from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import TASK_FIELDS, WORKFLOW_VARIABLES, check_references
from orchestrator.engine.fields import (
    CONTAINER_KEYS,
    POD_ONLY,
    SPEC_KEYS,
    STEP_KEYS,
    TASK_KEYS,
    TEMPLATE_KEYS,
    check_deadline,
    check_fail_fast,
    check_outputs,
    check_retry,
    refuse,
    require_bool,
    scratch_only,
)
from orchestrator.engine.templates import BOUNDARY_KINDS, LEAF_KINDS, Template, Workflow

MAX_NAME = 128
"""``workflowFieldMaxLength`` (validate.go)."""


def _declared(section: Any, kind: str) -> set[str]:
    return {str(p.get("name", "")) for p in (section or {}).get(kind) or []}


class _Checker:
    def __init__(self, workflow: Workflow) -> None:
        self.wf = workflow
        self.seen: set[str] = set()

    def global_known(self, ref: str) -> bool:
        if ref in WORKFLOW_VARIABLES:
            return True
        prefix = "workflow.parameters."
        return ref.startswith(prefix) and ref[len(prefix) :] in self.wf.parameters

    def run(self) -> None:
        refuse(self.wf.spec.keys(), SPEC_KEYS, "the workflow spec")
        sync = self.wf.spec.get("synchronization")
        if sync is not None:
            refuse(sync.keys(), frozenset({"mutexes", "mutex"}), "synchronization of the workflow")
        if not self.wf.entrypoint:
            raise EngineError("the workflow has no entrypoint")
        parallelism = self.wf.spec.get("parallelism")
        if parallelism is not None and (
            isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1
        ):
            raise EngineError(
                f"spec.parallelism must be a whole number above 0, not {parallelism!r} "
                "(0 starts no pod at all)"
            )
        for field, name in (("entrypoint", self.wf.entrypoint), ("onExit", self.wf.on_exit)):
            if not name:
                continue
            tpl = self.wf.own(name, field)
            if tpl.kind not in BOUNDARY_KINDS:
                raise EngineError(
                    f"unsupported Argo feature: {field} {name} is a {tpl.kind or 'empty'} "
                    "template (a local run starts from a dag or steps template)"
                )
            self.template(tpl)

    def template(self, tpl: Template) -> None:
        if tpl.label in self.seen:
            return
        self.seen.add(tpl.label)
        where = f"template {tpl.label}"
        body = tpl.body
        kind = tpl.kind
        if kind not in (*LEAF_KINDS, *BOUNDARY_KINDS):
            raise EngineError(f"unsupported Argo feature: {kind or 'empty'} template {tpl.label}")
        refuse(body.keys(), TEMPLATE_KEYS | POD_ONLY, where)
        scratch_only(body, where)
        if (body.get("inputs") or {}).get("artifacts") or (body.get("outputs") or {}).get(
            "artifacts"
        ):
            raise EngineError(f"unsupported Argo feature: artifacts in {where}")
        inputs = _declared(body.get("inputs"), "parameters")

        def known(ref: str) -> bool:
            prefix = "inputs.parameters."
            return self.global_known(ref) or (
                ref.startswith(prefix) and ref[len(prefix) :] in inputs
            )

        own = {k: v for k, v in body.items() if k not in ("dag", "steps", "name")}
        check_references(own, known, where)
        check_outputs(body, kind, where)
        check_fail_fast(body, where)
        check_deadline(body, kind, where)
        if body.get("retryStrategy") is not None and kind != "container":
            raise EngineError(
                f"unsupported Argo feature: retryStrategy on the {kind} template {tpl.label} "
                "(a local run retries container templates only)"
            )
        check_retry(body.get("retryStrategy"), where)
        sync = body.get("synchronization")
        if sync is not None:
            refuse(sync.keys(), frozenset({"mutexes", "mutex"}), f"synchronization of {where}")
        if kind == "container":
            refuse(body["container"].keys(), CONTAINER_KEYS, f"container of {where}")
            if not (body["container"].get("command") or body["container"].get("args")):
                raise EngineError(f"{where} has no command (image entrypoints cannot run locally)")
        elif kind == "dag":
            self.dag(body["dag"], known, where)
        elif kind == "steps":
            self.steps(body["steps"], known, where)

    def _resolve(self, item: Mapping[str, Any], where: str) -> Template:
        tpl = self.wf.resolve(item, where)
        self.template(tpl)
        return tpl

    def dag(self, dag: Mapping[str, Any], known_inputs: Any, where: str) -> None:
        """``validateDAG``: names, depends/dependencies, cycles, and what a task can read."""
        refuse(dag.keys(), frozenset({"tasks", "failFast"}), where)
        if "failFast" in dag:
            require_bool(dag["failFast"], f"dag.failFast of {where}")
        listed = list(dag.get("tasks") or [])
        if not listed:
            raise EngineError(f"{where} must have at least one task")
        tasks: dict[str, Mapping[str, Any]] = {}
        for index, task in enumerate(listed):
            name = str(task.get("name") or "")
            if not name:
                raise EngineError(f"{where}: tasks[{index}].name is required")
            if len(name) > MAX_NAME or not TASK_NAME.fullmatch(name):
                raise EngineError(
                    f"{where}: task name {name!r} is invalid (letters, digits and '-', "
                    f"starting with a letter or digit, at most {MAX_NAME} characters)"
                )
            if name in tasks:
                raise EngineError(f"{where}: task name {name!r} is not unique")
            tasks[name] = task
        uses_depends = any(t.get("depends") for t in tasks.values())
        uses_list = any(t.get("dependencies") for t in tasks.values())
        if uses_depends and uses_list:
            raise EngineError(f"{where} cannot use both 'depends' and 'dependencies'")
        outputs = {
            name: _declared(
                self._resolve(task, f"task {name} of {where}").body.get("outputs"), "parameters"
            )
            for name, task in tasks.items()
        }
        graph: dict[str, frozenset[str]] = {}
        for name, task in tasks.items():
            at = f"task {name} of {where}"
            refuse(task.keys(), TASK_KEYS, at)
            if (uses_depends or uses_list) and name[0].isdigit():
                raise EngineError(
                    f"{at}: name cannot begin with a digit when using 'depends' or 'dependencies'"
                )
            rule = task_rule(task)
            named = rule.tasks if rule else frozenset[str]()
            for dep in sorted(named - tasks.keys()):
                raise EngineError(f"{at} depends on unknown task {dep!r}")
            for dep in sorted(rule.item_results if rule else ()):
                raise EngineError(
                    f"{at}: {dep}.AnySucceeded/.AllFailed need {dep} to run over items "
                    "(withItems/withParam), which a local run does not do"
                )
            for dep in sorted(named & EXPR_RESERVED):
                raise EngineError(
                    f"{at}: Argo cannot evaluate a depends naming the task {dep!r} (a word "
                    "of its expression language); rename the task"
                )
            graph[name] = named
        cycle = find_cycle(graph)
        if cycle:
            raise EngineError(f"{where}: dependency cycle {' -> '.join(cycle)}")
        for name, task in tasks.items():
            above = ancestors(graph, name)
            visible = {n: o for n, o in outputs.items() if n in above}
            at = f"task {name} of {where}"
            self.task_refs(task, known_inputs, "tasks", visible, at, set(tasks) - above)

    def steps(self, groups: Any, known_inputs: Any, where: str) -> None:
        outputs: dict[str, set[str]] = {}
        for group in groups or []:
            current: dict[str, set[str]] = {}
            for step in group:
                name = str(step.get("name", ""))
                at = f"step {name} of {where}"
                refuse(step.keys(), STEP_KEYS, at)
                tpl = self._resolve(step, at)
                self.task_refs(step, known_inputs, "steps", outputs, at)
                current[name] = _declared(tpl.body.get("outputs"), "parameters")
            outputs.update(current)

    def task_refs(
        self,
        item: Mapping[str, Any],
        known_inputs: Any,
        scope: str,
        outputs: Mapping[str, set[str]],
        where: str,
        unreachable: set[str] | None = None,
    ) -> None:
        """References in ``arguments``/``when``: a DAG task reads only its ancestors'
        outputs (``buildLocalScopeFromTask``; any other reference leaves Argo requeueing
        the task forever, or refusing it in ``validateDAGTaskArgumentDependency``)."""

        def known(ref: str) -> bool:
            if known_inputs(ref):
                return True
            parts = ref.split(".")
            if unreachable and len(parts) > 2 and parts[0] == scope and parts[1] in unreachable:
                raise EngineError(
                    f"{where} reads {{{{{ref}}}}} but does not depend on {parts[1]} "
                    "(directly or through other tasks)"
                )
            if len(parts) == 3 and parts[0] == scope and parts[2] in TASK_FIELDS:
                return parts[1] in outputs
            return (
                len(parts) == 5
                and parts[0] == scope
                and parts[2:4] == ["outputs", "parameters"]
                and parts[4] in outputs.get(parts[1], set())
            )

        check_references({k: item.get(k) for k in ("arguments", "when") if k in item}, known, where)
        when = item.get("when")
        if isinstance(when, str):
            try:
                check_when(when)
            except WhenRefused as exc:
                raise EngineError(f"{where}: {exc}") from None


def check_workflow(workflow: Workflow) -> None:
    """Raise :class:`EngineError` naming the first thing that cannot run locally."""
    _Checker(workflow).run()
