"""Where everything lives, which versions are pinned and which ports are used, in one place.

Nothing built from upstream source may land in the checkout, so every path here is under
one cache directory (``PROMOFLOW_CLUSTER_HOME``, default ``~/.cache/promoflow/cluster``).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VERSIONS_FILE = HERE / "versions.toml"
MANIFESTS = HERE / "manifests"

LOOPBACK = "127.0.0.1"

REAL_PODS = os.environ.get("PROMOFLOW_CLUSTER_PODS", "real").strip().lower() != "kwok"
"""Workflow pods run in real containers on a kubelet node (default), or, with
``PROMOFLOW_CLUSTER_PODS=kwok`` (a machine that cannot run containers), on the kwok node
through tests/e2e/podrunner.py."""


@dataclass(frozen=True)
class Ports:
    """Fixed loopback ports, kept below Linux's ephemeral range (32768+) and away from the
    usual defaults (2379, 6443, 6379, 8080...) so they clash neither with a developer's own
    services nor with tests that bind ephemeral ports."""

    etcd_client: int = 23790
    etcd_peer: int = 23791
    apiserver: int = 26443
    controller_manager: int = 26444
    scheduler: int = 26445
    kwok: int = 26446
    redis: int = 26379
    argocd_server: int = 26080
    argocd_repo_server: int = 26081
    argocd_controller_metrics: int = 26082
    argocd_server_metrics: int = 26083
    argocd_repo_server_metrics: int = 26084
    argocd_commit_server: int = 26086
    """Only named to the controller (it insists); nothing listens: no hydrator here."""
    argo_server: int = 26746
    workflow_controller_metrics: int = 26090
    git: int = 26418
    kubelet: int = 26250
    kubelet_healthz: int = 26248
    kube_proxy_healthz: int = 26256
    kube_proxy_metrics: int = 26249
    # Not ours to choose: the workflow-controller's /healthz is hard-coded to :6060
    # (argo.HEALTH_PORT).


PORTS = Ports()


@dataclass(frozen=True)
class Paths:
    """The cache layout: binaries and sources survive ``down --purge``; state does not."""

    home: Path

    @property
    def bin(self) -> Path:
        return self.home / "bin"

    @property
    def src(self) -> Path:
        """Generated wrapper modules and the writable copy of argo-workflows."""
        return self.home / "src"

    @property
    def debian(self) -> Path:
        """Debian packages unpacked with ``dpkg-deb -x`` (no root install)."""
        return self.home / "debian"

    @property
    def run(self) -> Path:
        """Pid files."""
        return self.home / "run"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def state(self) -> Path:
        """Cluster state removed by ``down --purge``: certs, etcd data, tokens, git repos."""
        return self.home / "state"

    @property
    def pki(self) -> Path:
        return self.state / "pki"

    @property
    def etcd_data(self) -> Path:
        return self.state / "etcd"

    @property
    def git_root(self) -> Path:
        """Bare repositories served over http://127.0.0.1 by ``git http-backend``."""
        return self.state / "git"

    @property
    def kubeconfig(self) -> Path:
        return self.home / "kubeconfig"

    @property
    def argocd_token(self) -> Path:
        return self.home / "argocd-token"

    @property
    def argocd_admin_password(self) -> Path:
        return self.state / "argocd-admin-password"

    @property
    def argo_token(self) -> Path:
        return self.home / "argo-token"

    @property
    def argo_token_other(self) -> Path:
        return self.home / "argo-token-other"

    @property
    def build_report(self) -> Path:
        """Measured cold build times and disk use, written by ``build``."""
        return self.home / "build-report.json"

    def kubeconfig_for(self, namespace: str) -> Path:
        """Admin kubeconfig whose context defaults to ``namespace``: Argo CD and Argo
        Workflows find their own namespace from the kubeconfig when run out of cluster."""
        return self.state / f"kubeconfig-{namespace}"


def home() -> Path:
    raw = os.environ.get("PROMOFLOW_CLUSTER_HOME") or "~/.cache/promoflow/cluster"
    return Path(raw).expanduser().resolve()


PATHS = Paths(home())


@cache
def versions() -> dict[str, dict[str, Any]]:
    """versions.toml, the one place every upstream version is pinned."""
    with VERSIONS_FILE.open("rb") as f:
        return tomllib.load(f)


def version_of(component: str) -> str:
    return str(versions()[component]["version"])
