"""The wait scenario of tests/gates/test_wait_scenarios.py against a real Argo CD.

An Application is created in the cluster (through the Kubernetes API, as promoflow's own
Kubernetes path reads it) pointing at ``PROMOFLOW_E2E_REPO`` at ``PROMOFLOW_E2E_REVISION``,
with automated sync; ``promoflow step wait-argocd`` must then report it deployed at that
commit, and time out on a commit Argo CD will never run. The Application is deleted at the
end, with Argo CD's resources finalizer so what it deployed goes too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.contract.argocd_schema import crd_errors
from tests.e2e.conftest import Cluster

pytestmark = pytest.mark.e2e

PROMOFLOW = Path(sys.executable).parent / "promoflow"
GROUP, VERSION, PLURAL = "argoproj.io", "v1alpha1", "applications"


def custom_objects(cluster: Cluster) -> Any:
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(cluster.kubeconfig))  # type: ignore[no-untyped-call]
    return client.CustomObjectsApi(api_client)


@pytest.fixture
def application(cluster: Cluster) -> Iterator[str]:
    from kubernetes.client.exceptions import ApiException

    api = custom_objects(cluster)
    name = f"promoflow-e2e-{uuid.uuid4().hex[:8]}"
    body = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Application",
        "metadata": {
            "name": name,
            "namespace": cluster.namespace,
            "labels": {"promoflow.dev/e2e": "true"},
            "finalizers": ["resources-finalizer.argocd.argoproj.io"],
        },
        "spec": {
            "project": "default",
            "source": {
                "repoURL": cluster.repo,
                "path": cluster.path,
                "targetRevision": cluster.revision,
            },
            "destination": {
                "server": "https://kubernetes.default.svc",
                "namespace": cluster.destination,
            },
            "syncPolicy": {
                "automated": {"prune": True, "selfHeal": True},
                "syncOptions": ["CreateNamespace=true"],
            },
        },
    }
    assert crd_errors(body) == []
    api.create_namespaced_custom_object(GROUP, VERSION, cluster.namespace, PLURAL, body)
    try:
        yield name
    finally:
        try:
            api.delete_namespaced_custom_object(GROUP, VERSION, cluster.namespace, PLURAL, name)
        except ApiException as exc:
            if exc.status != 404:
                raise


def wait(cluster: Cluster, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PROMOFLOW_"))}
    env |= {
        "KUBECONFIG": str(cluster.kubeconfig),
        "PROMOFLOW_ARGOCD_ACCESS": "kubernetes",
        "PROMOFLOW_ARGOCD_NAMESPACE": cluster.namespace,
        "PROMOFLOW_POLL_INTERVAL": "2",
    }
    env.pop("KUBERNETES_SERVICE_HOST", None)  # use the kubeconfig even inside a pod
    command = [str(PROMOFLOW), "step", "wait-argocd", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)


def test_new_application_is_reported_deployed(cluster: Cluster, application: str) -> None:
    done = wait(
        cluster, "--app", application, "--revision", cluster.revision, "--timeout", cluster.timeout
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["state"] == "deployed" and result["revision"] == cluster.revision
    app = custom_objects(cluster).get_namespaced_custom_object(
        GROUP, VERSION, cluster.namespace, PLURAL, application
    )
    assert crd_errors(app) == []  # what the real controller writes fits the schema we test with
    assert app["status"]["sync"]["revision"] == cluster.revision


def test_a_commit_argocd_never_runs_times_out(cluster: Cluster, application: str) -> None:
    never = "0" * 40
    done = wait(cluster, "--app", application, "--revision", never, "--timeout", "20s")
    assert "Traceback" not in done.stderr
    assert done.returncode == 1
    assert json.loads(done.stdout)["state"] == "timeout"
    assert "timed out" in done.stderr
