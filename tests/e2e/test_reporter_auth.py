"""The reporter's ``/stream`` and ``/reports`` against the real API server's TokenReview
and SubjectAccessReview: a ServiceAccount without the granted verb is refused, one with it
is admitted, a token the API server did not issue is not valid, and nothing is anonymous.

The reporter's HTTP side runs in-process on loopback, reviewing as a ServiceAccount of its
own bound to ``system:auth-delegator`` (as the chart binds it); the callers' tokens come
from the TokenRequest API and their rights from plain RBAC on ``promoflow.dev``'s virtual
``reporters/stream`` and ``reporters/reports``, as ``access.*`` values grant them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from kubernetes import client

from orchestrator.access import Access
from orchestrator.adapters.kubereviews import KubernetesReviews
from orchestrator.simulator.serve import ServerThread
from reporters.app import create_app
from reporters.stream import Stream
from tests.e2e.k8s import api_client, short_id, wait_until
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e

NUMBERS = {
    "received": 0, "emitted": 0, "coalesced": 0, "queue": 0, "watch_restarts": 0,
    "watch_relists": 0, "watch_errors": 0, "sinks": {}, "dead": {}, "held": 0,
    "enrichment_failures": 0, "notification_problems": 0,
}  # fmt: skip


@dataclass
class Cluster:
    namespace: str
    tokens: dict[str, str]
    reviewer: client.ApiClient


def _token(core: client.CoreV1Api, namespace: str, account: str) -> str:
    request = {"spec": {"expirationSeconds": 600}}
    return str(
        core.create_namespaced_service_account_token(account, namespace, request).status.token
    )


def _as(base: client.ApiClient, token: str) -> client.ApiClient:
    """A client of the same API server that authenticates with ``token`` only."""
    configuration = client.Configuration()
    configuration.host = base.configuration.host
    configuration.ssl_ca_cert = base.configuration.ssl_ca_cert
    configuration.verify_ssl = base.configuration.verify_ssl
    configuration.api_key = {"authorization": token}
    configuration.api_key_prefix = {"authorization": "Bearer"}
    return client.ApiClient(configuration)


@pytest.fixture
def cluster(e2e: E2ESettings) -> Iterator[Cluster]:
    base = api_client(e2e)
    core, rbac = client.CoreV1Api(base), client.RbacAuthorizationV1Api(base)
    ns = f"pfe2e-auth-{short_id()}"
    core.create_namespace({"metadata": {"name": ns, "labels": {"promoflow.dev/e2e": "true"}}})
    delegator = f"{ns}-reporter-auth-delegator"
    try:
        for account in ("reporter", "reader", "outsider"):
            core.create_namespaced_service_account(ns, {"metadata": {"name": account}})
        rbac.create_cluster_role_binding({
            "metadata": {"name": delegator, "labels": {"promoflow.dev/e2e": "true"}},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": "system:auth-delegator"},
            "subjects": [{"kind": "ServiceAccount", "name": "reporter", "namespace": ns}],
        })  # fmt: skip
        rbac.create_namespaced_role(ns, {
            "metadata": {"name": "stream-reader"},
            "rules": [
                {"apiGroups": ["promoflow.dev"], "resources": ["reporters/stream"],
                 "verbs": ["get"]},
                {"apiGroups": ["promoflow.dev"], "resources": ["reporters/reports"],
                 "verbs": ["create"]},
            ],
        })  # fmt: skip
        rbac.create_namespaced_role_binding(ns, {
            "metadata": {"name": "stream-reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                        "name": "stream-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns}],
        })  # fmt: skip
        tokens = {a: _token(core, ns, a) for a in ("reporter", "reader", "outsider")}
        yield Cluster(ns, tokens, _as(base, tokens["reporter"]))
    finally:
        try:
            rbac.delete_cluster_role_binding(delegator)
        except client.ApiException as exc:
            if exc.status != 404:
                raise
        core.delete_namespace(ns)


@pytest.fixture
def reporter(cluster: Cluster) -> Iterator[tuple[str, Access]]:
    def accept(document: Any) -> tuple[int, dict[str, Any]]:
        return 202, {"id": "accepted"}

    access = Access("", KubernetesReviews(cluster.reviewer), cluster.namespace, "promoflow")
    app = create_app(Stream(size=10), lambda: NUMBERS, lambda: {"shard": 0}, accept, access)
    with ServerThread(app) as server:
        yield server.url, access


def _stream_status(url: str, token: str | None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    with httpx.stream("GET", f"{url}/stream", headers=headers, timeout=30) as response:
        if response.status_code == 200:
            return 200, response.headers["content-type"]
        response.read()
        return response.status_code, response.json()["error"]


def _report(url: str, token: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.post(f"{url}/reports", headers=headers, json={}, timeout=30)


def test_stream_and_reports_admit_only_a_service_account_granted_the_verb(
    cluster: Cluster, reporter: tuple[str, Access]
) -> None:
    url, access = reporter
    ns = cluster.namespace
    outsider = f"system:serviceaccount:{ns}:outsider"

    status, said = _stream_status(url, cluster.tokens["outsider"])
    assert (status, said) == (
        403, f"{outsider} may not get reporters/stream (promoflow.dev) in namespace {ns}"
    )  # fmt: skip
    refused = _report(url, cluster.tokens["outsider"])
    assert refused.status_code == 403 and outsider in refused.json()["error"]

    # the RoleBinding may take a moment to reach the authorizer's cache
    def admitted() -> str | None:
        status, said = _stream_status(url, cluster.tokens["reader"])
        return said if status == 200 else None

    kind = wait_until("the reader admitted to /stream", admitted, timeout=30)
    assert kind.startswith("text/event-stream")
    assert _report(url, cluster.tokens["reader"]).status_code == 202

    for token in (None, cluster.tokens["reader"][:-4] + "AAAA", "not-a-jwt"):
        assert _stream_status(url, token)[0] == 401
        assert _report(url, token).status_code == 401
    assert httpx.get(f"{url}/healthz", timeout=30).json() == {"status": "ok"}
    asked = access.reviewed
    assert _stream_status(url, cluster.tokens["reader"])[0] == 200
    assert access.reviewed == asked  # remembered: a reconnect costs no review
