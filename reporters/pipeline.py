"""From watched states to delivered events: what each app looked like last, what it looks
like now, and the changes between (:mod:`reporters.events.transitions`), each with its
deterministic id, handed to every sink."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from orchestrator.argocd_shapes import unsettled
from orchestrator.urls import scrub_data, scrub_like
from reporters.enrich.enricher import Enricher
from reporters.events import transitions
from reporters.events.ids import event_id
from reporters.events.replicasets import (
    images,
    owner_of,
    replicaset_essentials,
    replicaset_transitions,
)
from reporters.events.reports import change_of
from reporters.events.resources import (
    rollout_essentials,
    rollout_transitions,
    workflow_essentials,
    workflow_transitions,
)
from reporters.events.transitions import ENVIRONMENT, PRODUCT, Change, essentials
from reporters.notifications.notifier import Broadcast, Notifier, Routed
from reporters.state.store import Store
from reporters.whole import WholeApps

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
    notifier: Notifier | None = None
    """Configured notifications (services, triggers, subscriptions), besides ``sinks``."""
    on_workflow: Callable[[App], None] | None = None
    """Told of each promotion Workflow's newest state, whole (writes the run's message)."""
    secrets: tuple[str, ...] = ()
    """The reporter's own secrets (tokens, webhook secrets): masked, in any form they are
    echoed in, wherever they appear, with the credentials of URLs
    (:func:`orchestrator.urls.scrub_data`), before a state is kept or an event leaves."""
    seen: dict[str, App] = field(default_factory=dict)
    settled: dict[str, App] = field(default_factory=dict)
    emitted: int = 0
    whole: WholeApps = field(default_factory=WholeApps)
    """Each app's latest whole object, for triggers and templates (kept only with a
    notifier): they read fields :func:`essentials` drops."""

    def __post_init__(self) -> None:
        self._broadcast = Broadcast(self.sinks)
        self._told: list[Event] | None = None
        """Events of the batch being recorded, told once it is committed."""
        if self.notifier is not None:
            self.notifier.restore(self.store.conditions())
        self._owners: dict[tuple[str, str, str], str] = {}
        """(kind, namespace, name) of a workload -> the app listing it among its resources."""
        self._current: dict[tuple[str, str, str], str] = {}
        """A workload -> the key of its newest ReplicaSet with pods wanted."""
        self.secrets = tuple(s for s in self.secrets if s)
        for key, (kept, kept_settled) in self.store.apps().items():
            # scrubbed again with this process's secrets: a state kept by an earlier one
            # is the base of scrub_like, which trusts it to be clean of them
            seen = self._clean(kept) if kept is not None else None
            settled = self._clean(kept_settled) if kept_settled is not None else None
            if seen is not None:
                self.seen[key] = seen
                self._index(key, None, seen)
            if settled is not None:
                self.settled[key] = settled

    def _index(self, key: str, old: App | None, new: App | None) -> None:
        if key.startswith(REPLICASETS):
            rs = new or old or {}
            owner = owner_of(rs)
            if owner is None:
                return
            current = self.seen.get(self._current.get(owner, ""))
            if new is not None and new["replicas"] > 0:
                if current is None or _revision(new) >= _revision(current):
                    self._current[owner] = key
            elif self._current.get(owner) == key:
                del self._current[owner]
            return
        if ":" in key:
            return
        for workload in ((old or {}).get("status") or {}).get("resources") or []:
            self._owners.pop(_workload(workload), None)
        for workload in ((new or {}).get("status") or {}).get("resources") or []:
            self._owners[_workload(workload)] = key

    def workloads(self, app: App | None) -> list[dict[str, Any]]:
        """The images each workload of ``app`` runs, from its newest ReplicaSet."""
        out = []
        for workload in ((app or {}).get("status") or {}).get("resources") or []:
            rs = self.seen.get(self._current.get(_workload(workload), ""))
            if rs is not None:
                out.append({
                    "kind": workload["kind"], "namespace": workload.get("namespace", ""),
                    "name": workload["name"], "images": images(rs),
                })  # fmt: skip
        return out

    def handle(self, key: str, app: App | None) -> list[Event]:
        """One app's newest state (``None``: deleted); keys with a kind prefix
        (``workflows:ns/name``) are the resources around apps."""
        kind, _, _ = key.rpartition(":")
        if kind:
            return self._resource(kind, key, app)
        old = self.seen.get(key)
        if app is None and old is None:
            return []
        new = self._clean_state(old, essentials(app)) if app is not None else None
        changes = transitions.transitions(old, new, self.settled.get(key))
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
        self._index(key, old, new)
        labels = ((new or old or {}).get("metadata") or {}).get("labels") or {}
        repo = _repo(new or old)
        if repo:
            changes = [replace(c, data={**c.data, "repo": repo}) for c in changes]
        if any(c.type in WITH_WORKLOADS for c in changes) and (running := self.workloads(new)):
            changes = [
                replace(c, data={**c.data, "workloads": running}) if c.type in WITH_WORKLOADS else c
                for c in changes
            ]
        events = [Event(event_id(c), c, _promoflow(labels)) for c in changes]
        if self.notifier is None:
            return self._commit(key, old, new, self.settled.get(key), events)
        whole = app if app is not None else self.whole.get(key)
        if app is not None:
            self.whole.keep(key, app)
        else:
            self.whole.drop(key)
        return self._commit(key, old, new, self.settled.get(key), events, whole=whole)

    def _commit(
        self,
        key: str,
        old: App | None,
        new: App | None,
        settled: App | None,
        events: list[Event],
        about: tuple[str, App | None] | None = None,
        *,
        whole: App | None = None,
    ) -> list[Event]:
        """Route the events (to every ``--sink``, and as the notifications say) and store
        them with the object's new state, in one transaction. ``about``: the app whose
        subscriptions apply, when the object is one of its resources."""
        subject_key, subject = about or (key, new or old)
        if about is not None and self.notifier is not None and events:
            whole = self.whole.get(subject_key)
        events = [self._scrubbed(event) for event in events]
        routed = Routed()
        for event in events:
            cloudevent = event.cloudevent()  # of a scrubbed event: as clean as it goes out
            routed.add(self._broadcast.route(key, cloudevent, new or old))
            if self.notifier is not None:
                notified = self.notifier.route(subject_key, cloudevent, subject, whole)
                # what a template renders is scrubbed again: it may join parts into a URL
                notified.outgoing = [
                    o._replace(event=self._clean(o.event)) for o in notified.outgoing
                ]
                routed.add(notified)
        if not events and about is None and whole is not None and self.notifier is not None:
            # no event, yet a state condition may turn true on any update of the whole
            # object (a deletionTimestamp, a condition): Argo CD evaluates every update
            change, labels = transitions.changed(key, whole, subject), _labels(subject)
            envelope = self._scrubbed(Event(event_id(change), change, _promoflow(labels)))
            notified = self.notifier.route(
                key, envelope.cloudevent(), subject, whole, states_only=True
            )
            notified.outgoing = [o._replace(event=self._clean(o.event)) for o in notified.outgoing]
            routed.add(notified)
        if events or routed.conditions or routed.outgoing or not _churn(old, new):
            self.store.record(key, new, settled, routed.outgoing, routed.conditions, routed.cancel)
        self.emitted += len(events)
        if self._told is not None:
            self._told += events
        elif events:
            self.on_events(events)
        return events

    def _clean_state(self, old: App | None, new: App) -> App:
        """``new`` scrubbed. Most watch events are Argo CD's reconcile, equal to the kept
        (clean) state but for ``status.reconciledAt``: then only that is scrubbed; the
        others change a few fields, and only those are (:func:`scrub_like`)."""
        if old is None:
            return self._clean(new)
        if _churn(old, new):
            status = new["status"]
            return {
                **new,
                "status": {**status, **self._clean({"reconciledAt": status.get("reconciledAt")})},
            }
        cleaned: App = scrub_like(new, old, self.secrets)  # the kept state is clean already
        return cleaned

    def _clean(self, value: App) -> App:
        cleaned: App = scrub_data(value, self.secrets)
        return cleaned

    def _scrubbed(self, event: Event) -> Event:
        """The event with no credential in its data (commits, issues, messages and
        reports come from elsewhere than the states, which are clean already)."""
        c = event.change  # built directly: dataclasses.replace costs more than the scrub
        clean = Change(c.type, c.app, c.revision, c.at, self._clean(c.data))
        return Event(event.id, clean, event.labels)

    def handle_all(self, items: list[tuple[str, App | None]]) -> list[Event]:
        """Several states in one store transaction; their events are told once it is
        committed (a sink's worker reads only what is)."""
        self._told = []
        try:
            with self.store.batch():
                for key, obj in items:
                    self.handle(key, obj)
            told = self._told
        finally:
            self._told = None
        if told:
            self.on_events(told)
        return told

    def tick(self, now: float) -> int:
        """Release the held notifications whose time has come and whose condition still
        holds; cancel the others. The number released."""
        if self.notifier is None:
            return 0
        released = 0
        for held in self.store.due(now):
            key = held.hold.split("\x1f", 1)[0]
            if self.notifier.still(held, self.whole.get(key) or self.seen.get(key)):
                self.store.release(held.sink, held.id)
                released += 1
            else:
                self.store.cancel(held.sink, held.id, "the condition no longer held")
        return released

    def _resource(self, kind: str, key: str, obj: App | None) -> list[Event]:
        if kind == REPLICASETS.rstrip(":"):
            return self._replicaset(key, obj)
        if kind == REPORTS.rstrip(":"):
            return self._report(key, obj)
        trim, changes_of = RESOURCES[kind]
        if kind == "workflows" and obj is not None and self.on_workflow is not None:
            self.on_workflow(obj)
        old = self.seen.get(key)
        new = self._clean(trim(obj)) if obj is not None else None
        changes = changes_of(old, new, self.ui) if kind == "workflows" else changes_of(old, new)
        if new is None:
            self.seen.pop(key, None)
        else:
            self.seen[key] = new
        labels = ((new or old or {}).get("metadata") or {}).get("labels") or {}
        events = [Event(event_id(c), c, _promoflow(labels)) for c in changes]
        return self._commit(key, old, new, None, events)

    def _replicaset(self, key: str, obj: App | None) -> list[Event]:
        """A ReplicaSet reports as the app owning its workload; the ReplicaSets of apps
        another replica owns, or of no app, are only remembered."""
        old = self.seen.get(key)
        new = self._clean(replicaset_essentials(obj)) if obj is not None else None
        owner = owner_of(new or old or {})
        app_key = self._owners.get(owner) if owner else None
        changes = replicaset_transitions(old, new, app_key) if app_key else []
        if new is None:
            self.seen.pop(key, None)
        else:
            self.seen[key] = new
        self._index(key, old, new)
        app = self.seen.get(app_key or "")
        labels = ((app or {}).get("metadata") or {}).get("labels") or {}
        events = [Event(event_id(c), c, _promoflow(labels)) for c in changes]
        return self._commit(key, old, new, None, events, (app_key or key, app))

    def _report(self, key: str, document: App | None) -> list[Event]:
        """A promotion's own report (checked before it was queued): its event, routed by
        the product it names; a configuration's report, by no product."""
        change = change_of(document, self.ui)
        product = str(change.data.get("product") or "")
        labels = {PRODUCT: product} if product else {}
        namespace, _, run = change.app.partition("/")
        about = {"metadata": {"name": run, "namespace": namespace, "labels": labels}}
        events = [Event(event_id(change), change, labels)]
        return self._commit(key, None, None, None, events, (key, about))


REPLICASETS = "replicasets:"
REPORTS = "reports:"
WITH_WORKLOADS = ("app.deployed", "app.images-changed")
"""App events that carry the images each workload runs."""


def _churn(old: App | None, new: App | None) -> bool:
    """Whether ``new`` differs from ``old`` at most in ``status.reconciledAt``: Argo CD's
    periodic reconcile, most of what a watch delivers. Not written to the store: what it
    keeps is compared only for real changes, and those are written."""
    if old is None or new is None:
        return old is new
    if old == new:
        return True
    before, after = old.get("status"), new.get("status")
    if not isinstance(before, dict) or not isinstance(after, dict):
        return False
    return {**old, "status": {**before, "reconciledAt": None}} == {
        **new,
        "status": {**after, "reconciledAt": None},
    }


def _workload(resource: dict[str, Any]) -> tuple[str, str, str]:
    return str(resource.get("kind")), str(resource.get("namespace", "")), str(resource["name"])


def _revision(rs: App) -> int:
    text = str((rs.get("metadata") or {}).get("revision") or "0")
    return int(text) if text.isdigit() else 0


def _labels(app: App | None) -> dict[str, str]:
    return ((app or {}).get("metadata") or {}).get("labels") or {}


def _promoflow(labels: dict[str, str]) -> dict[str, str]:
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
