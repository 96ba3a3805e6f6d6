"""On the real Argo Workflows and Argo CD: a promotion held by a promotion window goes on
when the window opens, and every environment's commit is noted verified, which
``promoflow history`` reads back from the GitOps repository alone."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import yaml

from tests.e2e.flows import (
    Flow,
    argo_client,
    node_output,
    nodes,
    wait_for_end,
    wait_for_node,
)
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps, short_id
from tests.e2e.promotions import gitops_for, runs_version
from tests.e2e.settings import E2ESettings

HELD = 45
"""Seconds the window stays closed after the run reaches it."""


def gates_only() -> list[dict[str, Any]]:
    return [
        {
            "priority": 0,
            "policy": {
                "action": "commit",
                "gates": [{"sync": {"timeout": "3m"}}, {"health": {"timeout": "3m"}}],
            },
        }
    ]


def freeze_prod(flow: Flow, until: datetime) -> None:
    start = datetime.now(UTC) - timedelta(minutes=1)
    (flow.directory / "windows.yaml").write_text(yaml.safe_dump({
        "apiVersion": "promoflow.dev/v1alpha1", "kind": "PromotionWindow",
        "metadata": {"name": f"{flow.product}-freeze"},
        "spec": {
            "selector": {"environments": {"production": True}},
            "deny": [{"name": "release freeze", "from": start.isoformat(timespec="seconds"),
                      "to": until.isoformat(timespec="seconds"), "timeZone": "UTC"}],
        },
    }))  # fmt: skip


def test_a_run_held_by_a_window_goes_on_when_it_opens_and_history_reads_it_back(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
) -> None:
    repo = new_repo()
    flow = flows(gates_only(), repo)
    gitops_for(flow, repo, apps, e2e)
    opens = datetime.now(UTC) + timedelta(seconds=HELD)
    freeze_prod(flow, opens)
    assert flow.promoflow("apply", "-c", str(flow.directory)).code == 0
    promoted = flow.promoflow(
        "promote", "-c", str(flow.directory), "-p", flow.product, "-v", "1.0.0",
        "--request-id", short_id(),
    )  # fmt: skip
    assert promoted.code == 0, promoted
    name = promoted.stdout.split()[0]
    argo = argo_client(e2e)
    wait_for_node(argo, name, "window-prod", ("Running",), e2e.timeout * 2)
    held = argo.get_workflow(name)
    assert "deploy-prod" not in nodes(held)
    assert runs_version(apps, repo, flow, "prod", "0.9.0")
    workflow = wait_for_end(argo, name, e2e.timeout * 2 + HELD)
    done = nodes(workflow)
    assert workflow["status"]["phase"] == "Succeeded", workflow["status"].get("message")
    deploy_started = datetime.fromisoformat(done["deploy-prod"]["startedAt"].replace("Z", "+00:00"))
    assert deploy_started >= opens - timedelta(seconds=1)  # not before the window opened
    assert runs_version(apps, repo, flow, "prod", "1.0.0")
    for env in ("dev", "staging", "prod"):
        assert done[f"record-{env}"]["phase"] == "Succeeded", env

    # the history, from Git alone: each environment's promotion, verified by its gates
    started = time.monotonic()
    shown = flow.promoflow(
        "history", "-c", str(flow.directory), "-p", flow.product, "-o", "json",
        GIT_USERNAME="git", GIT_TOKEN=e2e.git_token,
    )  # fmt: skip
    assert shown.code == 0, shown
    print(f"\nhistory read in {time.monotonic() - started:.1f} s")
    found = json.loads(shown.stdout)["promotions"]
    ours = {p["environment"]: p for p in found if not p["partial"]}
    assert set(ours) == {"dev", "staging", "prod"}, found
    for env, promotion in ours.items():
        assert promotion["version"] == "1.0.0" and promotion["outcome"] == "verified", env
        assert [g["gate"] for g in promotion["gates"]] == ["sync", "health"], env
        assert promotion["run"] == name
        assert promotion["commit"] == node_output(done[f"deploy-{env}"], "commit"), env
        assert promotion["link"].endswith(f"/{name}"), promotion  # the run, from Argo


def test_a_rollback_runs_on_argo_and_argocd_runs_the_old_version_again(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
) -> None:
    """1.0.0 then 1.1.0 everywhere, then prod rolled back: the real controller runs the
    template's rollback-prod entrypoint, Argo CD syncs it, prod runs 1.0.0 again, and the
    rollback's own commit is noted verified."""
    repo = new_repo()
    flow = flows(gates_only(), repo)
    gitops_for(flow, repo, apps, e2e)
    assert flow.promoflow("apply", "-c", str(flow.directory)).code == 0
    argo = argo_client(e2e)
    for version in ("1.0.0", "1.1.0"):
        promoted = flow.promoflow(
            "promote", "-c", str(flow.directory), "-p", flow.product, "-v", version,
            "--request-id", short_id(),
        )  # fmt: skip
        assert promoted.code == 0, promoted
        ended = wait_for_end(argo, promoted.stdout.split()[0], e2e.timeout * 2)
        assert ended["status"]["phase"] == "Succeeded", ended["status"].get("message")
    assert runs_version(apps, repo, flow, "prod", "1.1.0")

    back = flow.promoflow(
        "rollback", "-c", str(flow.directory), "-p", flow.product, "-e", "prod",
        "--reason", "e2e: 1.1.0 misbehaves", GIT_USERNAME="git", GIT_TOKEN=e2e.git_token,
    )  # fmt: skip
    assert back.code == 0, back
    assert "prod: 1.1.0 -> 1.0.0" in back.stdout, back.stdout
    name = back.stdout.splitlines()[-2].split()[0]
    workflow = wait_for_end(argo, name, e2e.timeout * 2)
    done = nodes(workflow)
    assert workflow["status"]["phase"] == "Succeeded", workflow["status"].get("message")
    assert workflow["metadata"]["labels"]["promoflow.dev/rollback"] == "prod"
    assert not any(n.startswith(("deploy-dev", "deploy-staging")) for n in done)
    assert done["record-prod"]["phase"] == "Succeeded"
    assert runs_version(apps, repo, flow, "prod", "1.0.0")
    assert runs_version(apps, repo, flow, "staging", "1.1.0")  # only prod rolled back
    commit = node_output(done["deploy-prod"], "commit")
    assert commit and "Rollback-Reason: e2e: 1.1.0 misbehaves" in repo.message(commit)
