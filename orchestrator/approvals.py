"""Approving and rejecting promotions: pure decisions over a Workflow object.

An approval is the compiled ``approve-ENV`` suspend node. Answering it sets its ``approve``
output (YES/NO), a message recording who decided and why, and resumes it,
in one call to the Argo Server's ``set`` API: what the UI's resume dialog does in two. The
``approver-ENV`` step after it judges every answer alike, whichever client gave it: a NO
stops the environment there, with the reason, and the run ends Failed.

Who may answer is first Argo's RBAC. When a policy lists approvers, the workflow itself
checks who answered (the ``approver-ENV`` step, orchestrator/approvers.py), whichever
client answered: this module only refuses early, when the Argo Server can tell who the
caller is (``/api/v1/userinfo``) and that caller is not listed, so a wrong answer never
reaches the node. An unknown caller is not refused here; the workflow's check decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestrator.errors import PromoflowError

Workflow = dict[str, Any]


class ApprovalError(PromoflowError):
    """The answer cannot be given (no such approval, not waiting, caller not an approver)."""


@dataclass(frozen=True)
class Identity:
    """Who the Argo Server says the caller is."""

    names: tuple[str, ...]
    groups: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        return self.names[0] if self.names else "unknown"

    @classmethod
    def from_userinfo(cls, info: dict[str, Any]) -> Identity | None:
        names = [
            str(info[key])
            for key in ("email", "subject", "name", "serviceAccountName")
            if info.get(key)
        ]
        if not names:
            return None
        unique = tuple(dict.fromkeys(names))
        return cls(unique, tuple(str(g) for g in info.get("groups") or []))


@dataclass(frozen=True)
class Answer:
    """What to send to the ``set`` API for one approval node."""

    node_selector: str
    output_parameters: dict[str, str]
    phase: str
    message: str
    approvers: list[str] = field(default_factory=list)


def task_name(environment: str) -> str:
    return f"approve-{environment}"


def _parameters(node: dict[str, Any], kind: str) -> dict[str, str]:
    params = ((node.get(kind) or {}).get("parameters")) or []
    return {p["name"]: str(p.get("value", "")) for p in params if "name" in p}


def find_node(workflow: Workflow, environment: str) -> dict[str, Any]:
    """The approval node of ``environment`` in this run; errors say what exists instead."""
    nodes = list(((workflow.get("status") or {}).get("nodes") or {}).values())
    wanted = task_name(environment)
    for node in nodes:
        if node.get("displayName") == wanted and node.get("type") == "Suspend":
            found: dict[str, Any] = node
            return found
    waiting = sorted(
        str(n.get("displayName", "")).removeprefix("approve-")
        for n in nodes
        if n.get("type") == "Suspend"
        and str(n.get("displayName", "")).startswith("approve-")
        and n.get("phase") == "Running"
    )
    name = (workflow.get("metadata") or {}).get("name", "?")
    hint = f" (waiting for approval: {', '.join(waiting)})" if waiting else ""
    raise ApprovalError(f"run {name} has no approval for {environment} yet{hint}")


APPROVERS_ANNOTATION = "promoflow.dev/approvers"
"""Where the compiled approval template keeps its approvers (compiler.library.pause_template)."""


def _template(workflow: Workflow, name: str) -> dict[str, Any]:
    """The template ``name`` as the run stored it (from its WorkflowTemplate, or inline)."""
    status = workflow.get("status") or {}
    stored = (status.get("storedWorkflowTemplateSpec") or {}).get("templates") or []
    inline = (workflow.get("spec") or {}).get("templates") or []
    others = list((status.get("storedTemplates") or {}).values())
    for template in [*stored, *inline, *others]:
        if isinstance(template, dict) and template.get("name") == name:
            return template
    return {}


def approvers(node: dict[str, Any], workflow: Workflow | None = None) -> list[str]:
    """The approvers the approval node was compiled with (older runs: its input)."""
    raw = _parameters(node, "inputs").get("approvers", "")
    if workflow is not None and node.get("templateName"):
        template = _template(workflow, str(node["templateName"]))
        annotations = (template.get("metadata") or {}).get("annotations") or {}
        raw = str(annotations.get(APPROVERS_ANNOTATION, raw))
    return [a.strip() for a in raw.replace(";", ",").split(",") if a.strip()]


def may_approve(identity: Identity, allowed: list[str]) -> bool:
    """``group:G`` matches a group; ``user:U`` or a bare ``U`` matches any of the names."""
    for entry in allowed:
        kind, sep, value = entry.partition(":")
        if sep and kind == "group":
            if value in identity.groups:
                return True
        elif (value if sep and kind == "user" else entry) in identity.names:
            return True
    return False


def answer(
    workflow: Workflow,
    environment: str,
    *,
    approve: bool,
    message: str,
    identity: Identity | None,
) -> Answer:
    """Check the node is waiting and the caller may answer it; build the ``set`` request."""
    node = find_node(workflow, environment)
    phase = node.get("phase", "Pending")
    if phase != "Running":
        previous = f": {node['message']}" if node.get("message") else ""
        raise ApprovalError(
            f"the approval for {environment} is not waiting (it is {phase}{previous})"
        )
    allowed = approvers(node, workflow)
    if allowed and identity is not None and not may_approve(identity, allowed):
        raise ApprovalError(
            f"{identity.display} may not answer the approval for {environment} "
            f"(approvers: {', '.join(allowed)})"
        )
    who = identity.display if identity is not None else "unknown user"
    verb = "approved" if approve else "rejected"
    text = f"{verb} by {who}" + (f": {message}" if message else "")
    # a run compiled before every answer was judged (its approval template has inputs
    # besides the answer) skips on a NO rather than stopping: failing the node stops it
    judged = set(_parameters(node, "inputs")) <= {"approve"}
    return Answer(
        node_selector=f"displayName={task_name(environment)}",
        output_parameters={"approve": "YES" if approve else "NO"},
        phase="Succeeded" if approve or judged else "Failed",
        message=text,
        approvers=allowed,
    )
