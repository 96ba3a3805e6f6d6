"""Kubernetes' "restricted" Pod Security Standard, as a check of one pod spec.

The rules of https://kubernetes.io/docs/concepts/security/pod-security-standards/ (the
baseline's and the restricted profile's, version "latest" of Kubernetes 1.34), which the
API server's PodSecurity admission enforces with ``pod-security.kubernetes.io/enforce:
restricted``. The unit tests use this to say which field breaks which rule; the e2e test
asks the real API server, whose verdict is the one that counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Spec = dict[str, Any]

ALLOWED_VOLUMES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    }
)
SECCOMP = frozenset({"RuntimeDefault", "Localhost"})


def _containers(pod: Spec) -> Iterator[Spec]:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from pod.get(key) or []


def violations(pod: Spec) -> list[str]:
    """What in ``pod`` (a pod spec) the restricted standard forbids; empty: admitted."""
    found: list[str] = []
    pod_context = pod.get("securityContext") or {}
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(field):
            found.append(f"host namespaces ({field})")
    for volume in pod.get("volumes") or []:
        kinds = set(volume) - {"name"}
        if not kinds <= ALLOWED_VOLUMES:
            found.append(f"volume {volume['name']}: {sorted(kinds - ALLOWED_VOLUMES)}")
    for sysctl in pod_context.get("sysctls") or []:
        if sysctl["name"] not in SAFE_SYSCTLS:
            found.append(f"sysctl {sysctl['name']}")
    pod_seccomp = (pod_context.get("seccompProfile") or {}).get("type")
    if pod_seccomp is not None and pod_seccomp not in SECCOMP:
        found.append(f"pod seccompProfile {pod_seccomp}")
    if pod_context.get("runAsUser") == 0:
        found.append("pod runAsUser 0")
    for container in _containers(pod):
        name, context = container["name"], container.get("securityContext") or {}
        if context.get("privileged"):
            found.append(f"{name}: privileged")
        if context.get("allowPrivilegeEscalation") is not False:
            found.append(f"{name}: allowPrivilegeEscalation != false")
        capabilities = context.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            found.append(f"{name}: capabilities do not drop ALL")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            found.append(f"{name}: capabilities added")
        non_root = context.get("runAsNonRoot", pod_context.get("runAsNonRoot"))
        if non_root is not True:
            found.append(f"{name}: runAsNonRoot != true")
        if context.get("runAsUser") == 0:
            found.append(f"{name}: runAsUser 0")
        seccomp = (context.get("seccompProfile") or {}).get("type", pod_seccomp)
        if seccomp not in SECCOMP:
            found.append(f"{name}: seccompProfile {seccomp}")
        if context.get("procMount", "Default") != "Default":
            found.append(f"{name}: procMount")
        if any(port.get("hostPort") for port in container.get("ports") or []):
            found.append(f"{name}: hostPort")
    return found
