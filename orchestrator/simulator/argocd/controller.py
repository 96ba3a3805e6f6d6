"""Argo CD's application controller in miniature, following commits in Git repositories.

Local runs (``promoflow promote --local``) and the demo have no cluster: this controller
turns a promotion commit into what Argo CD would show for it, OutOfSync, a sync operation,
Synced and Progressing, then Healthy, in the same order and as the same kind of changes.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from orchestrator.argocd_shapes import REFRESH_ANNOTATION, is_automated, sources
from orchestrator.imagefile import image_in
from orchestrator.imagespec import ImageSpecError
from orchestrator.simulator.argocd.events import App
from orchestrator.simulator.argocd.mutations import end_operation, set_health
from orchestrator.simulator.argocd.resolver import SHA, Reader, Resolver
from orchestrator.simulator.argocd.state import SimulatorState


@dataclass
class _Plan:
    revisions: list[str]
    stage: str
    """outofsync | running | progressing"""
    due: float


@dataclass
class GitController:
    """Argo CD's application controller in miniature, for local demos.

    Every ``interval`` (and at once on a hard refresh), each app's sources are resolved
    with ``resolve``; when the result differs from what the app runs, the app turns
    OutOfSync at the new commit, and after ``delay`` (automated apps; others wait for a
    sync request) an operation runs to it: Running, then Succeeded and Synced with health
    Progressing, then Healthy after another ``delay``, or Degraded when
    :meth:`~.state.SimulatorState.fail_app` asked for it. Apps whose repository ``resolve`` does
    not know are left to the scenario.

    With ``read`` (files at commits), an app whose image the simulator knows
    (``sim.image_specs``) shows, as its rollout starts, the image its files at the
    deployed commit name: what a real cluster would then run, read from the fields the
    promote step writes. :meth:`~.resources.SimulatedResources.stale_image` keeps the old one.
    """

    sim: SimulatorState
    resolve: Resolver
    delay: float = 0.3
    interval: float | None = None
    read: Reader | None = None
    _plans: dict[str, _Plan] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _wake: threading.Event = field(default_factory=threading.Event)
    _stopping: bool = False
    _thread: threading.Thread | None = None

    def start(self) -> GitController:
        self.sim.on_refresh = self._on_refresh
        self.sim.on_sync = self._on_sync
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="argocd-controller", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.sim.on_refresh = None
        self.sim.on_sync = None

    def __enter__(self) -> GitController:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _run(self) -> None:
        interval = self.interval if self.interval is not None else max(self.delay / 3, 0.01)
        while not self._stopping:
            self._wake.wait(interval)
            self._wake.clear()
            if not self._stopping:
                self.tick()

    def tick(self) -> None:
        """One pass over every app: notice new commits, move deployments along."""
        with self._lock:
            names = self.sim.names()
            for gone in set(self._plans) - set(names):
                del self._plans[gone]
            for name in names:
                try:
                    self._observe(name)
                    self._advance(name)
                except KeyError:  # deleted meanwhile
                    self._plans.pop(name, None)

    def _wanted(self, app: App) -> list[str] | None:
        wanted = []
        for source in sources(app):
            sha = self.resolve(
                source.get("repoURL", ""),
                source.get("targetRevision") or "HEAD",
                source.get("path") or "",
            )
            if sha is None:
                return None
            wanted.append(sha)
        return wanted or None

    def _observe(self, name: str) -> None:
        app = self.sim.app(name)
        if app is None:
            return
        plan = self._plans.get(name)
        if plan is not None and plan.stage == "running":
            return  # a newer commit is noticed once the operation ends, as Argo CD does
        wanted = self._wanted(app)
        if wanted is None or (plan is not None and plan.revisions == wanted):
            return
        sync = app["status"].get("sync") or {}
        current = list(sync.get("revisions") or [sync.get("revision") or ""])
        if plan is None and sync.get("status") == "Synced" and current == wanted:
            return
        # the comparison is made at the new commit, so the revision moves before the sync
        self.sim.set_sync(name, "OutOfSync", wanted[0], wanted)
        self._plans[name] = _Plan(wanted, "outofsync", time.monotonic() + self.delay)

    def _advance(self, name: str) -> None:
        plan = self._plans.get(name)
        if plan is None or time.monotonic() < plan.due:
            return
        if plan.stage == "outofsync":
            app = self.sim.app(name)
            if app is None or not is_automated(app):
                return  # manual sync policy: wait for a sync request
            self.sim.start_operation(name, plan.revisions[0], plan.revisions)
            plan.stage, plan.due = "running", time.monotonic() + self.delay / 2
        elif plan.stage == "running":
            # One change, as one reconcile of Argo CD: the sync ends and the new
            # ReplicaSet makes the app Progressing at once, never Healthy in between.
            revisions = plan.revisions

            def finish(app: App) -> None:
                end_operation(app, "Succeeded", "successfully synced", True, revisions)
                set_health(app, "Progressing", "waiting for rollout to finish")

            self.sim.update(name, finish)
            self._roll_out_image(name, revisions)
            plan.stage, plan.due = "progressing", time.monotonic() + self.delay
        else:
            reason = self.sim.take_failure(name)
            if reason:
                self.sim.set_health(name, "Degraded", reason)
            else:
                self.sim.set_health(name, "Healthy")
            del self._plans[name]

    def images_at(self, name: str, revisions: list[str]) -> list[str] | None:
        """The image the app's files name at ``revisions`` (``None``: not known)."""
        spec, app = self.sim.image_specs.get(name), self.sim.app(name)
        if spec is None or app is None or self.read is None:
            return None
        for source, revision in zip(sources(app), revisions, strict=False):
            path = "/".join(p.strip("/") for p in (source.get("path") or "", spec.file) if p)
            text = self.read(source.get("repoURL", ""), revision, path)
            if text is None:
                continue
            try:
                image = image_in(spec, text, path)
            except ImageSpecError:
                return None
            if image is not None:
                return [image.reference]
        return None

    def _roll_out_image(self, name: str, revisions: list[str]) -> None:
        images = self.images_at(name, revisions)
        if images is not None and not self.sim.keeps_image(name):
            self.sim.set_images(name, images)

    def _on_refresh(self, name: str, kind: str) -> None:
        """Compare now, so the refreshed app the caller reads already shows a new commit;
        a refresh asked through the annotation is acknowledged by removing it."""
        with self._lock:
            app = self.sim.app(name)
            annotations = ((app or {}).get("metadata") or {}).get("annotations") or {}
            if REFRESH_ANNOTATION in annotations:
                self.sim.update(
                    name, lambda a: a["metadata"]["annotations"].pop(REFRESH_ANNOTATION, None)
                )
            self._observe(name)

    def _on_sync(self, name: str, operation: dict[str, Any]) -> None:
        """A sync request runs now: resolve branch names to commits, finish after a while."""
        with self._lock:
            app = self.sim.app(name)
            if app is None:
                return
            sync = operation.get("sync") or {}
            asked = list(sync.get("revisions") or [sync.get("revision") or ""])
            revisions = []
            for source, rev in zip(sources(app), asked, strict=False):
                if SHA.match(rev):
                    revisions.append(rev)
                    continue
                resolved = self.resolve(
                    source.get("repoURL", ""),
                    rev or source.get("targetRevision") or "HEAD",
                    source.get("path") or "",
                )
                revisions.append(resolved or rev)
            self._plans[name] = _Plan(revisions, "running", time.monotonic() + self.delay / 2)
        self._wake.set()
