"""Promotion Workflows and Argo Rollouts: their real transitions, through the pipeline."""

from __future__ import annotations

import copy
from typing import Any

from reporters.events.resources import rollout_transitions, workflow_transitions
from reporters.pipeline import Pipeline
from reporters.state.store import Store

UI = "https://argo.example.com"


def workflow(phase: str = "Running", approval: str = "", failed: str = "") -> dict[str, Any]:
    nodes: dict[str, Any] = {
        "n1": {"displayName": "deploy-dev", "type": "Pod", "phase": "Succeeded"},
    }
    if approval:
        nodes["n2"] = {
            "displayName": "approve-prod", "type": "Suspend", "phase": approval,
            "startedAt": "2026-11-24T10:05:00Z",
        }  # fmt: skip
    if failed:
        nodes["n3"] = {"displayName": "sync-staging", "type": "Pod", "phase": "Failed",
                       "message": failed}  # fmt: skip
    return {
        "metadata": {
            "name": "shop-1-5-0-abcd1234",
            "namespace": "argo",
            "labels": {"promoflow.dev/product": "shop"},
            "annotations": {"promoflow.dev/version": "1.5.0"},
        },
        "status": {
            "phase": phase,
            "startedAt": "2026-11-24T10:00:00Z",
            "finishedAt": "2026-11-24T10:09:00Z" if phase != "Running" else None,
            "message": "child failed" if failed else "",
            "nodes": nodes,
        },
    }


def test_a_promotion_starts_waits_for_approval_and_fails_with_the_reason() -> None:
    started = workflow_transitions({"status": {"phase": "Pending"}}, workflow(), UI)
    assert [c.type for c in started] == ["promotion.started"]
    waiting = workflow(approval="Running")
    [asked] = workflow_transitions(workflow(), waiting, UI)
    assert asked.type == "promotion.waiting-approval"
    assert asked.data["environment"] == "prod"
    assert asked.data["link"] == f"{UI}/workflows/argo/shop-1-5-0-abcd1234"
    assert workflow_transitions(waiting, copy.deepcopy(waiting), UI) == []  # still waiting
    failed = workflow("Failed", approval="Succeeded", failed="Degraded after 3f9a was applied")
    [ended] = workflow_transitions(waiting, failed, UI)
    assert ended.type == "promotion.failed"
    assert ended.data["failures"] == [
        {"step": "sync-staging", "message": "Degraded after 3f9a was applied"}
    ]
    other = workflow()
    other["metadata"]["labels"] = {}
    assert workflow_transitions(None, other, UI) == []  # not a promotion: not reported


def test_rollouts_report_steps_pauses_and_phases() -> None:
    base = {"metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"}}
    one = {
        **base,
        "status": {"phase": "Progressing", "currentStepIndex": 0, "currentPodHash": "h2"},
    }
    two = copy.deepcopy(one)
    two["status"].update(currentStepIndex=1, phase="Paused",
                         pauseConditions=[{"reason": "CanaryPauseStep"}])  # fmt: skip
    assert [c.type for c in rollout_transitions(one, two)] == ["rollout.step", "rollout.paused"]
    three = copy.deepcopy(two)
    three["status"].update(phase="Degraded", message="RolloutAborted", pauseConditions=[])
    [degraded] = rollout_transitions(two, three)
    assert degraded.type == "rollout.phase" and degraded.data["phase"] == "Degraded"


def test_resources_go_through_the_pipeline_with_their_kind_in_the_key() -> None:
    seen = []
    pipeline = Pipeline(Store(), ["stdout"], on_events=seen.extend, ui=UI)
    pipeline.handle("workflows:argo/shop-1-5-0-abcd1234", workflow())
    pipeline.handle("workflows:argo/shop-1-5-0-abcd1234", workflow(approval="Running"))
    assert [e.change.type for e in seen] == ["promotion.started", "promotion.waiting-approval"]
    assert seen[0].product == "shop"
    assert pipeline.store.counts("stdout") == {"pending": 2}
