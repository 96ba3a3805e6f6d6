"""``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` answered through the Argo CD API.

Argo CD's notifications controller asks its repo server over gRPC (GetRevisionMetadata,
GetAppDetails) for the app's repository and project. The reporter cannot reach the repo
server; the Argo CD API server relays the same readings, allowed by the app's RBAC:
``GET /api/v1/applications/{name}/revisions/{revision}/metadata`` and ``POST
/api/v1/repositories/{repoURL}/appdetails``, asked through promoflow's one Argo CD client
(:class:`orchestrator.adapters.argocd.ArgoCDClient`).

When: a function is called only when a template or condition calls it, while the
reporter's main loop routes an event (:mod:`reporters.runtime`). That loop is a plain
thread, not an asyncio event loop: nothing else waits on it but the next queued state, so
the request is a synchronous one with a short timeout (set where the client is made), not
a fetch ahead of every render for answers most templates never read.

Caches, both bounded, least recently used first out: a commit's metadata is immutable, so
it is kept by (repository, SHA) for every app of that repository (a branch or tag name
moves: it is asked each time); an app's details change with its source and revision, so
they are kept by (source, deployed revision). Failures are not kept.

Failures: the call fails as Argo CD's does (the function panics with the reason, the
render stops, nothing half-rendered is sent). A transient failure (timeout, refused
connection, 5xx) is asked again :data:`ATTEMPTS` times, a short pause apart, before that.
The reasons come from the client, which keeps the token out of them.
"""

from __future__ import annotations

import json
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from orchestrator.errors import PromoflowError
from reporters.notifications import reposhapes
from reporters.notifications.reposhapes import Struct

COMMITS_KEPT = 4096
DETAILS_KEPT = 512
ATTEMPTS = 3
PAUSE = 0.5
"""Seconds before the second attempt, doubled before each one after."""
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

K = TypeVar("K")
V = TypeVar("V")


class RepoServer(Protocol):
    """What the reporter asks Argo CD (:class:`~orchestrator.adapters.argocd.ArgoCDClient`
    answers it; tests may give a fake)."""

    def revision_metadata(
        self, name: str, revision: str, *, app_namespace: str = "", project: str = ""
    ) -> dict[str, Any]: ...

    def app_details(
        self, source: Mapping[str, Any], *, name: str = "", project: str = ""
    ) -> dict[str, Any]: ...


class RepoCallFailed(Exception):
    """A repo function failed; the message is what the template's error says."""


class Bounded(Generic[K, V]):
    """A dict of at most ``size`` entries, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


def _string(app: Mapping[str, Any], *path: str) -> str | None:
    value: Any = app
    for part in path:
        value = value.get(part) if isinstance(value, Mapping) else None
    return value if isinstance(value, str) else None


class RepoReadings:
    """The two functions' answers for any app, kept as the module says."""

    def __init__(
        self,
        server: RepoServer,
        *,
        commits: int = COMMITS_KEPT,
        details: int = DETAILS_KEPT,
        attempts: int = ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.server = server
        self.commits: Bounded[tuple[str, str], dict[str, Any]] = Bounded(commits)
        self.details: Bounded[tuple[str, str], dict[str, Any]] = Bounded(details)
        self.attempts = attempts
        self.sleep = sleep
        self.asked = 0
        """Requests made to Argo CD (cache misses and retries)."""

    def _ask(self, request: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        pause = PAUSE
        for attempt in range(1, self.attempts + 1):
            self.asked += 1
            try:
                return request()
            except PromoflowError as exc:
                if not exc.transient or attempt == self.attempts:
                    raise RepoCallFailed(str(exc)) from None
            self.sleep(pause)
            pause *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def commit_metadata(self, app: Mapping[str, Any], sha: str) -> Struct:
        """``repo.GetCommitMetadata(sha)`` for ``app``: its ``spec.source.repoURL`` and
        ``spec.project`` must be there (Argo CD panics with these words otherwise)."""
        repo = _string(app, "spec", "source", "repoURL")
        if repo is None:
            raise RepoCallFailed("failed to get application source repo URL")
        project = _string(app, "spec", "project")
        if project is None:
            raise RepoCallFailed("failed to get application project")
        key = (repo, sha)
        answer = self.commits.get(key) if _SHA.fullmatch(sha) else None
        if answer is None:
            meta = app.get("metadata") or {}
            answer = self._ask(
                lambda: self.server.revision_metadata(
                    str(meta.get("name", "")),
                    sha,
                    app_namespace=str(meta.get("namespace") or ""),
                    project=project,
                )
            )
            if _SHA.fullmatch(sha):
                self.commits.put(key, answer)
        try:
            return reposhapes.commit_metadata(answer)
        except ValueError as exc:
            raise RepoCallFailed(str(exc)) from None

    def app_details(self, app: Mapping[str, Any]) -> Struct:
        """``repo.GetAppDetails()`` for ``app``'s first source."""
        source = reposhapes.first_source(app)
        if source is None:
            raise RepoCallFailed(reposhapes.NIL_DEREFERENCE)
        sync = (app.get("status") or {}).get("sync") or {}
        revisions = sync.get("revisions") or [None]
        revision = str(sync.get("revision") or revisions[0] or "")
        key = (json.dumps(source, sort_keys=True, default=str), revision)
        answer = self.details.get(key)
        if answer is None:
            meta = app.get("metadata") or {}
            project = str((app.get("spec") or {}).get("project") or "")
            answer = self._ask(
                lambda: self.server.app_details(
                    source, name=str(meta.get("name", "")), project=project
                )
            )
            self.details.put(key, answer)
        try:
            return reposhapes.app_detail(answer, source)
        except ValueError as exc:
            raise RepoCallFailed(str(exc)) from None


class SampleServer:
    """Answers for ``promoflow reporter check`` without an Argo CD: a fixed commit and
    the details of a plain directory app (Helm for a source with a ``chart`` or ``helm``
    block), so templates that call the functions render on the sample app."""

    def revision_metadata(
        self, name: str, revision: str, *, app_namespace: str = "", project: str = ""
    ) -> dict[str, Any]:
        return {
            "author": "Jane Doe <jane@example.com>",
            "date": "2026-11-27T09:58:00Z",
            "message": "Update guestbook image to 0.2",
            "tags": ["v0.2.0"],
        }

    def app_details(
        self, source: Mapping[str, Any], *, name: str = "", project: str = ""
    ) -> dict[str, Any]:
        if "chart" in source or "helm" in source:
            values = "image:\n  tag: 0.2\n"
            parameters = [{"name": "image.tag", "value": "0.2"}]
            helm = {"name": name, "valueFiles": ["values.yaml"], "values": values}
            return {"type": "Helm", "helm": {**helm, "parameters": parameters}}
        if "kustomize" in source:
            return {"type": "Kustomize", "kustomize": {"images": ["guestbook:0.2"]}}
        return {"type": "Directory"}
