"""End-to-end tests against a real cluster with Argo CD: skipped unless one is configured.

``PROMOFLOW_E2E_KUBECONFIG`` names the kubeconfig of that cluster (Argo CD installed in
``PROMOFLOW_E2E_ARGOCD_NAMESPACE``, default ``argocd``); ``PROMOFLOW_E2E_REPO`` and
``PROMOFLOW_E2E_REVISION`` the git repository and commit the test Application deploys.
See README.md in this directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Cluster:
    kubeconfig: Path
    namespace: str
    """Where Argo CD's Application objects live."""
    repo: str
    path: str
    revision: str
    """The commit the test Application must end up running."""
    destination: str
    """The namespace the test Application deploys into (created by Argo CD)."""
    timeout: str


SKIP = "set PROMOFLOW_E2E_KUBECONFIG to run against a real cluster (tests/e2e/README.md)"


@pytest.fixture(autouse=True)
def _needs_a_cluster() -> None:
    if not os.environ.get("PROMOFLOW_E2E_KUBECONFIG"):
        pytest.skip(SKIP)


@pytest.fixture(scope="session")
def cluster() -> Cluster:
    env = os.environ
    if not env.get("PROMOFLOW_E2E_KUBECONFIG"):  # session fixtures are set up first
        pytest.skip(SKIP)
    missing = [k for k in ("PROMOFLOW_E2E_REPO", "PROMOFLOW_E2E_REVISION") if not env.get(k)]
    if missing:
        pytest.fail(f"set {', '.join(missing)} (see tests/e2e/README.md)")
    kubeconfig = Path(env["PROMOFLOW_E2E_KUBECONFIG"]).expanduser()
    if not kubeconfig.is_file():
        pytest.fail(f"PROMOFLOW_E2E_KUBECONFIG: no file {kubeconfig}")
    return Cluster(
        kubeconfig=kubeconfig,
        namespace=env.get("PROMOFLOW_E2E_ARGOCD_NAMESPACE", "argocd"),
        repo=env["PROMOFLOW_E2E_REPO"],
        path=env.get("PROMOFLOW_E2E_PATH", "."),
        revision=env["PROMOFLOW_E2E_REVISION"],
        destination=env.get("PROMOFLOW_E2E_DESTINATION", "promoflow-e2e"),
        timeout=env.get("PROMOFLOW_E2E_TIMEOUT", "5m"),
    )
