"""The simulator's Applications as the real controller moves them: one state that every
access path serves.

The Applications are kept as the API server keeps them (:mod:`.store`), with what each one
deploys (:mod:`.resources`). The scenario helpers here move an app through the states the
real controller produces; sync and refresh requests are checked as the API server checks
them, whichever API they come through, and hooks let a controller
(:class:`~orchestrator.simulator.argocd.controller.GitController`) act on them as Argo CD's
would.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestrator.argocd_shapes import API_VERSION, is_automated, is_multi_source, sources
from orchestrator.simulator.argocd.clock import stamp_now
from orchestrator.simulator.argocd.events import App
from orchestrator.simulator.argocd.mutations import (
    begin_operation,
    end_operation,
    mark_reconciled,
    phase_of,
    requested_revisions,
    set_health,
    set_revisions,
)
from orchestrator.simulator.argocd.resources import HealthMessages, SimulatedResources

IN_CLUSTER = "https://kubernetes.default.svc"


@dataclass
class ApiError(Exception):
    """A request the API server refuses: HTTP ``status`` and Argo CD's ``message``."""

    status: int
    message: str


def not_found(name: str) -> str:
    """Argo CD's message for a missing app (the Kubernetes API's NotFound, passed on)."""
    return f'applications.argoproj.io "{name}" not found'


class SimulatorState(SimulatedResources):
    """Applications in memory, changed by scenario helpers and by requests."""

    def __init__(
        self,
        namespace: str = "argocd",
        *,
        history: int = 1000,
        health_messages: HealthMessages = "tree",
    ) -> None:
        super().__init__(namespace, history=history, health_messages=health_messages)
        self.refreshes: list[tuple[str, str]] = []
        """``(app, normal|hard)`` for every refresh asked for (API query or annotation)."""
        self.syncs: list[tuple[str, dict[str, Any]]] = []
        """``(app, request body)`` for every accepted sync request."""
        self.on_refresh: Callable[[str, str], None] | None = None
        self.on_sync: Callable[[str, dict[str, Any]], None] | None = None
        self._failures: dict[str, str] = {}

    # --- creating ------------------------------------------------------------------------

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
