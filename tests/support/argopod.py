"""The pod Argo Workflows' controller makes for one container template of a step.

What ``createWorkflowPod`` (workflow/controller/workflowpod.go, v4.0.5) builds for a
``container`` template, to the fields the Pod Security Standards and the ServiceAccount
token concern: Argo's volumes (``var-run-argo``, ``tmp-dir-argo``) and the template's, the
``init`` and ``wait`` containers of the emissary executor with the controller's
``executor.securityContext`` (none by default), the step's ``main`` container behind the
emissary, the template's pod ``securityContext``, and last the template's ``podSpecPatch``
applied as a strategic merge patch (``ApplyPodSpecPatch``: lists of containers and volumes
merge by name, volume mounts by path, maps field by field).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml

Spec = dict[str, Any]

EXECUTOR_IMAGE = "quay.io/argoproj/argoexec:v4.0.5"
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "env": "name",
    "ports": "containerPort",
}
"""The ``patchMergeKey`` of the PodSpec lists a step's patch can touch."""

_VAR_RUN_ARGO = {"name": "var-run-argo", "mountPath": "/var/run/argo"}


def _executor(name: str, args: list[str], image: str, context: Spec | None) -> Spec:
    container: Spec = {
        "name": name,
        "image": image,
        "command": ["argoexec", *args],
        "volumeMounts": [dict(_VAR_RUN_ARGO)],
    }
    if context:
        container["securityContext"] = copy.deepcopy(context)
    return container


def step_pod(
    template: Spec,
    *,
    service_account: str,
    executor_image: str = EXECUTOR_IMAGE,
    executor_security: Spec | None = None,
) -> Spec:
    """The pod spec of one run of ``template`` (a WorkflowTemplate's container template),
    its parameters left as written (they are strings wherever they appear here)."""
    main = copy.deepcopy(template["container"])
    main["name"] = "main"
    main["command"] = ["/var/run/argo/argoexec", "emissary", "--", *main.get("command", [])]
    main.setdefault("volumeMounts", []).append(dict(_VAR_RUN_ARGO))
    pod: Spec = {
        "restartPolicy": "Never",
        "serviceAccountName": service_account,
        "volumes": [
            {"name": "var-run-argo", "emptyDir": {}},
            {"name": "tmp-dir-argo", "emptyDir": {}},
            *copy.deepcopy(template.get("volumes") or []),
        ],
        "initContainers": [_executor("init", ["init"], executor_image, executor_security)],
        "containers": [
            _executor("wait", ["wait"], executor_image, executor_security),
            main,
        ],
    }
    if template.get("securityContext"):
        pod["securityContext"] = copy.deepcopy(template["securityContext"])
    if template.get("podSpecPatch"):
        pod = merge(pod, yaml.safe_load(template["podSpecPatch"]))
    return pod


def merge(target: Any, patch: Any, key: str = "") -> Any:
    """A strategic merge patch of the PodSpec fields above (no ``$patch`` directives)."""
    if isinstance(target, dict) and isinstance(patch, dict):
        out = dict(target)
        for name, value in patch.items():
            out[name] = merge(out[name], value, name) if name in out else copy.deepcopy(value)
        return out
    if isinstance(target, list) and isinstance(patch, list) and key in MERGE_KEYS:
        field = MERGE_KEYS[key]
        out_list = [copy.deepcopy(item) for item in target]
        for item in patch:
            at = next((i for i, old in enumerate(out_list) if old[field] == item[field]), None)
            if at is None:
                out_list.append(copy.deepcopy(item))
            else:
                out_list[at] = merge(out_list[at], item)
        return out_list
    return copy.deepcopy(patch)


def as_pod(spec: Spec, name: str, namespace: str) -> Spec:
    """A Pod object around ``spec``, for the API server."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": json.loads(json.dumps(spec)),
    }


def agent_pod(sidecar: Spec, service_account: str, automount_plugin_token: bool) -> Spec:
    """The agent pod ``createAgentPod`` (workflow/controller/agent.go, v4.0.5) makes for a
    Workflow with plugin templates, to the same fields: Argo's minimal pod and container
    security contexts (``common.MinimalPodSC``/``MinimalCtrSC``), ``init`` and ``main``
    running ``argoexec agent``, the account's token from its ``.service-account-token``
    Secret (``getServiceAccountTokenVolume``), automount off, and each executor plugin's
    sidecar with ``/var/run/argo`` (its own token) read-only, and a token of
    ``<plugin>-executor-plugin`` where its ConfigMap asks for one."""
    minimal = {
        "capabilities": {"drop": ["ALL"]},
        "privileged": False,
        "runAsNonRoot": True,
        "runAsUser": 8737,
        "readOnlyRootFilesystem": True,
        "allowPrivilegeEscalation": False,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    token = {
        "name": "kube-api-access-agent",
        "secret": {"secretName": f"{service_account}.service-account-token"},
    }
    token_mount = {
        "name": token["name"],
        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
        "readOnly": True,
    }
    argo = {"name": "var-run-argo", "emptyDir": {}}

    def agent(name: str) -> Spec:
        return {
            "name": name,
            "image": EXECUTOR_IMAGE,
            "command": ["argoexec"],
            "args": ["agent", name],
            "securityContext": copy.deepcopy(minimal),
            "volumeMounts": [dict(_VAR_RUN_ARGO), dict(token_mount)],
        }

    plugin = copy.deepcopy(sidecar)
    plugin.setdefault("volumeMounts", []).append(
        {**_VAR_RUN_ARGO, "readOnly": True, "subPath": plugin["name"]}
    )
    volumes = [argo, token]
    if automount_plugin_token:
        plugin_token = {
            "name": "kube-api-access-plugin",
            "secret": {"secretName": f"{plugin['name']}-executor-plugin.service-account-token"},
        }
        volumes.append(plugin_token)
        plugin["volumeMounts"].append({**token_mount, "name": plugin_token["name"]})
    return {
        "restartPolicy": "OnFailure",
        "serviceAccountName": service_account,
        "automountServiceAccountToken": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 8737,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumes": volumes,
        "initContainers": [agent("init")],
        "containers": [plugin, agent("main")],
    }
