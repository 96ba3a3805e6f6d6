"""ReplicaSets of Applications: which images each workload runs, and whether its pods are
ready.

A ReplicaSet belongs to an app through its owner (a Deployment or an Argo Rollout) that
the app lists among its resources; its events are the app's (its labels, its
subscriptions). Counts move pod by pod during a rollout, so only the state they add up to
is reported, once per change: ``replicaset.progressing`` (fewer pods ready than wanted),
``replicaset.ready`` (all of them), ``replicaset.scaled-down`` (an old ReplicaSet emptied
by the rollout), each with the counts and the images as name, tag and digest.
"""

from __future__ import annotations

from typing import Any

from reporters.events.transitions import Change

Obj = dict[str, Any]
REVISION = "deployment.kubernetes.io/revision"


def image(reference: str) -> dict[str, str]:
    """``registry/repo:tag@sha256:...`` as its name, tag and digest (either may be empty)."""
    rest, _, digest = reference.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    name, tag = (rest[:colon], rest[colon + 1 :]) if colon > slash else (rest, "")
    return {"name": name, "tag": tag, "digest": digest}


def replicaset_essentials(obj: Obj) -> Obj:
    meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
    pod = ((spec.get("template") or {}).get("spec")) or {}
    owners = [
        {"kind": o.get("kind"), "name": o.get("name")}
        for o in meta.get("ownerReferences") or []
        if o.get("controller", True)
    ]
    return {
        "metadata": {
            "name": meta.get("name", ""),
            "namespace": meta.get("namespace", ""),
            "owners": owners,
            "revision": str((meta.get("annotations") or {}).get(REVISION, "")),
        },
        "replicas": int(spec.get("replicas", 1) or 0),
        "ready": int(status.get("readyReplicas") or 0),
        "available": int(status.get("availableReplicas") or 0),
        "containers": {
            str(c.get("name")): str(c.get("image") or "") for c in pod.get("containers") or []
        },
    }


def owner_of(rs: Obj) -> tuple[str, str, str] | None:
    """(kind, namespace, name) of the workload that controls it."""
    meta = rs.get("metadata") or {}
    for owner in meta.get("owners") or []:
        if owner.get("kind") in ("Deployment", "Rollout"):
            return str(owner["kind"]), str(meta.get("namespace", "")), str(owner["name"])
    return None


def state(rs: Obj | None) -> str:
    if rs is None:
        return ""
    if rs["replicas"] == 0:
        return "scaled-down"
    return "ready" if rs["ready"] >= rs["replicas"] else "progressing"


def images(rs: Obj) -> list[dict[str, str]]:
    return [{"container": c, **image(ref)} for c, ref in sorted(rs["containers"].items())]


def replicaset_transitions(old: Obj | None, new: Obj | None, app: str) -> list[Change]:
    """``app``: the key of the app it belongs to."""
    if new is None:
        return []
    now, was = state(new), state(old)
    if now == was or (old is None and now == "scaled-down"):
        return []
    meta = new["metadata"]
    owner = owner_of(new)
    data = {
        "replicaset": f"{meta['namespace']}/{meta['name']}",
        "workload": f"{owner[0]}/{owner[2]}" if owner else "",
        "images": images(new),
        "replicas": new["replicas"],
        "ready": new["ready"],
        "available": new["available"],
    }
    at = f"{meta['name']}:{meta['revision']}:{new['replicas']}:{new['ready']}"
    return [Change(f"replicaset.{now}", app, meta["revision"], at, data)]
