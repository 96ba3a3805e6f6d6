"""In-memory state of a fake Argo Server: Kubernetes-like objects per namespace (pure).

Behaves as the real server does where promoflow depends on it: server-side metadata
(uid, resourceVersion, creationTimestamp, generateName), conflicts on existing names,
optimistic concurrency on update, label selectors, and ``set`` on suspend nodes.
"""

from __future__ import annotations

import copy
import json
import secrets
import string
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

Obj = dict[str, Any]

GROUP = "argoproj.io"
RESOURCE = {"Workflow": "workflows", "WorkflowTemplate": "workflowtemplates"}


class ApiError(Exception):
    """A gRPC-gateway error: HTTP status, gRPC code and message, as Argo answers."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def body(self) -> Obj:
        return {"code": self.code, "message": self.message}


def not_found(kind: str, name: str) -> ApiError:
    return ApiError(404, 5, f'{RESOURCE[kind]}.{GROUP} "{name}" not found')


def matches(labels: dict[str, str], selector: str | None) -> bool:
    """``k=v,k2!=v2,k3`` label selectors (the subset promoflow and its tests use)."""
    for term in [t.strip() for t in (selector or "").split(",") if t.strip()]:
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key) != value.lstrip("="):
                return False
        elif term not in labels:
            return False
    return True


def _node_matches(node: Obj, selector: str) -> bool:
    for term in [t.strip() for t in selector.split(",") if t.strip()]:
        key, _, value = term.partition("=")
        if key == "templateRef.name":
            actual = (node.get("templateRef") or {}).get("name")
        else:
            actual = node.get(key)
        if str(actual) != value:
            return False
    return True


@dataclass
class Store:
    objects: dict[tuple[str, str, str], Obj] = field(default_factory=dict)
    version: int = 0

    def _stamp(self, obj: Obj, namespace: str) -> Obj:
        self.version += 1
        meta = obj.setdefault("metadata", {})
        meta["namespace"] = namespace
        meta["resourceVersion"] = str(self.version)
        meta.setdefault("uid", secrets.token_hex(16))
        meta.setdefault("creationTimestamp", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        return obj

    def create(self, kind: str, namespace: str, obj: Obj) -> Obj:
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        if not meta.get("name"):
            prefix = meta.get("generateName")
            if not prefix:
                raise ApiError(400, 3, "metadata.name or metadata.generateName is required")
            alphabet = string.ascii_lowercase + string.digits
            meta["name"] = prefix + "".join(secrets.choice(alphabet) for _ in range(5))
        key = (kind, namespace, meta["name"])
        if key in self.objects:
            raise ApiError(409, 6, f'{RESOURCE[kind]}.{GROUP} "{meta["name"]}" already exists')
        obj.setdefault("apiVersion", f"{GROUP}/v1alpha1")
        obj.setdefault("kind", kind)
        self.objects[key] = self._stamp(obj, namespace)
        return copy.deepcopy(obj)

    def get(self, kind: str, namespace: str, name: str) -> Obj:
        found = self.objects.get((kind, namespace, name))
        if found is None:
            raise not_found(kind, name)
        return copy.deepcopy(found)

    def list(self, kind: str, namespace: str, selector: str | None = None) -> list[Obj]:
        return [
            copy.deepcopy(obj)
            for (k, ns, _), obj in sorted(self.objects.items())
            if k == kind and ns == namespace
            and matches(obj["metadata"].get("labels") or {}, selector)
        ]  # fmt: skip

    def update(self, kind: str, namespace: str, name: str, obj: Obj) -> Obj:
        current = self.get(kind, namespace, name)
        meta = obj.get("metadata", {})
        if meta.get("name") != name:
            raise ApiError(400, 3, "the name in the body does not match the URL")
        given = meta.get("resourceVersion")
        if given and given != current["metadata"]["resourceVersion"]:
            raise ApiError(
                409, 10, f'Operation cannot be fulfilled on {RESOURCE[kind]}.{GROUP} "{name}": '
                "the object has been modified; please apply your changes to the latest version",
            )  # fmt: skip
        obj = copy.deepcopy(obj)
        obj["metadata"]["uid"] = current["metadata"]["uid"]
        obj["metadata"]["creationTimestamp"] = current["metadata"]["creationTimestamp"]
        self.objects[(kind, namespace, name)] = self._stamp(obj, namespace)
        return copy.deepcopy(obj)

    def delete(self, kind: str, namespace: str, name: str) -> None:
        self.get(kind, namespace, name)
        del self.objects[(kind, namespace, name)]

    def put(self, kind: str, namespace: str, obj: Obj) -> None:
        """Test control: store an object as the controller would have left it."""
        self.objects[(kind, namespace, obj["metadata"]["name"])] = self._stamp(
            copy.deepcopy(obj), namespace
        )

    def set_nodes(self, namespace: str, name: str, request: Obj) -> Obj:
        """``PUT .../set``: outputs, phase and message of *active* suspend nodes.

        As in Argo, only suspend nodes that are still running match the selector; when none
        does, the request fails ("currently, set only targets suspend nodes").
        """
        workflow = self.get("Workflow", namespace, name)
        selector = request.get("nodeFieldSelector") or ""
        outputs = json.loads(request["outputParameters"]) if request.get("outputParameters") else {}
        nodes = (workflow.get("status") or {}).get("nodes") or {}
        updated = 0
        for node in nodes.values():
            active = node.get("type") == "Suspend" and node.get("phase") == "Running"
            if not active or not _node_matches(node, selector):
                continue
            updated += 1
            if outputs:
                params = node.setdefault("outputs", {}).setdefault("parameters", [])
                for key, value in outputs.items():
                    existing = next((p for p in params if p["name"] == key), None)
                    if existing is None:
                        params.append({"name": key, "value": value})
                    else:
                        existing["value"] = value
            if request.get("phase"):
                node["phase"] = request["phase"]
            if request.get("message"):
                node["message"] = request["message"]
        if not updated:
            raise ApiError(500, 13, "currently, set only targets suspend nodes")
        self.objects[("Workflow", namespace, name)] = self._stamp(workflow, namespace)
        return copy.deepcopy(workflow)
