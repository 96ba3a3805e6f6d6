"""A whole promotion, dev -> staging -> prod, on real Argo Workflows and real Argo CD.

Three Argo CD Applications follow one fresh GitOps repository; ``promoflow apply`` and
``promoflow promote`` submit the flow to the Argo Server; the workflow-controller runs it
in pods of ``PROMOFLOW_STEP_IMAGE`` (on the local cluster: real containers on its kubelet
node, or with ``PROMOFLOW_CLUSTER_PODS=kwok`` steps run by tests/e2e/podrunner.py): each
``deploy-ENV`` commits, Argo CD syncs that commit, each ``sync-ENV`` waits for it, prod
waits for ``promoflow approve``, soaks, checks a status URL, and the exit handler
reports. With ``PROMOFLOW_E2E_APP_IMAGE`` the apps run real pods (busybox httpd), and each
environment's pods, and its Service, must come to serve the promoted version (from its
ConfigMap, which the kubelet updates in the running pod). The same flow then runs with the
local engine (``promoflow promote --local``) against the same Argo CD.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from kubernetes import client

from tests.e2e.flows import (
    ENVIRONMENTS,
    Flow,
    argo_client,
    node_output,
    nodes,
    summary,
    wait_for_end,
    wait_for_node,
)
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import (
    Apps,
    api_client,
    short_id,
    wait_until,
)
from tests.e2e.promotions import gitops_for, policies, runs_version
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import clean_env, run

pytestmark = pytest.mark.e2e


def served_versions(e2e: E2ESettings, name: str) -> list[str]:
    """What the app's Ready pods answer at ``:8080/version`` (pods that really run), then
    what its Service's cluster IP answers (kube-proxy's rules)."""
    import httpx

    core = client.CoreV1Api(api_client(e2e))
    pods = core.list_namespaced_pod(name, label_selector=f"app={name}").items
    answers = []
    cluster_ip = core.read_namespaced_service(name, name).spec.cluster_ip
    try:
        via_service = httpx.get(f"http://{cluster_ip}/version", timeout=5).text.strip()
    except httpx.HTTPError as exc:
        via_service = f"<{type(exc).__name__}>"
    for pod in pods:
        ready = any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or [])
        if ready and pod.status.pod_ip and pod.metadata.deletion_timestamp is None:
            url = f"http://{pod.status.pod_ip}:8080/version"
            try:
                answers.append(httpx.get(url, timeout=5).text.strip())
            except httpx.HTTPError as exc:  # going away, or not listening yet
                answers.append(f"<{type(exc).__name__}>")
    return [*answers, via_service]


def test_a_promotion_runs_on_argo_workflows_and_argocd_deploys_it(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
) -> None:
    """The README's cluster path end to end: apply, promote, approve; every environment
    ends up running the promoted version, as Argo CD reports and as the cluster shows."""
    repo = new_repo()
    flow = flows(policies(e2e), repo)
    gitops_for(flow, repo, apps, e2e)
    applied = flow.promoflow("apply", "-c", str(flow.directory))
    assert applied.code == 0, applied
    started = time.monotonic()

    promoted = flow.promoflow(
        "promote", "-c", str(flow.directory), "-p", flow.product, "-v", "1.0.0",
        "--request-id", short_id(),
    )  # fmt: skip

    assert promoted.code == 0, promoted
    name = promoted.stdout.split()[0]
    argo = argo_client(e2e)
    wait_for_node(argo, name, "approve-prod", ("Running",), e2e.timeout * 2)
    before = argo.get_workflow(name)
    for env in ("dev", "staging"):
        commit = node_output(nodes(before)[f"deploy-{env}"], "commit")
        assert commit and len(commit) == 40, summary(before)
        assert runs_version(apps, repo, flow, env, "1.0.0")
    assert "deploy-prod" not in nodes(before), summary(before)
    assert runs_version(apps, repo, flow, "prod", "0.9.0"), apps.status(flow.app("prod"))

    approved = flow.promoflow("approve", name, "--env", "prod", "-m", "e2e")
    assert approved.code == 0, approved
    workflow = wait_for_end(argo, name, e2e.timeout * 2)
    took = time.monotonic() - started

    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    done = nodes(workflow)
    commits = {env: node_output(done[f"deploy-{env}"], "commit") or "" for env in ENVIRONMENTS}
    assert all(len(c) == 40 for c in commits.values()), commits
    assert len(set(commits.values())) == 3, commits
    for env in ENVIRONMENTS:
        assert node_output(done[f"sync-{env}"], "revision") == commits[env]
        assert runs_version(apps, repo, flow, env, "1.0.0"), env
        assert "version: 1.0.0" in repo.show(commits[env], f"{flow.path(env)}/configmap.yaml")
        live = client.CoreV1Api(api_client(e2e)).read_namespaced_config_map(
            flow.app(env), flow.app(env)
        )
        assert live.data["version"] == "1.0.0", env  # what Argo CD applied
        if e2e.app_image:  # the app's pods really run: they come to serve the new version
            wait_until(
                f"{env}'s pods serve 1.0.0",
                lambda env=env: served_versions(e2e, flow.app(env)) == ["1.0.0", "1.0.0"],
                e2e.timeout,
            )
    for task in ("plan-prod", "approve-prod", "approver-prod", "soak-prod", "check-prod", "notify"):
        assert done[task]["phase"] == "Succeeded", summary(workflow)
    assert node_output(done["plan-prod"], "changed") == "true"
    shown = flow.promoflow("status", name)
    assert shown.code == 0 and "Succeeded" in shown.stdout, shown
    print(f"\npromotion {name}: {took:.1f}s from submit to Succeeded")

    # The same version again: every environment is unchanged. Nothing is committed, prod's
    # approval is not asked again (on the real controller: approve-prod Skipped by its
    # ``when``, approver-prod Omitted, the chain going on through approve-prod.Skipped),
    # and every environment still waits for Argo CD to run its commit.
    head = repo.head()
    again = flow.promoflow(
        "promote", "-c", str(flow.directory), "-p", flow.product, "-v", "1.0.0",
        "--request-id", short_id(),
    )  # fmt: skip
    assert again.code == 0, again
    rerun = wait_for_end(argo, again.stdout.split()[0], e2e.timeout * 2)
    assert rerun["status"]["phase"] == "Succeeded", summary(rerun)
    unchanged = nodes(rerun)
    assert node_output(unchanged["plan-prod"], "changed") == "false"
    assert unchanged["approve-prod"]["phase"] == "Skipped", summary(rerun)
    assert unchanged["approver-prod"]["phase"] == "Omitted", summary(rerun)
    for env in ENVIRONMENTS:
        deploy = unchanged[f"deploy-{env}"]
        assert node_output(deploy, "changed") == "false", summary(rerun)
        assert node_output(deploy, "commit") == head
        # the controller shows a termination message only on a failed container
        # (inferFailedReason), so "unchanged" reaches people through the outputs here
        assert not deploy.get("message"), summary(rerun)
        assert unchanged[f"sync-{env}"]["phase"] == "Succeeded", summary(rerun)
    assert repo.head() == head


def test_the_same_flow_runs_locally_against_the_real_argocd(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
    tmp_path: Path,
) -> None:
    """``promoflow promote --local``: the local engine runs the same compiled workflow on
    this machine, its wait steps reading the real Argo CD (``ARGOCD_SERVER``) instead of
    the simulator, approvals answered by ``--auto-approve``."""
    repo = new_repo()
    flow = flows(policies(e2e), repo)
    gitops_for(flow, repo, apps, e2e)
    env = clean_env(
        ARGOCD_SERVER=e2e.argocd_server,
        ARGOCD_AUTH_TOKEN=e2e.argocd_token,
        ARGOCD_OPTS=e2e.argocd_opts,
        GIT_TOKEN=e2e.git_token,
        PROMOFLOW_REQUESTED_BY="e2e",
    )

    done = run(
        "promote", "--local", "-c", str(flow.directory), "-p", flow.product, "-v", "1.1.0",
        "--auto-approve", "--soak-scale", "0.5", "--runs-dir", str(tmp_path / "runs"),
        env=env, timeout=e2e.timeout * 3,
    )  # fmt: skip

    assert done.code == 0, done
    assert "simulator" not in done.stdout.lower(), done.stdout
    assert list((tmp_path / "runs").glob("*.json")), "no run record"
    for env_name in ENVIRONMENTS:
        assert runs_version(apps, repo, flow, env_name, "1.1.0"), env_name
