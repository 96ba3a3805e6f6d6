"""In-memory state of a fake Argo Server: Kubernetes-like objects per namespace (pure).

Behaves as the real server does where promoflow depends on it: server-side metadata
(uid, resourceVersion, creationTimestamp, generateName), conflicts on existing names,
optimistic concurrency on update, label selectors, ``set`` on suspend nodes (only of the
output parameters their template supplies), and specs stored as Go serialises them (empty
structs written out, empty optional strings dropped). Answers carry no ``apiVersion`` or
``kind``, as the Argo Server's typed objects do not (seen on v4.0.5).
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

    def stream_body(self) -> Obj:
        """As grpc-gateway answers a streaming call (``/log``) that fails before its first
        message: the error wrapped, with both codes and the HTTP status text."""
        from http import HTTPStatus

        return {
            "error": {
                "grpc_code": self.code,
                "http_code": self.status,
                "message": self.message,
                "http_status": HTTPStatus(self.status).phrase,
            }
        }


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


def _stored_container(container: Obj) -> None:
    container.setdefault("name", "")
    container.setdefault("resources", {})
    for env in container.get("env") or []:
        if env.get("value") == "":
            del env["value"]  # string, omitempty


def stored_spec(spec: Obj) -> Obj:
    """The spec as the Argo Server stores and answers it: struct fields that are not
    pointers are always serialised (``arguments``, ``inputs``, ``outputs``, ``metadata``,
    a container's ``name`` and ``resources``), empty omitempty strings are not."""
    spec = copy.deepcopy(spec)
    spec.setdefault("arguments", {})
    for template in spec.get("templates") or []:
        for key in ("inputs", "outputs", "metadata"):
            template.setdefault(key, {})
        for key in ("container", "script"):
            if isinstance(template.get(key), dict):
                _stored_container(template[key])
        for task in (template.get("dag") or {}).get("tasks") or []:
            task.setdefault("arguments", {})
        for group in template.get("steps") or []:
            for step in group:
                step.setdefault("arguments", {})
    return spec


def served(obj: Obj) -> Obj:
    """An object as answered: no ``apiVersion``/``kind``."""
    return {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("apiVersion", "kind")}


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

    def create(
        self, kind: str, namespace: str, obj: Obj, labels: dict[str, str] | None = None
    ) -> Obj:
        """Store a new object; ``labels``: the caller's creator labels, added to its own."""
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        if labels:
            meta["labels"] = {**(meta.get("labels") or {}), **labels}
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
        if isinstance(obj.get("spec"), dict):
            obj["spec"] = stored_spec(obj["spec"])
        self.objects[key] = self._stamp(obj, namespace)
        return served(obj)

    def require(self, kind: str, namespace: str, name: str) -> None:
        """404 NotFound unless the object exists (without copying it, as ``get`` does)."""
        if (kind, namespace, name) not in self.objects:
            raise not_found(kind, name)

    def get(self, kind: str, namespace: str, name: str) -> Obj:
        found = self.objects.get((kind, namespace, name))
        if found is None:
            raise not_found(kind, name)
        return served(found)

    def list(self, kind: str, namespace: str, selector: str | None = None) -> list[Obj]:
        return [
            served(obj)
            for (k, ns, _), obj in sorted(self.objects.items())
            if k == kind and ns == namespace
            and matches(obj["metadata"].get("labels") or {}, selector)
        ]  # fmt: skip

    def update(
        self, kind: str, namespace: str, name: str, obj: Obj, labels: dict[str, str] | None = None
    ) -> Obj:
        """Replace an object; ``labels``: the caller's actor labels (the body's own
        labels replace the stored ones, so creator labels it does not repeat are gone)."""
        current = self.get(kind, namespace, name)
        meta = obj.get("metadata", {})
        if meta.get("name") != name:
            raise ApiError(400, 3, "the name in the body does not match the URL")
        given = meta.get("resourceVersion")
        if given and given != current["metadata"]["resourceVersion"]:
            raise ApiError(  # gRPC AlreadyExists, as the Argo Server maps a conflict
                409, 6, f'Operation cannot be fulfilled on {RESOURCE[kind]}.{GROUP} "{name}": '
                "the object has been modified; please apply your changes to the latest version",
            )  # fmt: skip
        obj = copy.deepcopy(obj)
        if labels:
            obj["metadata"]["labels"] = {**(obj["metadata"].get("labels") or {}), **labels}
        obj["metadata"]["uid"] = current["metadata"]["uid"]
        obj["metadata"]["creationTimestamp"] = current["metadata"]["creationTimestamp"]
        obj.setdefault("apiVersion", f"{GROUP}/v1alpha1")
        obj.setdefault("kind", kind)
        if isinstance(obj.get("spec"), dict):
            obj["spec"] = stored_spec(obj["spec"])
        self.objects[(kind, namespace, name)] = self._stamp(obj, namespace)
        return served(obj)

    def delete(self, kind: str, namespace: str, name: str) -> None:
        self.get(kind, namespace, name)
        del self.objects[(kind, namespace, name)]

    def put(self, kind: str, namespace: str, obj: Obj) -> None:
        """Test control: store an object as the controller would have left it."""
        self.objects[(kind, namespace, obj["metadata"]["name"])] = self._stamp(
            copy.deepcopy(obj), namespace
        )

    def set_nodes(
        self, namespace: str, name: str, request: Obj, labels: dict[str, str] | None = None
    ) -> Obj:
        """``PUT .../set``: outputs, phase and message of *active* suspend nodes.

        As in Argo (``updateSuspendedNode``): only suspend nodes that are still running
        match the selector, and when none does the request fails ("currently, set only
        targets suspend nodes"); an output parameter can be set only when the node's
        template declares it ``valueFrom: {supplied: {}}``, once. Failures are 500/13 and
        change nothing. ``labels`` are the caller's actor labels, which replace any before.
        """
        found = self.objects.get(("Workflow", namespace, name))
        if found is None:
            raise not_found("Workflow", name)
        workflow = copy.deepcopy(found)
        selector = request.get("nodeFieldSelector") or ""
        outputs = json.loads(request["outputParameters"]) if request.get("outputParameters") else {}
        nodes = (workflow.get("status") or {}).get("nodes") or {}
        updated = 0
        for node in nodes.values():
            active = node.get("type") == "Suspend" and node.get("phase") == "Running"
            if not active or not _node_matches(node, selector):
                continue
            updated += 1
            if request.get("phase"):
                node["phase"] = request["phase"]
            if request.get("message"):
                node["message"] = request["message"]
            if outputs:
                _supply(node, outputs)
        if not updated:
            raise ApiError(500, 13, "currently, set only targets suspend nodes")
        meta = workflow["metadata"]
        meta["labels"] = {
            **{k: v for k, v in (meta.get("labels") or {}).items() if k not in ACTOR_KEYS},
            **(labels or {}),
        }
        self.objects[("Workflow", namespace, name)] = self._stamp(workflow, namespace)
        return served(workflow)

    def stop(self, namespace: str, name: str, request: Obj, labels: dict[str, str]) -> Obj:
        """``PUT .../stop``, as Argo's ``util.StopWorkflow``: with a ``nodeFieldSelector``
        the matching active suspend node fails with the request's ``message`` (the rules of
        ``set``); without one the message is ignored and ``spec.shutdown`` becomes ``Stop``,
        which the controller turns into a failed run (done here at once). A finished run
        cannot be stopped: 500/13, "cannot shutdown a completed workflow"."""
        if request.get("nodeFieldSelector"):
            node_request = {
                "nodeFieldSelector": request["nodeFieldSelector"],
                "phase": "Failed",
                "message": request.get("message") or "",
            }
            return self.set_nodes(namespace, name, node_request, labels)
        found = self.objects.get(("Workflow", namespace, name))
        if found is None:
            raise not_found("Workflow", name)
        workflow = copy.deepcopy(found)
        status = workflow.setdefault("status", {})
        if status.get("phase") in ("Succeeded", "Failed", "Error"):
            raise ApiError(
                500, 13, f'cannot shutdown a completed workflow: workflow: "{name}", '
                f'namespace: "{namespace}"',
            )  # fmt: skip
        workflow["spec"]["shutdown"] = "Stop"
        stopped = "Stopped with strategy 'Stop'"
        for node in (status.get("nodes") or {}).values():
            if node.get("phase") in ("Running", "Pending"):
                node.update(phase="Failed", message=stopped)
        status.update(phase="Failed", message=stopped)
        meta = workflow["metadata"]
        meta["labels"] = {
            **{k: v for k, v in (meta.get("labels") or {}).items() if k not in ACTOR_KEYS},
            **labels,
        }
        self.objects[("Workflow", namespace, name)] = self._stamp(workflow, namespace)
        return served(workflow)


ACTOR_KEYS = frozenset(
    f"workflows.argoproj.io/{key}"
    for key in ("actor", "actor-email", "actor-preferred-username", "action")
)


def _supply(node: Obj, values: dict[str, Any]) -> None:
    declared = (node.get("outputs") or {}).get("parameters")
    if declared is None:
        raise ApiError(
            500, 13, "cannot set output parameters because node is not expecting any raw parameters"
        )
    for key, value in values.items():
        param = next((p for p in declared if p.get("name") == key), None)
        if param is None:
            raise ApiError(500, 13, f"node is not expecting output parameter '{key}'")
        if (param.get("valueFrom") or {}).get("supplied") is None:
            raise ApiError(
                500, 13, f"cannot set output parameter '{key}' because it does not use "
                "valueFrom.raw or it was already set",
            )  # fmt: skip
        param["value"] = str(value)
        param.pop("valueFrom", None)
