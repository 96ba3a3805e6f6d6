"""ConfigMaps, Secrets and Argo CD's AppProjects of a fake Kubernetes API server, over
real HTTP.

The core routes the official client calls to follow a named object
(``GET /api/v1/namespaces/NS/configmaps?fieldSelector=metadata.name=NAME``, then the
same with ``watch=true``), with the API server's conventions: the list's
``resourceVersion``, a watch from it with the changes after it, ``BOOKMARK`` events when
asked for, ``410 Gone`` (an ``ERROR`` event, reason ``Expired``) from a version older
than the history kept, ``Status`` bodies for errors, and the field selectors
``metadata.name`` and ``metadata.namespace`` alone. Secrets' ``data`` is base64, as the
API server serves it. AppProjects (``argoproj.io/v1alpha1``) are served on the custom
object routes, by namespace and across all of them, with their annotations.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from orchestrator.simulator.serve import ServerThread

KINDS = {"configmaps": "ConfigMap", "secrets": "Secret", "appprojects": "AppProject"}
PROJECTS = "/apis/argoproj.io/v1alpha1"
Obj = dict[str, Any]


def _status(code: int, message: str, reason: str) -> Obj:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}  # fmt: skip


def _line(obj: Obj) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class FakeKubeObjects:
    """Named ConfigMaps and Secrets: :meth:`put` creates or replaces one, :meth:`delete`
    removes it; :meth:`expire_watch_history` makes every earlier version too old."""

    def __init__(self, *, bookmark_interval: float = 60) -> None:
        self.bookmark_interval = bookmark_interval
        self.requests: list[str] = []
        self.version = 100
        self.objects: dict[tuple[str, str, str], Obj] = {}
        self.history: list[tuple[int, str, Obj]] = []
        self.floor = 0
        self.closed = False
        self.forbidden: set[str] = set()
        """Names this server's caller may not read (a Role that does not name them)."""
        self._lock = threading.Lock()

    def put(
        self,
        kind: str,
        namespace: str,
        name: str,
        data: dict[str, str],
        annotations: dict[str, str] | None = None,
    ) -> None:
        """Create or replace; a Secret's ``data`` is given as text and kept as base64; an
        AppProject's ``data`` is its spec."""
        if kind == "secrets":
            data = {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}
        with self._lock:
            self.version += 1
            key = (kind, namespace, name)
            kind_name = KINDS[kind]
            meta: Obj = {"name": name, "namespace": namespace, "resourceVersion": str(self.version)}
            if annotations:
                meta["annotations"] = dict(annotations)
            obj = {"apiVersion": "v1", "kind": kind_name, "metadata": meta, "data": dict(data)}
            if kind == "appprojects":
                obj = {"apiVersion": "argoproj.io/v1alpha1", "kind": kind_name, "metadata": meta,
                       "spec": dict(data)}  # fmt: skip
            change = "MODIFIED" if key in self.objects else "ADDED"
            self.objects[key] = obj
            self.history.append((self.version, change, copy.deepcopy(obj)))

    def delete(self, kind: str, namespace: str, name: str) -> None:
        with self._lock:
            obj = self.objects.pop((kind, namespace, name))
            self.version += 1
            obj["metadata"]["resourceVersion"] = str(self.version)
            self.history.append((self.version, "DELETED", obj))

    def expire_watch_history(self) -> None:
        with self._lock:
            self.floor = self.version

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/v1/namespaces/{namespace}/{kind}", self._collection),
            Route("/api/v1/namespaces/{namespace}/{kind}/{name}", self._one),
            Route(f"{PROJECTS}/namespaces/{{namespace}}/{{kind}}", self._collection),
            Route(f"{PROJECTS}/{{kind}}", self._collection),
        ]

    @contextmanager
    def serve(self) -> Iterator[ServerThread]:
        self.closed = False
        with ServerThread(Starlette(routes=self.routes())) as server:
            try:
                yield server
            finally:
                self.closed = True

    def _matches(self, request: Request) -> Any:
        namespace, kind = request.path_params.get("namespace"), request.path_params["kind"]
        wanted: dict[str, str] = {"namespace": namespace} if namespace else {}
        for term in filter(None, (request.query_params.get("fieldSelector") or "").split(",")):
            field, _, value = term.partition("=")
            if field not in ("metadata.name", "metadata.namespace"):
                return None
            wanted[field.split(".", 1)[1]] = value.lstrip("=")

        def matches(obj_kind: str, obj: Obj) -> bool:
            meta = obj["metadata"]
            return obj_kind == kind and all(meta.get(k) == v for k, v in wanted.items())

        return matches

    async def _one(self, request: Request) -> Response:
        self.requests.append(f"GET {request.url.path}")
        params = request.path_params
        obj = self.objects.get((params["kind"], params["namespace"], params["name"]))
        if obj is None:
            message = f'{params["kind"]} "{params["name"]}" not found'
            return JSONResponse(_status(404, message, "NotFound"), status_code=404)
        return JSONResponse(obj)

    async def _collection(self, request: Request) -> Response:
        query = f"?{request.url.query}" if request.url.query else ""
        self.requests.append(f"GET {request.url.path}{query}")
        kind = request.path_params["kind"]
        matches = self._matches(request)
        if kind not in KINDS or matches is None:
            reason = "field label not supported" if kind in KINDS else "the server could not find"
            return JSONResponse(_status(400, reason, "BadRequest"), status_code=400)
        named = (request.query_params.get("fieldSelector") or "").partition("metadata.name=")[2]
        if named in self.forbidden or (self.forbidden and not named):
            message = (
                f'{kind} "{named}" is forbidden: User "system:serviceaccount:promoflow:reporters" '
                f'cannot list resource "{kind}" in API group "" in the namespace '
                f'"{request.path_params.get("namespace", "")}"'
            )
            return JSONResponse(_status(403, message, "Forbidden"), status_code=403)
        if request.query_params.get("watch") in ("true", "1"):
            return StreamingResponse(self._watch(request, matches), media_type="application/json")
        with self._lock:
            items = [copy.deepcopy(o) for (k, _, _), o in self.objects.items() if matches(k, o)]
            version = self.version
        version_of = "argoproj.io/v1alpha1" if kind == "appprojects" else "v1"
        listing = {"apiVersion": version_of, "kind": f"{KINDS[kind]}List",
                   "metadata": {"resourceVersion": str(version)}, "items": items}  # fmt: skip
        return JSONResponse(listing)

    async def _watch(self, request: Request, matches: Any) -> AsyncIterator[bytes]:
        params, kind = request.query_params, request.path_params["kind"]
        raw = params.get("resourceVersion") or "0"
        since = int(raw)
        timeout = float(params.get("timeoutSeconds") or 300)
        bookmarks = params.get("allowWatchBookmarks") in ("true", "1")
        if since and since < self.floor:
            message = f"too old resource version: {since} ({self.floor})"
            yield _line({"type": "ERROR", "object": _status(410, message, "Expired")})
            return
        if not since:
            with self._lock:
                current = [o for (k, _, _), o in self.objects.items() if matches(k, o)]
                since = self.version
            for obj in current:
                yield _line({"type": "ADDED", "object": obj})
        deadline, marked = time.monotonic() + timeout, time.monotonic()
        while time.monotonic() < deadline and not self.closed:
            with self._lock:
                news = [(v, t, o) for v, t, o in self.history if v > since]
            for version, change, obj in news:
                since = version
                if matches(KINDS_OF[obj["kind"]], obj):
                    yield _line({"type": change, "object": obj})
            if bookmarks and time.monotonic() - marked >= self.bookmark_interval:
                marked = time.monotonic()
                meta = {"resourceVersion": str(since)}
                yield _line({"type": "BOOKMARK", "object": {"kind": KINDS[kind], "metadata": meta}})
            await asyncio.sleep(0.02)


KINDS_OF = {v: k for k, v in KINDS.items()}


def core_v1_at(url: str) -> Any:
    """A ``CoreV1Api`` of the official client, talking to the fake at ``url``."""
    from kubernetes import client

    configuration = client.Configuration()
    configuration.host = url
    return client.CoreV1Api(client.ApiClient(configuration))
