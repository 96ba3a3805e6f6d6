"""One kind of Kubernetes object, listed and then watched, surviving what watches meet.

Both the gate (an environment's Applications, until they run the commit) and the
reporters (every Application, Workflow, Rollout, ReplicaSet) follow objects the same way,
as client-go's informers do: list, then watch from the list's resourceVersion with
bookmarks (a quiet watch keeps moving to a version the server still has). A watch that
ends resumes from the last version seen. ``410 Gone`` (the history was compacted) lists
again, and the new list is compared with what was known: objects deleted meanwhile are
reported deleted, and nothing that changed is missed.

A list asks for :data:`PAGE` objects at a time and hands each page on before it asks for
the next, as client-go's pager does: 10,000 Argo CD Applications of 14 KB decoded at once
held 600 MiB, a page of them 30 MiB. A watch line is decoded once: the client's ``Watch``
decodes each, encodes the object again and decodes that (to build a model, which a custom
object has not), three passes over objects of kilobytes, on every change.

:meth:`Informer.round` is one list (when needed) and one watch; what to do between rounds
(back off, give up, stop) is the caller's: the gate gives up after a few expiries within
its deadline, a reporter retries for ever.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Object = dict[str, Any]
PAGE = 500
"""Objects asked for per list request (client-go's pager asks for 500)."""


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

    def _options(self) -> dict[str, Any]:
        """What the list and the watch ask for besides the version, the page, the timeout
        and bookmarks (a field selector, for one named object)."""
        return {}

    def _json(self, page: Any) -> Object:
        """A list page as JSON: custom objects come as such; a kind the client has a model
        of is turned back into the JSON the API server sent."""
        found: Object = page
        return found

    def first(self) -> list[tuple[str, Object | None]]:
        """One list now, where the next watch starts from; :class:`Refused` when the API
        server answers with an error status."""
        from kubernetes.client.exceptions import ApiException

        try:
            return list(self._relist())
        except ApiException as exc:
            raise Refused(int(exc.status or 0), str(exc.reason or "")) from None

    def listed(self) -> bool:
        """Whether the next round starts from a list (the first, or after a 410)."""
        return self.resource_version is None

    def _relist(self) -> Iterator[tuple[str, Object | None]]:
        seen = set()
        for obj in self._pages():
            if self.keep(obj):
                seen.add(object_key(obj))
                yield object_key(obj), obj
        for gone in sorted(self.known - seen):
            yield gone, None
        self.known = seen

    def _pages(self) -> Iterator[Object]:
        """Every object, a page at a time; :attr:`resource_version` is the list's once the
        last page is read. A continue token that expired (410 between two pages) lists
        again whole, as client-go's pager does: objects handed on already come again,
        which a follower of changes takes as updates to the same state."""
        from kubernetes.client.exceptions import ApiException

        method, args = self._call()
        options = self._options()
        token = ""
        while True:
            try:
                more = {"_continue": token} if token else {}
                page = self._json(method(*args, limit=PAGE, **options, **more))
            except ApiException as exc:
                if exc.status != 410 or not token:
                    raise
                page, token = self._json(method(*args, **options)), ""
            meta = page.get("metadata") or {}
            yield from page.get("items") or []
            token = str(meta.get("continue") or "")
            if not token:
                self.resource_version = str(meta["resourceVersion"])
                return

    def round(
        self, watch_seconds: int, stop: Callable[[], bool] = lambda: False
    ) -> Iterator[tuple[str, Object | None]]:
        """``(namespace/name, object)`` for each change of a kept object (``None``: it was
        deleted), from a list when one is due, then one watch until it ends or ``stop()``.
        :class:`Expired` on 410, :class:`Refused` on another error status; the network's
        own exceptions otherwise."""
        from kubernetes.client.exceptions import ApiException

        try:
            if self.resource_version is None:
                yield from self._relist()
            for event in self._watch(watch_seconds):
                obj = event.get("object") or {}
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

    def _watch(self, watch_seconds: int) -> Iterator[Object]:
        """The watch's events, each line decoded once; an ``ERROR`` event raises what the
        client's ``Watch`` raises for it (:class:`ApiException` with the Status's code)."""
        from kubernetes.client.exceptions import ApiException
        from kubernetes.watch.watch import iter_resp_lines

        method, args = self._call()
        response = method(
            *args,
            watch=True,
            resource_version=self.resource_version,
            timeout_seconds=max(int(watch_seconds), 1),
            allow_watch_bookmarks=True,
            _preload_content=False,
            **self._options(),
        )
        try:
            for line in iter_resp_lines(response):  # type: ignore[no-untyped-call]
                if not line or line.isspace():
                    continue
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue  # as the client's Watch: a line cut short is skipped
                if not isinstance(event, dict):
                    continue
                if event.get("type") == "ERROR":
                    status = event.get("object") or {}
                    reason = f"{status.get('reason')}: {status.get('message')}"
                    raise ApiException(status=int(status.get("code") or 0), reason=reason)
                yield event
        finally:
            response.close()
            response.release_conn()
