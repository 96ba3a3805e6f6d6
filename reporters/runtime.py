"""The reporter at run time: watch, queue, report, deliver.

One thread per watch reads it into the coalescing queue; the main loop turns the queued
states into events, stored in the outbox, and published on the live stream; one worker
per sink delivers from the outbox. :meth:`Reporter.stop` (SIGTERM) stops the watches,
lets the queue drain into the store, and ends the workers: what was not delivered stays
in the outbox for the next start. What it is built from is decided in
:mod:`reporters.run`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from reporters.collection import fewer_collections
from reporters.enrich.enricher import Enricher
from reporters.events.ids import event_id
from reporters.events.reports import BadReport, change_of
from reporters.events.transitions import App
from reporters.notifications.config import Notifications
from reporters.notifications.notifier import Notifier
from reporters.notifications.services import changed, sink_for
from reporters.pipeline import Event, Pipeline
from reporters.queue import DEFAULT_CAPACITY, CoalescingQueue
from reporters.runstatus import RunMessages
from reporters.sinks.delivery import Delivery, Sink
from reporters.state.store import DEAD, HELD, Store
from reporters.stream import Stream
from reporters.watch.watcher import Watcher

BATCH = 200
"""Queued states recorded per store transaction, at most."""


class Reporter:
    def __init__(
        self,
        watcher: Watcher,
        store: Store,
        *,
        sinks: Sequence[Sink] = (),
        capacity: int = DEFAULT_CAPACITY,
        enricher: Enricher | None = None,
        others: Sequence[Watcher] = (),
        ui: str = "",
        notifier: Notifier | None = None,
        services: Sequence[Sink] = (),
        run_messages: RunMessages | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.watcher = watcher
        self.watchers = [watcher, *others]
        self.queue: CoalescingQueue[App | None] = CoalescingQueue(capacity)
        self.deliveries = [
            Delivery(store, sink, getattr(sink, "policy", None), secrets=secrets).start()
            for sink in [*sinks, *services]
        ]
        self._broadcasts = len(sinks)
        self.services = {d.sink.name: d for d in self.deliveries[len(sinks) :]}
        """The configured services' workers, by name (the ``--sink`` ones never change)."""
        self._pending: list[tuple[Notifications, tuple[str, ...]]] = []
        self._pending_lock = threading.Lock()
        self.reloads = 0
        self.refused: list[str] = []
        """The problems of the newest configuration, refused (the last good one serves)."""
        self.pipeline = Pipeline(
            store,
            [s.name for s in sinks],
            on_events=self._stored,
            enricher=enricher,
            ui=ui,
            notifier=notifier,
            on_workflow=run_messages.offer if run_messages is not None else None,
            secrets=secrets,
        )
        self.run_messages = run_messages.start() if run_messages is not None else None
        self.stream = Stream()
        self.stopping = threading.Event()
        self.received = 0

    def _stored(self, events: list[Event]) -> None:
        self.stream.publish(events)
        self._wake()

    def _wake(self) -> None:
        for delivery in self.deliveries:
            delivery.wake()

    def accept(self, document: Any) -> tuple[int, dict[str, Any]]:
        """A promotion's or a configuration's report (``POST /reports``): the answer's
        status and body."""
        try:
            change = change_of(document, self.pipeline.ui)
        except BadReport as exc:
            return 422, {"error": str(exc)}
        watched = any(w.prefix == "workflows:" for w in self.watchers)
        if watched and change.type.startswith("promotion."):
            return 202, {"reported": "by the Workflow watch, which sees this run end too"}
        if not self.queue.put(f"reports:{change.app}", document, timeout=5):
            return 503, {"error": "the queue is full; try again"}
        return 202, {"id": event_id(change)}

    def numbers(self) -> dict[str, Any]:
        every = [w.stats for w in self.watchers]
        counts = {
            d.sink.name: d.store.counts(d.sink.name) for d in self.deliveries
        }  # one query each
        return {
            "received": self.received,
            "emitted": self.pipeline.emitted,
            "coalesced": self.queue.coalesced,
            "queue": len(self.queue),
            "watch_restarts": sum(s.restarts for s in every),
            "watch_relists": sum(s.relists for s in every),
            "watch_errors": sum(s.errors for s in every),
            "sinks": {d.sink.name: (d.delivered, d.failed) for d in self.deliveries},
            "dead": {name: count.get(DEAD, 0) for name, count in counts.items()},
            "held": sum(count.get(HELD, 0) for count in counts.values()),
            "enrichment_failures": self.pipeline.enricher.failures if self.pipeline.enricher else 0,
            "notification_problems": self.pipeline.notifier.problems
            if self.pipeline.notifier
            else 0,
            "notification_reloads": self.reloads,
            "notification_config_refused": 1 if self.refused else 0,
            "notification_config_problems": list(self.refused),
        }

    def reconfigure(self, config: Notifications, secrets: tuple[str, ...] = ()) -> None:
        """Serve ``config`` from the next batch on (any thread may call this); ``secrets``:
        values to mask from then on, besides the ones masked already."""
        with self._pending_lock:
            self._pending.append((config, secrets))
            self.refused = []

    def refuse(self, problems: list[str]) -> None:
        """A new configuration was refused: its problems, until a good one replaces it."""
        self.refused = list(problems)

    def reconfigured(self) -> None:
        """Apply the configurations given since the last batch, on the loop that routes,
        so every event is routed by one configuration whole. What the notifier remembers
        (conditions, values sent ``oncePer``) and what the store holds (held and queued
        notifications) stay; a service whose settings changed keeps its worker, which
        sends with the new sink from its next event; a new one gets a worker; one removed
        stops, and what it had not sent stays in the store, sent if it comes back."""
        with self._pending_lock:
            pending, self._pending = self._pending, []
        notifier = self.pipeline.notifier
        for config, secrets in pending:
            if notifier is None:
                return
            masked = tuple(dict.fromkeys((*self.pipeline.secrets, *(s for s in secrets if s))))
            self.pipeline.secrets = masked
            differ, gone = changed(notifier.config, config)
            for name in gone:
                self.services.pop(name).stop(timeout=0, close=True)
            for service in differ:
                sink = sink_for(service)
                if service.name in self.services:
                    self.services[service.name].replace(sink)
                else:
                    policy = getattr(sink, "policy", None)
                    self.services[service.name] = Delivery(self.pipeline.store, sink, policy)
                    self.services[service.name].start()
            self.deliveries = [*self.deliveries[: self._broadcasts], *self.services.values()]
            for delivery in self.deliveries:
                delivery.secrets = masked
            notifier.config = config
            self.reloads += 1
        if pending:
            self._wake()

    def shards(self) -> dict[str, Any]:
        return {
            "shard": self.watcher.shard,
            "replicas": self.watcher.replicas,
            "apps": len(self.pipeline.seen),
            "rule": "sha256(namespace/name) modulo replicas == shard",
        }

    def _read(self, watcher: Watcher) -> None:
        for key, app in watcher.changes(stop=self.stopping.is_set):
            self.received += 1
            while not self.queue.put(key, app, timeout=0.5):
                if self.stopping.is_set():
                    return

    def run(self) -> None:
        for watcher in self.watchers:
            name = f"watch {watcher.prefix or 'applications:'}"
            threading.Thread(target=self._read, args=(watcher,), name=name, daemon=True).start()
        # on stop, what is queued is still stored; a change the watch reads later is seen
        # again by the next start's list, compared with the store
        ticked = 0.0
        with fewer_collections():  # the queued apps would be traversed again and again
            while not (self.stopping.is_set() and not len(self.queue)):
                item = self.queue.get(timeout=0.2)
                if self._pending:  # before the batch: what changed after a reload meets it
                    self.reconfigured()
                if item is not None:
                    self.pipeline.handle_all([item, *self.queue.take(BATCH - 1)])
                if time.time() - ticked >= 1.0:  # held notifications whose time came
                    ticked = time.time()
                    if self.pipeline.tick(ticked):
                        self._wake()
        for delivery in self.deliveries:
            delivery.stop()
        if self.run_messages is not None:
            self.run_messages.stop()

    def stop(self) -> None:
        self.stopping.set()
