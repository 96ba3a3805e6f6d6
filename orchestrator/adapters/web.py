"""Plain HTTP for the steps that call a URL a user configured: the HTTP gate (GET a status
page) and the exit handler's report (POST JSON).

The steps judge answers; this module only asks, and says what went wrong on the way in
plain words (:mod:`orchestrator.adapters.neterrors`), so step programs import no HTTP
client. ``transport`` is the one seam tests use (``httpx.MockTransport``); everything else
goes over real sockets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from orchestrator.adapters import neterrors
from orchestrator.errors import PromoflowError

if TYPE_CHECKING:
    import httpx


class InvalidUrl(PromoflowError):
    """The URL cannot be requested at all (a user's mistake: never retried)."""


class Unreachable(PromoflowError):
    """No answer: ``transient`` when waiting may help (refused, reset, timeout), not when it
    cannot (a host name that does not resolve, TLS against plain HTTP)."""

    def __init__(self, failure: neterrors.Failure) -> None:
        super().__init__(failure.message, transient=failure.transient)


@dataclass(frozen=True)
class Peer:
    """Who is called, for messages: ``the report endpoint`` at ``where`` (already scrubbed
    of credentials), with hints in the words of the user's settings."""

    service: str
    where: str
    hints: neterrors.Hints


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class Web:
    """One HTTP client for a step's calls, closed with the step."""

    def __init__(
        self,
        *,
        timeout: float,
        follow_redirects: bool = True,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        self._http = httpx.Client(
            timeout=timeout, follow_redirects=follow_redirects, transport=transport
        )

    def __enter__(self) -> Web:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get(self, url: str) -> Answer:
        return self._send("GET", url, None)

    def post_json(
        self,
        url: str,
        data: Any,
        *,
        about: Peer | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        return self._send("POST", url, about, json=data, headers=headers)

    def post(self, url: str, content: bytes, *, headers: dict[str, str] | None = None) -> Answer:
        """``content`` sent as it is (a signature covers these exact bytes)."""
        return self._send("POST", url, None, content=content, headers=headers)

    def _send(self, method: str, url: str, about: Peer | None, **kwargs: Any) -> Answer:
        """``about`` names the other end in failure messages; without it the failure is
        described on its own (the HTTP gate adds the URL itself)."""
        import httpx

        try:
            response = self._http.request(method, url, **kwargs)
        except httpx.InvalidURL:
            raise InvalidUrl("not a valid URL") from None
        except httpx.HTTPError as exc:
            if about is not None:
                failure = neterrors.describe_service(exc, about.service, about.where, about.hints)
            else:
                failure = neterrors.reason(exc, neterrors.Hints())
            raise Unreachable(failure) from None
        return Answer(
            response.status_code, response.headers.get("content-type", ""), response.content
        )
