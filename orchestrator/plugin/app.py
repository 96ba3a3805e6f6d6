"""The ASGI app Argo's agent calls: ``POST /api/v1/template.execute``.

Only the agent of this pod may call: its bearer token must equal the one Argo's ``agent
init`` wrote for this sidecar (``/var/run/argo/token``), as upstream asks of every plugin
(403 otherwise, before the body is read). ``GET /healthz`` answers probes without a token
and tells nothing. Any other path is 404, which the agent reads as "this plugin has no such
method" and never calls again; a malformed call is 400 with its reason, which the agent
puts on the node.

Logs: one line per step started and per step ended (node, step, phase, exit code, time),
never an argument (a step's inputs may hold URLs with credentials) or a token.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from orchestrator.plugin.jobs import Jobs
from orchestrator.plugin.protocol import METHOD, CallError, parse, reply

log = logging.getLogger("promoflow.plugin")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_BODY = 1 << 20
"""Largest call accepted: a template with every input of a step is a few KiB."""
BODY_TIMEOUT = 10.0


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


async def _send_json(send: Send, status: int, data: Any) -> None:
    body = json.dumps(data).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read(receive: Receive) -> bytes:
    chunks, size = [], 0
    async with asyncio.timeout(BODY_TIMEOUT):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refused(400, "the caller went away")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                raise Refused(413, f"the body is larger than {MAX_BODY} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


class PluginApp:
    """The executor plugin's HTTP face; the steps are :class:`Jobs`'."""

    def __init__(self, jobs: Jobs, token: str) -> None:
        if not token:
            raise ValueError("the plugin's token is empty")
        self.jobs = jobs
        self._token = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            status, data = await self._handle(scope, receive)
        except Refused as exc:
            status, data = exc.status, {"message": exc.reason}
        except TimeoutError:
            status, data = 408, {"message": f"the body did not arrive within {BODY_TIMEOUT:g} s"}
        except Exception as exc:  # a bug: one line, never a traceback or a call's content
            log.error("500 internal error (%s)", type(exc).__name__)
            status, data = 500, {"message": "internal error"}
        await _send_json(send, status, data)

    async def _handle(self, scope: Scope, receive: Receive) -> tuple[int, Any]:
        path, method = scope["path"], scope["method"]
        if path == "/healthz":
            return 200, {"status": "ok"}
        if path != METHOD:
            raise Refused(404, f"no method {path}")
        if method != "POST":
            raise Refused(405, f"{path} takes POST")
        headers = dict(scope["headers"])
        if not hmac.compare_digest(headers.get(b"authorization", b""), self._token):
            raise Refused(403, "the bearer token is not this pod's agent's")
        try:
            call = parse(await _read(receive))
        except CallError as exc:
            raise Refused(400, str(exc)) from None
        if call is None:
            return 200, reply(None)
        first = call.key not in self.jobs.jobs
        if first:
            log.info("%s %s started (%s)", call.workflow, call.node, call.step)
        started = time.perf_counter()
        result, requeue = await self.jobs.execute(call)
        if result.done and (first or requeue is None):
            log.info(
                "%s %s %s%s (%s, %.2f s in this call)",
                call.workflow,
                call.node,
                result.phase,
                f" exit {result.exit_code}" if result.exit_code not in (None, 0) else "",
                call.step,
                time.perf_counter() - started,
            )
        return 200, reply(result, requeue)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.jobs.stop_all("the executor plugin is shutting down")
                await send({"type": "lifespan.shutdown.complete"})
                return
