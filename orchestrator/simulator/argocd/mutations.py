"""How the application controller changes an Application's status, one step at a time.

Each function edits an app in place and is meant to run inside one
:meth:`~orchestrator.simulator.argocd.store.ApplicationStore.update`, so that whatever a
step changes reaches clients as one event, as one reconcile of Argo CD would. The shapes
follow Argo CD's: ``revision``/``source`` for a single-source app, ``revisions``/``sources``
for a multi-source one, and a history bounded like ``revisionHistoryLimit``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from orchestrator.argocd_shapes import is_automated, is_multi_source, sources
from orchestrator.simulator.argocd.clock import not_before, stamp_now
from orchestrator.simulator.argocd.events import App

HISTORY_LIMIT = 10
"""Argo CD's default ``revisionHistoryLimit``."""


def phase_of(app: App) -> str | None:
    """The phase of the app's current or last operation."""
    return ((app.get("status") or {}).get("operationState") or {}).get("phase")


def set_revisions(target: dict[str, Any], app: App, revisions: list[str]) -> None:
    """``revision`` for a single-source app, ``revisions`` for a multi-source one."""
    if is_multi_source(app):
        target["revisions"] = list(revisions)
        target.pop("revision", None)
    else:
        target["revision"] = revisions[0] if revisions else ""
        target.pop("revisions", None)


def mark_reconciled(app: App) -> None:
    """A reconcile: ``reconciledAt`` now, and never before the last operation finished."""
    status = app["status"]
    finished = (status.get("operationState") or {}).get("finishedAt")
    status["reconciledAt"] = not_before(finished)


def set_health(app: App, status: str, message: str) -> None:
    """Health ``status`` (with ``message``); ``lastTransitionTime`` moves only on a change."""
    health = app["status"].setdefault("health", {})
    if health.get("status") != status:
        health["lastTransitionTime"] = stamp_now()
    health["status"] = status
    if message:
        health["message"] = message
    else:
        health.pop("message", None)


def begin_operation(
    app: App,
    revision: str,
    revisions: list[str] | None,
    initiator: dict[str, Any] | None,
    request: dict[str, Any] | None = None,
) -> None:
    """A sync operation started: ``operation`` set and ``operationState`` Running, with the
    options of the sync ``request``; started by the controller itself for automated apps."""
    request = request or {}
    sync: dict[str, Any] = {}
    if is_multi_source(app):
        sync["revisions"] = list(revisions or [revision] * len(sources(app)))
    else:
        sync["revision"] = revision
    if request.get("prune"):
        sync["prune"] = True
    if request.get("dryRun"):
        sync["dryRun"] = True
    if request.get("syncOptions"):
        sync["syncOptions"] = list((request["syncOptions"] or {}).get("items") or [])
    by = initiator or ({"automated": True} if is_automated(app) else {"username": "admin"})
    operation = {"sync": sync, "initiatedBy": by, "retry": {}}
    app["operation"] = operation
    app["status"]["operationState"] = {
        "operation": copy.deepcopy(operation),
        "phase": "Running",
        "message": "",
        "startedAt": stamp_now(),
    }


def end_operation(
    app: App, phase: str, message: str, reconcile: bool, revisions: list[str] | None
) -> None:
    """The running operation ended in ``phase``; see
    :meth:`~orchestrator.simulator.argocd.state.SimulatorState.finish_operation`."""
    status = app["status"]
    state = status.get("operationState")
    if not state:
        raise ValueError(f"{app['metadata']['name']}: no operation to finish")
    op_sync = (state.get("operation") or {}).get("sync") or {}
    revs = list(revisions or op_sync.get("revisions") or [op_sync.get("revision") or ""])
    # Without a reconcile, the last one stays strictly before the finish: a stale status.
    gap = 0 if reconcile else 1
    finished = not_before(
        state.get("startedAt"), None if reconcile else status.get("reconciledAt"), gap=gap
    )
    state.update(phase=phase, message=message, finishedAt=finished)
    deployed = copy.deepcopy(sources(app))
    multi = is_multi_source(app)
    if multi:
        state["syncResult"] = {"revision": "", "revisions": revs, "sources": deployed}
    else:
        state["syncResult"] = {"revision": revs[0], "source": deployed[0] if deployed else {}}
    app.pop("operation", None)
    if phase == "Succeeded":
        history = status.setdefault("history", [])
        entry: dict[str, Any] = {
            "id": (history[-1]["id"] + 1) if history else 0,
            "deployStartedAt": state["startedAt"],
            "deployedAt": finished,
            "initiatedBy": copy.deepcopy(state["operation"].get("initiatedBy") or {}),
        }
        if multi:
            entry.update(revisions=revs, sources=deployed)
        else:
            entry.update(revision=revs[0], source=deployed[0] if deployed else {})
        history.append(entry)
        del history[:-HISTORY_LIMIT]
        if reconcile:
            status["sync"]["status"] = "Synced"
            set_revisions(status["sync"], app, revs)
    if reconcile:
        status["reconciledAt"] = not_before(finished)


def requested_revisions(app: App, body: Mapping[str, Any]) -> list[str] | None:
    """The revisions a sync request asks for. A multi-source app takes ``revisions`` at
    ``sourcePositions`` (1-based; in order without them) and each other source's
    ``targetRevision``; its single ``revision`` is ignored, as Argo CD ignores it."""
    requested = [str(r) for r in body.get("revisions") or []]
    if not is_multi_source(app):
        return requested or None
    revisions = [str(s.get("targetRevision") or "HEAD") for s in sources(app)]
    positions = [int(p) for p in body.get("sourcePositions") or []]
    for index, rev in enumerate(requested):
        position = positions[index] - 1 if index < len(positions) else index
        if 0 <= position < len(revisions):
            revisions[position] = rev
    return revisions
