"""What the Argo Server still knows of each promotion's run, added to what Git says: the
run's link, who answered its approval, and the gate that failed and why (a failure is
noted in Git only where the run got that far). A run Argo no longer has is marked, so a
reader knows the history is from Git alone there. Pure: the runs are handed over."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from orchestrator.history.read import History


class Node(Protocol):
    """One node of a run, as :class:`orchestrator.runs.NodeState` has it."""

    @property
    def kind(self) -> str: ...
    @property
    def environment(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def message(self) -> str: ...


class Run(Protocol):
    """A run summary (:class:`orchestrator.runs.RunSummary`): its nodes."""

    @property
    def nodes(self) -> Sequence[Node]: ...


GATE_KINDS = {"sync": "sync", "soak": "soak", "check": "http", "post": "post-action"}
"""Task kinds that are post-commit gates, and the gate a note calls each."""
NOT_IN_ARGO = "run-not-in-argo"


def enrich(history: History, runs: Mapping[str, Run], link: Callable[[str], str]) -> None:
    for promotion in history.promotions:
        if not promotion.run:
            continue
        run = runs.get(promotion.run)
        if run is None:
            promotion.partial.append(NOT_IN_ARGO)
            continue
        promotion.link = link(promotion.run)
        for node in run.nodes:
            if node.environment != promotion.environment:
                continue
            if node.kind == "approve" and node.message.startswith("approved by "):
                who, _, why = node.message.removeprefix("approved by ").partition(": ")
                entry = f"{who} ({why})" if why else who
                if entry not in promotion.approved_by:
                    promotion.approved_by.append(entry)
            gate = GATE_KINDS.get(node.kind)
            if gate and node.phase in ("Failed", "Error") and not promotion.outcome:
                promotion.outcome = "failed"
                promotion.gates.append({"gate": gate, "passed": False, "detail": node.message})
        if promotion.outcome == "failed" and "no-note" in promotion.partial:
            promotion.partial.remove("no-note")  # the failure is known, from Argo
