"""Is this Argo CD application deployed at this commit? One pure function, shared by every
way of watching Argo CD (API server stream, polling, Kubernetes watch).

"Deployed" means, for the promoted commit SHA:
- no sync operation is running, and the last one finished;
- the app was reconciled after that operation finished (so status is not stale);
- it is Synced at exactly SHA (for a multi-source app: every source from the promoted
  repository);
- it is Healthy (unless health is not required).
A sync operation for SHA that Failed or Errored, or health turning Degraded once SHA was
applied, fail the gate at once with the reason; a Suspended app (a paused Rollout) is
waiting, with its message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from orchestrator.argocd_shapes import (
    health_details,
    is_multi_source,
    same_repo,
    sources,
    unsettled,
)
from orchestrator.urls import scrub

State = Literal["deployed", "waiting", "failed"]


@dataclass(frozen=True)
class Verdict:
    app: str
    state: State
    reason: str
    health_only: bool = False
    """Synced at the commit; only health is left to wait for (the health timeout applies)."""
    unexplained: str = ""
    """The app's health (``Degraded``, ``Suspended``...) when it carries no message: Argo CD
    3 keeps the reason on the resources, which the gate asks for before it reports."""
    whole: bool = False
    """The reason is a sentence that names the app itself (``shop-prod reports Healthy
    but runs ...``): shown as it is, without the ``app:`` prefix."""

    def __str__(self) -> str:
        return self.reason if self.whole else f"{self.app}: {self.reason}"


def synced_revisions(app: dict[str, Any], repo: str | None) -> list[str]:
    """The synced revisions that must equal SHA (sources from ``repo``, or all of them)."""
    sync = (app.get("status") or {}).get("sync") or {}
    if is_multi_source(app):
        every = sources(app)
        revisions = list(sync.get("revisions") or [])
        picked = [
            rev
            for src, rev in zip(every, revisions, strict=False)
            if repo is None or same_repo(src.get("repoURL", ""), repo)
        ]
        if len(revisions) < len(every):
            picked.append("")  # not every source reported yet
        return picked or revisions
    return [sync.get("revision") or ""]


def sync_revisions(app: dict[str, Any], repo: str | None, sha: str) -> list[str] | None:
    """For a multi-source app, the revision of every source a sync to ``sha`` asks for:
    ``sha`` for sources from ``repo`` (all, without one), the others stay at their
    targetRevision (a chart repository does not have our commit). ``None``: one source."""
    if not is_multi_source(app):
        return None
    return [
        sha
        if repo is None or same_repo(src.get("repoURL", ""), repo)
        else str(src.get("targetRevision") or "HEAD")
        for src in sources(app)
    ]


def _operation_revisions(op: dict[str, Any]) -> list[str]:
    result = op.get("syncResult") or {}
    if result.get("revisions"):
        return list(result["revisions"])
    if result.get("revision"):
        return [result["revision"]]
    sync = (op.get("operation") or {}).get("sync") or {}
    return list(sync.get("revisions") or ([sync["revision"]] if sync.get("revision") else []))


def assess(
    app: dict[str, Any] | None,
    name: str,
    sha: str,
    *,
    repo: str | None = None,
    health: bool = True,
    same: Callable[[str], bool] | None = None,
) -> Verdict:
    """Where ``app`` stands against commit ``sha``.

    ``same(rev)`` answers whether a later commit ``rev`` holds the same content for this
    app as ``sha``: Argo CD reports the branch head it compared, so once another
    environment's promotion lands on the same branch, an app runs ``sha``'s manifests at
    a newer commit. Without it only ``sha`` itself counts."""
    if app is None:
        return Verdict(name, "failed", "application not found")
    status = app.get("status") or {}
    op = status.get("operationState") or {}
    phase = op.get("phase")
    short = sha[:12]
    if app.get("operation") or phase in ("Running", "Terminating"):
        # A sync Argo CD retries stays Running for minutes; its message says why it failed
        # ("... Retrying attempt #2"), which a gate that times out first must pass on.
        said = " ".join(scrub(str(op.get("message") or "")).split())
        said = f": {said[:MAX_OPERATION_MESSAGE]}" if said and phase else ""
        return Verdict(
            name, "waiting", f"sync operation in progress ({phase or 'requested'}{said})"
        )
    if phase in ("Failed", "Error") and sha in _operation_revisions(op):
        message = scrub(str(op.get("message") or phase))
        return Verdict(name, "failed", f"sync of {short} {phase.lower()}: {message}")
    revisions = synced_revisions(app, repo)
    sync_status = (status.get("sync") or {}).get("status", "Unknown")
    if not revisions or not all(rev == sha or (same and rev and same(rev)) for rev in revisions):
        current = ", ".join(r[:12] or "?" for r in revisions) or "nothing"
        return Verdict(name, "waiting", f"{sync_status} at {current}, waiting for {short}")
    if any(rev != sha for rev in revisions):
        later = ", ".join(sorted({r[:12] for r in revisions if r != sha}))
        short = f"{later} (same content as {short})"
    if sync_status != "Synced":
        return Verdict(name, "waiting", f"{sync_status} at {short}, waiting for Synced")
    why = unsettled(app)
    if why:
        return Verdict(name, "waiting", why)
    if not health:
        return Verdict(name, "deployed", f"Synced at {short}")
    state = (status.get("health") or {}).get("status", "Unknown")
    message = scrub(str((status.get("health") or {}).get("message") or ""))
    if state == "Healthy":
        return Verdict(name, "deployed", f"Synced at {short} and Healthy")
    if not message:
        # Argo CD 3 keeps a status without a message on status.resources: the reason is then
        # in the resource tree, which the wait asks for (``unexplained``)
        message = health_details(status.get("resources") or [], state, explained_only=True)
    unexplained = "" if message else state
    if state == "Degraded":
        reason = f"Degraded after {short} was applied: {message or NO_MESSAGE}"
        return Verdict(name, "failed", reason, unexplained=unexplained)
    return Verdict(name, "waiting", state + (f": {message}" if message else ""), True, unexplained)


MAX_OPERATION_MESSAGE = 300
"""Characters of a running operation's message kept in a verdict (one line)."""

NO_MESSAGE = "no message"
"""What a Degraded verdict says when nothing said why; the gate then asks the resource tree."""


def overall(verdicts: list[Verdict]) -> State:
    """failed if any failed, deployed if all deployed, else waiting."""
    if any(v.state == "failed" for v in verdicts):
        return "failed"
    if verdicts and all(v.state == "deployed" for v in verdicts):
        return "deployed"
    return "waiting"
