"""What the Argo Server still knows, added to the history Git gives."""

from __future__ import annotations

from orchestrator.history.enrich import NOT_IN_ARGO, enrich
from orchestrator.history.read import History
from orchestrator.history.record import Promotion
from orchestrator.runs import NodeState, RunSummary


def promotion(env: str, run: str, **extra: object) -> Promotion:
    found = Promotion("shop", env, "c" * 40, "promoflow <p@x>", "2026-11-20T10:00:00Z", "s",
                      run=run, partial=["no-note"])  # fmt: skip
    for key, value in extra.items():
        setattr(found, key, value)
    return found


def run(name: str, *nodes: NodeState) -> RunSummary:
    return RunSummary(name, "shop", "1.5.0", "standard", "Failed", "", "", "", tuple(nodes))


def test_the_link_the_approval_and_a_failed_gate_come_from_argo() -> None:
    history = History("shop", "https://git.example.com/acme/gitops.git", [
        promotion("prod", "r1"), promotion("staging", "r1"),
        promotion("dev", "r0", partial=[]), promotion("dev", ""),
    ])  # fmt: skip
    runs = {"r1": run(
        "r1",
        NodeState("approve-prod", "approve", "prod", "Succeeded", "approved by alice: ship it"),
        NodeState("sync-prod", "sync", "prod", "Failed", "health: Degraded: back-off"),
        NodeState("approve-staging", "approve", "staging", "Succeeded", "rejected by bob"),
    )}  # fmt: skip
    enrich(history, runs, lambda name: f"https://argo.example.com/workflows/argo/{name}")
    prod, staging, older, by_hand = history.promotions
    assert prod.link == "https://argo.example.com/workflows/argo/r1"
    assert prod.approved_by == ["alice (ship it)"]
    assert prod.outcome == "failed" and prod.partial == []
    assert prod.gates == [{"gate": "sync", "passed": False, "detail": "health: Degraded: back-off"}]
    assert staging.approved_by == [] and staging.outcome == "" and staging.partial == ["no-note"]
    assert older.partial == [NOT_IN_ARGO] and older.link == ""  # Argo no longer has r0
    assert by_hand.partial == ["no-note"] and by_hand.link == ""  # no run to look for
