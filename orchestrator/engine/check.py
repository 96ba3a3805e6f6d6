"""Refuse, before anything runs, a workflow the local engine would not run as Argo does.

Every field the engine does not implement is named in the error, so a flow that works
locally works the same on the cluster and nothing is silently dropped. Fields that only
shape the pod (image, resources, labels) are accepted: locally there is no pod to shape.
References in ``{{...}}`` are checked too, so a typo fails here and not in the middle of a
promotion.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from orchestrator.engine.depends import task_depends
from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import WORKFLOW_VARIABLES, check_references
from orchestrator.engine.templates import BOUNDARY_KINDS, LEAF_KINDS, Template, Workflow

POD_ONLY = frozenset(
    {"metadata", "serviceAccountName", "nodeSelector", "tolerations", "affinity", "priority"}
)
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
    {"name", "image", "imagePullPolicy", "command", "args", "env", "resources", "securityContext"}
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
    }
)
RETRY_KEYS = frozenset({"limit", "retryPolicy", "expression", "backoff"})
BACKOFF_KEYS = frozenset({"duration", "factor", "maxDuration"})
RETRY_POLICIES = frozenset({"Always", "OnFailure", "OnError", "OnTransientError"})


def _refuse(keys: Iterable[str], allowed: frozenset[str], where: str) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise EngineError(f"unsupported Argo feature: {extra[0]} in {where}")


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
        _refuse(self.wf.spec.keys(), SPEC_KEYS, "the workflow spec")
        if not self.wf.entrypoint:
            raise EngineError("the workflow has no entrypoint")
        self.template(self.wf.own(self.wf.entrypoint, "entrypoint"))
        if self.wf.on_exit:
            self.template(self.wf.own(self.wf.on_exit, "onExit"))

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

    def retry(self, strategy: Any, where: str) -> None:
        if strategy is None:
            return
        _refuse(strategy.keys(), RETRY_KEYS, f"retryStrategy of {where}")
        _refuse((strategy.get("backoff") or {}).keys(), BACKOFF_KEYS, f"backoff of {where}")
        if "limit" not in strategy:
            raise EngineError(f"retryStrategy of {where} has no limit (unbounded retries)")
        policy = strategy.get("retryPolicy")
        if policy is not None and policy not in RETRY_POLICIES:
            raise EngineError(f"retryStrategy of {where}: unknown retryPolicy {policy!r}")

    def _resolve(self, item: Mapping[str, Any], where: str) -> Template:
        tpl = self.wf.resolve(item, where)
        self.template(tpl)
        return tpl

    def dag(self, dag: Mapping[str, Any], known_inputs: Any, where: str) -> None:
        _refuse(dag.keys(), frozenset({"tasks", "failFast"}), where)
        tasks = {str(t.get("name", "")): t for t in dag.get("tasks") or []}
        outputs = {
            name: _declared(
                self._resolve(task, f"task {name} of {where}").body.get("outputs"), "parameters"
            )
            for name, task in tasks.items()
        }
        for name, task in tasks.items():
            at = f"task {name} of {where}"
            _refuse(task.keys(), TASK_KEYS, at)
            named = task_depends(task)
            for dep in sorted(named - tasks.keys()):
                raise EngineError(f"{at} depends on unknown task {dep!r}")
            self.task_refs(task, known_inputs, "tasks", outputs, at)

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
    ) -> None:
        def known(ref: str) -> bool:
            if known_inputs(ref):
                return True
            parts = ref.split(".")
            return (
                len(parts) == 5
                and parts[0] == scope
                and parts[2:4] == ["outputs", "parameters"]
                and parts[4] in outputs.get(parts[1], set())
            )

        check_references({k: item.get(k) for k in ("arguments", "when") if k in item}, known, where)


def check_workflow(workflow: Workflow) -> None:
    """Raise :class:`EngineError` naming the first thing that cannot run locally."""
    _Checker(workflow).run()
