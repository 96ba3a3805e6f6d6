"""The Argo CD API server over the simulator's state: the routes promoflow and its
reporters call, answered in upstream's shapes.

Errors are grpc-gateway bodies (``error``/``code``/``message`` with the gRPC code), the
application stream is NDJSON with grpc-gateway's in-stream errors, a hard refresh is
processed before the app is returned, and a missing app is answered the way Argo CD
(>= 2.6.7) hides it from callers without a project (403, unless ``deny_missing=False``).
As Argo CD 3 answers: apps without ``apiVersion``/``kind``, an empty list's ``items`` as
``null``, a stream's status line and headers only with its first event.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from orchestrator.argocd_shapes import normalize_repo_url, sources
from orchestrator.labelselector import labels_of, parse_selector
from orchestrator.simulator.argocd.events import App, StreamEnd, Subscription
from orchestrator.simulator.argocd.repository import RepoReadings
from orchestrator.simulator.argocd.resources import HealthMessages
from orchestrator.simulator.argocd.state import ApiError, SimulatorState, not_found
from orchestrator.simulator.serve import ServerThread

CAN_I_ACTIONS = ("get", "create", "update", "delete", "sync", "override", "action", "invoke")
"""The actions Argo CD's RBAC knows (its 400 for another lists them in this order)."""
_GRPC_CODES = {400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 429: 8, 500: 13, 501: 12, 504: 4}


def grpc_error(status: int, message: str, *, code: int | None = None) -> JSONResponse:
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


def _served(app: App) -> App:
    """An app as the API server sends it: Argo CD's typed objects carry no
    ``apiVersion``/``kind`` (the Kubernetes API's do)."""
    return {k: v for k, v in app.items() if k not in ("apiVersion", "kind")}


class _HeadersWithFirstEvent(StreamingResponse):
    """grpc-gateway writes the status line and headers with the first message: a stream
    whose filter matches nothing yet leaves the client waiting for headers."""

    async def stream_response(self, send: Any) -> None:
        chunks = aiter(self.body_iterator)
        try:
            first: Any = await anext(chunks)
        except StopAsyncIteration:
            first = b""
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})  # fmt: skip
        if first:
            await send({"type": "http.response.body", "body": first, "more_body": True})
        async for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class ArgoCDSimulator(SimulatorState, RepoReadings):
    """Applications in memory, changed by scenario helpers and served over HTTP."""

    def __init__(
        self,
        token: str | None = None,
        namespace: str = "argocd",
        *,
        history: int = 1000,
        deny_missing: bool = True,
        first_name_only: bool = False,
        health_messages: HealthMessages = "tree",
    ) -> None:
        """``deny_missing``: answer a missing app with 403 ``permission denied`` unless the
        request names a project, as Argo CD does since 2.6.7 (GHSA-2q5c-qw9c-fmvq); false
        answers 404 as older servers did.
        ``first_name_only``: filter streams and lists by the first ``name`` value only, as
        Argo CD's grpc-gateway does (the query field is not repeated)."""
        super().__init__(namespace, history=history, health_messages=health_messages)
        self.token = token
        self.deny_missing = deny_missing
        self.first_name_only = first_name_only
        self.requests: list[str] = []
        """``METHOD /path?query`` of every API request, in order."""
        self.account = "promoflow"
        """Who the token is, as ``/api/v1/session/userinfo`` says."""
        self.denied: set[tuple[str, str]] = set()
        """``(action, project/app)`` pairs ``can-i`` answers ``no`` to (all else: ``yes``)."""
        self._served: set[Subscription] = set()
        """The subscriptions of this API server's own streams (closed when it stops)."""
        self._closed = False
        self._init_repo_readings()

    @property
    def open_streams(self) -> int:
        """Streams this API server holds open (one may have sent nothing yet)."""
        with self._lock:
            return len(self._served)

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            super()._unsubscribe(sub)
            self._served.discard(sub)

    def asgi(self) -> Starlette:
        """The Argo CD API server routes promoflow and its reporters use."""
        return Starlette(
            routes=[
                Route("/api/version", self._version),
                Route("/api/v1/session/userinfo", self._userinfo),
                Route("/api/v1/account/can-i/{resource}/{action}/{subresource:path}", self._can_i),
                Route("/api/v1/applications", self._list),
                Route("/api/v1/applications/{name}", self._get),
                Route("/api/v1/applications/{name}/sync", self._sync, methods=["POST"]),
                Route("/api/v1/applications/{applicationName}/resource-tree", self._tree),
                Route("/api/v1/applications/{applicationName}/managed-resources", self._managed),
                Route("/api/v1/stream/applications", self._stream),
                Route(
                    "/api/v1/applications/{name}/revisions/{revision}/metadata",
                    self._revision_metadata,
                ),
                Route(
                    "/api/v1/repositories/{repo:path}/appdetails",
                    self._app_details,
                    methods=["POST"],
                ),
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

    # --- requests ------------------------------------------------------------------------

    def _record(self, request: Request) -> None:
        query = f"?{request.url.query}" if request.url.query else ""
        with self._lock:
            self.requests.append(f"{request.method} {request.url.path}{query}")

    def _guard(self, request: Request) -> Response | None:
        """Record the request; answer it at once when authentication fails."""
        self._record(request)
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
            return grpc_error(403, "permission denied")
        return grpc_error(404, not_found(name))

    async def _version(self, request: Request) -> Response:
        return JSONResponse({"Version": "v2.x-simulator"})

    async def _userinfo(self, request: Request) -> Response:
        """As Argo CD: an empty object (200) for a caller without a valid token."""
        if self._guard(request) is not None:
            return JSONResponse({})
        return JSONResponse({"loggedIn": True, "username": self.account, "iss": "argocd"})

    async def _can_i(self, request: Request) -> Response:
        """``yes`` unless :attr:`denied` names the action and object; an unknown action is
        400, as Argo CD's enforcer refuses it."""
        if self._guard(request) is not None:
            return grpc_error(401, "no session information")
        action = request.path_params["action"]
        if action not in CAN_I_ACTIONS:
            return grpc_error(400, f"[{' '.join(CAN_I_ACTIONS)}] does not contain {action}")
        denied = (action, request.path_params["subresource"]) in self.denied
        return JSONResponse({"value": "no" if denied else "yes"})

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
        return JSONResponse(_served(app))

    async def _tree(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        name = request.path_params["applicationName"]  # the swagger's name for it here
        if self.app(name) is None:
            return self._missing(request, name)
        return JSONResponse(self.resource_tree(name))

    async def _managed(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        name = request.path_params["applicationName"]
        if self.app(name) is None:
            return self._missing(request, name)
        return JSONResponse(self.managed_resources(name))

    def _matcher(self, request: Request) -> Callable[[App], bool]:
        """The app filter a list or stream request asks for (``ValueError`` if invalid)."""
        params = request.query_params
        names = params.getlist("name")
        if self.first_name_only:
            names = names[:1]
        selector = parse_selector(params.get("selector"))
        projects = set(params.getlist("projects") + params.getlist("project"))
        repo = normalize_repo_url(params["repo"]) if params.get("repo") else None

        def matches(app: App) -> bool:
            meta, spec = app.get("metadata") or {}, app.get("spec") or {}
            return (
                (not names or meta.get("name") in names)
                and selector(labels_of(app))
                and (not projects or spec.get("project") in projects)
                and (
                    repo is None
                    or any(normalize_repo_url(s.get("repoURL", "")) == repo for s in sources(app))
                )
            )

        return matches

    def _selection(self, request: Request) -> Callable[[App], bool] | Response:
        """The app filter of a list or stream request, or the answer refusing it: the
        caller's credentials first, then the selector (Argo CD answers one it cannot parse
        with 500, code 2)."""
        if (refused := self._guard(request)) is not None:
            return refused
        try:
            return self._matcher(request)
        except ValueError as exc:
            return grpc_error(500, f"error parsing the selector: {exc}", code=2)

    async def _list(self, request: Request) -> Response:
        matches = self._selection(request)
        if isinstance(matches, Response):
            return matches
        apps, rv = self.snapshot()
        items = [_served(a) for a in apps if matches(a)]
        # Go marshals an empty slice of a typed list as null
        return JSONResponse({"metadata": {"resourceVersion": str(rv)}, "items": items or None})

    async def _sync(self, request: Request) -> Response:
        if (refused := self._guard(request)) is not None:
            return refused
        name = request.path_params["name"]
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("body is not an object")
        except ValueError:
            return grpc_error(400, "invalid JSON body")
        if self.app(name) is None:
            return self._missing(request, name)
        try:
            app = await run_in_threadpool(self.request_sync, name, body)
        except ApiError as exc:
            code = 9 if exc.status == 400 else None  # FailedPrecondition
            return grpc_error(exc.status, exc.message, code=code)
        return JSONResponse(_served(app))

    async def _stream(self, request: Request) -> Response:
        matches = self._selection(request)
        if isinstance(matches, Response):
            return matches
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
                        result = {"type": "ADDED", "application": _served(app)}
                        yield _line({"result": result})
                while True:
                    item = await sub.next()
                    if isinstance(item, StreamEnd):
                        if item.error:
                            yield _line({"error": _stream_error(item.error)})
                        return
                    if matches(item.app):
                        result = {"type": item.type, "application": _served(item.app)}
                        yield _line({"result": result})
            finally:
                sub.close()

        return _HeadersWithFirstEvent(lines(), media_type="application/json")
