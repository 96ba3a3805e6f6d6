"""``promoflow status`` reads a run's nodes by their task names: a gate added as a module
may give its tasks a prefix no step declares (``smoke-prod-eu``); such a task is read by
the environment it names, as the steps' own tasks name it, and a numbered check is read
as its environment's."""

from __future__ import annotations

from typing import Any

from orchestrator.runs import summarize


def _node(name: str, started: str, kind: str = "Pod") -> dict[str, Any]:
    return {"displayName": name, "type": kind, "phase": "Succeeded", "startedAt": started}


def test_a_contributed_gate_and_a_numbered_check_are_read_by_their_environment() -> None:
    names = [
        ("deploy-prod-eu", "2026-11-27T10:00:00Z"),
        ("sync-prod-eu", "2026-11-27T10:00:10Z"),
        ("check-prod-eu-2", "2026-11-27T10:00:20Z"),
        ("smoke-prod-eu", "2026-11-27T10:00:30Z"),
        ("smoke-tests", "2026-11-27T10:00:40Z"),  # no environment of the run: not a step
    ]
    workflow = {
        "metadata": {"name": "shop-1"},
        "status": {"nodes": {str(i): _node(n, t) for i, (n, t) in enumerate(names)}},
    }
    nodes = summarize(workflow).nodes
    assert [(n.task, n.kind, n.environment) for n in nodes] == [
        ("deploy-prod-eu", "deploy", "prod-eu"),
        ("sync-prod-eu", "sync", "prod-eu"),
        ("check-prod-eu-2", "check", "prod-eu"),
        ("smoke-prod-eu", "smoke", "prod-eu"),
    ]
