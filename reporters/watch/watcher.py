"""Every Application change, through the Kubernetes API, surviving what watches meet.

List, then watch from the list's resourceVersion with bookmarks (a quiet watch keeps a
version the server still has). A watch that ends or drops resumes from the last version
seen; ``410 Gone`` (history compacted) lists again, and the list is compared with what was
known, so apps deleted meanwhile are reported deleted and nothing that changed is missed.
Other errors back off exponentially (capped) and try again. Only the apps this replica
owns (:mod:`reporters.watch.shards`) are passed on.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from orchestrator.argocd_shapes import GROUP, PLURAL, VERSION
from reporters.watch.shards import owns

App = dict[str, Any]
WATCH_SECONDS = 300
MAX_BACKOFF = 30.0


def app_key(app: App) -> str:
    meta = app.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


@dataclass
class WatchStats:
    restarts: int = 0
    relists: int = 0
    errors: int = 0


@dataclass
class Watcher:
    """``api``: a ``kubernetes.client.CustomObjectsApi``. ``namespace`` ``""``: all."""

    api: Any
    namespace: str = ""
    resource: tuple[str, str, str] = (GROUP, VERSION, PLURAL)
    """(group, version, plural): Applications by default; Workflows, Rollouts alike."""
    prefix: str = ""
    """Put before every key (``workflows:``), so kinds share one queue without clashing."""
    shard: int = 0
    replicas: int = 1
    watch_seconds: int = WATCH_SECONDS
    sleep: Callable[[float], None] = time.sleep
    stats: WatchStats = field(default_factory=WatchStats)
    resource_version: str | None = None
    log: Callable[[str], None] = field(default=lambda text: print(text, file=sys.stderr))
    _known: set[str] = field(default_factory=set)
    _last_error: str = ""

    def _failed(self, reason: str, backoff: float) -> None:
        """Count the failure, say it when it is new (a reporter that cannot watch must not
        be silent, nor repeat itself every backoff), and wait."""
        self.stats.errors += 1
        if reason != self._last_error:
            self._last_error = reason
            group, _, plural = self.resource
            where = f" in {self.namespace}" if self.namespace else ""
            self.log(f"watch of {plural}.{group}{where} failed: {reason}; retrying with backoff")
        self.sleep(backoff)

    def _mine(self, app: App) -> bool:
        return owns(app_key(app), self.shard, self.replicas)

    def _key(self, app: App) -> str:
        return self.prefix + app_key(app)

    def _call(self) -> tuple[Callable[..., Any], tuple[str, ...]]:
        """The client's list method and its arguments (the watch reads its return type
        from the method itself, so it is handed the method, not a wrapper)."""
        group, version, plural = self.resource
        if self.namespace:
            return self.api.list_namespaced_custom_object, (group, version, self.namespace, plural)
        return self.api.list_cluster_custom_object, (group, version, plural)

    def _list(self, **kwargs: Any) -> Any:
        method, args = self._call()
        return method(*args, **kwargs)

    def _relist(self) -> Iterator[tuple[str, App | None]]:
        listing = self._list()
        self.resource_version = str(listing["metadata"]["resourceVersion"])
        seen = set()
        for app in listing.get("items") or []:
            if self._mine(app):
                seen.add(self._key(app))
                yield self._key(app), app
        for gone in sorted(self._known - seen):
            yield gone, None
        self._known = seen

    def changes(self, stop: Callable[[], bool] = lambda: False) -> Iterator[tuple[str, App | None]]:
        """``(namespace/name, app)`` for every change of an owned app (``None``: deleted),
        until ``stop()``."""
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        backoff = 0.5
        while not stop():
            try:
                if self.resource_version is None:
                    self.stats.relists += 1
                    yield from self._relist()
                method, args = self._call()
                stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
                    method,
                    *args,
                    resource_version=self.resource_version,
                    timeout_seconds=self.watch_seconds,
                    allow_watch_bookmarks=True,
                )
                for event in stream:
                    app = event.get("object") or {}
                    version = (app.get("metadata") or {}).get("resourceVersion")
                    if version:
                        self.resource_version = str(version)
                    if stop():
                        return
                    if event.get("type") == "BOOKMARK" or not self._mine(app):
                        continue
                    key = self._key(app)
                    if event.get("type") == "DELETED":
                        self._known.discard(key)
                        yield key, None
                    else:
                        self._known.add(key)
                        yield key, app
                    backoff = 0.5
                self.stats.restarts += 1
            except ApiException as exc:
                if exc.status == 410:
                    self.resource_version = None  # compacted: list again, compare
                    continue
                self._failed(f"{exc.status} {exc.reason}", backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
            except Exception as exc:  # a dropped connection, a server restarting
                self._failed(_reason(exc), backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)


def _reason(exc: Exception) -> str:
    """One line: the exception's kind and its innermost cause (urllib3 wraps the socket's)."""
    inner: BaseException = exc
    while inner.__cause__ is not None or getattr(inner, "reason", None) is not None:
        nested = inner.__cause__ or getattr(inner, "reason", None)
        if not isinstance(nested, BaseException):
            break
        inner = nested
    text = str(inner).splitlines()[0][:200] if str(inner) else ""
    return f"{type(inner).__name__}: {text}" if text else type(inner).__name__
