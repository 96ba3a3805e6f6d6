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
from reporters.notifications.notifier import Notifier
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
        """A promotion's report (``POST /reports``): the answer's status and body."""
        try:
            change = change_of(document, self.pipeline.ui)
        except BadReport as exc:
            return 422, {"error": str(exc)}
        if any(w.prefix == "workflows:" for w in self.watchers):
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
        }

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
