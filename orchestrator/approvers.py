"""Who answered an approval, as Argo records it, checked against the policy's approvers.

An approval is a suspend node; anyone Argo's RBAC lets update the workflow can answer it:
``promoflow approve``, the Argo UI, or ``argo node set``. The Argo Server labels the
Workflow with the acting user on every such update (``workflows.argoproj.io/actor``,
``actor-email``, ``actor-preferred-username``; ``creator.LabelActor``) and removes the
labels when a request carries no identity (``argo node set`` talking to Kubernetes
directly). The ``approver-ENV`` step runs right after the suspend node, reads those labels
as the controller hands them over (``{{workflow.labels}}``), and only lets the promotion
continue when they name a listed approver. The check is part of the workflow, so no client
can skip it; an answer whose author cannot be established does not promote.

Approvals of one run take turns (a mutex per workflow), so the labels the check reads are
those of the answer it checks and not of a parallel environment's. Pure functions only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.actors import ACTOR, ACTOR_EMAIL, ACTOR_USERNAME, dns_friendly

IDENTITY_LABELS = (ACTOR, ACTOR_EMAIL, ACTOR_USERNAME)
CLOCK_SLACK = 1.0
"""Argo's timestamps have whole seconds: an answer within a second of the deadline is
treated as the timeout (fail closed)."""


def parse_approvers(text: str) -> list[str]:
    return [a.strip() for a in text.replace(";", ",").split(",") if a.strip()]


def label_forms(entry: str) -> set[str]:
    """The label values a ``user:`` (or bare) entry may appear as: the subject or
    preferred username as written, an e-mail as Argo writes it (``@`` -> ``.at.``)."""
    kind, sep, value = entry.partition(":")
    name = value if sep and kind in ("user", "email") else entry
    forms = {dns_friendly(name)}
    if "@" in name:
        forms.add(dns_friendly(name.replace("@", ".at.", 1)))
    return {f for f in forms if f}


def group_entries(approvers: list[str]) -> list[str]:
    return [a for a in approvers if a.startswith("group:")]


@dataclass(frozen=True)
class Verdict:
    approved: bool
    message: str


def _seconds_between(started: str, finished: str) -> float | None:
    try:
        start = datetime.fromisoformat(started.replace("Z", "+00:00"))
        end = datetime.fromisoformat(finished.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (end - start).total_seconds()


def verify(
    environment: str,
    approvers: list[str],
    labels: dict[str, str],
    started_at: str,
    finished_at: str,
    timeout_seconds: float,
) -> Verdict:
    """May the promotion into ``environment`` go on, given the answer Argo recorded?

    With no ``approvers`` to check (none listed, or ``enforce: argo-rbac``) a YES given in
    time goes on: the step still runs after every approval, so that the rest of the
    chain waits on it alone and no task reads the outputs of one that may be skipped."""
    listed = ", ".join(approvers)
    waited = _seconds_between(started_at, finished_at)
    if waited is None:
        return Verdict(False, f"cannot tell when the approval for {environment} was answered")
    if waited >= timeout_seconds - CLOCK_SLACK:
        return Verdict(
            False,
            f"no approver answered {environment} before the timeout (a value set without "
            "resuming the node is not an answer)",
        )
    seen = {key: labels[key] for key in IDENTITY_LABELS if labels.get(key)}
    if not approvers:
        who = seen.get(ACTOR_EMAIL) or seen.get(ACTOR_USERNAME) or seen.get(ACTOR)
        by = f" by {who}" if who else ""
        return Verdict(True, f"approved{by} (no approvers of {environment} to check)")
    if not seen:
        return Verdict(
            False,
            f"who answered the approval for {environment} cannot be established: Argo "
            "recorded no user (answers given with `argo node set` without the Argo Server, "
            "or by editing the Workflow, carry none); answer with `promoflow approve` or in "
            "the Argo UI",
        )
    who = seen.get(ACTOR_EMAIL) or seen.get(ACTOR_USERNAME) or seen[ACTOR]
    values = set(seen.values())
    for entry in approvers:
        if not entry.startswith("group:") and label_forms(entry) & values:
            return Verdict(True, f"approved by {who} (an approver of {environment})")
    return Verdict(False, f"{who} may not approve {environment} (approvers: {listed})")
