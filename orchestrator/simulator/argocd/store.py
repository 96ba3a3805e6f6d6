"""The simulator's Applications, stored as an API server stores them: versioned and watched.

Every access path (the Argo CD API, a Kubernetes API, scenario code, the controller) reads
and changes this one thread-safe store, so all of them agree on every object and version.
Every change bumps one resourceVersion counter (as etcd does for the whole cluster), is
kept in a bounded history for resumable watches, and is pushed to open streams. What an app
deploys and how it moves from state to state are layered on top (:mod:`.resources`,
:mod:`.state`).
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections import deque
from collections.abc import Callable

from orchestrator.simulator.argocd.events import App, Event, HistoryExpired, Subscription


class ApplicationStore:
    """Applications in memory, thread-safe: read, changed one event at a time, watched."""

    def __init__(self, namespace: str = "argocd", *, history: int = 1000) -> None:
        self.namespace = namespace
        self._lock = threading.RLock()
        self._apps: dict[str, App] = {}
        self._rv = 0
        self._log: deque[Event] = deque()
        self._history = history
        self._compacted = 0
        self._subscribers: set[Subscription] = set()

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
            self._settle(name, app)
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
            self._forget(name)
            self._emit("DELETED", app)

    def _settle(self, name: str, app: App) -> None:
        """What else a change of ``app`` changes, under the lock before its event is sent
        (nothing here: :mod:`.resources` moves health onto the app's resources)."""

    def _forget(self, name: str) -> None:
        """Drop what is kept of a deleted app besides the app itself (nothing here)."""

    def _emit(self, kind: str, app: App) -> None:
        self._rv += 1
        app["metadata"]["resourceVersion"] = str(self._rv)
        event = Event(self._rv, kind, copy.deepcopy(app))
        self._log.append(event)
        while len(self._log) > self._history:
            self._compacted = self._log.popleft().resource_version
        for sub in self._subscribers:
            sub.push(event)

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
