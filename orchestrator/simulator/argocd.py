"""An in-memory Argo CD that answers over real HTTP in the shapes of the upstream API.

The deploy gate and the reporters must be exercised against what the Argo CD API server
actually does (grpc-gateway error bodies, the NDJSON event stream, hard refreshes, sync
operations that take time), and no real Argo CD can run here. One thread-safe state drives
both access paths: the Argo CD API served by :meth:`ArgoCDSimulator.asgi` and the Kubernetes
API in :mod:`orchestrator.simulator.kube`, so a scenario written once is seen the same way
through either.

The scenario helpers (``set_sync``, ``start_operation``, ``finish_operation``, ``deploy``...)
move an application through the states the real controller produces. :class:`GitController`
does it on its own by following commits in local git repositories, for demos without a
cluster. Timestamps are whole seconds, as Kubernetes writes them; where the gate compares
them, the helpers keep ``reconciledAt`` and ``finishedAt`` ordered as a real reconcile would.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import SortMode
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from orchestrator.gates.deployed import repo_key
from orchestrator.simulator.serve import ServerThread

App = dict[str, Any]
Resolver = Callable[[str, str, str], str | None]
"""``resolve(repo_url, target_revision, path)``: the commit an app at ``path`` should run."""

API_VERSION = "argoproj.io/v1alpha1"
IN_CLUSTER = "https://kubernetes.default.svc"
REFRESH_ANNOTATION = "argocd.argoproj.io/refresh"
HISTORY_LIMIT = 10
"""Argo CD's default ``revisionHistoryLimit``."""

_GRPC_CODES = {400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 429: 8, 500: 13, 501: 12, 504: 4}
_SHA = re.compile(r"^[0-9a-f]{40}$")


# --- time -------------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _not_before(*stamps: Any, gap: int = 0) -> str:
    """Now, or ``gap`` seconds after the latest of ``stamps`` if that is later.

    Whole-second timestamps taken in one second compare equal; a strict order the gate
    relies on (finished after the last reconcile) is kept by stepping past it.
    """
    moment = _now()
    for value in stamps:
        parsed = _parse(value)
        if parsed is not None and parsed + timedelta(seconds=gap) > moment:
            moment = parsed + timedelta(seconds=gap)
    return _stamp(moment)


# --- selectors --------------------------------------------------------------------------

_SET_TERM = re.compile(r"^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$")
_EQ_TERM = re.compile(r"^([\w./-]+)\s*(==|!=|=)\s*([\w./-]*)$")
_EXISTS_TERM = re.compile(r"^(!?)\s*([\w./-]+)$")


def _split_terms(text: str) -> list[str]:
    """Split on commas outside parentheses (``a in (x,y),b=c``)."""
    terms, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return [t.strip() for t in terms if t.strip()]


def parse_selector(text: str | None) -> Callable[[Mapping[str, str]], bool]:
    """A Kubernetes label selector (``k=v``, ``k!=v``, ``k in (a,b)``, ``k notin (a)``,
    ``k``, ``!k``) as a predicate on labels; ``ValueError`` when it does not parse."""
    # each requirement: (key, operator, values); = is "in" one value, != is "notin" one
    requirements: list[tuple[str, str, frozenset[str]]] = []
    for term in _split_terms(text or ""):
        if match := _SET_TERM.match(term):
            values = frozenset(v.strip() for v in match[3].split(","))
            requirements.append((match[1], match[2], values))
        elif match := _EQ_TERM.match(term):
            operator = "notin" if match[2] == "!=" else "in"
            requirements.append((match[1], operator, frozenset([match[3]])))
        elif match := _EXISTS_TERM.match(term):
            requirements.append((match[2], "absent" if match[1] else "exists", frozenset()))
        else:
            raise ValueError(f"unable to parse requirement: {term!r}")

    def matches(labels: Mapping[str, str]) -> bool:
        for key, operator, values in requirements:
            present = key in labels
            ok = {
                "in": present and labels.get(key) in values,
                "notin": not present or labels.get(key) not in values,
                "exists": present,
                "absent": not present,
            }[operator]
            if not ok:
                return False
        return True

    return matches


def labels_of(app: App) -> dict[str, str]:
    return dict((app.get("metadata") or {}).get("labels") or {})


def _sources(app: App) -> list[dict[str, Any]]:
    spec = app.get("spec") or {}
    return list(spec.get("sources") or ([spec["source"]] if spec.get("source") else []))


def _multi(app: App) -> bool:
    return bool((app.get("spec") or {}).get("sources"))


def _automated(app: App) -> bool:
    return bool(((app.get("spec") or {}).get("syncPolicy") or {}).get("automated"))


# --- events -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One change, as both APIs report it: the object as it was right after the change."""

    resource_version: int
    type: str
    """ADDED | MODIFIED | DELETED"""
    app: App


@dataclass(frozen=True)
class StreamEnd:
    """Tells an open stream to close, optionally after sending ``error``."""

    error: str | None = None


class HistoryExpired(Exception):
    """A watch asked for changes older than the retained history (HTTP 410 in Kubernetes)."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


class Subscription:
    """An open stream's mailbox. Changes happen on any thread, streams are served on the
    server's event loop, so items are handed over with ``call_soon_threadsafe``."""

    def __init__(self, sim: ArgoCDSimulator, loop: asyncio.AbstractEventLoop) -> None:
        self.sim = sim
        self.loop = loop
        self.queue: asyncio.Queue[Event | StreamEnd] = asyncio.Queue()
        self.initial: list[App] = []
        """The current objects, for a stream that starts with ADDED events."""
        self.backlog: list[Event] = []
        """Changes after the requested resourceVersion, for a resumed watch."""

    def push(self, item: Event | StreamEnd) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server stopped
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    async def next(self, timeout: float | None = None) -> Event | StreamEnd:
        """The next item; a :class:`StreamEnd` when ``timeout`` seconds pass first."""
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return StreamEnd()

    def close(self) -> None:
        self.sim._unsubscribe(self)


# --- the simulator ----------------------------------------------------------------------


class ArgoCDSimulator:
    """Applications in memory, changed by scenario helpers and served over HTTP.

    Every change bumps one resourceVersion counter (as etcd does for the whole cluster),
    is kept in a bounded history for resumable Kubernetes watches, and is pushed to open
    streams. Hooks let a controller act on hard refreshes and sync requests.
    """

    def __init__(
        self,
        token: str | None = None,
        namespace: str = "argocd",
        *,
        history: int = 1000,
        deny_missing: bool = False,
        first_name_only: bool = False,
    ) -> None:
        """``deny_missing``: answer a missing app with 403 ``permission denied`` unless the
        request names a project, as Argo CD does since 2.6.7 (GHSA-2q5c-qw9c-fmvq).
        ``first_name_only``: filter streams and lists by the first ``name`` value only, as
        Argo CD's grpc-gateway does (the query field is not repeated)."""
        self.token = token
        self.namespace = namespace
        self.deny_missing = deny_missing
        self.first_name_only = first_name_only
        self.requests: list[str] = []
        """``METHOD /path?query`` of every API request, in order."""
        self.refreshes: list[tuple[str, str]] = []
        """``(app, normal|hard)`` for every refresh asked for (API query or annotation)."""
        self.syncs: list[tuple[str, dict[str, Any]]] = []
        """``(app, request body)`` for every accepted sync request."""
        self.on_refresh: Callable[[str, str], None] | None = None
        self.on_sync: Callable[[str, dict[str, Any]], None] | None = None
        self._lock = threading.RLock()
        self._apps: dict[str, App] = {}
        self._rv = 0
        self._log: deque[Event] = deque()
        self._history = history
        self._compacted = 0
        self._subscribers: set[Subscription] = set()
        self._served: set[Subscription] = set()
        """The subscriptions of this API server's own streams (closed when it stops)."""
        self._failures: dict[str, str] = {}
        self._fail: list[int] = []
        self._closed = False

    # --- state ---------------------------------------------------------------------------

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

    def add_app(
        self,
        name: str,
        *,
        repo_url: str,
        path: str,
        target_revision: str = "main",
        revision: str = "",
        sync_status: str = "Synced",
        health: str = "Healthy",
        automated: bool = True,
        labels: dict[str, str] | None = None,
        sources: list[dict[str, Any]] | None = None,
        destination_namespace: str | None = None,
        project: str = "default",
        images: list[str] | None = None,
    ) -> App:
        """Create an Application (ADDED). With ``sources`` it is a multi-source app and
        ``repo_url``/``path`` are not used; ``revision`` then applies to every source."""
        now = _stamp(_now())
        destination = {"server": IN_CLUSTER, "namespace": destination_namespace or name}
        spec: App = {"project": project, "destination": destination}
        if sources:
            spec["sources"] = copy.deepcopy(sources)
        else:
            spec["source"] = {"repoURL": repo_url, "path": path, "targetRevision": target_revision}
        if automated:
            spec["syncPolicy"] = {"automated": {"prune": True, "selfHeal": True}}
        app: App = {
            "apiVersion": API_VERSION,
            "kind": "Application",
            "metadata": {
                "name": name,
                "namespace": self.namespace,
                "labels": dict(labels or {}),
                "uid": str(uuid.uuid4()),
                "generation": 1,
                "creationTimestamp": now,
            },
            "spec": spec,
            "status": {
                "sync": {"status": sync_status},
                "health": {"status": health, "lastTransitionTime": now},
                "reconciledAt": now,
                "controllerNamespace": self.namespace,
                "summary": {"images": list(images)} if images else {},
            },
        }
        status = app["status"]
        compared: App = {"destination": destination}
        if sources:
            compared["sources"] = copy.deepcopy(sources)
            status["sourceTypes"] = ["Directory" for _ in sources]
        else:
            compared["source"] = copy.deepcopy(spec["source"])
            status["sourceType"] = "Directory"
        status["sync"]["comparedTo"] = copy.deepcopy(compared)
        if revision:
            _set_revisions(app["status"]["sync"], app, [revision] * len(_sources(app)))
        with self._lock:
            if name in self._apps:
                raise ValueError(f"application {name} already exists")
            self._apps[name] = app
            self._emit("ADDED", app)
            return copy.deepcopy(app)

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
            self._emit("DELETED", app)

    def _emit(self, kind: str, app: App) -> None:
        self._rv += 1
        app["metadata"]["resourceVersion"] = str(self._rv)
        event = Event(self._rv, kind, copy.deepcopy(app))
        self._log.append(event)
        while len(self._log) > self._history:
            self._compacted = self._log.popleft().resource_version
        for sub in self._subscribers:
            sub.push(event)

    # --- scenario helpers (each one update) ----------------------------------------------

    def set_sync(
        self,
        name: str,
        status: str,
        revision: str,
        revisions: list[str] | None = None,
        *,
        reconcile: bool = True,
    ) -> None:
        """The result of a comparison: ``status`` at ``revision`` (each source of a
        multi-source app at ``revisions``, or all at ``revision``). A comparison is a
        reconcile, so ``reconciledAt`` moves on unless ``reconcile`` is false."""

        def change(app: App) -> None:
            sync = app["status"]["sync"]
            sync["status"] = status
            _set_revisions(sync, app, revisions or [revision] * len(_sources(app)))
            if reconcile:
                _reconciled(app)

        self.update(name, change)

    def set_health(self, name: str, status: str, message: str = "") -> None:
        self.update(name, lambda app: _set_health(app, status, message))

    def reconcile(self, name: str) -> None:
        """A reconcile that changed nothing but ``reconciledAt``."""
        self.update(name, _reconciled)

    def start_operation(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        """A sync operation picked up by the controller: ``operation`` set, phase Running."""
        self.update(name, lambda app: _start(app, revision, revisions, None))

    def finish_operation(
        self,
        name: str,
        phase: str = "Succeeded",
        message: str = "successfully synced",
        reconcile: bool = True,
        revisions: list[str] | None = None,
    ) -> None:
        """End the running operation: ``finishedAt``, ``syncResult.revision(s)`` (the
        operation's, or ``revisions``), ``operation`` cleared. A Succeeded operation is
        added to the history. With ``reconcile`` the app is compared right after
        (``reconciledAt >= finishedAt``) and, if it Succeeded, Synced at those revisions;
        without it the status stays stale (``reconciledAt < finishedAt``). Health is left
        alone: a sync does not make an app Healthy."""
        self.update(name, lambda app: _finish(app, phase, message, reconcile, revisions))

    def deploy(
        self,
        name: str,
        revision: str,
        *,
        health: str = "Healthy",
        message: str = "",
        revisions: list[str] | None = None,
    ) -> None:
        """The whole happy path in one change: an operation at ``revision`` Succeeded,
        reconciled after it, Synced at ``revision`` and ``health``."""

        def change(app: App) -> None:
            _start(app, revision, revisions, None)
            _finish(app, "Succeeded", "successfully synced", True, None)
            _set_health(app, health, message)

        self.update(name, change)

    def fail_app(self, name: str, reason: str) -> None:
        """The next deployment :class:`GitController` makes of ``name`` ends Degraded."""
        with self._lock:
            self._failures[name] = reason

    def take_failure(self, name: str) -> str | None:
        with self._lock:
            return self._failures.pop(name, None)

    # --- faults --------------------------------------------------------------------------

    def fail_next(self, count: int, status: int = 503) -> None:
        """The next ``count`` API requests answer ``status`` (503: gRPC code 14, unavailable;
        other statuses the code grpc-gateway maps them from)."""
        with self._lock:
            self._fail.extend([status] * count)

    def drop_streams(self, error: str | None = None) -> None:
        """Close every open stream now (clients must reconnect); with ``error``, each
        stream first sends a grpc-gateway stream error, as a failing server does."""
        with self._lock:
            for sub in self._subscribers:
                sub.push(StreamEnd(error))

    def _take_fault(self) -> int | None:
        with self._lock:
            return self._fail.pop(0) if self._fail else None

    # --- streams -------------------------------------------------------------------------

    def subscribe(self, since: int | None = None) -> Subscription:
        """Open a stream's mailbox on the running event loop. With ``since``, the changes
        after that resourceVersion come as ``backlog`` (``HistoryExpired`` when they are no
        longer kept); without, the current objects come as ``initial``. Taken under the
        lock, so no change falls between the snapshot and the live events."""
        sub = Subscription(self, asyncio.get_running_loop())
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
            self._served.discard(sub)

    # --- refresh and sync (shared by both APIs) ------------------------------------------

    def request_refresh(self, name: str, kind: str) -> None:
        """Record a refresh and let the controller act before the caller reads the app
        (the API server waits for a hard refresh to be processed)."""
        with self._lock:
            self.refreshes.append((name, kind))
        if self.on_refresh is not None:
            self.on_refresh(name, kind)

    def request_sync(self, name: str, body: dict[str, Any]) -> App:
        """A sync request, checked as the API server checks it; raises :class:`ApiError`."""
        revision = str(body.get("revision") or "")
        with self._lock:
            app = self._apps.get(name)
            if app is None:
                raise ApiError(404, _not_found(name))
            if app.get("operation") or _phase(app) in ("Running", "Terminating"):
                raise ApiError(400, "another operation is already in progress")
            if _automated(app) and revision and not body.get("dryRun") and not _multi(app):
                target = _sources(app)[0].get("targetRevision") or "HEAD"
                if revision != target:
                    raise ApiError(
                        400, f"Cannot sync to {revision}: auto-sync currently set to {target}"
                    )
            requested = _requested_revisions(app, body)
            revision = revision or str(_sources(app)[0].get("targetRevision") or "HEAD")
            self.syncs.append((name, copy.deepcopy(body)))
            self.update(name, lambda a: _start(a, revision, requested, {"username": "admin"}, body))
            result = copy.deepcopy(self._apps[name])
        if self.on_sync is not None:
            self.on_sync(name, copy.deepcopy(result["operation"]))
        return result

    def pick_up_operation(self, name: str) -> None:
        """The controller starting an operation written into the ``operation`` field (how
        a sync is asked for through the Kubernetes API, as the argocd CLI's core mode does):
        ``operationState`` Running with a copy of it, then the ``on_sync`` hook. Nothing
        happens when no operation is pending or one is already running."""
        with self._lock:
            app = self._apps.get(name)
            if app is None or not app.get("operation"):
                return
            if _phase(app) in ("Running", "Terminating"):
                return
            operation = copy.deepcopy(app["operation"])
            self.syncs.append((name, copy.deepcopy(operation.get("sync") or {})))

            def start(a: App) -> None:
                a["status"]["operationState"] = {
                    "operation": copy.deepcopy(operation),
                    "phase": "Running",
                    "message": "",
                    "startedAt": _stamp(_now()),
                }

            self.update(name, start)
        if self.on_sync is not None:
            self.on_sync(name, operation)

    # --- HTTP ----------------------------------------------------------------------------

    def asgi(self) -> Starlette:
        """The Argo CD API server routes promoflow and its reporters use."""
        return Starlette(
            routes=[
                Route("/api/version", self._version),
                Route("/api/v1/applications", self._list),
                Route("/api/v1/applications/{name}", self._get),
                Route("/api/v1/applications/{name}/sync", self._sync, methods=["POST"]),
                Route("/api/v1/stream/applications", self._stream),
            ]
        )

    @contextmanager
    def serve(self) -> Iterator[ServerThread]:
        """Serve on a free port; this server's open streams are closed first on the way
        out, or the server would wait for them before it stops (streams of another server
        on the same state, such as the Kubernetes API, are left alone)."""
        with self._lock:
            self._closed = False
        with ServerThread(self.asgi()) as server:
            try:
                yield server
            finally:
                with self._lock:
                    self._closed = True
                    for sub in self._served:
                        sub.push(StreamEnd())

    def _guard(self, request: Request) -> Response | None:
        """Record the request; answer it at once when a fault is due or auth fails."""
        query = f"?{request.url.query}" if request.url.query else ""
        with self._lock:
            self.requests.append(f"{request.method} {request.url.path}{query}")
        fault = self._take_fault()
        if fault is not None:
            return _grpc_error(
                fault, f"simulated failure ({fault})", code=14 if fault == 503 else None
            )
        if self.token is None:
            return None
        bearer = request.headers.get("authorization", "")
        if bearer == f"Bearer {self.token}" or request.cookies.get("argocd.token") == self.token:
            return None
        return JSONResponse(
            {
                "error": "invalid session: token signature is invalid",
                "code": 16,
                "message": "invalid session: token signature is invalid",
            },
            status_code=401,
        )

    def _missing(self, request: Request, name: str) -> Response:
        named_project = request.query_params.get("project") or request.query_params.get("projects")
        if self.deny_missing and not named_project:
            return _grpc_error(403, "permission denied")
        return _grpc_error(404, _not_found(name))

    async def _version(self, request: Request) -> Response:
        return JSONResponse({"Version": "v2.x-simulator"})

    async def _get(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        name = request.path_params["name"]
        refresh = request.query_params.get("refresh")
        if refresh and self.app(name) is not None:
            kind = "hard" if refresh == "hard" else "normal"
            await run_in_threadpool(self.request_refresh, name, kind)
        app = self.app(name)
        if app is None:
            return self._missing(request, name)
        return JSONResponse(app)

    def _matcher(self, request: Request) -> Callable[[App], bool]:
        """The app filter a list or stream request asks for (``ValueError`` if invalid)."""
        params = request.query_params
        names = params.getlist("name")
        if self.first_name_only:
            names = names[:1]
        selector = parse_selector(params.get("selector"))
        projects = set(params.getlist("projects") + params.getlist("project"))
        repo = repo_key(params["repo"]) if params.get("repo") else None

        def matches(app: App) -> bool:
            meta, spec = app.get("metadata") or {}, app.get("spec") or {}
            return (
                (not names or meta.get("name") in names)
                and selector(labels_of(app))
                and (not projects or spec.get("project") in projects)
                and (
                    repo is None
                    or any(repo_key(s.get("repoURL", "")) == repo for s in _sources(app))
                )
            )

        return matches

    async def _list(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        try:
            matches = self._matcher(request)
        except ValueError as exc:
            return _grpc_error(400, f"error parsing the selector: {exc}")
        apps, rv = self.snapshot()
        items = [a for a in apps if matches(a)]
        return JSONResponse({"metadata": {"resourceVersion": str(rv)}, "items": items})

    async def _sync(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        name = request.path_params["name"]
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("body is not an object")
        except ValueError:
            return _grpc_error(400, "invalid JSON body")
        if self.app(name) is None:
            return self._missing(request, name)
        try:
            app = await run_in_threadpool(self.request_sync, name, body)
        except ApiError as exc:
            code = 9 if exc.status == 400 else None  # FailedPrecondition
            return _grpc_error(exc.status, exc.message, code=code)
        return JSONResponse(app)

    async def _stream(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        try:
            matches = self._matcher(request)
        except ValueError as exc:
            return _grpc_error(400, f"error parsing the selector: {exc}")
        resumed = request.query_params.get("resourceVersion")
        # Argo CD sends the current apps first unless a resourceVersion is given; it does
        # not replay history, so only live changes follow.
        sub = self.subscribe(None)
        if resumed:
            sub.initial = []
        with self._lock:
            self._served.add(sub)
            if self._closed:  # stopping: a reconnect must not hold the server up
                sub.push(StreamEnd())

        async def lines() -> AsyncIterator[bytes]:
            try:
                for app in sub.initial:
                    if matches(app):
                        yield _line({"result": {"type": "ADDED", "application": app}})
                while True:
                    item = await sub.next()
                    if isinstance(item, StreamEnd):
                        if item.error:
                            yield _line({"error": _stream_error(item.error)})
                        return
                    if matches(item.app):
                        result = {"type": item.type, "application": item.app}
                        yield _line({"result": result})
            finally:
                sub.close()

        return StreamingResponse(lines(), media_type="application/json")


@dataclass
class ApiError(Exception):
    status: int
    message: str


def _requested_revisions(app: App, body: Mapping[str, Any]) -> list[str] | None:
    """The revisions a sync request asks for. A multi-source app takes ``revisions`` at
    ``sourcePositions`` (1-based; in order without them) and each other source's
    ``targetRevision``; its single ``revision`` is ignored, as Argo CD ignores it."""
    requested = [str(r) for r in body.get("revisions") or []]
    if not _multi(app):
        return requested or None
    revisions = [str(s.get("targetRevision") or "HEAD") for s in _sources(app)]
    positions = [int(p) for p in body.get("sourcePositions") or []]
    for index, rev in enumerate(requested):
        position = positions[index] - 1 if index < len(positions) else index
        if 0 <= position < len(revisions):
            revisions[position] = rev
    return revisions


def _not_found(name: str) -> str:
    return f'applications.argoproj.io "{name}" not found'


def _grpc_error(status: int, message: str, *, code: int | None = None) -> JSONResponse:
    """grpc-gateway's error body: ``error`` repeats ``message``; ``code`` is the gRPC code."""
    grpc_code = code if code is not None else _GRPC_CODES.get(status, 14)
    body = {"error": message, "code": grpc_code, "message": message}
    return JSONResponse(body, status_code=status)


def _stream_error(message: str) -> dict[str, Any]:
    """grpc-gateway v1's in-stream error (``runtimeStreamError`` in the swagger)."""
    return {
        "grpc_code": 14,
        "http_code": 503,
        "message": message,
        "http_status": "Service Unavailable",
    }


def _line(obj: Any) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


# --- status mutations (run under the simulator's lock, inside one update) ---------------


def _phase(app: App) -> str | None:
    return ((app.get("status") or {}).get("operationState") or {}).get("phase")


def _set_revisions(target: dict[str, Any], app: App, revisions: list[str]) -> None:
    """``revision`` for a single-source app, ``revisions`` for a multi-source one."""
    if _multi(app):
        target["revisions"] = list(revisions)
        target.pop("revision", None)
    else:
        target["revision"] = revisions[0] if revisions else ""
        target.pop("revisions", None)


def _reconciled(app: App) -> None:
    status = app["status"]
    finished = (status.get("operationState") or {}).get("finishedAt")
    status["reconciledAt"] = _not_before(finished)


def _set_health(app: App, status: str, message: str) -> None:
    health = app["status"].setdefault("health", {})
    if health.get("status") != status:
        health["lastTransitionTime"] = _stamp(_now())
    health["status"] = status
    if message:
        health["message"] = message
    else:
        health.pop("message", None)


def _start(
    app: App,
    revision: str,
    revisions: list[str] | None,
    initiator: dict[str, Any] | None,
    request: dict[str, Any] | None = None,
) -> None:
    request = request or {}
    sync: dict[str, Any] = {}
    if _multi(app):
        sync["revisions"] = list(revisions or [revision] * len(_sources(app)))
    else:
        sync["revision"] = revision
    if request.get("prune"):
        sync["prune"] = True
    if request.get("dryRun"):
        sync["dryRun"] = True
    if request.get("syncOptions"):
        sync["syncOptions"] = list((request["syncOptions"] or {}).get("items") or [])
    by = initiator or ({"automated": True} if _automated(app) else {"username": "admin"})
    operation = {"sync": sync, "initiatedBy": by, "retry": {}}
    app["operation"] = operation
    app["status"]["operationState"] = {
        "operation": copy.deepcopy(operation),
        "phase": "Running",
        "message": "",
        "startedAt": _stamp(_now()),
    }


def _finish(
    app: App, phase: str, message: str, reconcile: bool, revisions: list[str] | None
) -> None:
    status = app["status"]
    state = status.get("operationState")
    if not state:
        raise ValueError(f"{app['metadata']['name']}: no operation to finish")
    op_sync = (state.get("operation") or {}).get("sync") or {}
    revs = list(revisions or op_sync.get("revisions") or [op_sync.get("revision") or ""])
    # Without a reconcile, the last one stays strictly before the finish: a stale status.
    gap = 0 if reconcile else 1
    finished = _not_before(
        state.get("startedAt"), None if reconcile else status.get("reconciledAt"), gap=gap
    )
    state.update(phase=phase, message=message, finishedAt=finished)
    sources = copy.deepcopy(_sources(app))
    if _multi(app):
        state["syncResult"] = {"revision": "", "revisions": revs, "sources": sources}
    else:
        state["syncResult"] = {"revision": revs[0], "source": sources[0] if sources else {}}
    app.pop("operation", None)
    if phase == "Succeeded":
        history = status.setdefault("history", [])
        entry: dict[str, Any] = {
            "id": (history[-1]["id"] + 1) if history else 0,
            "deployStartedAt": state["startedAt"],
            "deployedAt": finished,
            "initiatedBy": copy.deepcopy(state["operation"].get("initiatedBy") or {}),
        }
        if _multi(app):
            entry.update(revisions=revs, sources=sources)
        else:
            entry.update(revision=revs[0], source=sources[0] if sources else {})
        history.append(entry)
        del history[:-HISTORY_LIMIT]
        if reconcile:
            status["sync"]["status"] = "Synced"
            _set_revisions(status["sync"], app, revs)
    if reconcile:
        status["reconciledAt"] = _not_before(finished)


# --- a controller that follows git ------------------------------------------------------


@dataclass
class _Plan:
    revisions: list[str]
    stage: str
    """outofsync | running | progressing"""
    due: float


@dataclass
class GitController:
    """Argo CD's application controller in miniature, for local demos.

    Every ``interval`` (and at once on a hard refresh), each app's sources are resolved
    with ``resolve``; when the result differs from what the app runs, the app turns
    OutOfSync at the new commit, and after ``delay`` (automated apps; others wait for a
    sync request) an operation runs to it: Running, then Succeeded and Synced with health
    Progressing, then Healthy after another ``delay``, or Degraded when
    :meth:`ArgoCDSimulator.fail_app` asked for it. Apps whose repository ``resolve`` does
    not know are left to the scenario.
    """

    sim: ArgoCDSimulator
    resolve: Resolver
    delay: float = 0.3
    interval: float | None = None
    _plans: dict[str, _Plan] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _wake: threading.Event = field(default_factory=threading.Event)
    _stopping: bool = False
    _thread: threading.Thread | None = None

    def start(self) -> GitController:
        self.sim.on_refresh = self._on_refresh
        self.sim.on_sync = self._on_sync
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="argocd-controller", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.sim.on_refresh = None
        self.sim.on_sync = None

    def __enter__(self) -> GitController:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _run(self) -> None:
        interval = self.interval if self.interval is not None else max(self.delay / 3, 0.01)
        while not self._stopping:
            self._wake.wait(interval)
            self._wake.clear()
            if not self._stopping:
                self.tick()

    def tick(self) -> None:
        """One pass over every app: notice new commits, move deployments along."""
        with self._lock:
            names = self.sim.names()
            for gone in set(self._plans) - set(names):
                del self._plans[gone]
            for name in names:
                try:
                    self._observe(name)
                    self._advance(name)
                except KeyError:  # deleted meanwhile
                    self._plans.pop(name, None)

    def _wanted(self, app: App) -> list[str] | None:
        wanted = []
        for source in _sources(app):
            sha = self.resolve(
                source.get("repoURL", ""),
                source.get("targetRevision") or "HEAD",
                source.get("path") or "",
            )
            if sha is None:
                return None
            wanted.append(sha)
        return wanted or None

    def _observe(self, name: str) -> None:
        app = self.sim.app(name)
        if app is None:
            return
        plan = self._plans.get(name)
        if plan is not None and plan.stage == "running":
            return  # a newer commit is noticed once the operation ends, as Argo CD does
        wanted = self._wanted(app)
        if wanted is None or (plan is not None and plan.revisions == wanted):
            return
        sync = app["status"].get("sync") or {}
        current = list(sync.get("revisions") or [sync.get("revision") or ""])
        if plan is None and sync.get("status") == "Synced" and current == wanted:
            return
        # the comparison is made at the new commit, so the revision moves before the sync
        self.sim.set_sync(name, "OutOfSync", wanted[0], wanted)
        self._plans[name] = _Plan(wanted, "outofsync", time.monotonic() + self.delay)

    def _advance(self, name: str) -> None:
        plan = self._plans.get(name)
        if plan is None or time.monotonic() < plan.due:
            return
        if plan.stage == "outofsync":
            app = self.sim.app(name)
            if app is None or not _automated(app):
                return  # manual sync policy: wait for a sync request
            self.sim.start_operation(name, plan.revisions[0], plan.revisions)
            plan.stage, plan.due = "running", time.monotonic() + self.delay / 2
        elif plan.stage == "running":
            # One change, as one reconcile of Argo CD: the sync ends and the new
            # ReplicaSet makes the app Progressing at once, never Healthy in between.
            revisions = plan.revisions

            def finish(app: App) -> None:
                _finish(app, "Succeeded", "successfully synced", True, revisions)
                _set_health(app, "Progressing", "waiting for rollout to finish")

            self.sim.update(name, finish)
            plan.stage, plan.due = "progressing", time.monotonic() + self.delay
        else:
            reason = self.sim.take_failure(name)
            if reason:
                self.sim.set_health(name, "Degraded", reason)
            else:
                self.sim.set_health(name, "Healthy")
            del self._plans[name]

    def _on_refresh(self, name: str, kind: str) -> None:
        """Compare now, so the refreshed app the caller reads already shows a new commit;
        a refresh asked through the annotation is acknowledged by removing it."""
        with self._lock:
            app = self.sim.app(name)
            annotations = ((app or {}).get("metadata") or {}).get("annotations") or {}
            if REFRESH_ANNOTATION in annotations:
                self.sim.update(
                    name, lambda a: a["metadata"]["annotations"].pop(REFRESH_ANNOTATION, None)
                )
            self._observe(name)

    def _on_sync(self, name: str, operation: dict[str, Any]) -> None:
        """A sync request runs now: resolve branch names to commits, finish after a while."""
        with self._lock:
            app = self.sim.app(name)
            if app is None:
                return
            sync = operation.get("sync") or {}
            asked = list(sync.get("revisions") or [sync.get("revision") or ""])
            revisions = []
            for source, rev in zip(_sources(app), asked, strict=False):
                if _SHA.match(rev):
                    revisions.append(rev)
                    continue
                resolved = self.resolve(
                    source.get("repoURL", ""),
                    rev or source.get("targetRevision") or "HEAD",
                    source.get("path") or "",
                )
                revisions.append(resolved or rev)
            self._plans[name] = _Plan(revisions, "running", time.monotonic() + self.delay / 2)
        self._wake.set()


def git_resolver(repo_dirs: Mapping[str, Path | str], *, by_path: bool = True) -> Resolver:
    """Resolve apps against local repositories (repository URL -> local path, bare or not).

    With ``by_path`` the answer is the newest commit on the branch whose tree at the app's
    path differs from its parents' (the commit that changed what the app deploys). Note
    that a real Argo CD reports the branch head it compared, whichever path a commit
    touched; ``by_path=False`` answers that way.
    """
    roots = {repo_key(url): Path(path) for url, path in repo_dirs.items()}
    cache: dict[tuple[str, str, str], str | None] = {}
    lock = threading.Lock()

    def resolve(repo_url: str, revision: str, path: str) -> str | None:
        root = roots.get(repo_key(repo_url))
        if root is None:
            return None
        repo = pygit2.Repository(str(root))
        head = _peel(repo, revision or "HEAD")
        if head is None:
            return None
        path = path.strip("/")
        if not by_path or path in ("", "."):
            return str(head.id)
        key = (str(root), str(head.id), path)
        with lock:
            if key not in cache:
                cache[key] = _last_change(repo, head, path)
            return cache[key]

    return resolve


def _peel(repo: Any, revision: str) -> Any | None:
    """The commit ``revision`` names: a SHA, a branch, a tag or HEAD."""
    candidates = [revision] if _SHA.match(revision) else []
    candidates += [f"refs/heads/{revision}", f"refs/tags/{revision}", revision]
    for candidate in candidates:
        try:
            return repo.revparse_single(candidate).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            continue
    return None


def _entry_id(commit: Any, path: str) -> str | None:
    try:
        return str(commit.tree[path].id)
    except KeyError:
        return None


def _last_change(repo: pygit2.Repository, head: pygit2.Commit, path: str) -> str | None:
    """Newest commit from ``head`` whose tree at ``path`` differs from every parent's
    (a merge that kept one side's version did not change the path, as in ``git log``)."""
    for commit in repo.walk(head.id, SortMode.TOPOLOGICAL):
        entry = _entry_id(commit, path)
        parents = [_entry_id(parent, path) for parent in commit.parents]
        touched = all(p != entry for p in parents) if parents else entry is not None
        if touched:
            return str(commit.id)
    return None
