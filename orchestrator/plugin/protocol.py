"""The executor plugin API, as Argo's agent speaks it (``pkg/plugins/executor``).

The agent POSTs ``/api/v1/template.execute`` with ``{"workflow": {"metadata": {name,
namespace, uid}}, "template": <the substituted template>}`` and a bearer token, and reads
``{"node": NodeResult, "requeue": "<Go duration>"}``: a node with a phase other than
``Succeeded`` and a requeue is asked about again after it; ``{}`` means "not mine". The
template's ``plugin.promoflow`` object is what the compiler writes (``compiler/library``):

- ``node``: ``{{node.name}}``, unique in the Workflow (a retry is another node), so a
  second call for the same node (a requeue, or the agent restarted) finds the step it
  started instead of running it again;
- ``args``: the ``promoflow`` argv of the step, ``["step", "<name>", "--flag", value...]``;
- ``outputs``: the output parameters the node reports (each ``""`` if the step wrote none);
- ``deadline``: seconds the step may run (a pod's ``activeDeadlineSeconds``), optional.

Everything here is pure: parsing refuses a malformed call with a reason the agent shows on
the node, never a traceback.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

PLUGIN = "promoflow"
"""The key of promoflow's object in a template's ``plugin``."""
METHOD = "/api/v1/template.execute"
PORT = 14356
"""The sidecar's port (its ConfigMap's ``containerPort``, which the agent calls on
localhost): above 10000, as upstream asks of plugins that are not in its directory."""
SUCCEEDED, FAILED, ERROR, RUNNING = "Succeeded", "Failed", "Error", "Running"


class CallError(ValueError):
    """A call that is not a template Argo or promoflow's compiler would send."""


@dataclass(frozen=True)
class StepCall:
    """One node's step, as the agent asks for it."""

    workflow: str
    namespace: str
    uid: str
    node: str
    args: tuple[str, ...]
    outputs: tuple[str, ...] = ()
    deadline: float | None = None

    @property
    def key(self) -> tuple[str, str]:
        """What identifies the node across calls: the Workflow's UID and the node's name."""
        return (self.uid, self.node)

    @property
    def step(self) -> str:
        return self.args[1]


@dataclass(frozen=True)
class NodeResult:
    """What the agent copies onto the node (``wfv1.NodeResult``)."""

    phase: str
    message: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = None
    progress: str = ""

    @property
    def done(self) -> bool:
        return self.phase != RUNNING


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise CallError(f"{where} must be a string")
    return value


def _texts(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CallError(f"{where} must be a list of strings")
    return tuple(value)


def _deadline(value: Any) -> float | None:
    """``activeDeadlineSeconds``' rule: a positive whole number (it may arrive as a string,
    substituted from an input); empty or absent is no deadline."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    if not text.isdigit() or int(text) <= 0:
        raise CallError(f"plugin.{PLUGIN}.deadline: {text!r} is not a positive whole number")
    return float(int(text))


def parse(body: bytes) -> StepCall | None:
    """The step a call asks for; None when the template is not a promoflow one."""
    try:
        data = json.loads(body)
    except ValueError:
        raise CallError("the body is not JSON") from None
    if not isinstance(data, dict):
        raise CallError("the body is not a JSON object")
    template = data.get("template")
    workflow = data.get("workflow")
    meta = workflow.get("metadata") if isinstance(workflow, dict) else None
    if not isinstance(template, dict) or not isinstance(meta, dict):
        raise CallError("the body needs 'workflow.metadata' and 'template'")
    plugin = template.get("plugin")
    if not isinstance(plugin, dict) or PLUGIN not in plugin:
        return None
    spec = plugin[PLUGIN]
    if not isinstance(spec, dict):
        raise CallError(f"plugin.{PLUGIN} must be an object")
    unknown = sorted(set(spec) - {"node", "args", "outputs", "deadline"})
    if unknown:
        raise CallError(f"plugin.{PLUGIN} has no field {unknown[0]!r}")
    args = _texts(spec.get("args"), f"plugin.{PLUGIN}.args")
    if len(args) < 2 or args[0] != "step":
        raise CallError(f"plugin.{PLUGIN}.args must start with 'step <name>'")
    node = _text(spec.get("node"), f"plugin.{PLUGIN}.node")
    if not node or "{{" in node:
        raise CallError(f"plugin.{PLUGIN}.node was not substituted: {node!r}")
    return StepCall(
        workflow=_text(meta.get("name", ""), "workflow.metadata.name"),
        namespace=_text(meta.get("namespace", ""), "workflow.metadata.namespace"),
        uid=_text(meta.get("uid", ""), "workflow.metadata.uid"),
        node=node,
        args=args,
        outputs=_texts(spec.get("outputs", []), f"plugin.{PLUGIN}.outputs"),
        deadline=_deadline(spec.get("deadline")),
    )


def go_duration(seconds: float) -> str:
    """A ``metav1.Duration`` as the agent parses it (``time.ParseDuration``)."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError("a requeue is a positive duration")
    return f"{max(1, round(seconds * 1000))}ms"


def reply(result: NodeResult | None, requeue: float | None = None) -> dict[str, Any]:
    """The JSON body for the agent: ``{}`` for "not mine"."""
    if result is None:
        return {}
    node: dict[str, Any] = {"phase": result.phase}
    if result.message:
        node["message"] = result.message
    if result.progress:
        node["progress"] = result.progress
    if result.done:
        outputs: dict[str, Any] = {}
        if result.outputs:
            outputs["parameters"] = [{"name": k, "value": v} for k, v in result.outputs.items()]
        if result.exit_code is not None:
            outputs["exitCode"] = str(result.exit_code)
        if outputs:
            node["outputs"] = outputs
    out: dict[str, Any] = {"node": node}
    if requeue is not None:
        out["requeue"] = go_duration(requeue)
    return out
