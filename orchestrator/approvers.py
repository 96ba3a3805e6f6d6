"""Who answered an approval, as Argo records it, checked against the policy's approvers.

An approval is a suspend node; anyone Argo's RBAC lets update the workflow can answer it:
``promoflow approve``, the Argo UI, or ``argo node set``. The Argo Server labels the
Workflow with the acting user on every such update (``workflows.argoproj.io/actor``,
``actor-email``, ``actor-preferred-username``; ``creator.LabelActor``) and removes the
labels when a request carries no identity (``argo node set`` talking to Kubernetes
directly). The ``approver-ENV`` step runs right after the suspend node, reads its answer
and those labels as the controller hands them over (``{{workflow.labels}}``), and only lets
the promotion continue on a timely YES that names a listed approver. The check is part of
the workflow, so no client can skip it; an answer whose author cannot be established does
not promote.

Approvals of one run take turns (a mutex per workflow), so the labels the check reads are
those of the answer it checks and not of a parallel environment's. Pure functions only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.actors import ACTOR, ACTOR_EMAIL, ACTOR_USERNAME, dns_friendly, email_shown

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


@dataclass(frozen=True)
class Answered:
    """What Argo recorded about one approval node once it stopped waiting."""

    environment: str
    answer: str
    """``YES``, ``NO``, or empty: resumed without an answer (timeout or workflow RESUME)."""
    labels: dict[str, str]
    started_at: str
    finished_at: str
    timeout: str
    """The timeout as configured (``168h``), for messages."""
    timeout_seconds: float

    @property
    def who(self) -> str:
        """The user Argo recorded for the last update of the run, as people write it (an
        e-mail with its ``@``), or empty."""
        seen = {key: self.labels[key] for key in IDENTITY_LABELS if self.labels.get(key)}
        if seen.get(ACTOR_EMAIL):
            return email_shown(seen[ACTOR_EMAIL])
        return seen.get(ACTOR_USERNAME) or seen.get(ACTOR) or ""

    def values(self) -> set[str]:
        """The identity label values, to compare with an approver's label forms."""
        return {self.labels[key] for key in IDENTITY_LABELS if self.labels.get(key)}


def shown_as(answered: Answered, approvers: list[str]) -> str:
    """Who answered, named as the policy names them when they are listed
    (``alice@example.com``, not the label form ``alice.at.example.com``): a label value
    cannot hold an ``@`` and may be cut, the policy's entry is what people wrote."""
    values = answered.values()
    for entry in approvers:
        if not entry.startswith("group:") and label_forms(entry) & values:
            kind, sep, value = entry.partition(":")
            return value if sep and kind in ("user", "email") else entry
    return answered.who


def _seconds_between(started: str, finished: str) -> float | None:
    try:
        start = datetime.fromisoformat(started.replace("Z", "+00:00"))
        end = datetime.fromisoformat(finished.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (end - start).total_seconds()


def verify(answered: Answered, approvers: list[str]) -> Verdict:
    """May the promotion into the environment go on, given the answer Argo recorded?

    Only a YES given before the timeout goes on; with ``approvers`` to check, only one
    whose author Argo recorded as a listed approver. Every other outcome says what
    happened (rejected, not answered in time, resumed without an answer) and by whom."""
    env, who = answered.environment, shown_as(answered, approvers)
    waited = _seconds_between(answered.started_at, answered.finished_at)
    if waited is None:
        return Verdict(False, f"cannot tell when the approval for {env} was answered")
    late = waited >= answered.timeout_seconds - CLOCK_SLACK
    answer = answered.answer.strip()
    if answer == "NO":
        # the reason, when one was given, is the approval node's message
        return Verdict(
            False, f"{env} rejected by {who or 'an unknown user'} (approve-{env} says why)"
        )
    if not answer or (answer == "YES" and late):
        if late:
            return Verdict(
                False,
                f"{env} not promoted: no answer to its approval within {answered.timeout} "
                "(a value set without resuming the node is not an answer)",
            )
        by = f" by {who}" if who else ""
        return Verdict(False, f"resumed without an answer{by}: answer approve-{env} with YES or NO")
    if answer != "YES":
        return Verdict(False, f"the approval of {env} was answered {answer!r}, not YES or NO")
    return _approver(answered, approvers)


def _approver(answered: Answered, approvers: list[str]) -> Verdict:
    """A timely YES: who gave it, checked against the listed approvers."""
    env, who = answered.environment, shown_as(answered, approvers)
    if not approvers:
        by = f" by {who}" if who else ""
        return Verdict(True, f"{env} approved{by} (no approvers of {env} to check)")
    if not who:
        return Verdict(
            False,
            f"who answered the approval for {env} cannot be established: Argo "
            "recorded no user (answers given with `argo node set` without the Argo Server, "
            "or by editing the Workflow, carry none); answer with `promoflow approve` or in "
            "the Argo UI",
        )
    values = answered.values()
    for entry in approvers:
        if not entry.startswith("group:") and label_forms(entry) & values:
            return Verdict(True, f"{env} approved by {who} (an approver of {env})")
    listed = ", ".join(approvers)
    return Verdict(False, f"{who} may not approve {env} (approvers: {listed})")
