"""``promoflow serve`` over real HTTP: a Git server with git's defaults, a fake Argo Server
that answers as Argo does, and deliveries signed as the senders sign them."""

from __future__ import annotations

import concurrent.futures
import json
import logging
from pathlib import Path

import httpx
import pytest

from orchestrator.simulator.serve import ServerThread, free_port
from orchestrator.webhooks.app import create_app
from tests.fakes.argo_server import FakeArgoServer
from tests.webhooks.harness import (
    METRICS_TOKEN,
    NAMESPACE,
    SECRET,
    Harness,
    github_push,
    harness,
    install_templates,
    make_service,
    signed,
    values,
)

DIGEST = "sha256:" + "b" * 64
GITHUB_VECTOR_SECRET = "It's a Secret to Everybody"
GITHUB_VECTOR_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


@pytest.fixture
def hub(tmp_path: Path):
    with harness(tmp_path) as h:
        yield h


METRICS_AUTH = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def _release(h: Harness, product: str = "shop", tag: str = "1.5.0") -> tuple[bytes, str]:
    path = f"envs/dev/{product}/values.yaml"
    before, after = h.push({path: values(tag, DIGEST)}, f"Release {product} {tag}")
    body = github_push(h.repo_url, before, after, [(after, f"Release {tag}", [path])])
    return body, after


def _parameters(workflow: dict) -> dict[str, str]:
    return {p["name"]: p.get("value", "") for p in workflow["spec"]["arguments"]["parameters"]}


def test_github_test_vector_verifies_over_http(tmp_path: Path) -> None:
    """GitHub's published vector passes verification; the body, not JSON, is then a 400
    (a wrong secret would be a 401)."""
    with harness(tmp_path) as h:
        h.service.secrets._values["github"] = GITHUB_VECTOR_SECRET
        headers = {"X-GitHub-Event": "ping", "X-Hub-Signature-256": GITHUB_VECTOR_SIGNATURE}
        good = h.post("/webhooks/github", b"Hello, World!", headers)
        bad = h.post("/webhooks/github", b"Hello, World?", headers)
    assert good.status_code == 400 and "not valid JSON" in good.json()["message"]
    assert bad.status_code == 401


def test_a_push_that_changes_the_trigger_environment_submits_one_promotion(hub: Harness) -> None:
    body, after = _release(hub)
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 202, reply.text
    [promotion] = reply.json()["promotions"]
    assert promotion["product"] == "shop" and promotion["version"] == "1.5.0"
    assert promotion["status"] == "submitted"
    assert promotion["url"].endswith(f"/workflows/{NAMESPACE}/{promotion['run']}")
    [workflow] = hub.created()
    assert workflow["metadata"]["name"] == promotion["run"]
    params = _parameters(workflow)
    assert params["version"] == "1.5.0"
    assert params["source-commit"] == after
    assert params["requested-by"] == "alice"
    assert json.loads(params["version-fields"]) == {"image.digest": DIGEST}
    assert workflow["spec"]["workflowTemplateRef"] == {"name": "promoflow-shop"}


def test_the_same_delivery_five_times_submits_once(hub: Harness) -> None:
    body, _ = _release(hub)
    headers = signed(body, delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958")
    replies = [hub.post("/webhooks/github", body, headers) for _ in range(5)]
    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        replies += list(pool.map(lambda _: hub.post("/webhooks/github", body, headers), range(5)))
    assert [r.status_code for r in replies] == [202] * 10
    runs = {r.json()["promotions"][0]["run"] for r in replies}
    assert len(runs) == 1
    assert [r.json()["promotions"][0]["status"] for r in replies[1:]] == ["already submitted"] * 9
    assert len(hub.created()) == 1 and hub.creates() == 1


class _Untouchable:
    """Stands in for the submissions: any use of them fails the test."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the submissions were asked for {name}")


def test_a_push_found_submitted_is_answered_from_memory_after(hub: Harness) -> None:
    """Once a delivery found every run of a push submitted, later deliveries of the push
    get that answer without asking for the runs again, and are still counted."""
    body, _ = _release(hub)
    first, second = (hub.post("/webhooks/github", body, signed(body)) for _ in range(2))
    submissions, hub.service.submissions = hub.service.submissions, _Untouchable()  # type: ignore[assignment]
    try:
        later = [hub.post("/webhooks/github", body, signed(body)) for _ in range(3)]
    finally:
        hub.service.submissions = submissions  # closed with the service
    assert first.json()["promotions"][0]["status"] == "submitted"
    assert [r.status_code for r in later] == [202] * 3
    assert all(r.content == second.content for r in later)
    assert second.json()["promotions"][0]["status"] == "already submitted"
    duplicates = hub.service.metrics.duplicates.labels("shop")._value.get()  # type: ignore[attr-defined]
    assert duplicates == 4


def test_concurrent_duplicates_on_a_fresh_replica_submit_once(hub: Harness) -> None:
    body, _ = _release(hub)
    headers = signed(body)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: hub.post("/webhooks/github", body, headers), range(8)))
    assert {r.status_code for r in replies} == {202}
    assert sorted(r.json()["promotions"][0]["status"] for r in replies).count("submitted") == 1
    assert hub.creates() == 1


def test_a_second_replica_finds_the_run_through_argos_409(hub: Harness, tmp_path: Path) -> None:
    body, _ = _release(hub)
    headers = signed(body)
    first = hub.post("/webhooks/github", body, headers)
    other = make_service(hub.config, hub.argo.url, hub.service.reader)  # type: ignore[arg-type]
    with ServerThread(create_app(other), lifespan=True) as replica:
        second = httpx.post(f"{replica.url}/webhooks/github", content=body, headers=headers)
    assert first.status_code == second.status_code == 202
    assert second.json()["promotions"][0]["status"] == "already submitted"
    assert second.json()["promotions"][0]["run"] == first.json()["promotions"][0]["run"]
    statuses = [s for m, p, s in hub.argo.requests if m == "POST" and p.endswith(NAMESPACE)]
    assert statuses == [200, 409]


@pytest.mark.parametrize(
    ("case", "status"),
    [
        ("bad signature", 401),
        ("missing signature", 401),
        ("invalid JSON", 400),
        ("unknown event", 400),
        ("10 MB body", 413),
        ("unknown provider", 404),
    ],
)
def test_refused_deliveries_submit_nothing(hub: Harness, case: str, status: int) -> None:
    body, _ = _release(hub)
    headers = signed(body)
    path = "/webhooks/github"
    if case == "bad signature":
        headers["X-Hub-Signature-256"] = "sha256=" + "0" * 64
    elif case == "missing signature":
        del headers["X-Hub-Signature-256"]
    elif case == "invalid JSON":
        body = b'{"ref": "refs/heads/main",'
        headers = signed(body)
    elif case == "unknown event":
        headers = signed(body, event="issues")
    elif case == "10 MB body":
        body = b"{" + b" " * (10 << 20) + b"}"
        headers = signed(body)
    elif case == "unknown provider":
        path = "/webhooks/githib"
    reply = hub.post(path, body, headers)
    assert reply.status_code == status, reply.text
    message = reply.json()["message"]
    assert message and "\n" not in message
    assert SECRET not in reply.text
    signature = headers.get("X-Hub-Signature-256")
    assert not signature or signature not in message
    assert hub.created() == []
    if case == "unknown provider":
        assert "did you mean 'github'" in message


def test_a_push_to_another_branch_promotes_nothing_and_says_why(hub: Harness) -> None:
    body, _ = _release(hub)
    data = json.loads(body)
    data["ref"] = "refs/heads/feature"
    body = json.dumps(data).encode()
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 200
    assert reply.json()["promotions"] == []
    assert "branch feature" in reply.json()["message"]
    assert hub.created() == []


def test_a_push_that_changes_another_environment_promotes_nothing(hub: Harness) -> None:
    path = "envs/staging/shop/values.yaml"
    before, after = hub.push({path: values("9.9.9")})
    body = github_push(hub.repo_url, before, after, [(after, "Tweak staging", [path])])
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 200
    assert {s["product"] for s in reply.json()["skipped"]} == {"cart", "shop", "web"}
    assert "does not change envs/dev/shop" in reply.json()["message"]
    assert hub.created() == []


def test_a_monorepo_push_touching_two_of_three_products_starts_two(hub: Harness) -> None:
    changes = {
        "envs/dev/shop/values.yaml": values("2.0.0"),
        "envs/dev/web/values.yaml": values("3.1.0"),
    }
    before, after = hub.push(changes)
    body = github_push(hub.repo_url, before, after, [(after, "Release", sorted(changes))])
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 202
    got = {(p["product"], p["version"]) for p in reply.json()["promotions"]}
    assert got == {("shop", "2.0.0"), ("web", "3.1.0")}
    assert sorted(_parameters(w)["product"] for w in hub.created()) == ["shop", "web"]


def test_a_truncated_payload_reads_the_changed_paths_in_git(hub: Harness) -> None:
    """GitHub lists at most 20 commits: the paths then come from before..after in Git."""
    repo_before = None
    for i in range(21):
        path = "envs/dev/cart/values.yaml" if i == 20 else f"docs/note-{i}.md"
        before, after = hub.push({path: values("4.0.0") if i == 20 else b"note\n"})
        repo_before = repo_before or before
    listed = [(f"{i:040x}", f"note {i}", [f"docs/note-{i}.md"]) for i in range(20)]
    assert repo_before is not None
    body = github_push(hub.repo_url, repo_before, after, listed)
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 202, reply.text
    assert [(p["product"], p["version"]) for p in reply.json()["promotions"]] == [("cart", "4.0.0")]


def test_promoflows_own_commit_does_not_start_another_promotion(hub: Harness) -> None:
    path = "envs/dev/shop/values.yaml"
    message = "Promote shop 1.6.0 to dev\n\nPromotion-Run: shop-1-6-0-0123abcd\n"
    before, after = hub.push({path: values("1.6.0")}, message)
    body = github_push(hub.repo_url, before, after, [(after, message, [path])])
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 200
    assert "promoflow's own promotion commit" in reply.json()["message"]
    assert hub.created() == []


def test_argo_server_down_is_503_and_the_senders_retry_succeeds(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        port = free_port()
        down = make_service(h.config, f"http://127.0.0.1:{port}", h.service.reader)  # type: ignore[arg-type]
        body, _ = _release(h)
        headers = signed(body)
        with ServerThread(create_app(down), lifespan=True) as svc:
            first = httpx.post(f"{svc.url}/webhooks/github", content=body, headers=headers)
            ready = httpx.get(f"{svc.url}/readyz")
            argo = FakeArgoServer()
            install_templates(argo, h.config)
            with ServerThread(argo.app(), port=port):
                down._ready = (0.0, "again")
                retried = httpx.post(f"{svc.url}/webhooks/github", content=body, headers=headers)
                ready_again = httpx.get(f"{svc.url}/readyz")
    assert first.status_code == 503 and first.headers["Retry-After"].isdigit()
    assert "cannot reach the Argo Server" in first.json()["message"]
    assert ready.status_code == 503
    assert retried.status_code == 202
    assert retried.json()["promotions"][0]["status"] == "submitted"
    assert ready_again.status_code == 200
    assert len(argo.store.list("Workflow", NAMESPACE)) == 1


def test_health_readiness_and_metrics(hub: Harness) -> None:
    body, _ = _release(hub)
    headers = signed(body)
    for _ in range(3):
        hub.post("/webhooks/github", body, headers)
    hub.post("/webhooks/github", body, {**headers, "X-Hub-Signature-256": "sha256=00"})
    assert httpx.get(f"{hub.url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{hub.url}/readyz").status_code == 200
    assert httpx.get(f"{hub.url}/metrics").status_code == 401  # never anonymous
    metrics = httpx.get(f"{hub.url}/metrics", headers=METRICS_AUTH).text
    assert 'promoflow_webhook_requests_total{outcome="submitted",provider="github"} 1.0' in metrics
    assert 'promoflow_webhook_requests_total{outcome="duplicate",provider="github"} 2.0' in metrics
    assert 'promoflow_webhook_requests_total{outcome="refused",provider="github"} 1.0' in metrics
    assert 'promoflow_webhook_submissions_total{product="shop"} 1.0' in metrics
    assert 'promoflow_webhook_duplicates_total{product="shop"} 2.0' in metrics
    assert 'promoflow_webhook_request_duration_seconds_count{provider="github"} 4.0' in metrics


def test_logs_carry_no_body_signature_or_secret(
    hub: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    body, _ = _release(hub)
    headers = signed(body)
    hub.post("/webhooks/github", body, headers)
    hub.post("/webhooks/github", body, {**headers, "X-Hub-Signature-256": "sha256=" + "1" * 64})
    token = "url-token-" + SECRET
    hub.service.secrets._values["dockerhub"] = token
    hub.post(f"/webhooks/dockerhub/{token}", b"{}", {"Content-Type": "application/json"})
    # the service's records (the test's own HTTP client logs the URLs it calls)
    text = "\n".join(
        r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))
    )
    assert "github 202 submitted" in text and "github 401 refused" in text
    for leaked in (SECRET, token, headers["X-Hub-Signature-256"], "1" * 64, "refs/heads"):
        assert leaked not in text


def test_url_token_senders_put_the_secret_in_the_path(hub: Harness) -> None:
    data = {
        "push_data": {"tag": "2.3.4", "pusher": "ci"},
        "repository": {"repo_name": "acme/shop"},
        "callback_url": "https://registry.hub.docker.com/u/acme/shop/hook/1/",
    }
    body = json.dumps(data).encode()
    json_type = {"Content-Type": "application/json"}
    without = hub.post("/webhooks/dockerhub", body, json_type)
    wrong = hub.post("/webhooks/dockerhub/nope", body, json_type)
    right = hub.post(f"/webhooks/dockerhub/{SECRET}", body, json_type)
    assert without.status_code == wrong.status_code == 401
    assert right.status_code == 200  # no product has an image trigger for it
    assert "no product has an image trigger for docker.io/acme/shop" in right.json()["message"]


def test_one_push_through_two_hooks_is_one_promotion(hub: Harness) -> None:
    """A repository hook and an organization hook deliver one push with two GUIDs (and a
    replayed body may carry a new, unsigned GUID): the pushed commit names the run."""
    body, _ = _release(hub)
    first = hub.post("/webhooks/github", body, signed(body, delivery="guid-repo-hook"))
    second = hub.post("/webhooks/github", body, signed(body, delivery="guid-org-hook"))
    assert [r.json()["promotions"][0]["status"] for r in (first, second)] == [
        "submitted",
        "already submitted",
    ]
    assert len(hub.created()) == 1


def test_a_json_request_sent_as_curl_sends_it_is_read_as_json(hub: Harness) -> None:
    """``curl -d '{...}'`` labels a JSON body form-encoded; a CI job's request still works,
    while a real form (GitHub's ``payload=``) is decoded as one."""
    body = b'{"product": "shop", "version": "1.6.0", "fields": {"image.digest": "sha256:ab"}}'
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    reply = hub.post("/webhooks/generic", body, {**form, "Authorization": f"Bearer {SECRET}"})
    assert reply.status_code == 202, reply.text
    assert reply.json()["promotions"][0]["version"] == "1.6.0"
    pinged = hub.post(
        "/webhooks/github", b"payload=%7B%7D", {**signed(b"payload=%7B%7D", "ping"), **form}
    )
    assert pinged.status_code == 200, pinged.text


def test_metrics_admit_a_service_account_granted_get_on_webhooks_metrics(hub: Harness) -> None:
    """The webhook service's /metrics, guarded as the reporter's routes are: a Kubernetes
    identity checked with TokenReview and SubjectAccessReview (a fake API server in the
    API's shapes, through the real client)."""
    from kubernetes import client

    from orchestrator.access import Access
    from orchestrator.adapters.kubereviews import KubernetesReviews
    from tests.fakes.reviews import FakeReviews, Grant

    with FakeReviews() as api:
        prometheus = api.service_account("prom-token", "monitoring", "prometheus")
        api.service_account("other-token", "default", "default")
        api.grants.add(Grant(prometheus, "get", "webhooks", "metrics", "promoflow"))
        configuration = client.Configuration()
        configuration.host = api.url
        configuration.api_key = {"authorization": api.reviewer_token}
        configuration.api_key_prefix = {"authorization": "Bearer"}
        reviews = KubernetesReviews(client.ApiClient(configuration))
        app = create_app(hub.service, Access("", reviews, "promoflow"))
        with ServerThread(app) as server:
            url = f"{server.url}/metrics"
            admitted = httpx.get(url, headers={"Authorization": "Bearer prom-token"})
            refused = httpx.get(url, headers={"Authorization": "Bearer other-token"})
            anonymous = httpx.get(url)
            probe = httpx.get(f"{server.url}/healthz")
    assert admitted.status_code == 200 and "promoflow_webhook_requests_total" in admitted.text
    assert refused.status_code == 403
    assert refused.json()["message"] == (
        "system:serviceaccount:default:default may not get webhooks/metrics (promoflow.dev) "
        "in namespace promoflow"
    )
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"]
    assert probe.status_code == 200
