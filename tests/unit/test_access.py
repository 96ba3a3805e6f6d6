"""The guard of the HTTP endpoints that are not probes, against a fake API server that
answers TokenReview and SubjectAccessReview in the API's shapes, through the real
``kubernetes`` client: the shared token, ServiceAccounts granted the verb or not, tokens
the API server does not know, an API server that refuses the reviewer or fails, and the
cache that keeps ``/stream`` reconnects cheap."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client

from orchestrator.access import (
    ADMITTED_TTL,
    MAX_TOKEN,
    REFUSED_TTL,
    REPORTS,
    SHARDS,
    STREAM,
    WEBHOOK_METRICS,
    Access,
)
from orchestrator.adapters.kubereviews import KubernetesReviews
from tests.fakes.reviews import FakeReviews, Grant

NAMESPACE = "promoflow"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def api() -> Iterator[FakeReviews]:
    with FakeReviews() as fake:
        yield fake


def _reviews(api: FakeReviews, token: str = "reviewer") -> KubernetesReviews:
    configuration = client.Configuration()
    configuration.host = api.url
    configuration.api_key = {"authorization": token}
    configuration.api_key_prefix = {"authorization": "Bearer"}
    return KubernetesReviews(client.ApiClient(configuration), timeout=5)


def _access(api: FakeReviews, clock: Clock | None = None, token: str = "") -> Access:
    return Access(token, _reviews(api), NAMESPACE, "promoflow-reporters", clock=clock or Clock())


def test_nothing_configured_admits_nobody() -> None:
    access = Access()
    for header in ("", "Bearer anything", "Basic dXNlcjpwYXNz"):
        decision = access.check(header, STREAM)
        assert decision.status == 401
        assert decision.headers() == {"WWW-Authenticate": 'Bearer realm="promoflow"'}


def test_the_shared_token_opens_every_route_and_a_wrong_one_none() -> None:
    access = Access("s3cret-shared-token")
    for need in (STREAM, SHARDS, REPORTS, WEBHOOK_METRICS):
        assert access.check("Bearer s3cret-shared-token", need).admitted
        assert access.check("bearer s3cret-shared-token", need).admitted  # the scheme's case
        assert access.check("Bearer s3cret-shared-tokeN", need).status == 401
        assert access.check("s3cret-shared-token", need).status == 401  # no scheme
    assert "Bearer TOKEN" in access.check("", STREAM).reason


def test_a_service_account_granted_the_verb_is_admitted_and_reviewed_in_api_shapes(
    api: FakeReviews,
) -> None:
    user = api.service_account("sa-token-reader", "dashboards", "viewer")
    api.grants.add(Grant(user, "get", "reporters", "stream", NAMESPACE))
    access = _access(api)
    decision = access.check("Bearer sa-token-reader", STREAM)
    assert decision.admitted and decision.who == user
    token_review, access_review = api.requests
    assert token_review["kind"] == "TokenReview"
    assert token_review["apiVersion"] == "authentication.k8s.io/v1"
    assert token_review["spec"] == {"token": "sa-token-reader"}
    assert access_review["kind"] == "SubjectAccessReview"
    spec = access_review["spec"]
    assert spec["user"] == user and spec["uid"] == "uid-dashboards-viewer"
    assert "system:serviceaccounts:dashboards" in spec["groups"]
    assert spec["extra"] == {"authentication.kubernetes.io/pod-name": ["viewer-0"]}
    assert spec["resourceAttributes"] == {
        "group": "promoflow.dev", "verb": "get", "resource": "reporters",
        "subresource": "stream", "namespace": NAMESPACE, "name": "promoflow-reporters",
    }  # fmt: skip


def test_a_service_account_without_the_verb_is_refused_with_403_naming_it(
    api: FakeReviews,
) -> None:
    user = api.service_account("sa-token-reader", "dashboards", "viewer")
    api.grants.add(Grant(user, "get", "reporters", "stream", NAMESPACE))
    access = _access(api)
    decision = access.check("Bearer sa-token-reader", REPORTS)  # may read, not report
    assert decision.status == 403
    assert decision.reason == (
        f"{user} may not create reporters/reports (promoflow.dev) in namespace {NAMESPACE}"
    )
    other = api.service_account("sa-token-other", "default", "default")
    assert access.check("Bearer sa-token-other", STREAM).status == 403
    granted_elsewhere = Grant(other, "get", "reporters", "stream", "elsewhere")
    api.grants.add(granted_elsewhere)
    assert _access(api).check("Bearer sa-token-other", STREAM).status == 403


def test_a_token_the_api_server_does_not_know_is_401_and_never_asked_about_access(
    api: FakeReviews,
) -> None:
    decision = _access(api).check("Bearer eyJhbGciOiJSUzI1NiJ9.forged.sig", STREAM)
    assert decision.status == 401 and decision.reason == "the token is not valid"
    assert [r["kind"] for r in api.requests] == ["TokenReview"]


def test_when_the_api_server_cannot_answer_the_request_is_503_and_not_remembered(
    api: FakeReviews,
) -> None:
    user = api.service_account("sa-token-reader", "dashboards", "viewer")
    api.grants.add(Grant(user, "get", "reporters", "stream", NAMESPACE))
    refused_reviewer = Access("", _reviews(api, token="not-the-reviewer"), NAMESPACE)
    decision = refused_reviewer.check("Bearer sa-token-reader", STREAM)
    assert decision.status == 503 and decision.reason.endswith("the API server answered 401")
    assert decision.headers() == {"Retry-After": "5"}
    assert "sa-token-reader" not in decision.reason
    access = _access(api)
    api.fail_next.append(500)
    assert access.check("Bearer sa-token-reader", STREAM).status == 503
    assert access.check("Bearer sa-token-reader", STREAM).admitted  # asked again


def test_admitted_tokens_are_remembered_briefly_per_route(api: FakeReviews) -> None:
    user = api.service_account("sa-token-reader", "dashboards", "viewer")
    api.grants.add(Grant(user, "get", "reporters", "stream", NAMESPACE))
    clock = Clock()
    access = _access(api, clock)
    assert access.check("Bearer sa-token-reader", STREAM).admitted
    assert access.cached("Bearer sa-token-reader", STREAM) is not None
    assert access.cached("Bearer sa-token-reader", SHARDS) is None  # another verb: asked
    asked = len(api.requests)
    clock.now += ADMITTED_TTL - 1
    assert access.check("Bearer sa-token-reader", STREAM).admitted
    assert len(api.requests) == asked
    api.grants.clear()  # the RoleBinding is deleted: refused once the entry expires
    clock.now += 2
    assert access.check("Bearer sa-token-reader", STREAM).status == 403
    assert access.reviewed == 2


def test_refusals_are_remembered_for_less_time(api: FakeReviews) -> None:
    user = api.service_account("sa-token-reader", "dashboards", "viewer")
    clock = Clock()
    access = _access(api, clock)
    assert access.check("Bearer sa-token-reader", STREAM).status == 403
    api.grants.add(Grant(user, "get", "reporters", "stream", NAMESPACE))
    assert access.check("Bearer sa-token-reader", STREAM).status == 403  # remembered
    clock.now += REFUSED_TTL + 0.1
    assert access.check("Bearer sa-token-reader", STREAM).admitted


def test_malformed_headers_are_401_without_asking_the_api_server(api: FakeReviews) -> None:
    access = _access(api)
    for header in (
        "Bearer", "Bearer ", "Token abc", "Bearer a b", "Bearer " + "x" * (MAX_TOKEN + 1),
        "Bearer tök", "Bearer a\x00b",
    ):  # fmt: skip
        assert access.check(header, STREAM).status == 401, header
    assert api.requests == []


def test_the_shared_token_and_identities_work_side_by_side(api: FakeReviews) -> None:
    user = api.service_account("sa-token-prom", "monitoring", "prometheus")
    api.grants.add(Grant(user, "get", "webhooks", "metrics", NAMESPACE))
    access = _access(api, token="shared-token-value")
    assert access.check("Bearer shared-token-value", WEBHOOK_METRICS).admitted
    assert access.check("Bearer sa-token-prom", WEBHOOK_METRICS).admitted
    assert access.check("Bearer sa-token-prom", STREAM).status == 403
