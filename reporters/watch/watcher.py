"""Every Application change, through the Kubernetes API, surviving what watches meet.

The list, the watch with bookmarks and the relist after ``410 Gone`` (apps deleted
meanwhile reported deleted) are the shared informer's
(:mod:`orchestrator.adapters.informer`, which the gate follows Applications with too).
Here: a reporter never gives up, so other errors back off exponentially (capped) and try
again, said once per new reason; and only the apps this replica owns
(:mod:`reporters.watch.shards`) are passed on.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from orchestrator.adapters.informer import Expired, Informer, Refused, object_key
from orchestrator.argocd_shapes import GROUP, PLURAL, VERSION
from reporters.watch.shards import owns

App = dict[str, Any]
WATCH_SECONDS = 300
MAX_BACKOFF = 30.0


def app_key(app: App) -> str:
    return object_key(app)


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
    log: Callable[[str], None] = field(default=lambda text: print(text, file=sys.stderr))
    _informer: Informer | None = None
    _last_error: str = ""

    @property
    def informer(self) -> Informer:
        """The list and watch this replica follows (its shard's objects)."""
        if self._informer is None:
            self._informer = Informer(
                self.api,
                self.resource,
                self.namespace,
                keep=lambda app: owns(app_key(app), self.shard, self.replicas),
            )
        return self._informer

    @property
    def resource_version(self) -> str | None:
        return self.informer.resource_version

    def _failed(self, reason: str, backoff: float) -> None:
        """Count the failure, say it when it is new (a reporter that cannot watch must not
        be silent, nor repeat itself every backoff), and wait."""
        self.stats.errors += 1
        if reason != self._last_error:
            self._last_error = reason
            group, _, plural = self.resource
            what = f"{plural}.{group}" if group else plural  # the core group has no name
            where = f" in {self.namespace}" if self.namespace else ""
            self.log(f"watch of {what}{where} failed: {reason}; retrying with backoff")
        self.sleep(backoff)

    def changes(self, stop: Callable[[], bool] = lambda: False) -> Iterator[tuple[str, App | None]]:
        """``(namespace/name, app)`` for every change of an owned app (``None``: deleted),
        until ``stop()``; failures back off (exponentially, capped) and try again."""
        informer = self.informer
        backoff = 0.5
        while not stop():
            try:
                if informer.listed():
                    self.stats.relists += 1
                for key, app in informer.round(self.watch_seconds, stop):
                    yield self.prefix + key, app
                    backoff = 0.5
                if stop():
                    return
                self.stats.restarts += 1
            except Expired:
                continue  # compacted: the next round lists again and compares
            except Refused as exc:
                self._failed(str(exc), backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
            except Exception as exc:  # a dropped connection, a server restarting
                self._failed(reason_of(exc), backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)


def reason_of(exc: Exception) -> str:
    """One line: the exception's kind and its innermost cause (urllib3 wraps the socket's)."""
    inner: BaseException = exc
    while inner.__cause__ is not None or getattr(inner, "reason", None) is not None:
        nested = inner.__cause__ or getattr(inner, "reason", None)
        if not isinstance(nested, BaseException):
            break
        inner = nested
    text = str(inner).splitlines()[0][:200] if str(inner) else ""
    return f"{type(inner).__name__}: {text}" if text else type(inner).__name__
