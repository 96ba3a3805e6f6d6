"""The reporter's queue: bounded, and coalescing by app.

An app has at most one state waiting: a newer state of an app already queued replaces it
in place (keeping its turn), so a burst of updates to one app costs one slot, and what is
delivered is always the app's latest state. The bound counts apps: when every slot holds
another app, ``put`` waits (the watch is read no faster than changes are handled) instead
of dropping anything, so memory stays bounded and no app's final state is lost.
Codefresh's reporter keeps 1,000 events per replica; this keeps 1,000 apps.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")
DEFAULT_CAPACITY = 1000


class CoalescingQueue(Generic[T]):
    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._items: OrderedDict[str, T] = OrderedDict()
        self._changed = threading.Condition()
        self.coalesced = 0
        """States replaced by a newer one before they were taken (a metric)."""

    def put(self, key: str, item: T, timeout: float | None = None) -> bool:
        """Queue ``item`` as ``key``'s latest state; False if no slot freed in time."""
        with self._changed:
            if key in self._items:
                self._items[key] = item  # keeps its place in line
                self.coalesced += 1
                return True
            if not self._changed.wait_for(lambda: len(self._items) < self.capacity, timeout):
                return False
            self._items[key] = item
            self._changed.notify_all()
            return True

    def get(self, timeout: float | None = None) -> tuple[str, T] | None:
        """The oldest waiting app and its latest state; None on timeout."""
        with self._changed:
            if not self._changed.wait_for(lambda: bool(self._items), timeout):
                return None
            found = self._items.popitem(last=False)
            self._changed.notify_all()
            return found

    def take(self, limit: int) -> list[tuple[str, T]]:
        """Up to ``limit`` waiting apps at once, without waiting (what one store
        transaction records)."""
        with self._changed:
            found = [self._items.popitem(last=False) for _ in range(min(limit, len(self._items)))]
            if found:
                self._changed.notify_all()
            return found

    def __len__(self) -> int:
        with self._changed:
            return len(self._items)
