"""What the e2e suite runs against, read from environment variables only.

The suite never assumes the local control plane of ``tests/e2e/cluster``: that tooling is one
way to set these variables (``python -m tests.e2e.cluster env``), and any cluster with Argo CD
and Argo Workflows (kind, a staging cluster) is another. Every variable is documented in
tests/e2e/README.md; a missing required one fails the session with its name, it never turns
into a skip.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REQUIRED = (
    "PROMOFLOW_E2E_KUBECONFIG",
    "ARGOCD_SERVER",
    "ARGOCD_AUTH_TOKEN",
    "ARGO_SERVER",
    "ARGO_TOKEN",
)


class NotConfigured(RuntimeError):
    """A required variable is missing or points nowhere."""


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class E2ESettings:
    kubeconfig: Path
    argocd_server: str
    argocd_token: str
    argocd_opts: str
    argocd_namespace: str
    """Where Argo CD's Application objects live (``PROMOFLOW_E2E_ARGOCD_NAMESPACE``)."""
    argocd_project: str
    destination_server: str
    """The cluster the test Applications deploy to, as Argo CD names it."""
    argo_server: str
    argo_token: str
    argo_namespace: str
    argo_secure: str
    git_root: Path | None
    """Local directory of bare repositories served at ``git_url`` (the local cluster)."""
    git_url: str
    git_repo: str
    """Or: one existing repository the suite pushes a branch per test to."""
    git_token: str
    pod_runner: bool
    """Workflow pods land on a kwok node: run their steps with tests/e2e/podrunner.py."""
    step_image: str
    step_argocd_server: str
    """The Argo CD address the workflow's step containers use."""
    step_argocd_opts: str
    timeout: float
    execution: str
    """How the compiled steps run (``PROMOFLOW_E2E_EXECUTION``: ``pod`` or ``plugin``)."""
    """Seconds a single wait in the suite may take before it fails."""
    app_image: str = ""
    """An image with busybox ``sh`` and ``httpd``: the promotion's apps then run real pods
    that serve their version (``PROMOFLOW_E2E_APP_IMAGE``); else they never start."""
    app_node_selector: str = ""
    """``key=value`` of the nodes those pods run on, whose ``key`` taint they tolerate
    (``PROMOFLOW_E2E_APP_NODE_SELECTOR``)."""
    app_image_next: str = ""
    """Another image of the same repository as ``app_image`` (another tag, other content):
    what the image verification tests promote to (``PROMOFLOW_E2E_APP_IMAGE_NEXT``)."""

    @property
    def argo_bin(self) -> Path | None:
        """The argo CLI: ``PROMOFLOW_E2E_ARGO_BIN``, else the local cluster's, else PATH."""
        explicit = os.environ.get("PROMOFLOW_E2E_ARGO_BIN")
        if explicit:
            return Path(explicit)
        local = Path(os.environ.get("PROMOFLOW_CLUSTER_HOME", "~/.cache/promoflow/cluster"))
        candidate = local.expanduser() / "bin" / "argo"
        if candidate.is_file():
            return candidate
        import shutil

        found = shutil.which("argo")
        return Path(found) if found else None


def load() -> E2ESettings:
    env = os.environ
    missing = [name for name in REQUIRED if not env.get(name)]
    if missing:
        raise NotConfigured(
            f"set {', '.join(missing)} (tests/e2e/README.md; for the local cluster: "
            'eval "$(.venv/bin/python -m tests.e2e.cluster env)", or just `make e2e`)'
        )
    kubeconfig = Path(env["PROMOFLOW_E2E_KUBECONFIG"]).expanduser()
    if not kubeconfig.is_file():
        raise NotConfigured(f"PROMOFLOW_E2E_KUBECONFIG: no file {kubeconfig}")
    git_root = (
        Path(env["PROMOFLOW_E2E_GIT_ROOT"]).expanduser()
        if env.get("PROMOFLOW_E2E_GIT_ROOT")
        else None
    )
    git_repo = env.get("PROMOFLOW_E2E_GIT_REPO", "")
    if git_root is None and not git_repo:
        raise NotConfigured(
            "set PROMOFLOW_E2E_GIT_ROOT and PROMOFLOW_E2E_GIT_URL (a directory of bare "
            "repositories and the URL Argo CD reaches them at), or PROMOFLOW_E2E_GIT_REPO "
            "(a repository the suite may push branches to, with GIT_TOKEN)"
        )
    if git_root is not None and not env.get("PROMOFLOW_E2E_GIT_URL"):
        raise NotConfigured("PROMOFLOW_E2E_GIT_ROOT needs PROMOFLOW_E2E_GIT_URL")
    pod_runner = _flag("PROMOFLOW_E2E_POD_RUNNER")
    argocd_server = env["ARGOCD_SERVER"]
    argocd_opts = env.get("ARGOCD_OPTS", "")
    return E2ESettings(
        kubeconfig=kubeconfig,
        argocd_server=argocd_server,
        argocd_token=env["ARGOCD_AUTH_TOKEN"],
        argocd_opts=argocd_opts,
        argocd_namespace=env.get("PROMOFLOW_E2E_ARGOCD_NAMESPACE", "argocd"),
        argocd_project=env.get("PROMOFLOW_E2E_ARGOCD_PROJECT", "default"),
        destination_server=env.get(
            "PROMOFLOW_E2E_DESTINATION_SERVER", "https://kubernetes.default.svc"
        ),
        argo_server=env["ARGO_SERVER"],
        argo_token=env["ARGO_TOKEN"],
        argo_namespace=env.get("ARGO_NAMESPACE", "argo"),
        argo_secure=env.get("ARGO_SECURE", "true"),
        git_root=git_root,
        git_url=env.get("PROMOFLOW_E2E_GIT_URL", "").rstrip("/"),
        git_repo=git_repo,
        git_token=env.get("GIT_TOKEN", ""),
        pod_runner=pod_runner,
        step_image=env.get("PROMOFLOW_STEP_IMAGE", ""),
        # Pods of the local cluster run on this machine (the pod runner), so they reach
        # Argo CD where the suite does; in a real cluster, at its in-cluster address.
        step_argocd_server=env.get(
            "PROMOFLOW_E2E_STEP_ARGOCD_SERVER",
            argocd_server if pod_runner else "argocd-server.argocd.svc:443",
        ),
        step_argocd_opts=env.get(
            "PROMOFLOW_E2E_STEP_ARGOCD_OPTS", argocd_opts if pod_runner else ""
        ),
        timeout=float(env.get("PROMOFLOW_E2E_TIMEOUT", "180")),
        execution=env.get("PROMOFLOW_E2E_EXECUTION", ""),
        app_image=env.get("PROMOFLOW_E2E_APP_IMAGE", ""),
        app_node_selector=env.get("PROMOFLOW_E2E_APP_NODE_SELECTOR", ""),
        app_image_next=env.get("PROMOFLOW_E2E_APP_IMAGE_NEXT", ""),
    )
