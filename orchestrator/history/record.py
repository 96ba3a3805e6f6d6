"""One promotion as the repository records it: the commit's trailers, and the note added
once its gates ran. Pure: :mod:`.read` hands the commits over.

A commit without promoflow's trailers that changed a product's files is a *hand* commit:
listed, since it changed what runs, and marked as known only in part (who and when, not
which run asked or what verified it). Its version is read from the version file when the
reader can (``version_read``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from orchestrator.history import trailers
from orchestrator.history.note import Verification

_REVERTS = re.compile(r"^This reverts commit ([0-9a-f]{7,64})", re.MULTILINE)

HAND, NO_NOTE = "hand", "no-note"


@dataclass(frozen=True)
class CommitInfo:
    """What :mod:`.read` takes from one commit (no file contents)."""

    sha: str
    author: str
    """``Name <email>``."""
    committed_at: int
    """Seconds since the epoch (the committer's date: when it landed)."""
    message: str


@dataclass
class Promotion:
    product: str
    environment: str
    commit: str
    author: str
    committed_at: str
    subject: str
    version: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    run: str = ""
    requested_by: str = ""
    approved_by: list[str] = field(default_factory=list)
    promoted_from: str = ""
    built_from: str = ""
    rollback: str = ""
    jira: list[str] = field(default_factory=list)
    outcome: str = ""
    """``verified``, ``failed``, or ``""``: no note (the run never finished, or the commit
    was made by hand)."""
    gates: list[dict[str, object]] = field(default_factory=list)
    deployed_at: str = ""
    verified_at: str = ""
    reverts: str = ""
    """The commit a ``git revert`` undid (hand commits)."""
    link: str = ""
    partial: list[str] = field(default_factory=list)
    """What is known only in part: ``hand`` (no trailers), ``no-note`` (no gate record),
    ``run-deleted`` (the run is no longer in Argo), ``version-unread``."""

    @property
    def verified(self) -> bool:
        return self.outcome == "verified"


def from_commit(
    commit: CommitInfo, environment: str, product: str, verification: Verification | None
) -> Promotion:
    """The promotion ``commit`` made in ``environment``, with its note if it has one."""
    found = trailers.parse(commit.message)
    subject = commit.message.split("\n", 1)[0].strip()
    promotion = Promotion(
        product=product,
        environment=environment,
        commit=commit.sha,
        author=commit.author,
        committed_at=stamp(commit.committed_at),
        subject=subject,
    )
    if not trailers.first(found, "Promotion-Run") and not trailers.first(
        found, "Promotion-Product"
    ):
        promotion.partial.append(HAND)
        reverted = _REVERTS.search(commit.message)
        promotion.reverts = reverted.group(1) if reverted else ""
        return promotion
    promotion.version = trailers.first(found, "Promotion-Version")
    for value in trailers.every(found, "Promotion-Field"):
        path, _, text = value.partition("=")
        promotion.fields[path] = text
    run = trailers.first(found, "Promotion-Run")
    promotion.run = "" if run == "-" else run
    promotion.requested_by = trailers.first(found, "Requested-By")
    promotion.approved_by = trailers.every(found, "Approved-By")
    promotion.promoted_from = trailers.first(found, "Promoted-From")
    promotion.built_from = trailers.first(found, "Built-From")
    promotion.rollback = trailers.first(found, "Rollback")
    jira = trailers.first(found, "Jira-Issues")
    promotion.jira = [k.strip() for k in jira.split(",") if k.strip()]
    if verification is None:
        promotion.partial.append(NO_NOTE)
        return promotion
    promotion.outcome = verification.outcome
    promotion.gates = [
        {"gate": g.kind, "passed": g.passed, **({"detail": g.detail} if g.detail else {})}
        for g in verification.gates
    ]
    promotion.deployed_at = verification.deployed_at
    promotion.verified_at = verification.recorded_at if verification.verified else ""
    for who in verification.approved_by:
        if who not in promotion.approved_by:
            promotion.approved_by.append(who)
    if not promotion.run and verification.run:
        promotion.run = verification.run
    return promotion


def stamp(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
