"""The simulator's Applications: one thread-safe state that every access path serves.

Every change bumps one resourceVersion counter (as etcd does for the whole cluster), is
kept in a bounded history for resumable watches, and is pushed to open streams. The
scenario helpers move an app through the states the real controller produces; hooks let a
controller (:class:`~orchestrator.simulator.argocd.controller.GitController`) act on
refreshes and sync requests as Argo CD's would.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from orchestrator.argocd_shapes import API_VERSION, is_automated, is_multi_source, sources
from orchestrator.imagespec import ImageSpec
from orchestrator.simulator.argocd.clock import stamp_now
from orchestrator.simulator.argocd.events import App, Event, HistoryExpired, Subscription
from orchestrator.simulator.argocd.mutations import (
    begin_operation,
    end_operation,
    mark_reconciled,
    phase_of,
    requested_revisions,
    set_health,
    set_revisions,
)

IN_CLUSTER = "https://kubernetes.default.svc"


@dataclass
class ApiError(Exception):
    """A request the API server refuses: HTTP ``status`` and Argo CD's ``message``."""

    status: int
    message: str


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


def not_found(name: str) -> str:
    """Argo CD's message for a missing app (the Kubernetes API's NotFound, passed on)."""
    return f'applications.argoproj.io "{name}" not found'


HealthMessages = Literal["tree", "app"]
"""Where an app's health message goes: ``tree`` as Argo CD 3 (``resourceHealthSource:
appTree``: the app's health has no message; its workload's node in the resource tree has
it), ``app`` as Argo CD 2 (``status.health.message``)."""


class SimulatorState:
    """Applications in memory, changed by scenario helpers and by requests."""

    def __init__(
        self,
        namespace: str = "argocd",
        *,
        history: int = 1000,
        health_messages: HealthMessages = "tree",
    ) -> None:
        self.namespace = namespace
        self.health_messages = health_messages
        self.refreshes: list[tuple[str, str]] = []
        """``(app, normal|hard)`` for every refresh asked for (API query or annotation)."""
        self.syncs: list[tuple[str, dict[str, Any]]] = []
        """``(app, request body)`` for every accepted sync request."""
        self.on_refresh: Callable[[str, str], None] | None = None
        self.on_sync: Callable[[str, dict[str, Any]], None] | None = None
        self._lock = threading.RLock()
        self._apps: dict[str, App] = {}
        self._rv = 0
        self._log: deque[Event] = deque()
        self._history = history
        self._compacted = 0
        self._subscribers: set[Subscription] = set()
        self._failures: dict[str, str] = {}
        self._trees: dict[str, list[dict[str, Any]]] = {}
        self._workloads: dict[str, list[str]] = {}
        """Per app: the images of its one simulated Deployment's pod template."""
        self._stale_images: set[str] = set()
        self.image_specs: dict[str, ImageSpec] = {}
        """Per app: which image its files name (the product's template), for the
        controller to show the pods of a deployment running it."""

    # --- reading -------------------------------------------------------------------------

    @property
    def resource_version(self) -> int:
        with self._lock:
            return self._rv

    @property
    def compacted(self) -> int:
        """Changes up to this resourceVersion are no longer in the history."""
        with self._lock:
            return self._compacted

    def history(self, since: int = 0) -> list[Event]:
        """The retained changes after resourceVersion ``since``, oldest first."""
        with self._lock:
            return [e for e in self._log if e.resource_version > since]

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._apps)

    def app(self, name: str) -> App | None:
        with self._lock:
            found = self._apps.get(name)
            return copy.deepcopy(found) if found is not None else None

    def apps(self) -> list[App]:
        return self.snapshot()[0]

    def snapshot(self) -> tuple[list[App], int]:
        """Every app (sorted by name) and the resourceVersion they were read at."""
        with self._lock:
            return [copy.deepcopy(self._apps[n]) for n in sorted(self._apps)], self._rv

    # --- changing ------------------------------------------------------------------------

    def add_app(
        self,
        name: str,
        *,
        repo_url: str,
        path: str,
        target_revision: str = "main",
        revision: str = "",
        sync_status: str = "Synced",
        health: str = "Healthy",
        automated: bool = True,
        labels: dict[str, str] | None = None,
        sources: list[dict[str, Any]] | None = None,
        destination_namespace: str | None = None,
        project: str = "default",
        images: list[str] | None = None,
    ) -> App:
        """Create an Application (ADDED). With ``sources`` it is a multi-source app and
        ``repo_url``/``path`` are not used; ``revision`` then applies to every source."""
        now = stamp_now()
        destination = {"server": IN_CLUSTER, "namespace": destination_namespace or name}
        spec: App = {"project": project, "destination": destination}
        if sources:
            spec["sources"] = copy.deepcopy(sources)
        else:
            spec["source"] = {"repoURL": repo_url, "path": path, "targetRevision": target_revision}
        if automated:
            spec["syncPolicy"] = {"automated": {"prune": True, "selfHeal": True}}
        app: App = {
            "apiVersion": API_VERSION,
            "kind": "Application",
            "metadata": {
                "name": name,
                "namespace": self.namespace,
                "labels": dict(labels or {}),
                "uid": str(uuid.uuid4()),
                "generation": 1,
                "creationTimestamp": now,
            },
            "spec": spec,
            "status": {
                "sync": {"status": sync_status},
                "health": {"status": health, "lastTransitionTime": now},
                "reconciledAt": now,
                "controllerNamespace": self.namespace,
                "summary": {},
            },
        }
        status = app["status"]
        if self.health_messages == "tree":
            status["resourceHealthSource"] = "appTree"
        compared: App = {"destination": destination}
        if sources:
            compared["sources"] = copy.deepcopy(sources)
            status["sourceTypes"] = ["Directory" for _ in sources]
        else:
            compared["source"] = copy.deepcopy(spec["source"])
            status["sourceType"] = "Directory"
        status["sync"]["comparedTo"] = copy.deepcopy(compared)
        if revision:
            count = len(spec["sources"]) if sources else 1
            set_revisions(app["status"]["sync"], app, [revision] * count)
        if images:
            self._show_images(name, app, list(images), pods=True)
        with self._lock:
            if name in self._apps:
                raise ValueError(f"application {name} already exists")
            self._apps[name] = app
            self._emit("ADDED", app)
            return copy.deepcopy(app)

    def update(self, name: str, fn: Callable[[App], None]) -> None:
        """Change an app under the lock; one MODIFIED event, resourceVersion bumped, and
        ``metadata.generation`` bumped when the spec changed (as the API server does).
        ``fn`` works on a copy, so a change that raises leaves the app as it was."""
        with self._lock:
            current = self._apps.get(name)
            if current is None:
                raise KeyError(f"no application {name}")
            app = copy.deepcopy(current)
            fn(app)
            self._place_health_message(name, app)
            _workload_health(app)
            if app.get("spec") != current.get("spec"):
                meta = app["metadata"]
                meta["generation"] = int(meta.get("generation") or 0) + 1
            self._apps[name] = app
            self._emit("MODIFIED", app)

    def delete_app(self, name: str) -> None:
        with self._lock:
            app = self._apps.pop(name, None)
            if app is None:
                raise KeyError(f"no application {name}")
            self._trees.pop(name, None)
            self._workloads.pop(name, None)
            self._emit("DELETED", app)

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

    def _emit(self, kind: str, app: App) -> None:
        self._rv += 1
        app["metadata"]["resourceVersion"] = str(self._rv)
        event = Event(self._rv, kind, copy.deepcopy(app))
        self._log.append(event)
        while len(self._log) > self._history:
            self._compacted = self._log.popleft().resource_version
        for sub in self._subscribers:
            sub.push(event)

    # --- scenario helpers (each one update) ----------------------------------------------

    def set_sync(
        self,
        name: str,
        status: str,
        revision: str,
        revisions: list[str] | None = None,
        *,
        reconcile: bool = True,
    ) -> None:
        """The result of a comparison: ``status`` at ``revision`` (each source of a
        multi-source app at ``revisions``, or all at ``revision``). A comparison is a
        reconcile, so ``reconciledAt`` moves on unless ``reconcile`` is false."""

        def change(app: App) -> None:
            sync = app["status"]["sync"]
            sync["status"] = status
            set_revisions(sync, app, revisions or [revision] * len(sources(app)))
            if reconcile:
                mark_reconciled(app)

        self.update(name, change)

    def set_health(self, name: str, status: str, message: str = "") -> None:
        self.update(name, lambda app: set_health(app, status, message))

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

    def reconcile(self, name: str) -> None:
        """A reconcile that changed nothing but ``reconciledAt``."""
        self.update(name, mark_reconciled)

    def start_operation(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        """A sync operation picked up by the controller: ``operation`` set, phase Running."""
        self.update(name, lambda app: begin_operation(app, revision, revisions, None))

    def finish_operation(
        self,
        name: str,
        phase: str = "Succeeded",
        message: str = "successfully synced",
        reconcile: bool = True,
        revisions: list[str] | None = None,
    ) -> None:
        """End the running operation: ``finishedAt``, ``syncResult.revision(s)`` (the
        operation's, or ``revisions``), ``operation`` cleared. A Succeeded operation is
        added to the history. With ``reconcile`` the app is compared right after
        (``reconciledAt >= finishedAt``) and, if it Succeeded, Synced at those revisions;
        without it the status stays stale (``reconciledAt < finishedAt``). Health is left
        alone: a sync does not make an app Healthy."""
        self.update(name, lambda app: end_operation(app, phase, message, reconcile, revisions))

    def deploy(
        self,
        name: str,
        revision: str,
        *,
        health: str = "Healthy",
        message: str = "",
        revisions: list[str] | None = None,
    ) -> None:
        """The whole happy path in one change: an operation at ``revision`` Succeeded,
        reconciled after it, Synced at ``revision`` and ``health``."""

        def change(app: App) -> None:
            begin_operation(app, revision, revisions, None)
            end_operation(app, "Succeeded", "successfully synced", True, None)
            set_health(app, health, message)

        self.update(name, change)

    def fail_app(self, name: str, reason: str) -> None:
        """The next deployment :class:`GitController` makes of ``name`` ends Degraded
        (``promoflow demo --fail``)."""
        with self._lock:
            self._failures[name] = reason

    def take_failure(self, name: str) -> str | None:
        with self._lock:
            return self._failures.pop(name, None)

    # --- streams -------------------------------------------------------------------------

    def subscribe(self, since: int | None = None) -> Subscription:
        """Open a stream's mailbox on the running event loop. With ``since``, the changes
        after that resourceVersion come as ``backlog`` (``HistoryExpired`` when they are no
        longer kept); without, the current objects come as ``initial``. Taken under the
        lock, so no change falls between the snapshot and the live events."""
        sub = Subscription(asyncio.get_running_loop(), self._unsubscribe)
        with self._lock:
            if since is not None and since < self._compacted:
                raise HistoryExpired(since, self._compacted)
            if since is None:
                sub.initial = [copy.deepcopy(self._apps[n]) for n in sorted(self._apps)]
            else:
                sub.backlog = [e for e in self._log if e.resource_version > since]
            self._subscribers.add(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    # --- refresh and sync (shared by every access path) ----------------------------------

    def request_refresh(self, name: str, kind: str) -> None:
        """Record a refresh and let the controller act before the caller reads the app
        (the API server waits for a hard refresh to be processed)."""
        with self._lock:
            self.refreshes.append((name, kind))
        if self.on_refresh is not None:
            self.on_refresh(name, kind)

    def request_sync(self, name: str, body: dict[str, Any]) -> App:
        """A sync request, checked as the API server checks it; raises :class:`ApiError`."""
        revision = str(body.get("revision") or "")
        with self._lock:
            app = self._apps.get(name)
            if app is None:
                raise ApiError(404, not_found(name))
            if app.get("operation") or phase_of(app) in ("Running", "Terminating"):
                raise ApiError(400, "another operation is already in progress")
            single = not is_multi_source(app)
            if is_automated(app) and revision and not body.get("dryRun") and single:
                target = sources(app)[0].get("targetRevision") or "HEAD"
                if revision != target:
                    raise ApiError(
                        400, f"Cannot sync to {revision}: auto-sync currently set to {target}"
                    )
            requested = requested_revisions(app, body)
            revision = revision or str(sources(app)[0].get("targetRevision") or "HEAD")
            self.syncs.append((name, copy.deepcopy(body)))
            by = {"username": "admin"}
            self.update(name, lambda a: begin_operation(a, revision, requested, by, body))
            result = copy.deepcopy(self._apps[name])
        if self.on_sync is not None:
            self.on_sync(name, copy.deepcopy(result["operation"]))
        return result
