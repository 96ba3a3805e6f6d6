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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
from orchestrator.engine.expressions import (
    TASK_FIELDS,
    WORKFLOW_VARIABLES,
    check_references,
    references,
)
from orchestrator.engine.exprlang import parse_expression
from orchestrator.engine.retry import POLICIES, RetryError, go_atoi, go_duration
from orchestrator.engine.templates import BOUNDARY_KINDS, LEAF_KINDS, Template, Workflow

POD_ONLY = frozenset(
    {
        "metadata",
        "serviceAccountName",
        "nodeSelector",
        "tolerations",
        "affinity",
        "priority",
        "securityContext",
        "podSpecPatch",
        "volumes",
    }
)
"""Pod shape, nothing a local process can differ by; of ``volumes`` only ``emptyDir``
(scratch space a process has anyway), checked in ``_scratch_only``."""
TEMPLATE_KEYS = frozenset(
    {
        "name",
        "inputs",
        "outputs",
        "retryStrategy",
        "activeDeadlineSeconds",
        "synchronization",
        "failFast",
        *LEAF_KINDS,
        *BOUNDARY_KINDS,
    }
)
CONTAINER_KEYS = frozenset(
    {
        "name",
        "image",
        "imagePullPolicy",
        "command",
        "args",
        "env",
        "resources",
        "securityContext",
        "volumeMounts",
    }
)
TASK_KEYS = frozenset(
    {"name", "template", "templateRef", "arguments", "depends", "dependencies", "when"}
)
STEP_KEYS = frozenset({"name", "template", "templateRef", "arguments", "when"})
SPEC_KEYS = frozenset(
    {
        "entrypoint",
        "onExit",
        "arguments",
        "templates",
        "serviceAccountName",
        "parallelism",
        "podGC",
        "ttlStrategy",
        "podMetadata",
        "archiveLogs",
        "workflowMetadata",
        "synchronization",
    }
)
RETRY_KEYS = frozenset({"limit", "retryPolicy", "expression", "backoff"})
BACKOFF_KEYS = frozenset({"duration", "factor", "maxDuration", "cap"})
RETRY_POLICIES = POLICIES
MAX_NAME = 128
"""``workflowFieldMaxLength`` (validate.go)."""


def _refuse(keys: Iterable[str], allowed: frozenset[str], where: str) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise EngineError(f"unsupported Argo feature: {extra[0]} in {where}")


def _scratch_only(body: Mapping[str, Any], where: str) -> None:
    """Volumes a local run can do without: ``emptyDir`` ones, mounted by name."""
    names = set()
    for volume in body.get("volumes") or []:
        if set(volume) != {"name", "emptyDir"}:
            raise EngineError(
                f"unsupported Argo feature: volume {volume.get('name')!r} in {where} "
                "(only emptyDir volumes)"
            )
        names.add(volume["name"])
    for mount in (body.get("container") or {}).get("volumeMounts") or []:
        if mount.get("name") not in names:
            raise EngineError(
                f"unsupported Argo feature: volumeMount {mount.get('name')!r} in {where} "
                "(only of the template's emptyDir volumes)"
            )


def _declared(section: Any, kind: str) -> set[str]:
    return {str(p.get("name", "")) for p in (section or {}).get(kind) or []}


def _templated(value: Any) -> bool:
    """A value with ``{{...}}`` in it: it can only be checked once substituted."""
    return isinstance(value, str) and bool(references(value))


def _bool(value: Any, what: str) -> None:
    if not isinstance(value, bool):
        raise EngineError(f"{what} must be true or false, not {value!r}")


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
        _refuse(self.wf.spec.keys(), SPEC_KEYS, "the workflow spec")
        sync = self.wf.spec.get("synchronization")
        if sync is not None:
            _refuse(sync.keys(), frozenset({"mutexes", "mutex"}), "synchronization of the workflow")
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
        _refuse(body.keys(), TEMPLATE_KEYS | POD_ONLY, where)
        _scratch_only(body, where)
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
        self.outputs(body, kind, where)
        self.fail_fast(body, where)
        self.deadline(body, kind, where)
        if body.get("retryStrategy") is not None and kind != "container":
            raise EngineError(
                f"unsupported Argo feature: retryStrategy on the {kind} template {tpl.label} "
                "(a local run retries container templates only)"
            )
        self.retry(body.get("retryStrategy"), where)
        sync = body.get("synchronization")
        if sync is not None:
            _refuse(sync.keys(), frozenset({"mutexes", "mutex"}), f"synchronization of {where}")
        if kind == "container":
            _refuse(body["container"].keys(), CONTAINER_KEYS, f"container of {where}")
            if not (body["container"].get("command") or body["container"].get("args")):
                raise EngineError(f"{where} has no command (image entrypoints cannot run locally)")
        elif kind == "dag":
            self.dag(body["dag"], known, where)
        elif kind == "steps":
            self.steps(body["steps"], known, where)

    def outputs(self, body: Mapping[str, Any], kind: str, where: str) -> None:
        for param in (body.get("outputs") or {}).get("parameters") or []:
            source = param.get("valueFrom") or {}
            wanted = "path" if kind == "container" else "supplied"
            _refuse(source.keys(), frozenset({wanted, "default"}), f"outputs of {where}")
            if wanted not in source:
                raise EngineError(
                    f"unsupported Argo feature: output {param.get('name')} of {where} "
                    f"needs valueFrom.{wanted}"
                )

    def fail_fast(self, body: Mapping[str, Any], where: str) -> None:
        """Template-level ``failFast`` (not ``dag.failFast``): ``checkParallelism`` then
        starts no new child, retries included, once any pod in the template failed, and
        fails the template when none is left running. Only ``true`` does anything
        (``IsFailFast``), and that scheduling is not modelled locally."""
        if "failFast" not in body:
            return
        _bool(body["failFast"], f"failFast of {where}")
        if body["failFast"]:
            raise EngineError(
                f"unsupported Argo feature: failFast: true on {where} (the template-level "
                "flag; dag.failFast is supported)"
            )

    def deadline(self, body: Mapping[str, Any], kind: str, where: str) -> None:
        """``activeDeadlineSeconds``: the pod's deadline, so leaf templates only
        (``validateNonLeaf``), a whole number of seconds above 0 (``validateLeaf``; 0 is
        refused by Kubernetes when the pod is created)."""
        if "activeDeadlineSeconds" not in body:
            return
        value = body["activeDeadlineSeconds"]
        if kind in BOUNDARY_KINDS:
            raise EngineError(
                f"{where}: activeDeadlineSeconds is only valid for leaf templates (Argo "
                "refuses it on dag and steps templates)"
            )
        if _templated(value):
            return
        seconds = go_atoi(value)
        if seconds is None or seconds <= 0:
            raise EngineError(
                f"{where}: activeDeadlineSeconds must be a positive integer (seconds), "
                f"not {value!r}"
            )

    def retry(self, strategy: Any, where: str) -> None:
        """``retryStrategy``, refused where the controller would end the node in Error for
        a reason known now (``processNodeRetries`` reads limit, factor and durations
        strictly) or where it retries without end."""
        if strategy is None:
            return
        at = f"retryStrategy of {where}"
        _refuse(strategy.keys(), RETRY_KEYS, at)
        backoff = strategy.get("backoff")
        if "limit" not in strategy or strategy["limit"] is None:
            raise EngineError(f"{at} has no limit (unbounded retries)")
        limit = strategy["limit"]
        if not _templated(limit) and go_atoi(limit) is None:
            raise EngineError(f"{at}: limit must be a whole number, not {limit!r}")
        policy = strategy.get("retryPolicy")
        if policy and policy not in RETRY_POLICIES:
            raise EngineError(f"{at}: unknown retryPolicy {policy!r}")
        expression = strategy.get("expression")
        if expression and not _templated(expression):
            parse_expression(str(expression))
        if backoff is None:
            return
        _refuse(backoff.keys(), BACKOFF_KEYS, f"backoff of {where}")
        if not backoff.get("duration"):
            raise EngineError(
                f"{at}: backoff needs a duration (Argo fails the node: no base duration "
                "specified for retryStrategy)"
            )
        for key in ("duration", "maxDuration", "cap"):
            value = backoff.get(key)
            if value is not None and value != "" and not _templated(value):
                try:
                    go_duration(value)
                except RetryError as exc:
                    raise EngineError(f"{at}: backoff.{key}: {exc}") from None
        factor = backoff.get("factor")
        if factor is not None and not _templated(factor) and go_atoi(factor) is None:
            raise EngineError(
                f"{at}: backoff.factor must be a whole number, not {factor!r} (Argo reads "
                "it as an int)"
            )

    def _resolve(self, item: Mapping[str, Any], where: str) -> Template:
        tpl = self.wf.resolve(item, where)
        self.template(tpl)
        return tpl

    def dag(self, dag: Mapping[str, Any], known_inputs: Any, where: str) -> None:
        """``validateDAG``: names, depends/dependencies, cycles, and what a task can read."""
        _refuse(dag.keys(), frozenset({"tasks", "failFast"}), where)
        if "failFast" in dag:
            _bool(dag["failFast"], f"dag.failFast of {where}")
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
            _refuse(task.keys(), TASK_KEYS, at)
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
                _refuse(step.keys(), STEP_KEYS, at)
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
