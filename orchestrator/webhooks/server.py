"""uvicorn as ``promoflow serve`` runs it: no access log, and deadlines for slow senders.

uvicorn (0.x, h11) waits for a request's headers without end: its keep-alive timeout is
reset by every byte received, so a sender that trickles a header a byte at a time holds
its connection (and a file descriptor, and a task) for as long as it likes, and enough of
them starve the kubelet's probes. :class:`DeadlineProtocol` gives every request
:data:`HEADER_TIMEOUT` seconds, from the connection's start or the previous reply, to send
its whole head, then answers 408 and closes, as nginx's ``client_header_timeout`` does. The
body has its own deadline in the app (``Service.body_timeout``), since the app is what
reads it.

The access log stays off: a URL-token sender's path holds its secret.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0
"""Seconds a request has to send its request line and headers."""
_TIMEOUT_BODY = b'{"message": "the request headers did not arrive in time"}'
TIMEOUT_REPLY = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    + f"content-length: {len(_TIMEOUT_BODY)}\r\n\r\n".encode()
    + _TIMEOUT_BODY
)

log = logging.getLogger("promoflow.webhooks")


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head."""

    header_timeout = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._head_deadline = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered: its body has the app's deadline
        # no request, a head still coming, or a body sent after its answer (to an unknown
        # route): nobody reads it, so the connection goes
        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            self.transport.write(TIMEOUT_REPLY)
        log.info("- 408 refused: the request headers did not arrive in %g s", self.header_timeout)
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm()  # a head is in and being answered (not a body sent after that)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's head, on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def config(
    app: Any,
    host: str,
    port: int,
    log_level: str = "info",
    *,
    header_timeout: float = HEADER_TIMEOUT,
    **more: Any,
) -> uvicorn.Config:
    """The uvicorn configuration of ``promoflow serve`` (and of tests and benchmarks that
    run it on loopback, which may shorten ``header_timeout``)."""
    limit = header_timeout

    class Protocol(DeadlineProtocol):
        header_timeout = limit

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=Protocol,
        access_log=False,
        log_level=log_level,
        **more,
    )
