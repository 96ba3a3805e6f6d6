"""Every route of the reporter but the probe needs the shared token or a Kubernetes
identity granted its verb, over real HTTP, with the API server's reviews answered by a
fake in the API's shapes through the real ``kubernetes`` client; the webhook service's
``/metrics`` alike."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest
from kubernetes import client

from orchestrator.access import Access
from orchestrator.adapters.kubereviews import KubernetesReviews
from orchestrator.simulator.serve import ServerThread
from reporters.app import create_app
from reporters.events.transitions import Change
from reporters.pipeline import Event
from reporters.stream import Stream
from tests.fakes.reviews import FakeReviews, Grant

NAMESPACE = "promoflow"
SHARED = "shared-reporter-token"
NUMBERS = {
    "received": 0, "emitted": 0, "coalesced": 0, "queue": 0, "watch_restarts": 0,
    "watch_relists": 0, "watch_errors": 0, "sinks": {}, "dead": {}, "held": 0,
    "enrichment_failures": 0, "notification_problems": 0,
}  # fmt: skip
ROUTES = [("GET", "/stream"), ("GET", "/shards"), ("GET", "/metrics"), ("POST", "/reports")]


@pytest.fixture
def api() -> Iterator[FakeReviews]:
    with FakeReviews() as fake:
        yield fake


def _access(api: FakeReviews) -> Access:
    configuration = client.Configuration()
    configuration.host = api.url
    configuration.api_key = {"authorization": api.reviewer_token}
    configuration.api_key_prefix = {"authorization": "Bearer"}
    reviews = KubernetesReviews(client.ApiClient(configuration))
    return Access(SHARED, reviews, NAMESPACE)


def _accept(document: object) -> tuple[int, dict[str, str]]:
    return 202, {"id": "accepted"}


@pytest.fixture
def reporter(api: FakeReviews) -> Iterator[tuple[str, Stream]]:
    stream = Stream(size=10)
    app = create_app(stream, lambda: NUMBERS, lambda: {"shard": 0}, _accept, _access(api))
    with ServerThread(app) as server:
        yield server.url, stream


def _first_event(url: str, headers: dict[str, str], stream: Stream) -> tuple[int, str]:
    with httpx.stream("GET", f"{url}/stream", headers=headers, timeout=10) as response:
        if response.status_code != 200:
            response.read()
            return response.status_code, response.json()["error"]
        change = Change("app.deployed", "argocd/shop-dev", "a" * 40, "2026-11-26T10:00:00Z")
        done = threading.Event()

        def publish() -> None:  # until read: the server may start following after a publish
            while not done.wait(0.1):
                stream.publish([Event("event-1", change)])

        threading.Thread(target=publish, daemon=True).start()
        try:
            for line in response.iter_lines():
                if line.startswith("id:"):
                    return 200, line[3:].strip()
        finally:
            done.set()
    raise AssertionError("the stream ended")


def test_without_credentials_every_route_but_the_probe_is_401(
    reporter: tuple[str, Stream],
) -> None:
    url, _ = reporter
    for method, path in ROUTES:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic eDp5"}):
            answer = httpx.request(method, url + path, headers=headers, content=b"{}")
            assert answer.status_code == 401, (path, headers)
            assert answer.headers["www-authenticate"] == 'Bearer realm="promoflow"'
            assert answer.json()["error"]
    assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}


def test_the_shared_token_opens_every_route(reporter: tuple[str, Stream]) -> None:
    url, stream = reporter
    auth = {"Authorization": f"Bearer {SHARED}"}
    assert _first_event(url, auth, stream) == (200, "event-1")
    assert httpx.get(f"{url}/shards", headers=auth).json() == {"shard": 0}
    assert "promoflow_reporter_emitted_total" in httpx.get(f"{url}/metrics", headers=auth).text
    assert httpx.post(f"{url}/reports", headers=auth, json={}).status_code == 202


def test_a_service_account_reads_and_reports_only_as_granted(
    api: FakeReviews, reporter: tuple[str, Stream]
) -> None:
    url, stream = reporter
    viewer = api.service_account("token-of-viewer", "dashboards", "viewer")
    api.grants.add(Grant(viewer, "get", "reporters", "stream", NAMESPACE))
    workflow = api.service_account("token-of-workflow", "argo", "promoflow-workflows")
    api.grants.add(Grant(workflow, "create", "reporters", "reports", NAMESPACE))
    as_viewer = {"Authorization": "Bearer token-of-viewer"}
    as_workflow = {"Authorization": "Bearer token-of-workflow"}

    assert _first_event(url, as_viewer, stream) == (200, "event-1")
    assert _first_event(url, as_workflow, stream) == (
        403,
        f"{workflow} may not get reporters/stream (promoflow.dev) in namespace {NAMESPACE}",
    )
    refused = httpx.post(f"{url}/reports", headers=as_viewer, json={})
    assert refused.status_code == 403 and viewer in refused.json()["error"]
    assert httpx.post(f"{url}/reports", headers=as_workflow, json={}).status_code == 202
    assert httpx.get(f"{url}/shards", headers=as_viewer).status_code == 403
    assert httpx.get(f"{url}/metrics", headers=as_viewer).status_code == 403


def test_an_api_server_that_cannot_answer_is_503_with_retry_after(
    api: FakeReviews, reporter: tuple[str, Stream]
) -> None:
    url, _ = reporter
    api.service_account("token-of-viewer", "dashboards", "viewer")
    api.fail_next += [503]
    answer = httpx.get(f"{url}/shards", headers={"Authorization": "Bearer token-of-viewer"})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
    assert "token-of-viewer" not in answer.text
