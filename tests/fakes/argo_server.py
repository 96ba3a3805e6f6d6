"""A fake Argo Server over real HTTP: the REST endpoints promoflow uses, answered in the
shapes of tests/refdata/argo-workflows/openapi-swagger.json.

Objects are validated against the upstream JSON Schema on create and update (400 with the
reason, nothing stored), names conflict with 409, missing objects are 404, and a configured
token is required as ``Authorization: Bearer TOKEN`` (401 otherwise). As the real server
does (compared in tests/e2e/test_fakes_match_real_servers.py): what a caller creates,
updates or ``set``s is labelled with who they are (from :attr:`FakeArgoServer.userinfo`),
an empty list is ``"items": null``, a Workflow naming a missing template is 404, ``/version``
and ``/userinfo`` answer any caller (userinfo ``{}`` for a refused token), and ``/log``
fails in the streaming shape (``{"error": {"grpc_code", "http_code", ...}}``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from orchestrator.actors import ACTION, actor_labels, creator_labels
from tests.fakes.argo_store import ApiError, Obj, Store
from tests.fakes.served import Served
from tests.support.argo_schema import schema_errors

ROUTES = {
    "/api/v1/workflow-templates/{namespace}": ("GET", "POST"),
    "/api/v1/workflow-templates/{namespace}/{name}": ("GET", "PUT", "DELETE"),
    "/api/v1/workflows/{namespace}": ("GET", "POST"),
    "/api/v1/workflows/{namespace}/{name}": ("GET", "DELETE"),
    "/api/v1/workflows/{namespace}/submit": ("POST",),
    "/api/v1/workflows/{namespace}/{name}/set": ("PUT",),
    "/api/v1/workflows/{namespace}/{name}/stop": ("PUT",),
    "/api/v1/workflows/{namespace}/{name}/log": ("GET",),
    "/api/v1/userinfo": ("GET",),
    "/api/v1/version": ("GET",),
}
VERSION = {
    "version": "v4.0.5",
    "buildDate": "2025-10-01T00:00:00Z",
    "gitCommit": "0" * 40,
    "gitTag": "v4.0.5",
    "gitTreeState": "clean",
    "goVersion": "go1.24.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}


@dataclass
class FakeArgoServer(Served):
    token: str | None = None
    base_href: str = ""
    """Path prefix, as when the Argo Server sits behind a proxy (ARGO_BASE_HREF)."""
    store: Store = field(default_factory=Store)
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    userinfo: Obj = field(default_factory=dict)
    """What ``/api/v1/userinfo`` says of the caller (empty: an anonymous/unknown caller)."""
    logs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Each Workflow's log lines, as ``(pod name, line)`` in the order they were written:
    what ``/log`` streams (of the main containers; other containers log nothing here)."""
    validate: bool = True
    """Check objects against the upstream schema (a load benchmark turns it off: the real
    server's own cost is not what it measures)."""

    def app(self) -> Starlette:
        prefix = "/" + self.base_href.strip("/") if self.base_href.strip("/") else ""
        routes = [Route(prefix + path, self._handle, methods=list(m)) for path, m in ROUTES.items()]
        return Starlette(routes=routes)

    async def _handle(self, request: Request) -> Response:
        try:
            self._authorize(request)
            if request.url.path.endswith("/log"):
                response: Response = self._log(request)
                self.requests.append((request.method, request.url.path, 200))
                return response
            body: Any = await request.json() if request.method in ("POST", "PUT") else {}
            result, status = self._dispatch(request, body), 200
            response = JSONResponse(result, status_code=status)
        except ApiError as exc:
            stream = request.url.path.endswith("/log")
            body = exc.stream_body() if stream else exc.body()
            response = JSONResponse(body, status_code=exc.status)
        except ValueError:
            response = JSONResponse({"code": 3, "message": "invalid JSON body"}, 400)
        self.requests.append((request.method, request.url.path, response.status_code))
        return response

    def _log(self, request: Request) -> Response:
        """``WorkflowLogs``: one ``{"result": {"content", "podName"}}`` JSON line per log
        line, as grpc-gateway streams upstream's LogEntry (``podName``, ``grep`` filter;
        a follow ends with the lines there are, as when every pod has ended)."""
        params, query = request.path_params, request.query_params
        self.store.get("Workflow", params["namespace"], params["name"])
        if query.get("logOptions.container", "main") != "main":
            return Response(b"", media_type="application/json")
        pod, grep = query.get("podName"), query.get("grep")
        lines = [
            json.dumps({"result": {"content": content, "podName": name}}) + "\n"
            for name, content in self.logs.get(params["name"], [])
            if (not pod or name == pod) and (not grep or grep in content)
        ]
        return Response("".join(lines).encode(), media_type="application/json")

    def _authorize(self, request: Request) -> None:
        if self.token is None or request.url.path.endswith(("/api/v1/version", "/userinfo")):
            return  # the real server tells its version to anyone, and who is asking ({})
        if request.headers.get("authorization") != f"Bearer {self.token}":
            raise ApiError(401, 16, "token not valid. see https://argo-workflows.readthedocs.io")

    def _from_template(self, namespace: str, body: Obj) -> Obj:
        """``submit``: a Workflow from a WorkflowTemplate, as ``argo submit --from`` does."""
        if body.get("resourceKind") != "WorkflowTemplate":
            raise ApiError(400, 3, "resourceKind must be WorkflowTemplate")
        name = str(body.get("resourceName", ""))
        self.store.get("WorkflowTemplate", namespace, name)
        options = body.get("submitOptions") or {}
        labels = dict(
            pair.split("=", 1)
            for pair in str(options.get("labels") or "").split(",")
            if "=" in pair
        )
        params = [
            {"name": k, "value": v}
            for k, v in (p.split("=", 1) for p in options.get("parameters") or [])
        ]
        meta: Obj = {"labels": labels}
        if options.get("name"):
            meta["name"] = options["name"]
        else:
            meta["generateName"] = options.get("generateName") or f"{name}-"
        spec: Obj = {"workflowTemplateRef": {"name": name}}
        if params:
            spec["arguments"] = {"parameters": params}
        return {"metadata": meta, "spec": spec}

    def _caller(self) -> tuple[str, str, str]:
        info = self.userinfo
        return (
            str(info.get("subject") or ""),
            str(info.get("email") or ""),
            str(info.get("preferredUsername") or ""),
        )

    def _dispatch(self, request: Request, body: Obj) -> Obj:
        if request.url.path.endswith("/api/v1/userinfo"):
            known = (
                self.token is None or request.headers.get("authorization") == f"Bearer {self.token}"
            )
            return dict(self.userinfo) if known else {}
        if request.url.path.endswith("/api/v1/version"):
            return dict(VERSION)
        params = request.path_params
        ns, name = params["namespace"], params.get("name")
        path, method = request.url.path, request.method
        kind = "WorkflowTemplate" if "/workflow-templates/" in path else "Workflow"
        selector = request.query_params.get("listOptions.labelSelector")
        store = self.store
        if path.endswith("/set"):
            assert name is not None
            return store.set_nodes(ns, name, body, actor_labels(*self._caller()))
        if path.endswith("/stop") and name is not None:
            actor = actor_labels(*self._caller())
            return store.stop(ns, name, body, {**actor, ACTION: "Stop"} if actor else {})
        if path.endswith("/submit"):
            body = {"workflow": self._from_template(ns, body)}
        if method == "GET" and name is None:
            items = store.list(kind, ns, selector)
            # Go marshals an empty slice of a typed list as null
            return {"metadata": {"resourceVersion": str(store.version)}, "items": items or None}
        if method == "GET":
            assert name is not None
            return store.get(kind, ns, name)
        if method == "DELETE":
            assert name is not None
            store.delete(kind, ns, name)
            return {}
        obj = body.get("template" if kind == "WorkflowTemplate" else "workflow")
        if not isinstance(obj, dict):
            raise ApiError(400, 3, f"the request body has no {kind.lower()}")
        wire = {"apiVersion": "argoproj.io/v1alpha1", "kind": kind, **obj}
        errors = schema_errors(wire, kind) if self.validate else []
        if errors:
            raise ApiError(400, 3, f"{kind} is invalid: {errors[0]}")
        if method == "PUT":
            assert name is not None
            actor = actor_labels(*self._caller())
            return store.update(kind, ns, name, obj, {**actor, ACTION: "Update"} if actor else {})
        ref = (obj.get("spec") or {}).get("workflowTemplateRef") or {}
        if kind == "Workflow" and ref.get("name") and not ref.get("clusterScope"):
            store.require("WorkflowTemplate", ns, ref["name"])  # 404 NotFound, as Argo answers
        if body.get("serverDryRun"):
            return obj
        return store.create(kind, ns, obj, creator_labels(*self._caller()))
