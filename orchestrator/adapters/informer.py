"""One kind of Kubernetes object, listed and then watched, surviving what watches meet.

Both the gate (an environment's Applications, until they run the commit) and the
reporters (every Application, Workflow, Rollout, ReplicaSet) follow objects the same way,
as client-go's informers do: list, then watch from the list's resourceVersion with
bookmarks (a quiet watch keeps moving to a version the server still has). A watch that
ends resumes from the last version seen. ``410 Gone`` (the history was compacted) lists
again, and the new list is compared with what was known: objects deleted meanwhile are
reported deleted, and nothing that changed is missed.

:meth:`Informer.round` is one list (when needed) and one watch; what to do between rounds
(back off, give up, stop) is the caller's: the gate gives up after a few expiries within
its deadline, a reporter retries for ever.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Object = dict[str, Any]


def object_key(obj: Object) -> str:
    """``namespace/name``."""
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class Expired(Exception):
    """The watch's resourceVersion is gone (410): the next round lists again."""


class Refused(Exception):
    """The API server answered a list or a watch with an error status."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(f"{status} {reason}")
        self.status = status
        self.reason = reason


@dataclass
class Informer:
    """``api``: a ``kubernetes.client.CustomObjectsApi``; ``namespace`` ``""``: all of
    them; ``keep``: which objects are followed (one shard's, the names a gate waits for)."""

    api: Any
    resource: tuple[str, str, str]
    """(group, version, plural)."""
    namespace: str = ""
    keep: Callable[[Object], bool] = lambda _: True
    resource_version: str | None = None
    """Where the next watch starts; None: the next round lists first."""
    known: set[str] = field(default_factory=set)
    """The keys of the kept objects that exist, as last seen: a list that lacks one of
    them reports it deleted."""

    def _call(self) -> tuple[Callable[..., Any], tuple[str, ...]]:
        """The client's list method and its arguments (the watch reads its return type
        from the method itself, so it is handed the method, not a wrapper)."""
        group, version, plural = self.resource
        if self.namespace:
            return self.api.list_namespaced_custom_object, (group, version, self.namespace, plural)
        return self.api.list_cluster_custom_object, (group, version, plural)

    def listed(self) -> bool:
        """Whether the next round starts from a list (the first, or after a 410)."""
        return self.resource_version is None

    def _list(self) -> Object:
        """One list, as a JSON object (custom objects come as such)."""
        method, args = self._call()
        listing: Object = method(*args)
        return listing

    def _watch_options(self) -> dict[str, Any]:
        """What the watch asks for besides the version, the timeout and bookmarks."""
        return {}

    def _relist(self) -> Iterator[tuple[str, Object | None]]:
        listing = self._list()
        self.resource_version = str(listing["metadata"]["resourceVersion"])
        seen = set()
        for obj in listing.get("items") or []:
            if self.keep(obj):
                seen.add(object_key(obj))
                yield object_key(obj), obj
        for gone in sorted(self.known - seen):
            yield gone, None
        self.known = seen

    def round(
        self, watch_seconds: int, stop: Callable[[], bool] = lambda: False
    ) -> Iterator[tuple[str, Object | None]]:
        """``(namespace/name, object)`` for each change of a kept object (``None``: it was
        deleted), from a list when one is due, then one watch until it ends or ``stop()``.
        :class:`Expired` on 410, :class:`Refused` on another error status; the network's
        own exceptions otherwise."""
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        try:
            if self.resource_version is None:
                yield from self._relist()
            method, args = self._call()
            stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
                method,
                *args,
                resource_version=self.resource_version,
                timeout_seconds=max(int(watch_seconds), 1),
                allow_watch_bookmarks=True,
                **self._watch_options(),
            )
            for event in stream:  # the JSON as sent, for kinds the client has a model of
                obj = event.get("raw_object") or event.get("object") or {}
                version = (obj.get("metadata") or {}).get("resourceVersion")
                if version:
                    self.resource_version = str(version)
                if stop():
                    return
                if event.get("type") == "BOOKMARK" or not self.keep(obj):
                    continue
                key = object_key(obj)
                if event.get("type") == "DELETED":
                    self.known.discard(key)
                    yield key, None
                else:
                    self.known.add(key)
                    yield key, obj
        except ApiException as exc:
            if exc.status == 410:
                self.resource_version = None  # compacted: list again, compare
                raise Expired from None
            raise Refused(int(exc.status or 0), str(exc.reason or "")) from None
