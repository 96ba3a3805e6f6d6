"""The ASGI app ``promoflow serve`` runs: thin, every decision is elsewhere.

``POST /webhooks/{provider}`` (``/webhooks/{provider}/{token}`` for senders that cannot
sign) first checks what the headers and the path prove (a provider without a secret, a
missing or malformed credential: refused before a byte of the body is read, and the
connection closed), then reads the body up to the size limit and within a deadline,
verifies and parses it with the provider's module, maps the event to promotions
(:mod:`orchestrator.webhooks.triggers`) and submits them exactly once
(:mod:`orchestrator.webhooks.submit`). The reply is JSON with a one-line ``message``:
202 with each run's name and UI link, 200 when nothing is to be promoted (and why), a 4xx
naming what is wrong with the delivery, 503 with ``Retry-After`` when the Argo Server (or
the Git server) cannot be reached, so the sender's retry succeeds later.

Deliveries are served by a plain ASGI handler, not through Starlette's request and
routing layers: a redelivery is answered from memory, so those layers were most of its
cost (``bench/webhook_load.py``). Starlette serves the rest (probes, ``/metrics``, the
JSON 404 and 405 answers, the lifespan).

Logs carry one line per delivery: provider, status, outcome, delivery id, runs, time and
the reply's message, each field escaped and cut short
(:func:`orchestrator.webhooks.logfields.printable`), so no sender can forge or flood a
line; a sender that goes away before its body arrived is logged as ``499 gone``.
Never a body, a signature, a token or a URL path (which holds the token of URL-token
senders): uvicorn's access log is off for that reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from orchestrator.access import WEBHOOK_METRICS, Access, decide
from orchestrator.errors import PromoflowError
from orchestrator.webhooks import registry
from orchestrator.webhooks.events import Incoming, Refused
from orchestrator.webhooks.service import Reply, Service
from orchestrator.webhooks.submit import Unavailable

log = logging.getLogger("promoflow.webhooks")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

RETRY_AFTER = 30
"""Seconds a sender is asked to wait before retrying a delivery refused with 503."""
DISCONNECTED = 499
"""The status logged (never sent) when the sender went away mid-delivery, as nginx does."""
PREFIX = "/webhooks/"


class Disconnected(Exception):
    """The sender went away before its whole body arrived: nobody to answer."""


async def _read(receive: Receive, declared: str, limit: int) -> bytes:
    if declared.isdigit() and int(declared) > limit:
        raise Refused(413, f"the body is larger than {limit} bytes")
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Refused(413, f"the body is larger than {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _body(receive: Receive, declared: str, limit: int, deadline: float) -> bytes:
    """The body, up to ``limit`` bytes and within ``deadline`` seconds."""
    try:
        async with asyncio.timeout(deadline):
            return await _read(receive, declared, limit)
    except TimeoutError:
        raise Refused(408, f"the body did not arrive within {deadline:g} s") from None


def _unread(headers: dict[str, str]) -> bool:
    """The request announced a body that was not read: the connection cannot carry another
    request (and a slow sender must not keep it), so the reply closes it."""
    if headers.get("transfer-encoding"):
        return True
    return headers.get("content-length", "0") not in ("", "0")


def _route(scope: Scope) -> tuple[str, str] | None:
    """(provider, path token) of a delivery's path, or None for any other path (served,
    or refused with 404 and 405, by Starlette as before)."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    path: str = scope["path"]
    if not path.startswith(PREFIX):
        return None
    provider, _, token = path[len(PREFIX) :].partition("/")
    if not provider or "/" in token or (_ and not token):
        return None
    return provider, token


async def _answer(send: Send, reply: Reply) -> None:
    """The reply as Starlette's JSONResponse writes it (same bytes, same headers)."""
    body = reply.encoded()
    headers = [
        (b"content-length", str(len(body)).encode()),
        (b"content-type", b"application/json"),
    ]
    headers.extend(
        (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in reply.headers.items()
    )
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Deliveries:
    """``POST /webhooks/{provider}[/{token}]`` as a plain ASGI app: the head admitted, the
    body read and verified, the service's reply written and logged in one line."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """As a Starlette route's endpoint (the path parameters already matched)."""
        params = scope["path_params"]
        await self.deliver(scope, receive, send, (params["provider"], params.get("token", "")))

    async def deliver(
        self, scope: Scope, receive: Receive, send: Send, route: tuple[str, str]
    ) -> None:
        await _answer(send, await self._reply(scope, receive, route))

    async def _reply(self, scope: Scope, receive: Receive, route: tuple[str, str]) -> Reply:
        service = self.service
        started = time.perf_counter()
        name, token = route
        label = name if registry.get(name) is not None else "unknown"
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        read = False
        delivery = ""
        try:
            query = scope.get("query_string", b"")
            head = Incoming(
                headers=headers,
                body=b"",
                query=dict(parse_qsl(query.decode("latin-1"), keep_blank_values=True))
                if query
                else {},
                path_token=token,
            )
            provider, secret = service.admit(name, head)
            declared = headers.get("content-length", "")
            body = await _body(receive, declared, service.max_body, service.body_timeout)
            read = True
            incoming = Incoming(head.headers, body, head.query, head.path_token)
            provider.verify(incoming, secret)
            delivery = provider.delivery_id(incoming)
            reply = await service.handle(provider, incoming)
        except Refused as exc:
            extra = {"WWW-Authenticate": exc.challenge} if exc.challenge else {}
            reply = Reply(exc.status, exc.reason, "refused", headers=extra)
        except Disconnected:
            reply = Reply(DISCONNECTED, "the sender went away before its body arrived", "gone")
        except Unavailable as exc:
            reply = Reply(503, str(exc), "unavailable", headers={"Retry-After": str(RETRY_AFTER)})
        except PromoflowError as exc:
            reply = Reply(502, str(exc), "failed")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: answer and log in one line, never a traceback
            log.error("%s 500 internal error (%s)", label, type(exc).__name__)
            reply = Reply(500, "internal error", "failed")
        reply.delivery = delivery
        if not read and _unread(headers):
            reply.headers["Connection"] = "close"
        elapsed = time.perf_counter() - started
        service.metrics.count(label, reply.outcome, elapsed)
        if log.isEnabledFor(logging.INFO):
            log.info("%s", reply.log_line(label, elapsed))
        return reply


class WebhookApp:
    """The ASGI app: a delivery goes straight to :class:`Deliveries`; everything else
    (probes, ``/metrics``, refusals of other paths and methods, the lifespan) to
    Starlette, whose routes send deliveries to the same :class:`Deliveries`."""

    def __init__(self, deliveries: Deliveries, rest: Starlette) -> None:
        self.deliveries = deliveries
        self.rest = rest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = _route(scope)
        if route is None:
            await self.rest(scope, receive, send)
        else:
            await self.deliveries.deliver(scope, receive, send, route)


def create_app(service: Service, access: Access | None = None) -> WebhookApp:
    """``access``: who may read ``/metrics`` (default: nobody); deliveries prove themselves
    with their provider's signature, the probes are open."""
    metrics = service.metrics
    deliveries = Deliveries(service)
    guard = access if access is not None else Access()
    registry.providers()  # imported now, not by the first deliveries, concurrently

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        """503 only while the service cannot serve; a refused configuration while a good
        one serves is shown in ``config.refused`` with its problems, and stays 200."""
        reason = await service.readiness()
        body: dict[str, Any] = {"status": "ready"}
        if reason is not None:
            body = {"status": "not ready", "reason": reason}
        if service.follower is not None:
            body["config"] = service.follower.detail()
        return JSONResponse(body, 200 if reason is None else 503)

    async def metrics_page(request: Request) -> Response:
        authorization = request.headers.get("authorization", "")
        decision = await decide(guard, authorization, WEBHOOK_METRICS)
        if not decision.admitted:
            return JSONResponse({"message": decision.reason}, decision.status, decision.headers())
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        following = None
        if service.follower is not None:
            following = asyncio.create_task(service.follower.run())
        yield
        if following is not None:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following
        await service.aclose()

    async def http_error(request: Request, exc: Exception) -> Response:
        """Starlette's own refusals (no such route, wrong method), in the same JSON shape."""
        status = getattr(exc, "status_code", 400)
        reason = {404: "no such endpoint: deliveries go to POST /webhooks/PROVIDER"}.get(
            status, getattr(exc, "detail", "") or "refused"
        )
        if status == 405:
            reason = f"{request.method} is not allowed here; deliveries are POSTed"
        return JSONResponse({"message": reason}, status, headers=getattr(exc, "headers", None))

    app = Starlette(
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error},
        routes=[
            Route("/webhooks/{provider}", deliveries, methods=["POST"]),
            Route("/webhooks/{provider}/{token}", deliveries, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics_page, methods=["GET"]),
        ],
    )
    app.router.redirect_slashes = False  # a sender does not follow a redirect of a POST
    return WebhookApp(deliveries, app)
