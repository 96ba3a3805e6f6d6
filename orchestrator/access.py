"""Who may read or post to promoflow's HTTP endpoints that are not probes.

Why: the reporter's ``/stream`` republishes every app's changes, ``/reports`` turns a POST
into ``promotion.succeeded`` for every sink, and ``/metrics`` names sinks and counts. Any
pod on the cluster network can reach them, so each request must prove one of two things:

- it carries the shared bearer token (a Secret mounted into both ends: the exit handler's
  reports, ``curl -H "Authorization: Bearer $TOKEN"``), compared in constant time; or
- it carries a Kubernetes identity (a ServiceAccount token, e.g. from
  ``kubectl create token``), which the API server vouches for with a ``TokenReview``, and
  that identity is granted the endpoint's verb, which the API server answers with a
  ``SubjectAccessReview``.

The verbs are on a virtual resource of promoflow's API group, so plain RBAC grants them
per namespace and release, with no cluster-wide ``nonResourceURLs``::

    apiGroups: [promoflow.dev]
    resources: [reporters/stream, reporters/shards, reporters/metrics]   # get
    resources: [reporters/reports]                                       # create
    resources: [webhooks/metrics]                                        # get

A review costs two round trips to the API server; an admitted token is remembered for
:data:`ADMITTED_TTL` seconds (by its SHA-256, never the token) so a dashboard reconnecting
to ``/stream`` stays cheap, and a refused one for :data:`REFUSED_TTL`, so a client
retrying a bad token does not turn into API server load. The API server is reached
through one seam, :class:`Reviews` (``review(body) -> answer`` in the API's own JSON
shapes); :class:`orchestrator.adapters.kubereviews.KubernetesReviews` is the real one.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from orchestrator.adapters.kubereviews import ReviewUnavailable

GROUP = "promoflow.dev"
ADMITTED_TTL = 10.0
"""Seconds an admitted token is not reviewed again: RBAC changes take effect within it."""
REFUSED_TTL = 2.0
CACHED = 4096
"""Tokens remembered at most (oldest forgotten first)."""
MAX_TOKEN = 16 * 1024
"""Longer than any ServiceAccount token; longer is refused without asking anyone."""
CHALLENGE = 'Bearer realm="promoflow"'


@dataclass(frozen=True)
class Permission:
    """What an endpoint needs: ``verb`` on ``resource/subresource`` of :data:`GROUP`."""

    verb: str
    resource: str
    subresource: str

    def __str__(self) -> str:
        return f"{self.verb} {self.resource}/{self.subresource} ({GROUP})"


STREAM = Permission("get", "reporters", "stream")
SHARDS = Permission("get", "reporters", "shards")
REPORTER_METRICS = Permission("get", "reporters", "metrics")
REPORTS = Permission("create", "reporters", "reports")
WEBHOOK_METRICS = Permission("get", "webhooks", "metrics")


@dataclass(frozen=True)
class Decision:
    """An answer for one request: admitted, or the status and reason to refuse with."""

    status: int
    reason: str = ""
    who: str = ""

    @property
    def admitted(self) -> bool:
        return self.status == 200

    def headers(self) -> dict[str, str]:
        if self.status == 401:
            return {"WWW-Authenticate": CHALLENGE}
        if self.status == 503:
            return {"Retry-After": "5"}
        return {}


class Reviews(Protocol):
    """The one seam to the Kubernetes API: POST a ``TokenReview`` or a
    ``SubjectAccessReview`` (``authentication.k8s.io/v1``, ``authorization.k8s.io/v1``)
    and return the answer, both as the API's JSON. :class:`ReviewUnavailable` when it
    cannot be asked or refuses to answer (the reviewer lacks ``system:auth-delegator``)."""

    def review(self, body: dict[str, Any]) -> dict[str, Any]: ...


def bearer(authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or ``None``."""
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN:
        return None
    if not token.isascii() or not token.isprintable() or " " in token:
        return None
    return token


@dataclass
class Access:
    """The guard of one service: the shared ``token`` (empty: none), the API server's
    ``reviews`` (``None``: Kubernetes identities are not accepted), and where the granted
    verbs are looked up (``namespace``; ``name``, the release's component, as the
    resource name RBAC may restrict to). With neither a token nor reviews, every request
    is refused: there is no anonymous access."""

    token: str = ""
    reviews: Reviews | None = None
    namespace: str = ""
    name: str = ""
    audiences: tuple[str, ...] = ()
    clock: Callable[[], float] = time.monotonic
    _cache: OrderedDict[tuple[bytes, Permission], tuple[float, Decision]] = field(
        default_factory=OrderedDict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)
    reviewed: int = 0
    """Token reviews asked of the API server (the cache's misses)."""

    def check(self, authorization: str, need: Permission) -> Decision:
        """The decision for a request with this ``Authorization`` header. May call the
        API server: in async code, try :meth:`cached` first and run this in a thread."""
        token = bearer(authorization)
        if token is None:
            return Decision(401, f"this needs a bearer token: Authorization: Bearer TOKEN ({need})")
        if self.token and hmac.compare_digest(token.encode(), self.token.encode()):
            return Decision(200, who="the shared token")
        if self.reviews is None:
            return Decision(401, "the token is not valid")
        key = (hashlib.sha256(token.encode()).digest(), need)
        found = self._recall(key)
        if found is not None:
            return found
        decision = self._review(token, need)
        if decision.status in (200, 401, 403):
            ttl = ADMITTED_TTL if decision.admitted else REFUSED_TTL
            with self._lock:
                self._cache[key] = (self.clock() + ttl, decision)
                while len(self._cache) > CACHED:
                    self._cache.popitem(last=False)
        return decision

    def cached(self, authorization: str, need: Permission) -> Decision | None:
        """The decision if it needs no API call (a missing, shared or remembered token)."""
        token = bearer(authorization)
        if token is None or self.reviews is None:
            return self.check(authorization, need)
        if self.token and hmac.compare_digest(token.encode(), self.token.encode()):
            return Decision(200, who="the shared token")
        return self._recall((hashlib.sha256(token.encode()).digest(), need))

    def _recall(self, key: tuple[bytes, Permission]) -> Decision | None:
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                return None
            if entry[0] <= self.clock():
                del self._cache[key]
                return None
            return entry[1]

    def _review(self, token: str, need: Permission) -> Decision:
        assert self.reviews is not None
        self.reviewed += 1
        spec: dict[str, Any] = {"token": token}
        if self.audiences:
            spec["audiences"] = list(self.audiences)
        try:
            answer = self.reviews.review(
                {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}
            )
            status = answer.get("status") or {}
            if not status.get("authenticated"):
                return Decision(401, "the token is not valid")
            user = status.get("user") or {}
            who = str(user.get("username") or "")
            attributes = {"group": GROUP, "verb": need.verb, "resource": need.resource}
            attributes["subresource"] = need.subresource
            attributes.update({k: v for k, v in (("namespace", self.namespace),) if v})
            attributes.update({k: v for k, v in (("name", self.name),) if v})
            access = self.reviews.review(
                {
                    "apiVersion": "authorization.k8s.io/v1",
                    "kind": "SubjectAccessReview",
                    "spec": {
                        "user": who,
                        "groups": list(user.get("groups") or []),
                        "uid": str(user.get("uid") or ""),
                        "extra": dict(user.get("extra") or {}),
                        "resourceAttributes": attributes,
                    },
                }
            )
        except ReviewUnavailable as exc:
            return Decision(503, f"cannot check the token now: {exc}")
        if not (access.get("status") or {}).get("allowed"):
            where = f" in namespace {self.namespace}" if self.namespace else ""
            return Decision(403, f"{who} may not {need}{where}", who)
        return Decision(200, who=who)


async def decide(access: Access, authorization: str, need: Permission) -> Decision:
    """:meth:`Access.check` for an event loop: a remembered answer at once, a review in a
    worker thread (it waits on the API server)."""
    import asyncio

    found = access.cached(authorization, need)
    if found is not None:
        return found
    return await asyncio.to_thread(access.check, authorization, need)
