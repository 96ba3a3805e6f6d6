"""promoflow installed with ``helm install`` on the real cluster, and a promotion through it.

The chart brings up the webhook service and the reporters (from the image built from the
Dockerfile), installs the step templates and, through its Job, the product's template.
Then a CI commit to dev and GitHub's signed push to the webhook service start the
promotion; it commits to staging, waits for Argo CD, and waits at prod's approval, given
through the Argo Server; prod is promoted and the exit handler reports to the reporters,
whose stream (read all along) showed each app change. Times are printed: install to
Ready, and delivery to staging's commit and to staging's app Healthy, with the share
spent in promoflow's own processes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from kubernetes import client

from tests.e2e.chartinstall import WEBHOOK_SECRET, Release, Stream, install, uninstall
from tests.e2e.flows import (
    Flow,
    argo_client,
    node_output,
    nodes,
    summary,
    wait_for_end,
    wait_for_node,
)
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps, api_client, short_id, wait_until
from tests.e2e.promotions import gitops_for, policies, runs_version
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e


@pytest.fixture
def release(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
    tmp_path: Path,
) -> Iterator[tuple[Release, Flow, GitopsRepo]]:
    if not e2e.step_image:
        pytest.fail("PROMOFLOW_STEP_IMAGE: the image the chart installs (make cluster builds it)")
    repo = new_repo()
    flow = flows(policies(e2e), repo)
    gitops_for(flow, repo, apps, e2e)
    installed = install(e2e, flow, f"pfinstall-{short_id()}", tmp_path)
    try:
        yield installed, flow, repo
    finally:
        uninstall(installed)


def _push(release: Release, repo: GitopsRepo, flow: Flow, version: str) -> tuple[str, float]:
    """A CI commit of ``version`` into dev and GitHub's signed push; the run and how long
    the webhook service took to answer."""
    before = repo.head()
    path = f"{flow.path('dev')}/configmap.yaml"
    current = yaml.safe_load(repo.show(before, path))
    current["data"]["version"] = version
    after = repo.commit({path: yaml.safe_dump(current)}, f"Release {version}")
    body = json.dumps({
        "ref": f"refs/heads/{repo.branch}", "before": before, "after": after,
        "repository": {"clone_url": repo.url}, "pusher": {"name": "ci"},
        "commits": [{"id": after, "message": f"Release {version}", "modified": [path]}],
    }).encode()  # fmt: skip
    signature = hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest()
    started = time.monotonic()
    answer = httpx.post(
        f"{release.webhooks}/webhooks/github",
        content=body,
        headers={
            "Content-Type": "application/json", "X-GitHub-Event": "push",
            "X-GitHub-Delivery": str(uuid.uuid4()), "X-Hub-Signature-256": f"sha256={signature}",
        },
        timeout=60,
    )  # fmt: skip
    took = time.monotonic() - started
    assert answer.status_code == 202, answer.text
    [run] = answer.json()["promotions"]
    assert run["status"] == "submitted" and run["version"] == version, run
    return run["run"], took


def _container_seconds(e2e: E2ESettings, workflow: dict[str, Any], task: str) -> float:
    """How long the step's own container (promoflow) ran, from its pod's status: the
    node's time without the pod's scheduling and start."""
    namespace = workflow["metadata"]["namespace"]
    core = client.CoreV1Api(api_client(e2e))
    selector = f"workflows.argoproj.io/workflow={workflow['metadata']['name']}"
    seen = []
    for pod in core.list_namespaced_pod(namespace, label_selector=selector).items:
        node_name = (pod.metadata.annotations or {}).get("workflows.argoproj.io/node-name", "")
        seen.append(node_name)
        if not node_name.split(".", 1)[-1].startswith(task):
            continue
        for status in pod.status.container_statuses or []:
            if status.name == "main" and status.state.terminated:
                done = status.state.terminated
                return float((done.finished_at - done.started_at).total_seconds())
    raise AssertionError(f"no finished pod of {task} among {seen}")


def test_helm_install_then_a_webhook_push_promotes_to_prod_with_an_approval(
    e2e: E2ESettings, apps: Apps, release: tuple[Release, Flow, GitopsRepo]
) -> None:
    installed, flow, repo = release
    pods = installed.pods()
    assert {p.metadata.labels["app.kubernetes.io/component"] for p in pods} >= {
        "webhooks", "reporters"
    }  # fmt: skip
    for pod in pods:
        if pod.status.phase == "Running":
            assert pod.spec.security_context.run_as_non_root is True
    argo = argo_client(e2e)
    templates = argo_http_templates(e2e)
    assert f"promoflow-{flow.product}" in templates  # the chart's Job applied it
    assert "promoflow-promote" in templates  # the chart installed the steps

    stream = Stream(installed.reporters, installed.token)
    time.sleep(2)
    started = time.monotonic()
    name, answered = _push(installed, repo, flow, "1.0.0")
    commit_at = healthy_at = 0.0

    def staging_committed() -> dict[str, Any] | None:
        workflow = argo.get_workflow(name)
        node = nodes(workflow).get("deploy-staging") or {}
        return workflow if node.get("phase") == "Succeeded" else None

    try:
        workflow = wait_until("staging committed", staging_committed, e2e.timeout * 2)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{summary(argo.get_workflow(name))}") from None
    commit_at = time.monotonic() - started
    wait_until(
        "staging Healthy at 1.0.0",
        lambda: runs_version(apps, repo, flow, "staging", "1.0.0") or None,
        e2e.timeout,
    )
    healthy_at = time.monotonic() - started
    promote_seconds = _container_seconds(e2e, workflow, "deploy-staging")

    wait_for_node(argo, name, "approve-prod", ("Running",), e2e.timeout * 2)
    approved = flow.promoflow("approve", name, "--env", "prod", "-m", "through the chart")
    assert approved.code == 0, approved
    workflow = wait_for_end(argo, name, e2e.timeout * 2)
    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    assert runs_version(apps, repo, flow, "prod", "1.0.0")
    assert len(node_output(nodes(workflow)["deploy-prod"], "commit") or "") == 40

    def reported() -> list[dict[str, Any]] | None:
        ended = [e for e in stream.events if e["type"] == "promotion.succeeded"]
        return ended or None

    try:
        try:
            wait_until("the reporters tell the promotion's end", reported, e2e.timeout)
        except AssertionError as exc:
            told = sorted({e["type"] for e in stream.events})
            metrics = httpx.get(
                f"{installed.reporters}/metrics", headers=stream.headers, timeout=10
            ).text
            numbers = [line for line in metrics.splitlines() if line.startswith("promoflow_")]
            raise AssertionError(f"{exc}; stream told {told}; {numbers}") from None
        deployed = {
            e["data"]["app"].split("/")[1] for e in stream.events if e["type"] == "app.deployed"
        }
    finally:
        stream.close()
    assert {flow.app(env) for env in ("dev", "staging", "prod")} <= deployed

    share = (answered + promote_seconds) / commit_at
    print(
        f"\nhelm install -> every promoflow pod Ready: {installed.seconds:.1f}s"
        f"\nwebhook delivery -> staging commit pushed: {commit_at:.1f}s, staging Healthy: "
        f"{healthy_at:.1f}s; in promoflow's processes: {answered + promote_seconds:.1f}s "
        f"(webhook reply {answered:.2f}s, promote step {promote_seconds:.1f}s) = "
        f"{share:.0%} of the time to the commit"
    )


def argo_http_templates(e2e: E2ESettings) -> set[str]:
    from tests.e2e.flows import argo_http

    with argo_http(e2e) as http:
        listed = http.get(f"/workflow-templates/{e2e.argo_namespace}").json()
    return {t["metadata"]["name"] for t in listed.get("items") or []}


def test_a_failed_health_gate_fails_the_promotion_with_its_reason(
    e2e: E2ESettings, apps: Apps, release: tuple[Release, Flow, GitopsRepo]
) -> None:
    """Staging runs a Deployment whose pods never become ready: the promotion through the
    installed chart commits to staging, its health gate fails with Argo CD's reason, and
    the reporters tell the failure with it."""
    from tests.e2e.k8s import deployment

    installed, flow, repo = release
    stream = Stream(installed.reporters, installed.token)
    broken = repo.commit(
        {f"{flow.path('staging')}/deployment.yaml": deployment(
            flow.app("staging"), "0.9.0", unready=True, progress_deadline=10
        )},
        "staging: pods that never become ready",
    )  # fmt: skip
    assert len(broken) == 40
    own, flow.prefix = flow.prefix, "promoflow"  # the templates the chart's Job applied
    try:
        promoted = flow.promoflow(
            "promote", "-c", str(flow.directory), "-p", flow.product, "-v", "1.0.0",
            "--request-id", short_id(),
        )  # fmt: skip
    finally:
        flow.prefix = own
    assert promoted.code == 0, promoted
    name = promoted.stdout.split()[0]
    workflow = wait_for_end(argo_client(e2e), name, e2e.timeout * 2)
    assert workflow["status"]["phase"] == "Failed", summary(workflow)
    failed = {
        n["displayName"]: n.get("message", "")
        for n in nodes(workflow).values()
        if n.get("phase") == "Failed" and n.get("type") == "Pod"
    }
    [reason] = [v for k, v in failed.items() if "staging" in k]
    assert flow.app("staging") in reason and "Degraded" in reason, failed
    assert (
        "deploy-prod" not in nodes(workflow)
        or nodes(workflow)["deploy-prod"]["phase"] != "Succeeded"
    )

    def told() -> dict[str, Any] | None:
        ends = [e for e in stream.events if e["type"] == "promotion.failed"]
        return ends[-1] if ends else None

    try:
        end = wait_until("the reporters tell the failure", told, e2e.timeout)
    finally:
        stream.close()
    assert any(flow.app("staging") in f["message"] for f in end["data"]["failures"]), end
