"""The ConfigMap that installs promoflow's executor plugin in a namespace.

Argo's workflow-controller (with ``ARGO_EXECUTOR_PLUGINS=true``) reads every ConfigMap
labelled ``workflows.argoproj.io/configmap-type: ExecutorPlugin`` in its own namespace and
in a Workflow's, and adds each one's ``sidecar.container`` to the agent pod it starts for
a Workflow with plugin templates (``workflow/util/plugins/configmap.go``). The plugin's
name, and so its container's and its token directory's, is the ConfigMap's name without
``-executor-plugin``.

The container is the step image running ``promoflow plugin serve``, with the environment
of every step's container (the union: connection settings by value, credentials only as
Secret references); the server hands each step only the credentials its step declares
(``orchestrator.plugin.child.step_env``). Upstream refuses a container without resource
requests (and a refused ConfigMap is only logged by the controller, and an update of one
has crashed it: v4.0.5 writes into the namespace's plugin map that the refusal never
made), so requests are always set here, and :func:`problems` names what keeps a
ConfigMap found on a cluster from working (for ``promoflow doctor``).

It runs as the agent pod's user (Argo's 8737): the token ``agent init`` writes is mode
0440, readable by that user only. The root file system stays writable: a plugin sidecar
gets no volume of its own for ``/tmp``, where each step has its scratch directory.
"""

from __future__ import annotations

from typing import Any

import yaml

from orchestrator.compiler.library import shared_steps, step_environment, uses_kubernetes
from orchestrator.plugin import protocol
from orchestrator.settings import StepSettings

PLUGIN_NAME = "promoflow"
CONFIGMAP = f"{PLUGIN_NAME}-executor-plugin"
ACCOUNT = CONFIGMAP
"""The ServiceAccount whose token the sidecar gets, when a step reads the Kubernetes API:
upstream names it after the plugin (``<name>-executor-plugin``)."""
LABEL = "workflows.argoproj.io/configmap-type"
PORT = protocol.PORT
RESOURCES = {
    "requests": {"cpu": "100m", "memory": "128Mi"},
    "limits": {"cpu": "1", "memory": "512Mi"},
}


def _environment(settings: StepSettings) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for spec in shared_steps():
        for item in step_environment(settings, spec.needs):
            built = item.build().model_dump(by_alias=True, exclude_none=True)
            if built["name"] != "PROMOFLOW_OUTPUTS":
                seen.setdefault(built["name"], built)
    return list(seen.values())


def needs_token(settings: StepSettings) -> bool:
    """Whether some step reads the Kubernetes API (and so the sidecar needs a token)."""
    return any(uses_kubernetes(settings, spec) for spec in shared_steps())


def sidecar(
    settings: StepSettings, extra_env: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "name": PLUGIN_NAME,
        "image": settings.step_image,
        "imagePullPolicy": settings.image_pull_policy,
        "command": ["promoflow"],
        "args": ["plugin", "serve", "--port", str(PORT)],
        "ports": [{"containerPort": PORT}],
        "env": _environment(settings) + list(extra_env or []),
        "resources": RESOURCES,
        "securityContext": {
            "runAsNonRoot": True,
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }


def configmap(
    settings: StepSettings,
    namespace: str | None = None,
    extra_env: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The plugin's ConfigMap, as ``plugin.yaml`` would be converted by ``argo executor-plugin
    build``."""
    metadata: dict[str, Any] = {
        "name": CONFIGMAP,
        "labels": {LABEL: "ExecutorPlugin", "app.kubernetes.io/part-of": "promoflow"},
    }
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata,
        "data": {
            "sidecar.automountServiceAccountToken": str(needs_token(settings)).lower(),
            "sidecar.container": yaml.safe_dump(sidecar(settings, extra_env), sort_keys=True),
        },
    }


def problems(found: Any, settings: StepSettings) -> list[str]:
    """What keeps a ConfigMap read from the cluster from serving promoflow's plugin steps,
    in the terms of the fix; empty when it can. The controller's own check
    (``plugin.FromConfigMap`` and ``Plugin.Validate``) only logs its refusals, so a
    refused plugin shows as plugin steps that never start: ``promoflow doctor`` says why
    from this."""
    if not isinstance(found, dict):
        return [f"no ConfigMap {CONFIGMAP}: install the chart with workflows.execution=plugin"]
    out: list[str] = []
    labels = (found.get("metadata") or {}).get("labels") or {}
    if labels.get(LABEL) != "ExecutorPlugin":
        out.append(f"the label {LABEL}: ExecutorPlugin is missing: the controller ignores it")
    data = found.get("data") or {}
    try:
        container = yaml.safe_load(data.get("sidecar.container") or "")
    except yaml.YAMLError:
        container = None
    if not isinstance(container, dict):
        return [*out, "data.sidecar.container is not a container (YAML)"]
    if container.get("name") != PLUGIN_NAME:
        out.append(
            f"the container is named {container.get('name')!r}, not {PLUGIN_NAME!r}: its token "
            "directory and the agent's calls follow the name"
        )
    ports = container.get("ports") or []
    if not ports or not isinstance(ports[0], dict) or not ports[0].get("containerPort"):
        out.append("the container has no port: the agent calls its first containerPort")
    requests = (container.get("resources") or {}).get("requests") or {}
    if not requests:
        out.append(
            "the container has no resource requests: the controller refuses the plugin "
            "(and v4.0.5's controller crashes when such a ConfigMap is updated)"
        )
    if container.get("image") != settings.step_image:
        out.append(
            f"the sidecar runs {container.get('image')!r}, the steps expect "
            f"{settings.step_image!r}: upgrade both together"
        )
    have = {e.get("name") for e in container.get("env") or [] if isinstance(e, dict)}
    missing = [e["name"] for e in _environment(settings) if e["name"] not in have]
    if missing:
        out.append(f"the sidecar lacks the steps' environment: {', '.join(missing)}")
    return out
