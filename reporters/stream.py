"""``GET /stream``: the reporter's events as Server-Sent Events, live.

Recent events are kept in a ring (10,000 by default); a client that reconnects with
``Last-Event-ID`` gets every event after that one first, then the live ones, so a browser
or a CLI that lost its connection misses nothing the ring still holds (and, past it,
gets the whole ring: at least once). Filters: ``?product=``, ``?environment=``, ``?app=``
(``namespace/name`` or ``name``), each repeatable.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from reporters.pipeline import Event

RING = 10_000


@dataclass(frozen=True)
class Filter:
    products: frozenset[str] = frozenset()
    environments: frozenset[str] = frozenset()
    apps: frozenset[str] = frozenset()

    @classmethod
    def of(cls, query: Mapping[str, Sequence[str]]) -> Filter:
        def values(name: str) -> frozenset[str]:
            return frozenset(v for v in query.get(name, ()) if v)

        return cls(values("product"), values("environment"), values("app"))

    def __call__(self, event: Event) -> bool:
        name = event.change.app.split("/", 1)[-1]
        return (
            (not self.products or event.product in self.products)
            and (not self.environments or event.environment in self.environments)
            and (not self.apps or event.change.app in self.apps or name in self.apps)
        )


@dataclass
class Stream:
    size: int = RING
    _ring: deque[Event] = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._ring = deque(maxlen=self.size)

    def publish(self, events: Sequence[Event]) -> None:
        """From any thread (the pipeline's): keep, and wake every listener."""
        with self._lock:
            self._ring.extend(events)
            waiters = list(self._waiters)
        for loop, flag in waiters:
            loop.call_soon_threadsafe(flag.set)

    def after(self, last_id: str) -> list[Event]:
        with self._lock:
            ring = list(self._ring)
        if not last_id:
            return []
        for i in range(len(ring) - 1, -1, -1):
            if ring[i].id == last_id:
                return ring[i + 1 :]
        return ring  # older than the ring: everything it holds

    async def follow(self, last_id: str, keep: Filter) -> AsyncIterator[Event]:
        """Events after ``last_id``, then live ones, as long as the client listens."""
        flag = asyncio.Event()
        entry = (asyncio.get_running_loop(), flag)
        with self._lock:
            self._waiters.add(entry)
            sent = self._ring[-1].id if self._ring else ""
        try:
            backlog = self.after(last_id) if last_id else []
            for event in backlog:
                if keep(event):
                    yield event
            if backlog:
                sent = backlog[-1].id
            while True:
                await flag.wait()
                flag.clear()
                for event in self.after(sent) if sent else self._all():
                    sent = event.id
                    if keep(event):
                        yield event
        finally:
            with self._lock:
                self._waiters.discard(entry)

    def _all(self) -> list[Event]:
        with self._lock:
            return list(self._ring)


def sse_data(event: Event) -> str:
    return json.dumps(event.cloudevent(), separators=(",", ":"), sort_keys=True)
