"""``promoflow serve`` against the real Argo Server and workflow-controller.

What tests/webhooks checks against the fake Argo Server is checked here against Argo
itself: a signed push to the GitOps repository starts the product's promotion; the same
push delivered to a second replica meets Argo's own ``409 AlreadyExists`` and answers
with the existing run; and when a newer version arrives while the older run waits at its
production approval, ``queue`` keeps the newer run waiting on the product's mutex (the
controller's synchronization of the WorkflowTemplate) while ``supersede`` fails the older
approval with the newer run's name and stops the older run. The flow is made of suspend
nodes only (no promote step), so no container has to run.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import yaml

from orchestrator.adapters.argoasync import AsyncArgo
from orchestrator.adapters.git import Credentials
from orchestrator.adapters.gitreads import GitReads
from orchestrator.loading import load_config
from orchestrator.settings import ArgoSettings, StepSettings
from orchestrator.simulator.serve import ServerThread
from orchestrator.webhooks.app import create_app
from orchestrator.webhooks.argo_backend import ArgoBackend
from orchestrator.webhooks.secrets import Secrets, variable
from orchestrator.webhooks.service import Service
from orchestrator.webhooks.submit import Submissions
from tests.e2e.flows import Flow, argo_client, nodes, wait_for_end, wait_for_node
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import wait_until
from tests.e2e.runs import SUSPEND_ONLY
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e

SECRET = "e2e-webhook-secret"


def _with_triggers(flow: Flow, concurrency: str) -> None:
    path = flow.directory / "promoflow.yaml"
    documents = list(yaml.safe_load_all(path.read_text()))
    for document in documents:
        if document["kind"] == "Product":
            document["spec"]["triggers"] = {"concurrency": concurrency}
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))


@contextmanager
def _replica(e2e: E2ESettings, flow: Flow, cache: Path) -> Iterator[str]:
    """One ``promoflow serve`` (its app on uvicorn), compiling as ``flow``'s settings say."""
    config, _ = load_config(flow.directory)
    secure = e2e.argo_secure.lower() not in ("false", "0", "no")
    argo = AsyncArgo(
        ArgoSettings(
            server=e2e.argo_server,
            token=e2e.argo_token,
            namespace=e2e.argo_namespace,
            secure=secure,
            insecure_skip_verify=secure,
        )
    )
    settings = StepSettings(template_prefix=flow.prefix, service_account="promoflow-e2e-workflow")
    reads = GitReads(cache, Credentials("git", e2e.git_token))
    service = Service(
        config=config,
        submissions=Submissions(config, settings, ArgoBackend(argo)),
        secrets=Secrets(["github"], {variable("github"): SECRET}),
        reader=reads,
    )
    try:
        with ServerThread(create_app(service), lifespan=True) as server:
            yield server.url
    finally:
        reads.close()


def _push(repo: GitopsRepo, flow: Flow, version: str, before: str) -> tuple[bytes, str]:
    """A CI commit writing ``version`` into dev, and GitHub's push payload for it."""
    path = f"{flow.path('dev')}/configmap.yaml"
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "v"},
        "data": {"version": version},
    }
    after = repo.commit({path: yaml.safe_dump(configmap)}, f"Release {version}")
    payload = {
        "ref": f"refs/heads/{repo.branch}",
        "before": before,
        "after": after,
        "repository": {"clone_url": repo.url},
        "pusher": {"name": "ci"},
        "commits": [{"id": after, "message": f"Release {version}", "modified": [path]}],
    }
    return json.dumps(payload).encode(), after


def _deliver(url: str, body: bytes, delivery: str | None = None) -> httpx.Response:
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": "sha256="
        + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest(),
    }
    return httpx.post(f"{url}/webhooks/github", content=body, headers=headers, timeout=60)


@pytest.mark.parametrize("concurrency", ["queue", "supersede"])
def test_pushes_start_promotions_once_and_newer_versions_queue_or_supersede(
    e2e: E2ESettings,
    flows: Callable[..., Flow],
    new_repo: Callable[[], GitopsRepo],
    tmp_path: Path,
    concurrency: str,
) -> None:
    repo = new_repo()
    seed = repo.commit({"README.md": "gitops\n"}, "seed")
    flow = flows(SUSPEND_ONLY, repo)
    _with_triggers(flow, concurrency)
    applied = flow.promoflow("apply", "-c", str(flow.directory))
    assert applied.code == 0, applied
    client = argo_client(e2e)

    with (
        _replica(e2e, flow, tmp_path / "cache-a") as first,
        _replica(e2e, flow, tmp_path / "cache-b") as second,
    ):
        body, head = _push(repo, flow, "1.0.0", seed)
        started = _deliver(first, body)
        again = _deliver(second, body)  # another replica, another hook: Argo's 409
        assert started.status_code == 202, started.text
        assert again.status_code == 202, again.text
        [run] = started.json()["promotions"]
        assert run["status"] == "submitted" and run["version"] == "1.0.0"
        assert again.json()["promotions"][0] == {**run, "status": "already submitted"}
        older = run["run"]
        wait_for_node(client, older, "approve-prod", ("Running",), timeout=120)

        newer_body, _ = _push(repo, flow, "1.1.0", head)
        newer_reply = _deliver(first, newer_body)
        assert newer_reply.status_code == 202, newer_reply.text
        [newer] = newer_reply.json()["promotions"]

    if concurrency == "queue":

        def waiting() -> dict[str, object] | None:
            wf = client.get_workflow(newer["run"])
            status = wf.get("status") or {}
            held = (status.get("synchronization") or {}).get("mutex") or {}
            return wf if status.get("phase") == "Pending" and held.get("waiting") else None

        held = wait_until(f"{newer['run']} waits on the product mutex", waiting, 60)
        assert "promoflow-product-" in json.dumps(held["status"]["synchronization"])
        assert nodes(client.get_workflow(older))["approve-prod"]["phase"] == "Running"
        return

    assert newer["superseded"] == [older]
    ended = wait_for_end(client, older, timeout=120)
    approval = nodes(ended)["approve-prod"]
    assert approval["phase"] == "Failed"
    assert approval["message"] == f"superseded by {newer['run']} (version 1.1.0)"
    assert ended["spec"].get("shutdown") == "Stop"
    wait_for_node(client, newer["run"], "approve-prod", ("Running",), timeout=120)
