"""What each simulated app deploys: one Deployment named after it, its pods, and the
resource tree Argo CD shows for it.

The gate and the reporters read more than an Application: why an app is Degraded (in
Argo CD 3 a message on a node of the resource tree, not on the app), which images its
pods run (``status.summary.images``, the tree's pods), and the workload itself, through
``/managed-resources`` or the Kubernetes API. These are kept here, beside the apps in the
:class:`~.store.ApplicationStore` and under its lock, and follow every change of an app's
health.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal

from orchestrator.imagespec import ImageSpec
from orchestrator.simulator.argocd.events import App
from orchestrator.simulator.argocd.store import ApplicationStore


def _node_key(node: dict[str, Any]) -> tuple[str, str, str]:
    return (node["kind"], node["namespace"], node["name"])


def _ref_key(ref: dict[str, Any]) -> tuple[str, str, str, str]:
    return (ref.get("group", ""), ref["kind"], ref.get("namespace", ""), ref["name"])


def _workload_health(app: App) -> None:
    """The simulated Deployment's entry in ``status.resources`` has the app's health (its
    message, in Argo CD 3, only in the resource tree)."""
    status = app.get("status") or {}
    for ref in status.get("resources") or []:
        if ref.get("group") == "apps" and ref.get("kind") == "Deployment" and "health" in ref:
            ref["health"] = {"status": (status.get("health") or {}).get("status", "Healthy")}


def _destination_namespace(app: App, name: str) -> str:
    return str(((app.get("spec") or {}).get("destination") or {}).get("namespace") or name)


HealthMessages = Literal["tree", "app"]
"""Where an app's health message goes: ``tree`` as Argo CD 3 (``resourceHealthSource:
appTree``: the app's health has no message; its workload's node in the resource tree has
it), ``app`` as Argo CD 2 (``status.health.message``)."""


class SimulatedResources(ApplicationStore):
    """Applications in memory with the resources each one deploys."""

    def __init__(
        self,
        namespace: str = "argocd",
        *,
        history: int = 1000,
        health_messages: HealthMessages = "tree",
    ) -> None:
        super().__init__(namespace, history=history)
        self.health_messages = health_messages
        self._trees: dict[str, list[dict[str, Any]]] = {}
        self._workloads: dict[str, list[str]] = {}
        """Per app: the images of its one simulated Deployment's pod template."""
        self._stale_images: set[str] = set()
        self.image_specs: dict[str, ImageSpec] = {}
        """Per app: which image its files name (the product's template), for the
        controller to show the pods of a deployment running it."""

    def _settle(self, name: str, app: App) -> None:
        self._place_health_message(name, app)
        _workload_health(app)

    def _forget(self, name: str) -> None:
        self._trees.pop(name, None)
        self._workloads.pop(name, None)

    def _place_health_message(self, name: str, app: App) -> None:
        """Argo CD 3 moves a health message off the app onto its workload's resource node
        (here ``Deployment DEST_NAMESPACE/NAME``), whose health then follows the app's."""
        if self.health_messages != "tree":
            return
        health = app.get("status", {}).get("health") or {}
        message = health.pop("message", None)
        namespace = (app.get("spec", {}).get("destination") or {}).get("namespace") or name
        key = ("Deployment", namespace, name)
        nodes = self._trees.get(name, [])
        if message is None and not any(_node_key(n) == key for n in nodes):
            return
        node_health = {"status": health.get("status", "Unknown")}
        if message:
            node_health["message"] = message
        node = {"kind": key[0], "namespace": namespace, "name": name, "health": node_health}
        self._trees[name] = [*(n for n in nodes if _node_key(n) != key), node]

    # --- the resource tree ---------------------------------------------------------------

    def set_resource_health(
        self, name: str, kind: str, resource: str, status: str, message: str = ""
    ) -> None:
        """One resource of the app (``namespace/name``) in the resource tree, with its health:
        where Argo CD 3 keeps why an app is Degraded (the app's own health has no message)."""
        namespace, _, res_name = resource.rpartition("/")
        health = {"status": status, **({"message": message} if message else {})}
        node = {"kind": kind, "namespace": namespace, "name": res_name, "health": health}
        with self._lock:
            nodes = [
                n for n in self._trees.get(name, []) if _node_key(n) != (kind, namespace, res_name)
            ]
            self._trees[name] = [*nodes, node]

    def resource_tree(self, name: str) -> dict[str, Any]:
        """``/resource-tree``'s answer: ``{"nodes": [...]}`` (ResourceNode shapes)."""
        with self._lock:
            return {"nodes": [dict(n) for n in self._trees.get(name, [])]}

    # --- what the app runs (a simulation: one Deployment named after the app) --------------

    def set_images(self, name: str, images: list[str], *, pods: bool = True) -> None:
        """The app's workload now runs ``images``: its Deployment's pod template, in
        ``status.resources``, the resource tree and the managed resources; its pods in
        ``status.summary.images`` (sorted, as Argo CD lists them) unless ``pods`` is false
        (Argo CD has not listed the new pods yet: only the workload shows the image)."""
        self.update(name, lambda app: self._show_images(name, app, list(images), pods=pods))

    def _show_images(self, name: str, app: App, images: list[str], *, pods: bool) -> None:
        namespace = _destination_namespace(app, name)
        status = app["status"]
        summary = status.setdefault("summary", {})
        if pods and images:
            summary["images"] = sorted(set(images))
        else:
            summary.pop("images", None)
        ref = {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": namespace,
               "name": name}  # fmt: skip
        resources = [r for r in status.get("resources") or [] if _ref_key(r) != _ref_key(ref)]
        health = {"status": (status.get("health") or {}).get("status", "Healthy")}
        status["resources"] = [*resources, {**ref, "status": "Synced", "health": health}]
        with self._lock:
            self._workloads[name] = list(images)
            # the tree lists the pods with their images (what the summary is made of); the
            # Deployment's own node is the one health messages go to (_place_health_message)
            nodes = [n for n in self._trees.get(name, []) if n.get("kind") != "Pod"]
            if pods and images:
                pod = {"version": "v1", "kind": "Pod", "namespace": namespace,
                       "name": f"{name}-{uuid.uuid4().hex[:10]}", "images": sorted(set(images)),
                       "parentRefs": [ref], "health": {"status": "Healthy"}}  # fmt: skip
                nodes.append(pod)
            self._trees[name] = nodes

    def workload(self, name: str) -> dict[str, Any] | None:
        """The app's simulated Deployment, as the Kubernetes API would serve it (``None``
        before it runs any image)."""
        with self._lock:
            app, images = self._apps.get(name), self._workloads.get(name)
            if app is None or images is None:
                return None
            namespace = _destination_namespace(app, name)
        containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"app.kubernetes.io/instance": name}},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}},
                             "spec": {"containers": containers}},
            },
        }  # fmt: skip

    def find_workload(self, namespace: str, kind: str, name: str) -> dict[str, Any] | None:
        """A simulated workload by what the Kubernetes API is asked (``Deployment`` in
        ``namespace``), wherever its app is."""
        if kind != "Deployment":
            return None
        found = self.workload(name)
        if found is None or found["metadata"]["namespace"] != namespace:
            return None
        return found

    def managed_resources(self, name: str) -> dict[str, Any]:
        """``/managed-resources``' answer: a ``ResourceDiff`` per managed resource, the
        live and target states as JSON text (here the simulated Deployment only)."""
        manifest = self.workload(name)
        if manifest is None:
            return {"items": None}  # Go marshals an empty typed list as null
        state = json.dumps(manifest, separators=(",", ":"))
        meta = manifest["metadata"]
        item = {"group": "apps", "kind": "Deployment", "namespace": meta["namespace"],
                "name": meta["name"], "targetState": state, "liveState": state,
                "normalizedLiveState": state, "predictedLiveState": state,
                "resourceVersion": str(self.resource_version)}  # fmt: skip
        return {"items": [item]}

    def stale_image(self, name: str) -> None:
        """From now on ``name``'s deployments keep the image its pods run: a chart that
        reads another value than the promoted one (``promoflow demo --stale-image``). The
        simulated fault the image check exists for."""
        with self._lock:
            self._stale_images.add(name)

    def keeps_image(self, name: str) -> bool:
        with self._lock:
            return name in self._stale_images
