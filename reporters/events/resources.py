"""Transitions of the resources around an app: promotion Workflows and Argo Rollouts.

- A promotion Workflow (``promoflow.dev/product`` label): ``promotion.started``, then
  ``promotion.waiting-approval`` when an approval node starts waiting (with its
  environment and the run's UI link), and ``promotion.succeeded`` or
  ``promotion.failed`` (with each failed node's message) when it ends.
- An Argo Rollout: ``rollout.step`` when its canary step moves, ``rollout.paused`` with the
  pause reason, ``rollout.phase`` for any other phase change (``Degraded`` included).

As for Applications, only these changes count, never a status rewrite.
"""

from __future__ import annotations

from typing import Any

from reporters.events.transitions import PRODUCT, Change

Obj = dict[str, Any]
DONE = ("Succeeded", "Failed", "Error")


def _key(obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _status(obj: Obj | None) -> Obj:
    return (obj or {}).get("status") or {}


def _waiting_approvals(obj: Obj | None) -> dict[str, Obj]:
    nodes = _status(obj).get("nodes") or {}
    return {
        str(n.get("displayName")): n
        for n in nodes.values()
        if n.get("type") == "Suspend"
        and n.get("phase") == "Running"
        and str(n.get("displayName", "")).startswith("approve-")
    }


def workflow_transitions(old: Obj | None, new: Obj | None, ui: str = "") -> list[Change]:
    """``ui``: the Argo UI's base URL, for links (``{ui}/workflows/NS/NAME``)."""
    if new is None:
        return []
    labels = (new.get("metadata") or {}).get("labels") or {}
    if PRODUCT not in labels:
        return []  # not a promotion
    key, status = _key(new), _status(new)
    namespace, name = key.split("/", 1)
    link = f"{ui.rstrip('/')}/workflows/{namespace}/{name}" if ui else ""
    version = str(((new.get("metadata") or {}).get("annotations") or {}).get(
        "promoflow.dev/version", ""
    ))  # fmt: skip
    base = {"product": labels[PRODUCT], "version": version, "run": name, "link": link}
    out: list[Change] = []
    phase, was = status.get("phase"), _status(old).get("phase")
    if phase == "Running" and was in (None, "", "Pending"):
        out.append(
            Change("promotion.started", key, version, str(status.get("startedAt") or ""), base)
        )
    for task, node in sorted(_waiting_approvals(new).items()):
        if task not in _waiting_approvals(old):
            environment = task.removeprefix("approve-")
            out.append(
                Change(
                    "promotion.waiting-approval",
                    key,
                    version,
                    str(node.get("startedAt") or ""),
                    {**base, "environment": environment},
                )
            )
    if phase in DONE and phase != was:
        failures = [
            {"step": str(n.get("displayName")), "message": str(n.get("message") or "")}
            for n in (status.get("nodes") or {}).values()
            if n.get("phase") in ("Failed", "Error") and n.get("type") in ("Pod", "Suspend")
        ]
        kind = "promotion.succeeded" if phase == "Succeeded" else "promotion.failed"
        data = {**base, "message": str(status.get("message") or "")}
        if failures:
            data["failures"] = sorted(failures, key=lambda f: f["step"])
        out.append(Change(kind, key, version, str(status.get("finishedAt") or ""), data))
    return out


def rollout_transitions(old: Obj | None, new: Obj | None) -> list[Change]:
    if new is None:
        return []
    key, status, before = _key(new), _status(new), _status(old)
    revision = str(status.get("currentPodHash") or "")
    at = str(((new.get("metadata") or {}).get("resourceVersion")) or "")
    out: list[Change] = []
    step, was_step = status.get("currentStepIndex"), before.get("currentStepIndex")
    if step is not None and step != was_step and old is not None:
        out.append(Change("rollout.step", key, revision, at, {"step": step}))
    reasons = sorted(str(c.get("reason")) for c in status.get("pauseConditions") or [])
    was_paused = sorted(str(c.get("reason")) for c in before.get("pauseConditions") or [])
    if reasons and reasons != was_paused:
        out.append(Change("rollout.paused", key, revision, at, {"reasons": reasons}))
    phase, was = status.get("phase"), before.get("phase")
    if phase and phase != was and phase != "Paused":
        message = str(status.get("message") or "")
        out.append(Change("rollout.phase", key, revision, at, {"phase": phase, "message": message}))
    return out


def workflow_essentials(obj: Obj) -> Obj:
    """What :func:`workflow_transitions` reads: labels, version, phase and the nodes'
    names, kinds, phases and messages (not their inputs, outputs or pods)."""
    meta, status = obj.get("metadata") or {}, obj.get("status") or {}
    nodes = {
        node_id: {
            k: n[k] for k in ("displayName", "type", "phase", "message", "startedAt") if k in n
        }
        for node_id, n in (status.get("nodes") or {}).items()
    }
    return {
        "metadata": {
            k: meta[k] for k in ("name", "namespace", "labels", "annotations") if k in meta
        },
        "status": {
            **{
                k: status[k] for k in ("phase", "startedAt", "finishedAt", "message") if k in status
            },
            "nodes": nodes,
        },
    }


def rollout_essentials(obj: Obj) -> Obj:
    meta, status = obj.get("metadata") or {}, obj.get("status") or {}
    kept = ("phase", "message", "currentStepIndex", "currentPodHash", "pauseConditions")
    return {
        "metadata": {k: meta[k] for k in ("name", "namespace", "resourceVersion") if k in meta},
        "status": {k: status[k] for k in kept if k in status},
    }
