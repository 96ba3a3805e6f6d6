"""From two states of one Application to the changes worth telling anyone about.

Argo CD rewrites an Application every few minutes without anything happening to it
(``reconciledAt``, ``resourceVersion``, ``managedFields``, ``observedAt``): a reporter that
emitted on every update would bury the real changes in noise. These rules emit only for:

- an app created or deleted;
- a sync operation that started, and one that finished (succeeded, failed or errored);
- a new sync revision that the status can be trusted to describe, reported ``app.synced``,
  and ``app.deployed`` once it is also Healthy;
- a health change (``app.health-degraded`` when it turns Degraded);
- a change of the images the app runs (``status.summary.images``).

Sync and health are judged only once the status is settled (no operation running, and
reconciled after the last one finished): the rule the deploy gate applies, shared through
:func:`orchestrator.argocd_shapes.unsettled`, so "Succeeded" is never sent while a sync
still runs (argo-cd#28926).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestrator.argocd_shapes import unsettled

App = dict[str, Any]
PRODUCT, ENVIRONMENT = "promoflow.dev/product", "promoflow.dev/environment"
LABELS = (PRODUCT, ENVIRONMENT)
"""Labels of an app kept with its events: what the stream filters on."""
SUBSCRIBE = (
    "promoflow.dev/subscribe.",
    "notifications.argoproj.io/subscribe.",
    "notifications.argoproj.io/subscriptions",
)
"""Annotations kept of an app: its notification subscriptions, promoflow's and Argo CD's."""
WORKLOADS = ("Deployment", "Rollout")
"""Resources of an app kept: what owns the ReplicaSets reported with it."""


@dataclass(frozen=True)
class Change:
    """One event: its type (also the CloudEvents ``type``) and what it is about."""

    type: str
    app: str
    """``namespace/name``."""
    revision: str = ""
    """The sync revision (``;``-joined for a multi-source app) the change is about."""
    at: str = ""
    """When it happened, as Argo CD recorded it (an operation's start or finish, the
    reconcile that showed it): with ``type``, ``app`` and ``revision`` it identifies the
    event, so two replicas or a restart name it alike."""
    data: dict[str, Any] = field(default_factory=dict)


def key(app: App) -> str:
    meta = app.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _status(app: App | None) -> dict[str, Any]:
    return (app or {}).get("status") or {}


def revision(app: App | None) -> str:
    sync = _status(app).get("sync") or {}
    revisions = sync.get("revisions")
    if revisions:
        return ";".join(str(r) for r in revisions)
    return str(sync.get("revision") or "")


def _operation(app: App | None) -> dict[str, Any]:
    return _status(app).get("operationState") or {}


def _health(app: App | None) -> str:
    return str((_status(app).get("health") or {}).get("status") or "")


def _images(app: App | None) -> list[str]:
    return sorted(str(i) for i in (_status(app).get("summary") or {}).get("images") or [])


def _settled(app: App | None) -> bool:
    return app is not None and not unsettled(app)


def transitions(old: App | None, new: App | None, settled: App | None = None) -> list[Change]:
    """The changes from ``old`` to ``new`` (``None``: the app did not exist / was deleted).

    ``settled`` is the app's last state whose status could be trusted (the caller keeps
    it; by default ``old``, when it was): sync and health changes are judged against it,
    so a sync seen through several untrusted updates is reported once, when it settles."""
    if new is None:
        if old is None:
            return []
        return [
            Change("app.deleted", key(old), revision(old), _status(old).get("reconciledAt", ""))
        ]
    name, rev = key(new), revision(new)
    reconciled = str(_status(new).get("reconciledAt") or "")
    out: list[Change] = []
    if old is None:
        out.append(
            Change(
                "app.created",
                name,
                rev,
                str((new.get("metadata") or {}).get("creationTimestamp") or ""),
            )
        )
    before, after = _operation(old), _operation(new)
    if after.get("startedAt") and after.get("startedAt") != before.get("startedAt"):
        out.append(
            Change("app.sync-started", name, _operation_revision(after), str(after["startedAt"]))
        )
    finished = after.get("finishedAt")
    if (
        finished
        and after.get("phase") in ("Succeeded", "Failed", "Error")
        and (finished != before.get("finishedAt") or after.get("phase") != before.get("phase"))
    ):
        kind = "app.sync-succeeded" if after["phase"] == "Succeeded" else "app.sync-failed"
        message = str(after.get("message") or "")
        out.append(
            Change(kind, name, _operation_revision(after), str(finished), {"message": message})
        )
    if _settled(new):
        base = settled if settled is not None else (old if _settled(old) else None)
        out += _settled_changes(base, new, name, rev, reconciled)
    if _images(new) != _images(old) and (old is not None or _images(new)):
        out.append(Change("app.images-changed", name, rev, reconciled, {"images": _images(new)}))
    return out


def _operation_revision(op: dict[str, Any]) -> str:
    sync = (op.get("syncResult") or {}) or (op.get("operation") or {}).get("sync") or {}
    revisions = sync.get("revisions")
    if revisions:
        return ";".join(str(r) for r in revisions)
    return str(sync.get("revision") or "")


def _settled_changes(old: App | None, new: App, name: str, rev: str, at: str) -> list[Change]:
    """Sync and health changes of ``new`` against ``old``, the last settled state."""
    out: list[Change] = []
    status = _status(new)
    synced = (status.get("sync") or {}).get("status") == "Synced"
    health = _health(new)
    old_rev = revision(old)
    old_health = _health(old)
    old_synced = (_status(old).get("sync") or {}).get("status") == "Synced"
    if synced and rev and (rev != old_rev or not old_synced):
        out.append(Change("app.synced", name, rev, at))
    if health != old_health and (old is not None or health):
        message = str((status.get("health") or {}).get("message") or "")
        kind = "app.health-degraded" if health == "Degraded" else "app.health-changed"
        out.append(
            Change(kind, name, rev, at, {"health": health, "was": old_health, "message": message})
        )
    if (
        synced
        and health == "Healthy"
        and (rev != old_rev or old_health != "Healthy" or not old_synced)
    ):
        out.append(Change("app.deployed", name, rev, at))
    return out


CHANGED = "app.changed"
"""The envelope of a notification a state condition sent on an update that made no event."""


def changed(key: str, whole: App, state: App | None) -> Change:
    """That envelope for app ``key``: named by the update's resourceVersion."""
    sync = ((state or {}).get("status") or {}).get("sync") or {}
    revision = ";".join(sync.get("revisions") or []) or str(sync.get("revision") or "")
    at = str((whole.get("metadata") or {}).get("resourceVersion") or "")
    return Change(CHANGED, key, revision, at)


def essentials(app: App) -> App:
    """The parts of an app these rules read, and nothing else: what the reporter keeps of
    every app (in memory and in its store), a few hundred bytes instead of the whole
    object with its resources and history."""
    meta = app.get("metadata") or {}
    status = app.get("status") or {}
    op = status.get("operationState") or {}
    kept_op = {k: op[k] for k in ("phase", "startedAt", "finishedAt", "message") if k in op}
    result = op.get("syncResult") or {}
    if result:
        kept_op["syncResult"] = {k: result[k] for k in ("revision", "revisions") if k in result}
    summary = status.get("summary") or {}
    kept_meta = {k: meta[k] for k in ("name", "namespace", "creationTimestamp") if k in meta}
    if meta.get("labels"):
        kept_meta["labels"] = dict(meta["labels"])
    subscriptions = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k.startswith(SUBSCRIBE)
    }
    if subscriptions:
        kept_meta["annotations"] = subscriptions
    out: App = {
        "metadata": kept_meta,
        "status": {
            "sync": {
                k: (status.get("sync") or {})[k]
                for k in ("status", "revision", "revisions")
                if k in (status.get("sync") or {})
            },
            "health": {
                k: (status.get("health") or {})[k]
                for k in ("status", "message")
                if k in (status.get("health") or {})
            },
            "reconciledAt": status.get("reconciledAt"),
            "summary": {"images": list(summary.get("images") or [])},
        },
    }
    spec = app.get("spec") or {}
    kept_spec = {
        key: [
            {k: src[k] for k in ("repoURL", "path", "targetRevision", "chart") if k in src}
            for src in ([spec[key]] if key == "source" else spec[key])
        ]
        for key in ("source", "sources")
        if spec.get(key)
    }
    if kept_spec:
        out["spec"] = {k: (v[0] if k == "source" else v) for k, v in kept_spec.items()}
    if kept_op:
        out["status"]["operationState"] = kept_op
    workloads = [
        {k: r[k] for k in ("group", "kind", "namespace", "name") if k in r}
        for r in status.get("resources") or []
        if r.get("kind") in WORKLOADS
    ]
    if workloads:
        out["status"]["resources"] = workloads
    if spec.get("destination"):
        out.setdefault("spec", {})["destination"] = {
            k: v for k, v in spec["destination"].items() if k in ("server", "name", "namespace")
        }
    if app.get("operation"):
        out["operation"] = {"sync": (app["operation"].get("sync") or {})}
    return out
