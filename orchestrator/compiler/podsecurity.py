"""What every step pod may do: Kubernetes' "restricted" Pod Security Standard, and the
ServiceAccount token only where something in the pod calls the Kubernetes API.

A step pod holds the Git and Argo CD tokens, so it gets no more than it uses:

- it runs as the image's own user (``promoflow``, UID 10001 in the Dockerfile), never as
  root, without privilege escalation, capabilities or a writable root file system, under
  the runtime's default seccomp profile; ``/tmp`` (HOME, the outputs, Git's scratch
  repositories) is an ``emptyDir``;
- the pod mounts no ServiceAccount token by default. Argo's executor (the ``init`` and
  ``wait`` containers) still needs one to write the step's outputs as a
  WorkflowTaskResult, so those two containers, and the step's own container only when the
  step reads the Kubernetes API, get a projected token: short-lived (an hour), renewed by
  the kubelet, bound to the pod, at the path the Kubernetes clients look in.

Argo v4 refuses a template's ``automountServiceAccountToken: false`` unless an
``executor.serviceAccountName`` names an account with a long-lived token Secret
(``setupServiceAccount`` in workflow/controller/workflowpod.go), which is what this avoids:
the template's ``podSpecPatch``, applied after Argo has added its containers, turns the
automount off and mounts the projected token into the containers named here. The same
patch gives the executor containers the restricted ``securityContext``, whatever the
workflow-controller's ``executor.securityContext`` says.
"""

from __future__ import annotations

import json
from typing import Any

from hera.workflows import EmptyDirVolume
from hera.workflows.models import (
    Capabilities,
    PodSecurityContext,
    SeccompProfile,
    SecurityContext,
)

RUN_AS = 10001
"""The step image's user and group (``useradd --uid 10001`` in the Dockerfile)."""
SCRATCH = "/tmp"
"""The one writable path of a step: HOME, the outputs directory and Git's scratch repos."""
TOKEN_VOLUME = "promoflow-api-token"
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
"""Where client-go and the Python client find the in-cluster token, CA and namespace."""
TOKEN_SECONDS = 3600
"""Lifetime of the projected token; the kubelet renews it at 80% of that."""
EXECUTOR_CONTAINERS = ("init", "wait")
"""Argo's containers in a step pod (workflow/common: InitContainerName, WaitContainerName)."""
MAIN_CONTAINER = "main"

__all__ = [
    "RUN_AS",
    "SCRATCH",
    "TOKEN_PATH",
    "TOKEN_VOLUME",
    "container_security",
    "pod_security",
    "pod_spec_patch",
    "scratch_volume",
]


def pod_security() -> PodSecurityContext:
    """The pod-level half of the restricted standard (the template's ``securityContext``)."""
    return PodSecurityContext(
        run_as_non_root=True,
        run_as_user=RUN_AS,
        run_as_group=RUN_AS,
        fs_group=RUN_AS,
        seccomp_profile=SeccompProfile(type="RuntimeDefault"),
    )


def container_security() -> SecurityContext:
    """The container-level half, for the step's container."""
    return SecurityContext(
        allow_privilege_escalation=False,
        capabilities=Capabilities(drop=["ALL"]),
        read_only_root_filesystem=True,
        run_as_non_root=True,
    )


def _executor_security() -> dict[str, Any]:
    """``container_security`` for Argo's containers, as a pod spec patch holds it, but for
    the read-only root: Argo leaves ``init`` and ``wait`` writable (argoproj/argo-workflows
    #10787), and the restricted standard does not ask for it."""
    context = container_security().model_dump(by_alias=True, exclude_none=True)
    del context["readOnlyRootFilesystem"]
    return context


def scratch_volume() -> EmptyDirVolume:
    """``/tmp``, writable under the read-only root file system."""
    return EmptyDirVolume(name="tmp", mount_path=SCRATCH)


def token_volume() -> dict[str, Any]:
    """What the ServiceAccount admission plugin would mount (``kube-api-access-*``): the
    token, the cluster's CA and the namespace, with a token that expires."""
    return {
        "name": TOKEN_VOLUME,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_SECONDS}},
                {
                    "configMap": {
                        "name": "kube-root-ca.crt",
                        "items": [{"key": "ca.crt", "path": "ca.crt"}],
                    }
                },
                {
                    "downwardAPI": {
                        "items": [
                            {"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}
                        ]
                    }
                },
            ]
        },
    }


def _mounted(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "volumeMounts": [{"name": TOKEN_VOLUME, "mountPath": TOKEN_PATH, "readOnly": True}],
    }


def pod_spec_patch(main_uses_api: bool) -> str:
    """The template's ``podSpecPatch`` (a strategic merge patch Argo applies to the pod it
    built): no automounted token, the projected one in the executor's containers and, when
    ``main_uses_api``, in the step's, and the restricted ``securityContext`` on Argo's
    containers too."""
    executor = [
        {**_mounted(name), "securityContext": _executor_security()} for name in EXECUTOR_CONTAINERS
    ]
    patch = {
        "automountServiceAccountToken": False,
        "volumes": [token_volume()],
        "initContainers": executor[:1],
        "containers": executor[1:] + ([_mounted(MAIN_CONTAINER)] if main_uses_api else []),
    }
    return json.dumps(patch, sort_keys=True)
