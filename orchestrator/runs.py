"""Summaries of promotion runs (Argo Workflow objects) for the CLI: pure functions.

A Workflow's status lists nodes by id; people think in environments and steps. Task names
carry both (``deploy-prod-eu``), so a run can be shown as "what happened where".

The task kinds come from the step registry (each step declares the DAG task prefixes that
run it, e.g. ``deploy`` runs ``promote``, and the registry adds the user's own
``pre``/``post`` actions, which are templates of the user's).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from orchestrator.steps import registry

LABEL = "promoflow.dev/"
_STEP_NODES = ("Pod", "Suspend", "Skipped", "Retry")


@dataclass(frozen=True)
class NodeState:
    task: str
    kind: str
    environment: str
    phase: str
    message: str = ""
    started: str = ""
    finished: str = ""
    outputs: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """For ``status -o json|yaml``: the step kind is ``step``, as the table's column."""
        data = asdict(self)
        data["step"] = data.pop("kind")
        return data


@dataclass(frozen=True)
class RunSummary:
    name: str
    product: str
    version: str
    flow: str
    phase: str
    started: str
    finished: str
    message: str
    nodes: tuple[NodeState, ...] = ()

    def as_dict(self, *, nodes: bool = True) -> dict[str, Any]:
        """For ``-o json|yaml``: what the tables show, one key per column, in a stable shape
        scripts can rely on (``runs`` leaves the nodes out, as its table does)."""
        data = {k: v for k, v in asdict(self).items() if k != "nodes"}
        if nodes:
            data["nodes"] = [node.as_dict() for node in self.nodes]
        return data

    def environments(self) -> dict[str, list[NodeState]]:
        out: dict[str, list[NodeState]] = {}
        for node in self.nodes:
            out.setdefault(node.environment, []).append(node)
        return out


def task_kinds() -> dict[str, registry.TaskKind]:
    """Every task prefix of a promotion DAG, in the order they run within an environment."""
    return {k.prefix: k for k in registry.all_task_kinds()}


def step_kinds() -> tuple[str, ...]:
    """The task prefixes, as the ``step`` column of ``promoflow status`` shows them."""
    return tuple(task_kinds())


def split_task(task: str, environments: list[str] | None = None) -> tuple[str, str] | None:
    """``deploy-prod-eu`` -> ``("deploy", "prod-eu")``; ``check-prod-eu-2`` -> check, prod-eu.
    Given the ``environments``, a prefix no step declares is read too when the rest names
    one of them: a gate added as a module may name its tasks as it likes."""
    prefix, _, rest = task.partition("-")
    kind = task_kinds().get(prefix)
    if kind is None and environments is not None and rest:
        # a task kind some contribution adds with a prefix of its own (``smoke-prod-eu``):
        # known by the environment it names
        kind = registry.TaskKind(prefix, rank=0, indexed=True)
        if rest not in environments and rest.rpartition("-")[0] not in environments:
            return None
    if kind is None or not rest:
        return None
    if kind.indexed and environments is not None and rest not in environments:
        head, _, index = rest.rpartition("-")
        if index.isdigit() and head in environments:
            return prefix, head
    return prefix, rest


def summarize(workflow: dict[str, Any]) -> RunSummary:
    meta = workflow.get("metadata", {})
    labels = meta.get("labels", {}) or {}
    annotations = meta.get("annotations", {}) or {}
    status = workflow.get("status", {}) or {}
    nodes = []
    every = list((status.get("nodes") or {}).values())
    # the environments the steps' own tasks name: a gate's task of another prefix
    # (``smoke-prod-eu``) is read by them, as the local summary reads it
    kinds = task_kinds()
    environments = sorted(
        {
            p[1]
            for n in every
            if (p := split_task(n.get("displayName", ""))) is not None and not kinds[p[0]].indexed
        }
    )
    for node in every:
        display = node.get("displayName", "")
        parsed = split_task(display, environments)
        # Retried steps show as a Retry node with one "name(N)" child per attempt.
        if parsed is None or display.endswith(")") or node.get("type") not in _STEP_NODES:
            continue
        outputs = {
            p["name"]: str(p.get("value", ""))
            for p in (node.get("outputs", {}) or {}).get("parameters", []) or []
        }
        nodes.append(
            NodeState(
                task=node["displayName"],
                kind=parsed[0],
                environment=parsed[1],
                phase=node.get("phase", ""),
                message=node.get("message", ""),
                started=node.get("startedAt", "") or "",
                finished=node.get("finishedAt", "") or "",
                outputs=outputs,
            )
        )
    order = step_kinds()
    rank = {kind: i for i, kind in enumerate(order)}
    nodes.sort(key=lambda n: (n.started or "~", rank.get(n.kind, len(order)), n.task))
    return RunSummary(
        name=meta.get("name", ""),
        product=labels.get(f"{LABEL}product", ""),
        version=annotations.get(f"{LABEL}version", labels.get(f"{LABEL}version", "")),
        flow=labels.get(f"{LABEL}flow", ""),
        phase=status.get("phase", "") or "Pending",
        started=status.get("startedAt", "") or "",
        finished=status.get("finishedAt", "") or "",
        message=status.get("message", "") or "",
        nodes=tuple(nodes),
    )


def pod_tasks(workflow: dict[str, Any]) -> dict[str, str]:
    """What identifies each pod of a run (its node id, which is the pod's name with
    Argo's v1 pod names, and the FNV-1a hash of the node's name that ends it with v2
    names), mapped to the task it ran (``deploy-dev``, ``deploy-dev(1)`` for a retry)."""
    from orchestrator.engine.model import node_hash

    found: dict[str, str] = {}
    for node in ((workflow.get("status") or {}).get("nodes") or {}).values():
        if node.get("type") != "Pod":
            continue
        display = str(node.get("displayName") or node.get("name") or "")
        found[str(node.get("id") or "")] = display
        found[str(node_hash(str(node.get("name") or "")))] = display
    return found


FINISHED_PODS = ("Succeeded", "Failed", "Error")


def silent_steps(workflow: dict[str, Any], heard: set[str]) -> list[str]:
    """The finished pod steps (``deploy-dev``, ``sync-dev(1)``) not in ``heard``, the tasks
    whose log lines arrived, in the order they started. A step whose container never ran
    (its pod not scheduled, its image not pulled) has nothing to say and is left out."""
    found = []
    for node in ((workflow.get("status") or {}).get("nodes") or {}).values():
        if node.get("type") != "Pod" or node.get("phase") not in FINISHED_PODS:
            continue
        display = str(node.get("displayName") or node.get("name") or "")
        if display not in heard and _container_ran(node):
            found.append((str(node.get("startedAt") or ""), display))
    return [display for _, display in sorted(found)]


def _container_ran(node: dict[str, Any]) -> bool:
    """The controller records a pod step's exit code in its outputs once its main
    container has run; a pod that never started a container has none."""
    return (node.get("outputs") or {}).get("exitCode") is not None


def task_of_pod(pod: str, tasks: dict[str, str]) -> str | None:
    """The task of ``pod`` (see :func:`pod_tasks`); ``None`` for a pod not in the run."""
    return tasks.get(pod) or tasks.get(pod.rpartition("-")[2])


def base_task(display: str) -> str:
    """``deploy-dev(1)`` -> ``deploy-dev``: the task a retry's attempt belongs to."""
    return display.split("(", 1)[0]
