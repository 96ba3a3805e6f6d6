"""One GET to a server and what came back, for ``promoflow doctor``: never a change.

A check must tell apart "no answer" (and why: which setting to change), "an answer that is
not the API's" (an HTML page, plain HTTP sent to a TLS port) and "the API's answer with
this status". The clients of :mod:`orchestrator.adapters.argocd` and
:mod:`orchestrator.adapters.argo` fold these into one error each, fit for a command that
stops; here each becomes a :class:`Reply` the checks judge, so the checks stay pure and
tests feed them replies. Causes and fixes come from :mod:`orchestrator.adapters.neterrors`,
worded in the settings of the server asked (:class:`neterrors.Hints`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from orchestrator.adapters import neterrors
from orchestrator.urls import scrub

if TYPE_CHECKING:
    import httpx

TIMEOUT = 10.0
"""Seconds one probe may take: a check that hangs tells nothing."""


@dataclass(frozen=True)
class Reply:
    """``status`` 0: no answer (``problem`` says why, ``fix`` what to change)."""

    status: int = 0
    data: Any = None
    """The JSON body, or ``None``."""
    content_type: str = ""
    problem: str = ""
    fix: str = ""
    reason: str = ""
    """The server's own words for an error status, one line, scrubbed."""

    @property
    def answered(self) -> bool:
        return self.status != 0


@dataclass(frozen=True)
class Server:
    """Who is asked, for messages and fixes."""

    service: str
    base_url: str
    hints: neterrors.Hints
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    verify: bool = True
    secrets: tuple[str, ...] = field(default=(), repr=False)


_CUT = (neterrors.Cause.RESET, neterrors.Cause.BROKEN, neterrors.Cause.TLS)
"""How a TLS handshake with a plain-HTTP server may end besides a clear "wrong version"
record: Argo CD's API server in ``--insecure`` mode resets the connection."""


def _fix(cause: neterrors.Cause, hints: neterrors.Hints, url: str) -> str:
    if cause in _CUT and url.startswith("https://"):
        return f"{hints.plaintext}, if the server speaks plain HTTP (it cut the TLS handshake off)"
    if cause is neterrors.Cause.NAME:
        return hints.host
    if cause is neterrors.Cause.UNTRUSTED:
        return hints.untrusted
    if cause is neterrors.Cause.PLAINTEXT:
        return hints.plaintext
    return "check that the server runs and this pod may reach it"


def failure(exc: BaseException, server: Server) -> Reply:
    """No answer: the cause in words, the setting to change apart from it."""
    cause, detail = neterrors.cause_of(exc)
    said = f"{cause.value} ({detail})" if detail else cause.value
    fix = _fix(cause, server.hints, server.base_url)
    return Reply(problem=f"{server.service} at {server.base_url}: {said}", fix=fix)


def judge(server: Server, status: int, content_type: str, body: bytes) -> Reply:
    """An answer: screened for what is not the API's, then its JSON."""
    odd = neterrors.answer(
        status, content_type, body, server.service, server.base_url, server.hints
    )
    if odd is not None:
        message, _, fix = odd.message.rpartition(": ")
        return Reply(status, None, content_type, message or odd.message, fix)
    import json

    try:
        data = json.loads(body) if body.strip() else None
    except ValueError:
        data = None
    reason = ""
    if status >= 400:
        found = data.get("message") or data.get("error") if isinstance(data, dict) else None
        text = found if isinstance(found, str) else body.decode("utf-8", "replace")
        reason = neterrors.one_line(scrub(text, server.secrets)) or neterrors.NO_REASON
    return Reply(status, data, content_type, reason=reason)


class Prober:
    """GETs through one HTTP client; ``transport`` is the tests' seam."""

    def __init__(self, transport: httpx.BaseTransport | None = None) -> None:
        self._transport = transport
        self._clients: dict[bool, httpx.Client] = {}

    def _client(self, verify: bool) -> httpx.Client:
        import httpx

        if verify not in self._clients:
            self._clients[verify] = httpx.Client(
                verify=verify, timeout=TIMEOUT, follow_redirects=False, transport=self._transport
            )
        return self._clients[verify]

    def get(self, server: Server, path: str, headers: Mapping[str, str] | None = None) -> Reply:
        import httpx

        url = server.base_url.rstrip("/") + "/" + path.lstrip("/")
        sent = {"Accept": "application/json", **server.headers, **(headers or {})}
        try:
            response = self._client(server.verify).get(url, headers=sent)
        except httpx.InvalidURL:
            return Reply(problem=f"{server.service}: not a valid URL", fix=server.hints.url)
        except httpx.HTTPError as exc:
            return failure(exc, server)
        return judge(
            server, response.status_code, response.headers.get("content-type", ""), response.content
        )

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
