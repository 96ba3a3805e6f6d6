"""How the answers of the chat, paging and alerting services become delivered or a
:class:`SinkError`, alike for all of them.

A network failure is retried when waiting may fix it (refused, reset, timed out) and
dead when it cannot (an unknown host, an untrusted certificate); a status is retried when
it is 408, 425, 429 or 5xx (honouring ``Retry-After``) and dead otherwise, with the
service's own reason in one line. Their URLs often hold the credential (a Telegram bot
token in the path, a Google Chat key in the query, a Teams workflow's signature), so an
error names the service, never the URL, and the secrets a sink holds are masked in
whatever the service echoes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from orchestrator.adapters import neterrors
from orchestrator.urls import scrub
from reporters.sinks.delivery import SinkError

HINTS = neterrors.Hints(
    plaintext="write the service's URL with http://",
    tls="write the service's URL with https://",
    untrusted="trust its CA, or set insecureSkipVerify",
    host="check the service's URL",
    url="check the service's URL",
)


@dataclass(frozen=True)
class Pool:
    """The connections a sink's client keeps, from upstream's ``maxConnsPerHost``,
    ``maxIdleConns``/``maxIdleConnsPerHost`` and ``idleConnTimeout``; None keeps httpx's
    default. A sink talks to one host, so the per-host limits are its pool's."""

    max_connections: int | None = None
    max_keepalive: int | None = None
    keepalive_expiry: float | None = None

    def limits(self) -> httpx.Limits:
        default = httpx.Limits()
        return httpx.Limits(
            max_connections=self.max_connections or default.max_connections,
            max_keepalive_connections=self.max_keepalive or default.max_keepalive_connections,
            keepalive_expiry=default.keepalive_expiry
            if self.keepalive_expiry is None
            else self.keepalive_expiry,
        )


def client(
    *, insecure: bool = False, pool: Pool | None = None, timeout: float = 10, **kwargs: Any
) -> httpx.Client:
    """A client as the services' ``insecureSkipVerify`` and pool settings ask."""
    limits = (pool or Pool()).limits()
    return httpx.Client(timeout=timeout, verify=not insecure, limits=limits, **kwargs)


def request(
    http: httpx.Client,
    method: str,
    url: str,
    *,
    service: str,
    secrets: tuple[str, ...] = (),
    **kwargs: Any,
) -> httpx.Response:
    """The answer to one request; :class:`SinkError` when none came."""
    try:
        return http.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        failure = neterrors.reason(exc, HINTS)
        raise SinkError(
            scrub(f"cannot reach {service}: {failure.message}", secrets),
            permanent=not failure.transient,
        ) from None


def refusal(
    response: httpx.Response,
    service: str,
    *,
    secrets: tuple[str, ...] = (),
    said: Callable[[httpx.Response], str] | None = None,
) -> SinkError:
    """The error an answer that is not a success becomes: retried or dead by its status,
    with the service's reason (``said``: how this service words it; default the body's
    ``message``, ``error`` or text)."""
    reason = said(response) if said is not None else ""
    reason = neterrors.one_line(scrub(reason, secrets)) if reason else ""
    reason = reason or neterrors.said(response, secrets)
    status = response.status_code
    return SinkError(
        f"{service} answered {status}: {reason}",
        retry_after=neterrors.retry_after(response.headers),
        permanent=not neterrors.status_transient(status),
    )


def check(
    response: httpx.Response,
    service: str,
    *,
    secrets: tuple[str, ...] = (),
    ok: Callable[[int], bool] = lambda status: 200 <= status < 300,
    said: Callable[[httpx.Response], str] | None = None,
) -> None:
    """Nothing when the status is a success for this service, else :func:`refusal`."""
    if not ok(response.status_code):
        raise refusal(response, service, secrets=secrets, said=said)
