"""A fake Kubernetes API server for Argo CD Application objects, over real HTTP.

In-cluster components (the reporters, the wait step with a service account) reach Argo CD
through the Kubernetes API rather than the Argo CD API server. This serves the same
:class:`~orchestrator.simulator.argocd.ArgoCDSimulator` state through the custom-object
routes the official ``kubernetes`` client calls, with the API server's own conventions:
``Status`` error bodies, label and field selectors, resourceVersion-based list-then-watch,
lists in pages (``limit``, then ``continue`` through one snapshot), and ``410 Gone`` (an
``ERROR`` event with reason ``Expired``) when a watch resumes from a resourceVersion older
than the retained history, which every watcher has to survive; ``BOOKMARK`` events when a
watch asks for them (``allowWatchBookmarks``); merge and JSON (RFC 6902) patches, and 415
for a strategic merge patch, which custom resources refuse.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jsonpatch  # type: ignore[import-untyped]
import jsonpointer  # type: ignore[import-untyped]
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from orchestrator.argocd_shapes import GROUP, PLURAL, REFRESH_ANNOTATION, VERSION
from orchestrator.simulator.argocd import (
    App,
    HistoryExpired,
    SimulatorState,
    StreamEnd,
    Subscription,
    labels_of,
    parse_selector,
)
from orchestrator.simulator.argocd.clock import stamp_now
from orchestrator.simulator.argocd.mutations import phase_of
from orchestrator.simulator.serve import ServerThread
from tests.fakes.kube_objects import FakeKubeObjects

BASE = f"/apis/{GROUP}/{VERSION}"
_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    404: "NotFound",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}
PATCHES: dict[str, Callable[[Any, Any], Any]] = {
    "application/merge-patch+json": lambda target, patch: merge_patch(target, patch),
    "application/json-patch+json": lambda target, patch: jsonpatch.apply_patch(target, patch),
}
"""What a custom resource accepts: no strategic merge patch (it has no Go struct tags to
merge lists by), no server-side apply here."""
UNKNOWN_PATCH = (
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
)
_IMMUTABLE = ("name", "namespace", "uid", "creationTimestamp", "resourceVersion", "generation")


def status_object(
    code: int, message: str, *, reason: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """A ``v1.Status`` failure, the body of every error the API server answers."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason or _REASONS.get(code, "InternalError"),
    }
    if name is not None:
        body["details"] = {"name": name, "group": GROUP, "kind": PLURAL}
    body["code"] = code
    return body


def _failure(code: int, message: str, **kwargs: Any) -> JSONResponse:
    return JSONResponse(status_object(code, message, **kwargs), status_code=code)


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: objects merge, ``null`` deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def parse_field_selector(text: str | None) -> Callable[[App], bool]:
    """``metadata.name`` and ``metadata.namespace`` with ``=``, ``==`` or ``!=``, the only
    fields the API server supports for custom resources; ``ValueError`` otherwise."""
    requirements: list[tuple[str, str, bool]] = []
    for term in filter(None, (t.strip() for t in (text or "").split(","))):
        negate = "!=" in term
        key, _, value = term.partition("!=" if negate else "=")
        key, value = key.strip(), value.lstrip("=").strip()
        if key not in ("metadata.name", "metadata.namespace"):
            raise ValueError(f'field label not supported: "{key}"')
        requirements.append((key.split(".", 1)[1], value, negate))

    def matches(app: App) -> bool:
        meta = app.get("metadata") or {}
        return all((meta.get(attr) == value) != negate for attr, value, negate in requirements)

    return matches


def _line(obj: Any) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class FakeKubeAPI:
    """The ``applications.argoproj.io`` routes of a Kubernetes API server.

    Faults for watch tests: :meth:`expire_watch_history` compacts the history (every
    resourceVersion before now is too old), :meth:`gone_next` makes the next watches
    answer 410 whatever they ask; :meth:`fail_next` makes requests answer an error status.
    """

    def __init__(
        self,
        sim: SimulatorState,
        token: str | None = None,
        *,
        bookmark_interval: float = 60,
        objects: FakeKubeObjects | None = None,
    ) -> None:
        """``bookmark_interval``: seconds between BOOKMARK events on a quiet watch that
        asked for them (the API server's is about a minute); one also comes a second
        before a watch's ``timeoutSeconds`` runs out, as the API server does."""
        self.sim = sim
        self.token = token
        self.objects = objects
        """ConfigMaps and Secrets served beside the Applications (the core routes)."""
        self.bookmark_interval = bookmark_interval
        self.requests: list[str] = []
        """``METHOD /path?query`` of every request, in order."""
        self.patches: list[tuple[str, Any]] = []
        self._lock = threading.Lock()
        self._floor = 0
        self._gone = 0
        self._fail: list[int] = []
        self._watches: set[Subscription] = set()
        self._closed = False
        self._pages: dict[str, tuple[list[App], int]] = {}
        """Continue token -> what a paged list has yet to give, at its resourceVersion."""
        self._continued = 0

    def expire_watch_history(self) -> None:
        """Forget every change so far, as a compaction does: watches from any earlier
        resourceVersion get 410 Expired and must list again."""
        with self._lock:
            self._floor = self.sim.resource_version

    def gone_next(self, count: int) -> None:
        with self._lock:
            self._gone += count

    def fail_next(self, count: int, status: int = 503) -> None:
        with self._lock:
            self._fail.extend([status] * count)

    def asgi(self) -> Starlette:
        one = f"{BASE}/namespaces/{{namespace}}/{PLURAL}/{{name}}"
        return Starlette(
            routes=[
                Route(f"{BASE}/{PLURAL}", self._collection),
                Route(f"{BASE}/namespaces/{{namespace}}/{PLURAL}", self._collection),
                Route(one, self._one, methods=["GET", "PATCH"]),
                # the apps' workloads, read by the gate's image check
                Route(
                    "/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}",
                    self._workload,
                    methods=["GET"],
                ),
                *(self.objects.routes() if self.objects is not None else []),
            ]
        )

    @contextmanager
    def serve(self) -> Iterator[ServerThread]:
        """Serve on a free port; this server's open watches end first so it can stop at
        once (streams of the Argo CD API on the same state are left alone)."""
        with self._lock:
            self._closed = False
        with ServerThread(self.asgi()) as server:
            try:
                yield server
            finally:
                if self.objects is not None:
                    self.objects.closed = True
                with self._lock:
                    self._closed = True
                    watches = list(self._watches)
                for sub in watches:
                    sub.push(StreamEnd())

    # --- requests ------------------------------------------------------------------------

    def _guard(self, request: Request) -> Response | None:
        query = f"?{request.url.query}" if request.url.query else ""
        with self._lock:
            self.requests.append(f"{request.method} {request.url.path}{query}")
            fault = self._fail.pop(0) if self._fail else None
        if fault is not None:
            return _failure(fault, f"simulated failure ({fault})")
        if self.token is not None and request.headers.get("authorization") != (
            f"Bearer {self.token}"
        ):
            return _failure(401, "Unauthorized")
        return None

    def _find(self, namespace: str, name: str) -> App | None:
        app = self.sim.app(name)
        if app is None or app["metadata"].get("namespace") != namespace:
            return None
        return app

    async def _one(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        namespace, name = request.path_params["namespace"], request.path_params["name"]
        if self._find(namespace, name) is None:
            return _failure(404, f'{PLURAL}.{GROUP} "{name}" not found', name=name)
        if request.method == "GET":
            return JSONResponse(self._find(namespace, name))
        apply = PATCHES.get(request.headers.get("content-type", "").split(";")[0].strip())
        if apply is None:
            return _failure(415, UNKNOWN_PATCH)
        try:
            patch = await request.json()
        except ValueError:
            return _failure(400, "the request body is not valid JSON")
        wanted = list if apply is PATCHES["application/json-patch+json"] else dict
        if not isinstance(patch, wanted):
            shape = "list of operations" if wanted is list else "JSON object"
            return _failure(422, f"the patch must be a {shape}")
        return await run_in_threadpool(self._patch, name, apply, patch)

    async def _workload(self, request: Request) -> Response:
        """A workload of an app (the simulator's one Deployment per app that runs images):
        ``GET /apis/apps/v1/namespaces/NS/deployments/NAME`` as the API server answers it,
        404 ``Status`` for anything else."""
        if (refused := self._guard(request)) is not None:
            return refused
        params = request.path_params
        group, plural, name = params["group"], params["plural"], params["name"]
        kinds = {("apps", "v1", "deployments"): "Deployment"}
        kind = kinds.get((group, params["version"], plural))
        found = self.sim.find_workload(params["namespace"], kind, name) if kind else None
        if found is None:
            body = status_object(404, f'{plural}.{group} "{name}" not found', name=name)
            body["details"]["group"], body["details"]["kind"] = group, plural
            return JSONResponse(body, status_code=404)
        return JSONResponse(found)

    def _patch(self, name: str, apply: Callable[[Any, Any], Any], patch: Any) -> Response:
        """Apply a patch (identity fields are kept). A refresh annotation it sets is how a
        refresh is asked through Kubernetes, and an ``operation`` it adds is how a sync is:
        both reach the controller."""
        before = self.sim.app(name) or {}

        def change(app: App) -> None:
            kept = {k: app["metadata"].get(k) for k in _IMMUTABLE}
            patched = apply(app, patch)
            app.clear()
            app.update(patched)
            app["metadata"].update({k: v for k, v in kept.items() if v is not None})

        with self._lock:
            self.patches.append((name, copy.deepcopy(patch)))
        try:
            self.sim.update(name, change)
        except KeyError:
            return _failure(404, f'{PLURAL}.{GROUP} "{name}" not found', name=name)
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
            return _failure(422, str(exc))
        after = self.sim.app(name) or {}
        refresh = _annotation(after, REFRESH_ANNOTATION)
        if refresh and refresh != _annotation(before, REFRESH_ANNOTATION):
            self.sim.request_refresh(name, "hard" if refresh == "hard" else "normal")
        if after.get("operation") and not before.get("operation"):
            # the controller notices the requested operation and runs it
            pick_up_operation(self.sim, name)
        return JSONResponse(self.sim.app(name))

    async def _collection(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        params = request.query_params
        namespace = request.path_params.get("namespace")
        try:
            labels = parse_selector(params.get("labelSelector"))
            fields = parse_field_selector(params.get("fieldSelector"))
        except ValueError as exc:
            return _failure(400, str(exc))

        def matches(app: App) -> bool:
            in_namespace = namespace is None or app["metadata"].get("namespace") == namespace
            return in_namespace and labels(labels_of(app)) and fields(app)

        if params.get("watch") in ("true", "1"):
            return self._watch(request, matches)
        token = params.get("continue") or ""
        if token:  # the rest of a snapshot already taken, as the API server's pages
            with self._lock:
                found = self._pages.pop(token, None)
            if found is None:
                return _failure(410, "the provided continue parameter is too old", reason="Expired")
            items, rv = found
        else:
            apps, rv = self.sim.snapshot()
            items = [app for app in apps if matches(app)]
        meta = {"resourceVersion": str(rv)}
        limit = int(params.get("limit") or 0)
        if 0 < limit < len(items):
            with self._lock:
                self._continued += 1
                meta["continue"] = f"{rv}-{self._continued}"
                self._pages[meta["continue"]] = (items[limit:], rv)
            items = items[:limit]
        return JSONResponse(
            {
                "apiVersion": f"{GROUP}/{VERSION}",
                "kind": "ApplicationList",
                "metadata": meta,
                "items": items,
            }
        )

    def _watch(self, request: Request, matches: Callable[[App], bool]) -> Response:
        """Events after ``resourceVersion`` (or ADDED for every object, then changes),
        one JSON object per line; ``ERROR`` 410 when the history no longer reaches back."""
        params = request.query_params
        raw = params.get("resourceVersion") or ""
        try:
            since = int(raw) if raw not in ("", "0") else None
            timeout = float(params["timeoutSeconds"]) if params.get("timeoutSeconds") else None
        except ValueError:
            return _failure(400, f"invalid resourceVersion or timeoutSeconds: {raw!r}")
        with self._lock:
            forced = self._gone > 0
            self._gone -= 1 if forced else 0
            floor = self._floor
        expired: HistoryExpired | None = None
        if forced:
            expired = HistoryExpired(since or 0, max(floor, self.sim.resource_version))
        elif since is not None and since < floor:
            expired = HistoryExpired(since, floor)
        if expired is not None:
            error = status_object(410, str(expired), reason="Expired")
            event = {"type": "ERROR", "object": error}
            return StreamingResponse(_once(_line(event)), media_type="application/json")
        try:
            sub = self.sim.subscribe(since)
        except HistoryExpired as exc:
            error = status_object(410, str(exc), reason="Expired")
            event = {"type": "ERROR", "object": error}
            return StreamingResponse(_once(_line(event)), media_type="application/json")
        with self._lock:
            self._watches.add(sub)
            if self._closed:  # stopping: a new watch must not hold the server up
                sub.push(StreamEnd())

        bookmarks = params.get("allowWatchBookmarks") in ("true", "1")

        def bookmark() -> bytes:
            meta = {"resourceVersion": str(self.sim.resource_version)}
            obj = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Application", "metadata": meta}
            return _line({"type": "BOOKMARK", "object": obj})

        async def lines() -> AsyncIterator[bytes]:
            started = time.monotonic()
            deadline = None if timeout is None else started + timeout
            last_bookmark, final_sent = started, False
            try:
                for app in sub.initial:
                    if matches(app):
                        yield _line({"type": "ADDED", "object": app})
                for past in sub.backlog:
                    if matches(past.app):
                        yield _line({"type": past.type, "object": past.app})
                while True:
                    now = time.monotonic()
                    if deadline is not None and now >= deadline:
                        return
                    wake = deadline
                    if bookmarks:
                        due = last_bookmark + self.bookmark_interval
                        if deadline is not None and not final_sent:
                            due = min(due, deadline - 1)  # one just before the watch ends
                        if now >= due:
                            final_sent = final_sent or (
                                deadline is not None and now >= deadline - 1
                            )
                            last_bookmark = now
                            yield bookmark()
                            continue
                        wake = due if wake is None else min(wake, due)
                    item = await sub.wait(None if wake is None else wake - now)
                    if item is None:
                        continue  # time for a bookmark, or the end
                    if isinstance(item, StreamEnd):
                        return
                    if matches(item.app):
                        yield _line({"type": item.type, "object": item.app})
            finally:
                sub.close()
                with self._lock:
                    self._watches.discard(sub)

        return StreamingResponse(lines(), media_type="application/json")


class _NothingToStart(Exception):
    pass


def pick_up_operation(sim: SimulatorState, name: str) -> None:
    """The controller starting an operation written into the ``operation`` field (how a
    sync is asked for through the Kubernetes API, as the argocd CLI's core mode does):
    ``operationState`` Running with a copy of it, then the ``on_sync`` hook. Nothing
    happens when no operation is pending or one is already running."""
    started: list[dict[str, Any]] = []

    def start(app: App) -> None:
        operation = app.get("operation")
        if not operation or phase_of(app) in ("Running", "Terminating"):
            raise _NothingToStart
        started.append(copy.deepcopy(operation))
        app["status"]["operationState"] = {
            "operation": copy.deepcopy(operation),
            "phase": "Running",
            "message": "",
            "startedAt": stamp_now(),
        }

    try:
        sim.update(name, start)  # a change that raises leaves the app as it was
    except (KeyError, _NothingToStart):
        return
    operation = started[0]
    sim.syncs.append((name, copy.deepcopy(operation.get("sync") or {})))
    if sim.on_sync is not None:
        sim.on_sync(name, operation)


def _annotation(app: App, key: str) -> str | None:
    value = ((app.get("metadata") or {}).get("annotations") or {}).get(key)
    return str(value) if value is not None else None


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data
    await asyncio.sleep(0)
