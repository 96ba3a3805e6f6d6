"""From watched states to delivered events: what each app looked like last, what it looks
like now, and the changes between (:mod:`reporters.events.transitions`), each with its
deterministic id, handed to every sink."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from orchestrator.argocd_shapes import unsettled
from reporters.enrich.enricher import Enricher
from reporters.events.ids import event_id
from reporters.events.resources import (
    rollout_essentials,
    rollout_transitions,
    workflow_essentials,
    workflow_transitions,
)
from reporters.events.transitions import ENVIRONMENT, PRODUCT, Change, essentials, transitions
from reporters.state.store import Store

App = dict[str, Any]


@dataclass(frozen=True)
class Event:
    id: str
    change: Change
    labels: dict[str, str] = field(default_factory=dict)
    """The app's promoflow labels (product, environment), when it carries them."""

    @property
    def product(self) -> str:
        return self.labels.get(PRODUCT, "")

    @property
    def environment(self) -> str:
        return self.labels.get(ENVIRONMENT, "")

    def cloudevent(self, source: str = "promoflow/reporter") -> dict[str, Any]:
        """CloudEvents 1.0, structured JSON."""
        change = self.change
        return {
            "specversion": "1.0",
            "id": self.id,
            "source": source,
            "type": change.type,
            "subject": change.app,
            "time": change.at or None,
            "datacontenttype": "application/json",
            "data": {
                "app": change.app,
                "revision": change.revision,
                **({"product": self.product} if self.product else {}),
                **({"environment": self.environment} if self.environment else {}),
                **change.data,
            },
        }


@dataclass
class Pipeline:
    """Turns each app's newest state into events and records both in the store (the
    events once per sink, in the outbox the sinks' workers deliver from)."""

    store: Store
    sinks: list[str]
    on_events: Callable[[list[Event]], None] = lambda events: None
    """Told of every change's events once they are stored (wakes the sinks, the stream)."""
    enricher: Enricher | None = None
    ui: str = ""
    """The Argo Workflows UI, for promotion links."""
    seen: dict[str, App] = field(default_factory=dict)
    settled: dict[str, App] = field(default_factory=dict)
    emitted: int = 0

    def __post_init__(self) -> None:
        for key, (seen, settled) in self.store.apps().items():
            if seen is not None:
                self.seen[key] = seen
            if settled is not None:
                self.settled[key] = settled

    def handle(self, key: str, app: App | None) -> list[Event]:
        """One app's newest state (``None``: deleted); keys with a kind prefix
        (``workflows:ns/name``) are the resources around apps."""
        kind, _, _ = key.rpartition(":")
        if kind:
            return self._resource(kind, key, app)
        old = self.seen.get(key)
        if app is None and old is None:
            return []
        new = essentials(app) if app is not None else None
        changes = transitions(old, new, self.settled.get(key))
        if self.enricher is not None:
            enriched = (self.enricher.enrich(c, self.settled.get(key), new) for c in changes)
            changes = [c for c in enriched if c is not None]
        if new is None:
            self.seen.pop(key, None)
            self.settled.pop(key, None)
        else:
            self.seen[key] = new
            if not unsettled(new):
                self.settled[key] = new
        labels = ((new or old or {}).get("metadata") or {}).get("labels") or {}
        repo = _repo(new or old)
        if repo:
            changes = [replace(c, data={**c.data, "repo": repo}) for c in changes]
        events = [Event(event_id(c), c, dict(labels)) for c in changes]
        if events or new != old:
            self.store.record(
                key,
                new,
                self.settled.get(key),
                [(e.id, e.cloudevent()) for e in events],
                self.sinks,
            )
        self.emitted += len(events)
        if events:
            self.on_events(events)
        return events

    def _resource(self, kind: str, key: str, obj: App | None) -> list[Event]:
        trim, changes_of = RESOURCES[kind]
        old = self.seen.get(key)
        new = trim(obj) if obj is not None else None
        changes = changes_of(old, new, self.ui) if kind == "workflows" else changes_of(old, new)
        if new is None:
            self.seen.pop(key, None)
        else:
            self.seen[key] = new
        events = [Event(event_id(c), c, self._labels(new or old)) for c in changes]
        if events or new != old:
            events_rows = [(e.id, e.cloudevent()) for e in events]
            self.store.record(key, new, None, events_rows, self.sinks)
        self.emitted += len(events)
        if events:
            self.on_events(events)
        return events

    @staticmethod
    def _labels(obj: App | None) -> dict[str, str]:
        labels = ((obj or {}).get("metadata") or {}).get("labels") or {}
        return {k: v for k, v in labels.items() if k in (PRODUCT, ENVIRONMENT)}


def _repo(app: App | None) -> str:
    """The repository of a single-source app (what a commit status is set on)."""
    source = ((app or {}).get("spec") or {}).get("source") or {}
    return str(source.get("repoURL") or "")


RESOURCES: dict[str, tuple[Callable[[App], App], Callable[..., list[Change]]]] = {
    "workflows": (workflow_essentials, workflow_transitions),
    "rollouts": (rollout_essentials, rollout_transitions),
}
"""The resources reported besides Applications, by the key prefix their watcher uses."""
