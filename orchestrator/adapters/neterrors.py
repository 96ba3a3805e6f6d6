"""Connection failures and server answers in plain words, and whether waiting could fix them.

A refused connection, a reset or a timeout may pass (the server restarts, the network
recovers), so they are transient and retried. A host name that does not resolve, a
certificate that is not trusted or a TLS handshake against a plain-HTTP port will fail the
same way every time: retrying them only delays the error (an unresolvable ARGOCD_SERVER
used to be retried for the whole sync timeout), so they are permanent and say what to
change, in the words of the settings the user wrote (:class:`Hints`). The same goes for
answers: a 4xx, or an HTML page where an API was expected (a proxy's error page, a UI, a
wrong path prefix), is reported in one line, never pasted whole.

No library exception names reach the user: the HTTP clients (httpx, requests, urllib3)
wrap the socket or TLS error that happened, so the chain of causes is searched for it.
The git transport uses only the standard library; this module imports no HTTP client.

Every client reads an error answer through the same two functions: :func:`said` (the
server's reason in one line, with no credential the server echoed) and
:func:`retry_after` (``Retry-After`` in both of its forms, seconds or an HTTP date, as RFC
9110 defines it; a value that is neither is no advice at all).
"""

from __future__ import annotations

import errno
import json
import math
import socket
import ssl
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Protocol

MAX_REASON = 200
"""Characters of a server's own words kept in a message (one line, never a whole page)."""


@dataclass(frozen=True)
class Failure:
    message: str
    transient: bool


@dataclass(frozen=True)
class Hints:
    """What to change, in the words of one client's settings."""

    plaintext: str = "use an http:// URL"
    """TLS was spoken to a plain-HTTP server."""
    tls: str = "use an https:// URL"
    """Plain HTTP was spoken to a TLS server."""
    untrusted: str = "trust its CA, or use a certificate it is signed for"
    host: str = "check the URL"
    """No such host."""
    url: str = "check the URL"
    """Something other than the API answers there (another service, a UI, a wrong path)."""


ARGO = Hints(
    plaintext="set ARGO_SECURE=false",
    tls="set ARGO_SECURE=true",
    untrusted="set ARGO_INSECURE_SKIP_VERIFY=true, or trust its CA",
    host="check ARGO_SERVER (or --argo-server)",
    url="check ARGO_SERVER and ARGO_BASE_HREF",
)
ARGOCD = Hints(
    plaintext="add --plaintext to ARGOCD_OPTS",
    tls="remove --plaintext from ARGOCD_OPTS",
    untrusted="add --insecure to ARGOCD_OPTS, or trust its CA",
    host="check ARGOCD_SERVER",
    url="check ARGOCD_SERVER",
)

KUBE = Hints(
    plaintext="use an http:// URL in PROMOFLOW_KUBE_API",
    tls="use an https:// URL in PROMOFLOW_KUBE_API",
    untrusted="set PROMOFLOW_KUBE_CA to the cluster's CA file (or the kubeconfig's "
    "certificate-authority)",
    host="check PROMOFLOW_KUBE_API (or the kubeconfig's server)",
    url="check PROMOFLOW_KUBE_API (or the kubeconfig's server)",
)


class Cause(Enum):
    """What went wrong on the way to a server, whatever library reported it."""

    NAME = "the host name does not resolve"
    UNTRUSTED = "its TLS certificate is not trusted"
    PLAINTEXT = "the server speaks plain HTTP, not TLS"
    TLS = "the TLS handshake failed"
    REFUSED = "connection refused"
    RESET = "connection reset"
    TIMEOUT = "no answer in time"
    NO_ROUTE = "no route to the host"
    OS = "network error"
    BROKEN = "the connection broke"

    @property
    def transient(self) -> bool:
        return self not in (Cause.NAME, Cause.UNTRUSTED, Cause.PLAINTEXT)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it wraps (``__cause__``, ``__context__``, urllib3's
    ``reason``, exceptions passed as arguments), each once."""
    pending, seen = [exc], set[int]()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        wrapped = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        wrapped += [a for a in current.args if isinstance(a, BaseException)]
        pending.extend(w for w in wrapped if isinstance(w, BaseException))


def _plaintext(exc: ssl.SSLError) -> bool:
    text = str(exc).lower()
    return any(
        s in text for s in ("wrong version number", "record layer failure", "packet length too")
    )


def _library_timeout(exc: BaseException) -> bool:
    """A timeout as an HTTP client names it, when no socket timeout is in the chain."""
    httpx = sys.modules.get("httpx")
    if httpx is not None and isinstance(exc, httpx.TimeoutException):
        return True
    requests = sys.modules.get("requests")
    return requests is not None and isinstance(exc, requests.exceptions.Timeout)


def cause_of(exc: BaseException) -> tuple[Cause, str]:
    """The cause, and a detail worth showing (the certificate problem, the OS's words)."""
    chain = list(_chain(exc))
    for item in chain:
        if isinstance(item, socket.gaierror):
            return Cause.NAME, ""
    for item in chain:
        if isinstance(item, ssl.SSLCertVerificationError):
            return Cause.UNTRUSTED, item.verify_message or "certificate verification failed"
    for item in chain:
        if isinstance(item, ssl.SSLError):
            return (Cause.PLAINTEXT if _plaintext(item) else Cause.TLS), ""
    for item in chain:
        if isinstance(item, ConnectionRefusedError):
            return Cause.REFUSED, ""
        if isinstance(item, ConnectionResetError | BrokenPipeError):
            return Cause.RESET, ""
        if isinstance(item, TimeoutError | socket.timeout) or _library_timeout(item):
            return Cause.TIMEOUT, ""
        if isinstance(item, OSError) and item.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return Cause.NO_ROUTE, ""
    for item in chain:
        if isinstance(item, OSError) and item.strerror:
            return Cause.OS, item.strerror.lower()
    return Cause.BROKEN, ""


def describe(exc: BaseException, where: str, hints: Hints | None = None) -> Failure:
    """What went wrong talking to ``where`` (a host or URL, already free of credentials),
    worded for a Git remote."""
    hints = hints or Hints()
    cause, detail = cause_of(exc)
    if cause is Cause.NAME:
        return Failure(f"cannot resolve the host name of {where}: {hints.host}", False)
    if cause is Cause.UNTRUSTED:
        return Failure(f"TLS certificate of {where} is not trusted ({detail})", False)
    if cause is Cause.PLAINTEXT:
        return Failure(
            f"{where} does not speak TLS (a plain-HTTP server?): {hints.plaintext}", False
        )
    if cause is Cause.TLS:
        return Failure(f"TLS handshake with {where} failed", True)
    if cause is Cause.REFUSED:
        return Failure(f"connection to {where} refused (is the server running?)", True)
    if cause is Cause.RESET:
        return Failure(f"connection to {where} was reset", True)
    if cause is Cause.TIMEOUT:
        return Failure(f"{where} did not answer in time", True)
    if cause is Cause.NO_ROUTE:
        return Failure(f"no route to {where}", True)
    if cause is Cause.OS:
        return Failure(f"cannot reach {where} ({detail})", True)
    return Failure(f"the connection to {where} broke", True)


def reason(exc: BaseException, hints: Hints) -> Failure:
    """What went wrong, without naming the server (``connection refused``; ``the host name
    does not resolve: check the URL``), and whether waiting may fix it."""
    cause, detail = cause_of(exc)
    said = f"{cause.value} ({detail})" if detail and cause is not Cause.OS else detail
    advice = {
        Cause.NAME: hints.host,
        Cause.UNTRUSTED: hints.untrusted,
        Cause.PLAINTEXT: hints.plaintext,
    }.get(cause)
    text = said or cause.value
    return Failure(f"{text}: {advice}" if advice else text, cause.transient)


def describe_service(exc: BaseException, service: str, where: str, hints: Hints) -> Failure:
    """The same, worded for an API (``cannot reach Argo CD at URL (connection refused)``):
    transient failures say what the retry waits for, permanent ones what to change."""
    cause, _ = cause_of(exc)
    said = reason(exc, hints)
    at = f"{service} at {where}"
    if cause in (Cause.REFUSED, Cause.TIMEOUT, Cause.NO_ROUTE, Cause.OS):
        return Failure(f"cannot reach {at} ({said.message})", True)
    return Failure(f"{at}: {said.message}", said.transient)


def is_html(content_type: str, body: bytes) -> bool:
    """An HTML page (a proxy's error page, a UI), by its type or its first bytes."""
    if "html" in content_type.lower():
        return True
    start = body[:200].lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def one_line(text: str, limit: int = MAX_REASON) -> str:
    """A server's words as one short line."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def answer(
    status: int,
    content_type: str,
    body: bytes,
    service: str,
    where: str,
    hints: Hints,
    *,
    api_seen: bool = False,
    api: str = "",
) -> Failure | None:
    """An answer that is not the API's, or ``None`` when it may be read as one.

    ``api`` names what was expected (default: ``{service} API``).

    ``api_seen``: this server has answered as the API before, in this process; an HTML
    5xx page is then a proxy in front of it saying it is restarting (transient), while on
    first contact it means the URL leads somewhere else (permanent)."""
    at = f"{service} at {where}"
    if is_html(content_type, body):
        transient = api_seen and status in (502, 503, 504)
        what = f"{at} answered {status} with an HTML page"
        if transient:
            return Failure(f"{what} (a proxy in front of it: is it restarting?)", True)
        expected = api or f"the {service.removeprefix('the ')} API"
        return Failure(f"{what}, not {expected}: {hints.url}", False)
    if status == 400 and b"http request to an https server" in body[:300].lower():
        return Failure(f"{at}: the server speaks HTTPS, not plain HTTP: {hints.tls}", False)
    return None


def status_transient(status: int) -> bool:
    """Whether trying again may change an HTTP error status (5xx, 408, 425, 429)."""
    return status >= 500 or status in (408, 425, 429)


class Answer(Protocol):
    """What an HTTP client's response offers (httpx's and requests' both do)."""

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


NO_REASON = "(no reason given)"


def said(response: Answer, secrets: tuple[str, ...] = (), limit: int = MAX_REASON) -> str:
    """The server's reason for an error answer, in one line of at most ``limit``
    characters: the ``message`` (or ``error``) of a JSON body, else its text. Scrubbed of
    URL credentials and of ``secrets`` in every form a server may echo them in (a proxy
    or an API may quote the request's token in its error)."""
    from orchestrator.urls import scrub  # on error paths only: steps import this module

    try:
        body = response.json()
    except ValueError:
        return one_line(scrub(response.text, secrets), limit) or NO_REASON
    if isinstance(body, dict):
        found = body.get("message") or body.get("error")
        if isinstance(found, str):
            return one_line(scrub(found, secrets), limit) or NO_REASON
        if found is not None:
            body = found
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return one_line(scrub(text, secrets), limit) or NO_REASON


def retry_after(headers: Mapping[str, str] | None, now: datetime | None = None) -> float | None:
    """Seconds the server asks to wait (``Retry-After``: a number of seconds or an HTTP
    date), or None where it gives none or gives one that is neither (a negative number, a
    malformed date, ``inf``). A date in the past is 0. ``headers`` must look names up
    without regard to case, as the clients' header mappings do."""
    value = str((headers or {}).get("retry-after") or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return _until(value, now or datetime.now(UTC))
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


def _until(value: str, now: datetime) -> float | None:
    from email.utils import parsedate_to_datetime  # the steps import this module: kept light

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        when = when.replace(tzinfo=UTC)
    return max((when - now).total_seconds(), 0.0)
