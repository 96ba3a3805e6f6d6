"""Every process of the control plane, in start order: command line, environment,
readiness check and the setup that must happen before or after it starts.

Flags follow what upstream does when it runs the same binaries outside a cluster: kwokctl's
"binary" runtime for the Kubernetes components, Argo CD's Procfile for Argo CD, Argo
Workflows' ``make start`` for the controller and server.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import argo, argocd, control_plane, debian, node, podrunner_service
from .config import LOOPBACK, PATHS, PORTS, REAL_PODS
from .kube import http_ok, redis_ping
from .pki import PKI, SERVICE_CIDR

BIN = PATHS.bin
ARGO_STOP_TIMEOUT = 3.0
"""Argo Workflows v4.0.5 swallows SIGTERM (util/logging/init.go catches SIGINT/SIGTERM to
flush its start-up logs and never exits): do not wait long before SIGKILL."""


@dataclass(frozen=True)
class Service:
    name: str
    command: Callable[[], list[str]]
    ready: Callable[[], bool]
    address: str
    env: Callable[[], dict[str, str]] = lambda: dict(os.environ)
    before: Callable[[], None] | None = None
    """Setup that needs the previous services (apply manifests, create the node)."""
    after: Callable[[], None] | None = None
    """Setup that needs this service (issue API tokens)."""
    timeout: float = 120.0
    expect: str = field(default="")
    """Part of /proc/<pid>/cmdline proving the pid is still ours (default: argv[0]'s name)."""
    stop_timeout: float = 15.0
    """Seconds between SIGTERM and SIGKILL on ``down``."""
    ports: tuple[int, ...] = ()
    """Ports it listens on: they must be free before it starts (a stray process holding one
    would otherwise answer the readiness check in its place)."""
    before_stop: Callable[[], None] | None = None
    after_stop: Callable[[], None] | None = None


def _etcd() -> list[str]:
    client = f"http://{LOOPBACK}:{PORTS.etcd_client}"
    peer = f"http://{LOOPBACK}:{PORTS.etcd_peer}"
    return [
        str(BIN / "etcd"),
        "--name=promoflow-e2e",
        f"--data-dir={PATHS.etcd_data}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=promoflow-e2e={peer}",
        "--initial-cluster-state=new",
        # A throwaway test cluster: skip fsync, keep history short, let big CRDs through.
        "--unsafe-no-fsync=true",
        "--auto-compaction-mode=periodic",
        "--auto-compaction-retention=10m",
        "--quota-backend-bytes=4294967296",
        "--max-request-bytes=10485760",
        "--log-level=warn",
    ]


def _apiserver() -> list[str]:
    return [
        str(BIN / "kube-apiserver"),
        f"--etcd-servers=http://{LOOPBACK}:{PORTS.etcd_client}",
        f"--bind-address={LOOPBACK}",
        f"--secure-port={PORTS.apiserver}",
        f"--tls-cert-file={PKI.apiserver_crt}",
        f"--tls-private-key-file={PKI.apiserver_key}",
        f"--client-ca-file={PKI.ca_crt}",
        # to kubelets (logs, exec) as a real control plane: the node's InternalIP (its name
        # resolves nowhere here), with a client certificate the kubelet's CA signed
        "--kubelet-preferred-address-types=InternalIP,Hostname",
        f"--kubelet-client-certificate={PKI.admin_crt}",
        f"--kubelet-client-key={PKI.admin_key}",
        f"--service-account-key-file={PKI.sa_pub}",
        f"--service-account-signing-key-file={PKI.sa_key}",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        "--authorization-mode=RBAC",
        "--allow-privileged=true",
        "--enable-priority-and-fairness=false",
        "--profiling=false",
        "--v=1",
    ]


def _common_kube_flags(port: int) -> list[str]:
    kubeconfig = str(PATHS.kubeconfig)
    return [
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        f"--bind-address={LOOPBACK}",
        f"--secure-port={port}",
        "--leader-elect=false",
        "--profiling=false",
        "--v=1",
    ]


def _controller_manager() -> list[str]:
    return [
        str(BIN / "kube-controller-manager"),
        *_common_kube_flags(PORTS.controller_manager),
        # Token controller (long-lived ServiceAccount token Secrets) and kube-root-ca.crt.
        f"--service-account-private-key-file={PKI.sa_key}",
        f"--root-ca-file={PKI.ca_crt}",
        "--use-service-account-credentials=false",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        "--allocate-node-cidrs=false",
        "--controllers=*",
    ]


def _scheduler() -> list[str]:
    return [str(BIN / "kube-scheduler"), *_common_kube_flags(PORTS.scheduler)]


def _kwok() -> list[str]:
    return [
        str(BIN / "kwok"),
        f"--kubeconfig={PATHS.kubeconfig}",
        f"--config={control_plane.KWOK_STAGES}",
        "--manage-all-nodes=false",
        "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
        f"--server-address={LOOPBACK}:{PORTS.kwok}",
        f"--node-ip={LOOPBACK}",
        "--node-lease-duration-seconds=40",
        "--cidr=10.244.0.0/16",
    ]


def _git() -> list[str]:
    return [
        sys.executable,
        "-m",
        "tests.e2e.cluster.gitserver",
        "--root",
        str(PATHS.git_root),
        "--port",
        str(PORTS.git),
    ]


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    repo_root = Path(__file__).resolve().parents[3]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(repo_root), env.get("PYTHONPATH")) if p)
    return env


def _redis() -> list[str]:
    return [
        str(debian.redis_binary()),
        "--bind",
        LOOPBACK,
        "--port",
        str(PORTS.redis),
        "--save",
        "",
        "--appendonly",
        "no",
    ]


ALL_SERVICES: list[Service] = [
    Service(
        "etcd",
        _etcd,
        lambda: http_ok(f"http://{LOOPBACK}:{PORTS.etcd_client}/health", expect=b'"true"'),
        f"http://{LOOPBACK}:{PORTS.etcd_client}",
        ports=(PORTS.etcd_client, PORTS.etcd_peer),
    ),
    Service(
        "kube-apiserver",
        _apiserver,
        lambda: http_ok(f"https://{LOOPBACK}:{PORTS.apiserver}/readyz", admin_tls=True),
        f"https://{LOOPBACK}:{PORTS.apiserver}",
        ports=(PORTS.apiserver,),
    ),
    Service(
        "kube-controller-manager",
        _controller_manager,
        lambda: http_ok(f"https://{LOOPBACK}:{PORTS.controller_manager}/healthz"),
        f"https://{LOOPBACK}:{PORTS.controller_manager}",
        ports=(PORTS.controller_manager,),
    ),
    Service(
        "kube-scheduler",
        _scheduler,
        lambda: http_ok(f"https://{LOOPBACK}:{PORTS.scheduler}/healthz"),
        f"https://{LOOPBACK}:{PORTS.scheduler}",
        ports=(PORTS.scheduler,),
    ),
    Service(
        "kwok",
        _kwok,
        control_plane.node_ready,
        f"http://{LOOPBACK}:{PORTS.kwok}",
        before=control_plane.prepare_kwok,
        ports=(PORTS.kwok,),
    ),
    Service(
        "containerd",
        node.containerd_command,
        node.containerd_ready,
        f"unix://{node.SOCKET}",
        env=node.containerd_env,
        before_stop=node.kill_containers,
        after_stop=node.remove_bridge,
    ),
    Service(
        "kubelet",
        node.kubelet_command,
        node.kubelet_ready,
        f"{node.NODE_NAME} (real pods; https://{LOOPBACK}:{PORTS.kubelet})",
        after_stop=node.unmount_kubelet,
        ports=(PORTS.kubelet, PORTS.kubelet_healthz),
        timeout=300.0,
    ),
    Service(
        "kube-proxy",
        node.kube_proxy_command,
        node.kube_proxy_ready,
        f"{node.NODE_NAME} Services (nftables; healthz http://{LOOPBACK}:{PORTS.kube_proxy_healthz})",
        env=node.nft_env,
        after_stop=node.remove_kube_proxy_rules,
        ports=(PORTS.kube_proxy_healthz, PORTS.kube_proxy_metrics),
    ),
    Service(
        "git-http",
        _git,
        lambda: http_ok(f"http://{LOOPBACK}:{PORTS.git}/healthz"),
        f"http://{LOOPBACK}:{PORTS.git}",
        env=_git_env,
        expect="tests.e2e.cluster.gitserver",
        ports=(PORTS.git,),
    ),
    Service(
        "redis",
        _redis,
        lambda: redis_ping(LOOPBACK, PORTS.redis),
        f"{LOOPBACK}:{PORTS.redis}",
        env=debian.redis_env,
        expect="redis",
        ports=(PORTS.redis,),
    ),
    Service(
        "argocd-repo-server",
        argocd.repo_server_command,
        lambda: http_ok(f"http://{LOOPBACK}:{PORTS.argocd_repo_server_metrics}/healthz"),
        f"{LOOPBACK}:{PORTS.argocd_repo_server}",
        env=lambda: argocd.env("argocd-repo-server"),
        before=argocd.prepare,
        expect="argocd",
        ports=(PORTS.argocd_repo_server, PORTS.argocd_repo_server_metrics),
    ),
    Service(
        "argocd-application-controller",
        argocd.controller_command,
        lambda: http_ok(f"http://{LOOPBACK}:{PORTS.argocd_controller_metrics}/healthz"),
        f"http://{LOOPBACK}:{PORTS.argocd_controller_metrics}/metrics",
        env=lambda: argocd.env("argocd-application-controller"),
        expect="argocd",
        ports=(PORTS.argocd_controller_metrics,),
    ),
    Service(
        "argocd-server",
        argocd.server_command,
        lambda: http_ok(f"http://{LOOPBACK}:{PORTS.argocd_server}/healthz"),
        f"http://{LOOPBACK}:{PORTS.argocd_server}",
        env=lambda: argocd.env("argocd-server"),
        after=argocd.issue_token,
        expect="argocd",
        ports=(PORTS.argocd_server, PORTS.argocd_server_metrics),
    ),
    Service(
        "workflow-controller",
        argo.controller_command,
        argo.controller_ready,
        f"http://{LOOPBACK}:{argo.HEALTH_PORT}/healthz",
        env=argo.env,
        before=argo.prepare,
        ports=(argo.HEALTH_PORT, PORTS.workflow_controller_metrics),
        stop_timeout=ARGO_STOP_TIMEOUT,
    ),
    Service(
        "argo-server",
        argo.server_command,
        argo.server_ready,
        f"http://{LOOPBACK}:{PORTS.argo_server}",
        env=argo.env,
        after=argo.write_tokens,
        expect="argo",
        ports=(PORTS.argo_server,),
        stop_timeout=ARGO_STOP_TIMEOUT,
    ),
    Service(
        podrunner_service.NAME,
        podrunner_service.command,
        podrunner_service.ready,
        "kwok-node-0 (runs workflow steps)",
        env=podrunner_service.env,
        expect=podrunner_service.MODULE,
        stop_timeout=5.0,
    ),
]

_REAL_ONLY = ("containerd", "kubelet", "kube-proxy")
SERVICES = [
    svc
    for svc in ALL_SERVICES
    if (svc.name in _REAL_ONLY) == REAL_PODS
    or svc.name not in (*_REAL_ONLY, podrunner_service.NAME)
]
"""What ``up`` starts: the real node's services, or the pod runner for the kwok node."""
