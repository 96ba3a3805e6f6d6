"""Steps run by promoflow's executor plugin, on the real workflow-controller.

One promotion of dev -> staging -> prod with the sync and health gates only, compiled for
the plugin: every step is a node of the Workflow with the phase, message and outputs the
Argo UI shows, as the same promotion compiled for pods has; and ``promote --local`` of
the same flow ends with the same node phases. Durations belong to
``bench/e2e_promotion.py``, not here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.flows import (
    ENVIRONMENTS,
    Flow,
    argo_client,
    node_output,
    nodes,
    summary,
    wait_for_end,
)
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps
from tests.e2e.promotions import gitops_for, policies, runs_version
from tests.e2e.runs import submit
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import clean_env, run

pytestmark = pytest.mark.e2e


def task_phases(workflow: dict[str, Any]) -> dict[str, str]:
    """Each task's phase (a retried step's Retry node, not its attempts); the exit
    handler's node is named after the run, so by ``onExit`` here."""
    run = workflow["metadata"]["name"]
    return {
        name.removeprefix(f"{run}."): str(node.get("phase"))
        for name, node in nodes(workflow).items()
        if "(" not in name and node.get("type") != "DAG"
    }


def test_plugin_steps_are_nodes_as_pod_steps_are(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
    tmp_path: Path,
) -> None:
    repo = new_repo()
    flow = flows(policies(e2e)[:1], repo)
    gitops_for(flow, repo, apps, e2e)
    client = argo_client(e2e)
    runs = {}
    for execution, version in (("plugin", "1.1.0"), ("pod", "1.2.0")):
        flow.execution = execution
        name = submit(flow, version)
        workflow = wait_for_end(client, name, e2e.timeout * 3)
        assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
        runs[execution] = workflow
        repo.pull()
        for env in ENVIRONMENTS:
            assert runs_version(apps, repo, flow, env, version), env

    plugin = nodes(runs["plugin"])
    for env in ENVIRONMENTS:
        deploy, sync = plugin[f"deploy-{env}(0)"], plugin[f"sync-{env}(0)"]
        assert (deploy["type"], deploy["phase"]) == ("Plugin", "Succeeded"), summary(runs["plugin"])
        commit = node_output(deploy, "commit")
        assert commit and len(commit) == 40
        assert node_output(deploy, "changed") == "true"
        assert deploy["message"] == f"committed {commit[:12]} to {repo.branch} (1 file(s))"
        assert (sync["type"], sync["phase"]) == ("Plugin", "Succeeded")
        assert sync["message"] == f"{flow.app(env)}: Synced at {commit[:12]} and Healthy"
        # the Retry node around each attempt, as a pod step has
        assert plugin[f"deploy-{env}"]["type"] == "Retry"
    # the same tasks, the same phases, the same outputs, in either execution
    assert task_phases(runs["plugin"]) == task_phases(runs["pod"])
    pods = nodes(runs["pod"])
    for name, node in plugin.items():
        if node.get("type") == "Plugin":
            assert pods[name]["type"] == "Pod"
            names = {p["name"] for p in (node.get("outputs") or {}).get("parameters") or []}
            assert names == {
                p["name"] for p in (pods[name].get("outputs") or {}).get("parameters") or []
            }, name

    # the same flow, compiled for the plugin, run here: the same tasks end alike
    done = run(
        "promote", "--local", "-c", str(flow.directory), "-p", flow.product, "-v", "1.3.0",
        "--runs-dir", str(tmp_path / "runs"),
        env=clean_env(
            ARGOCD_SERVER=e2e.argocd_server, ARGOCD_AUTH_TOKEN=e2e.argocd_token,
            ARGOCD_OPTS=e2e.argocd_opts, GIT_TOKEN=e2e.git_token,
            PROMOFLOW_REQUESTED_BY="e2e", PROMOFLOW_EXECUTION="plugin",
        ),
        timeout=e2e.timeout * 3,
    )  # fmt: skip
    assert done.code == 0, done
    (record,) = (tmp_path / "runs").glob("*.json")
    local = {n["displayName"]: n["phase"] for n in json.loads(record.read_text())["nodes"]}
    # the DAG's tasks (the exit handler's nodes are named apart in a local record)
    cluster = {
        k: v
        for k, v in task_phases(runs["plugin"]).items()
        if k.split("-")[0] in ("deploy", "sync")
    }
    assert len(cluster) == 2 * len(ENVIRONMENTS)
    assert {k: v for k, v in local.items() if k in cluster} == cluster, (local, cluster)
