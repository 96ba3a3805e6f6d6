"""A fake of the Kubernetes API server's reviews, over real HTTP, in the API's own shapes.

``POST /apis/authentication.k8s.io/v1/tokenreviews`` answers a ``TokenReview`` with
``status.authenticated``, ``status.user`` (``username``, ``uid``, ``groups``) and
``status.audiences``, or ``authenticated: false`` with an ``error``, as kube-apiserver
does; ``POST /apis/authorization.k8s.io/v1/subjectaccessreviews`` answers
``status.allowed`` (and ``reason``, or ``denied`` with no RBAC rule) for the
``resourceAttributes`` it was asked. A request without the reviewer's bearer token is a
``401`` ``Status``; a review that is not one (no ``spec``) a ``400`` ``Status``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.kube import status_object
from tests.fakes.served import Served


@dataclass(frozen=True)
class Grant:
    username: str
    verb: str
    resource: str
    subresource: str
    namespace: str = ""
    group: str = "promoflow.dev"


@dataclass
class FakeReviews(Served):
    reviewer_token: str = "reviewer"
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Token -> ``status.user`` of its TokenReview."""
    grants: set[Grant] = field(default_factory=set)
    fail_next: list[int] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def service_account(self, token: str, namespace: str, name: str) -> str:
        """Let ``token`` authenticate as that ServiceAccount; its username."""
        username = f"system:serviceaccount:{namespace}:{name}"
        self.users[token] = {
            "username": username,
            "uid": f"uid-{namespace}-{name}",
            "groups": [
                "system:serviceaccounts",
                f"system:serviceaccounts:{namespace}",
                "system:authenticated",
            ],
            "extra": {"authentication.kubernetes.io/pod-name": [f"{name}-0"]},
        }
        return username

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/apis/authentication.k8s.io/v1/tokenreviews", self._token, methods=["POST"]),
                Route(
                    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                    self._access,
                    methods=["POST"],
                ),
            ]
        )

    async def _guarded(self, request: Request) -> tuple[dict[str, Any] | None, JSONResponse | None]:
        with self._lock:
            fault = self.fail_next.pop(0) if self.fail_next else None
        if fault is not None:
            return None, JSONResponse(status_object(fault, "simulated failure"), fault)
        if request.headers.get("authorization") != f"Bearer {self.reviewer_token}":
            return None, JSONResponse(status_object(401, "Unauthorized"), 401)
        body = await request.json()
        with self._lock:
            self.requests.append(body)
        if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
            return None, JSONResponse(status_object(400, "spec is required"), 400)
        return body, None

    async def _token(self, request: Request) -> JSONResponse:
        body, refusal = await self._guarded(request)
        if refusal is not None or body is None:
            return refusal or JSONResponse({}, 500)
        spec = body["spec"]
        user = self.users.get(str(spec.get("token", "")))
        status: dict[str, Any]
        if user is None:
            status = {
                "user": {},
                "error": "[invalid bearer token, square/go-jose: error in "
                "cryptographic primitive, token lookup failed]",
            }
        else:
            status = {
                "authenticated": True,
                "user": user,
                "audiences": spec.get("audiences") or ["https://kubernetes.default.svc"],
            }
        answer = {
            "kind": "TokenReview",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": None},
            "spec": spec,
            "status": status,
        }
        return JSONResponse(answer, 201)

    async def _access(self, request: Request) -> JSONResponse:
        body, refusal = await self._guarded(request)
        if refusal is not None or body is None:
            return refusal or JSONResponse({}, 500)
        spec = body["spec"]
        asked = spec.get("resourceAttributes") or {}
        wanted = Grant(
            str(spec.get("user", "")),
            str(asked.get("verb", "")),
            str(asked.get("resource", "")),
            str(asked.get("subresource", "")),
            str(asked.get("namespace", "")),
            str(asked.get("group", "")),
        )
        allowed = wanted in self.grants
        status: dict[str, Any] = {"allowed": allowed}
        if allowed:
            status["reason"] = (
                f'RBAC: allowed by RoleBinding "reader/{wanted.namespace}" of Role "reader" '
                f'to ServiceAccount "{wanted.username}"'
            )
        answer = {
            "kind": "SubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": None},
            "spec": spec,
            "status": status,
        }
        return JSONResponse(answer, 201)
