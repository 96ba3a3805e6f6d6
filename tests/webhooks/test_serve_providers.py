"""Each provider's documented sample over real HTTP, and supersede against the fake Argo
Server's shapes (a waiting approval failed with the reason, then the run stopped)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from orchestrator.adapters.gitreads import GitReads
from orchestrator.loading import load_config
from orchestrator.simulator.serve import ServerThread, free_port
from orchestrator.webhooks.app import create_app
from tests.webhooks import samples
from tests.webhooks.harness import (
    NAMESPACE,
    SECRET,
    Harness,
    github_push,
    harness,
    make_service,
    signed,
    values,
)

CASES = [
    ("github", "github/push-new-branch", {"X-GitHub-Event": "push"}, 200),
    ("ghcr", "ghcr/package-published-container", {"X-GitHub-Event": "package"}, 200),
    ("gitlab", "gitlab/push", {"X-Gitlab-Event": "Push Hook"}, 200),
    ("gitlab", "gitlab/system-push", {"X-Gitlab-Event": "System Hook"}, 200),
    ("bitbucket", "bitbucket/repo-push", {"X-Event-Key": "repo:push"}, 200),
    ("gitea", "gitea/push", {"X-Gitea-Event": "push"}, 200),
    ("azure", "azure/git-push", {}, 200),
    ("dockerhub", "dockerhub/push", {}, 200),
    ("harbor", "harbor/push-artifact", {}, 200),
    ("quay", "quay/repository-push", {}, 200),
    ("artifactory", "artifactory/docker-pushed", {}, 200),
    ("generic", "generic/promote", {}, 422),
]


@pytest.mark.parametrize(("provider", "name", "events", "status"), CASES, ids=[c[0] for c in CASES])
def test_documented_samples_over_http(
    tmp_path: Path, provider: str, name: str, events: dict[str, str], status: int
) -> None:
    """Verified and parsed over HTTP: the samples name other repositories and images,
    so they promote nothing here (200, saying why, before any Git read); the generic
    sample lacks the version field this configuration requires (422)."""
    body = samples.sample(name)
    headers, token = samples.credentials(provider, body, SECRET)
    path = f"/webhooks/{provider}" + (f"/{token}" if token else "")
    with harness(tmp_path) as h:
        reply = h.post(path, body, {"Content-Type": "application/json", **events, **headers})
        wrong_headers, wrong_token = samples.credentials(provider, body, "not-the-secret")
        wrong_path = f"/webhooks/{provider}" + (f"/{wrong_token}" if wrong_token else "")
        wrong = h.post(
            wrong_path, body, {"Content-Type": "application/json", **events, **wrong_headers}
        )
        created = h.created()
    assert reply.status_code == status, reply.text
    assert reply.json()["message"] and "\n" not in reply.json()["message"]
    if status == 200:
        assert reply.json()["promotions"] == []
    assert wrong.status_code == 401
    assert created == []


def _older_run_waiting(h: Harness, name: str) -> None:
    h.argo.store.put(
        "Workflow",
        NAMESPACE,
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Workflow",
            "metadata": {"name": name, "labels": {"promoflow.dev/product": "shop"}},
            "spec": {"workflowTemplateRef": {"name": "promoflow-shop"}},
            "status": {
                "phase": "Running",
                "nodes": {
                    f"{name}-1": {
                        "id": f"{name}-1", "name": f"{name}.approve-prod",
                        "displayName": "approve-prod", "type": "Suspend", "phase": "Running",
                    },
                    f"{name}-2": {
                        "id": f"{name}-2", "name": f"{name}.deploy-dev",
                        "displayName": "deploy-dev", "type": "Pod", "phase": "Succeeded",
                    },
                },
            },
        },
    )  # fmt: skip


@pytest.mark.parametrize("concurrency", ["queue", "supersede"])
def test_a_newer_version_and_an_older_run_waiting_at_an_approval(
    tmp_path: Path, concurrency: str
) -> None:
    with harness(tmp_path, f"triggers: {{concurrency: {concurrency}}}\n") as h:
        older = "shop-1-4-0-0a1b2c3d"
        _older_run_waiting(h, older)
        path = "envs/dev/shop/values.yaml"
        before, after = h.push({path: values("1.5.0")})
        body = github_push(h.repo_url, before, after, [(after, "Release 1.5.0", [path])])
        reply = h.post("/webhooks/github", body, signed(body))
        stored = h.argo.store.get("Workflow", NAMESPACE, older)
    assert reply.status_code == 202, reply.text
    [promotion] = reply.json()["promotions"]
    approval = stored["status"]["nodes"][f"{older}-1"]
    if concurrency == "queue":
        assert "superseded" not in promotion
        assert stored["status"]["phase"] == "Running" and approval["phase"] == "Running"
        return
    assert promotion["superseded"] == [older]
    assert approval["phase"] == "Failed"
    assert approval["message"] == f"superseded by {promotion['run']} (version 1.5.0)"
    assert stored["spec"]["shutdown"] == "Stop" and stored["status"]["phase"] == "Failed"


def test_a_git_server_that_cannot_be_reached_is_503_to_retry(tmp_path: Path) -> None:
    """A push whose paths must be read in Git (a forced push lists no reliable paths)
    while the Git server is down: 503 with Retry-After, nothing submitted."""
    dead = f"http://127.0.0.1:{free_port()}/gitops.git"
    with harness(tmp_path) as h:
        config = tmp_path / "config" / "promoflow.yaml"
        config.write_text(config.read_text().replace(h.repo_url, dead))

        loaded = load_config(config)[0]
        service = make_service(loaded, h.argo.url, GitReads(tmp_path / "dead-cache"))
        body = github_push(dead, "1" * 40, "2" * 40, [], forced=True)
        with ServerThread(create_app(service), lifespan=True) as server:
            reply = httpx.post(f"{server.url}/webhooks/github", content=body, headers=signed(body))
        created = h.created()
    assert reply.status_code == 503, reply.text
    assert reply.headers["Retry-After"] == "30"
    assert "cannot read the pushed commits" in reply.json()["message"]
    assert created == []
