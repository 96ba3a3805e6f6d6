"""The Argo CD API server over HTTP (httpx): read, refresh and sync applications, and
follow the application event stream.

Connection settings are read as the argocd CLI reads them: ``ARGOCD_SERVER`` (host:port or
a URL), ``ARGOCD_AUTH_TOKEN`` and ``ARGOCD_OPTS`` (``--plaintext`` for HTTP, ``--insecure``
to skip TLS verification). The token is sent as a bearer token and never printed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from orchestrator.settings import ArgoCDSettings

App = dict[str, Any]


class ArgoCDError(Exception):
    """A request failed; ``transient`` when trying again may help (5xx, network)."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class ArgoCDClient:
    def __init__(
        self, settings: ArgoCDSettings, transport: httpx.BaseTransport | None = None
    ) -> None:
        if not settings.server:
            raise ArgoCDError("no Argo CD server configured: set ARGOCD_SERVER")
        self.settings = settings
        headers = {"Accept": "application/json"}
        token = settings.auth_token.get_secret_value().strip()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            self.http = httpx.Client(
                base_url=settings.base_url,
                headers=headers,
                # plaintext never uses TLS: do not load the CA bundle for nothing
                verify=not settings.insecure and settings.base_url.startswith("https://"),
                timeout=httpx.Timeout(30, read=60),
                transport=transport,
            )
        except httpx.InvalidURL:
            raise ArgoCDError("ARGOCD_SERVER: not a valid URL") from None

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ArgoCDClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _check(self, response: httpx.Response, what: str) -> None:
        if response.status_code in (401, 403):
            raise ArgoCDError(f"{what}: Argo CD refused the token (check ARGOCD_AUTH_TOKEN)")
        if response.status_code >= 500:
            raise ArgoCDError(f"{what}: Argo CD answered {response.status_code}", transient=True)
        if response.status_code >= 400:
            raise ArgoCDError(
                f"{what}: Argo CD answered {response.status_code}: {_reason(response)}"
            )

    def _get(self, path: str, what: str, **params: str) -> httpx.Response:
        try:
            response = self.http.get(path, params=params or None)
        except httpx.InvalidURL:
            raise ArgoCDError(f"{what}: not a valid request URL") from None
        except httpx.HTTPError as exc:
            raise ArgoCDError(
                f"{what}: cannot reach Argo CD at {self.settings.base_url} ({type(exc).__name__})",
                transient=True,
            ) from None
        return response

    def get_app(self, name: str, refresh: str | None = None) -> App | None:
        """The application, or ``None`` if it does not exist; ``refresh`` = normal|hard."""
        params = {"refresh": refresh} if refresh else {}
        response = self._get(f"/api/v1/applications/{name}", f"application {name}", **params)
        if response.status_code == 404:
            return None
        if response.status_code == 403 and "permission denied" in _reason(response):
            # Argo CD >= 2.6.7 answers 403 for a missing app too, to hide which exist
            raise ArgoCDError(
                f"application {name}: not found, or this token may not read it "
                "(Argo CD answers 403 permission denied for both)"
            )
        self._check(response, f"application {name}")
        data: App = response.json()
        return data

    def list_apps(self, selector: str) -> list[App]:
        response = self._get("/api/v1/applications", "list applications", selector=selector)
        self._check(response, "list applications")
        return list(response.json().get("items") or [])

    def sync(
        self, name: str, revision: str | None = None, revisions: list[str] | None = None
    ) -> None:
        """Sync to ``revision``; a multi-source app takes ``revisions`` (one per source),
        as Argo CD ignores ``revision`` for those."""
        body: dict[str, Any] = {"name": name}
        if revisions:
            body["revisions"] = revisions
            body["sourcePositions"] = [str(i) for i in range(1, len(revisions) + 1)]
        elif revision:
            body["revision"] = revision
        try:
            response = self.http.post(f"/api/v1/applications/{name}/sync", json=body)
        except httpx.InvalidURL:
            raise ArgoCDError(f"sync {name}: not a valid request URL") from None
        except httpx.HTTPError as exc:
            raise ArgoCDError(f"sync {name}: {type(exc).__name__}", transient=True) from None
        self._check(response, f"sync {name}")

    def watch(
        self, names: list[str] | None = None, selector: str | None = None, timeout: float = 30
    ) -> Iterator[tuple[str, App]]:
        """Application events (``ADDED``/``MODIFIED``/``DELETED``) as they happen.

        Ends when the server closes the stream or nothing arrives for ``timeout`` seconds;
        callers re-read state and watch again (so a dropped stream loses nothing).
        """
        # Argo CD reads one ``name`` only (the query field is not repeated): ask for one app
        # by name, for several ask for all (or the selector) and keep ours here.
        wanted = set(names or [])
        params = httpx.QueryParams([("name", n) for n in wanted] if len(wanted) == 1 else [])
        if selector:
            params = params.add("selector", selector)
        try:
            with self.http.stream(
                "GET",
                "/api/v1/stream/applications",
                params=params,
                timeout=httpx.Timeout(30, read=timeout),
            ) as response:
                if response.status_code >= 400:
                    response.read()
                self._check(response, "watch applications")
                for line in response.iter_lines():
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    if "error" in event:
                        raise ArgoCDError(
                            f"watch: {event['error'].get('message', 'stream error')}",
                            transient=True,
                        )
                    result = event.get("result") or {}
                    app = result.get("application") or {}
                    if wanted and (app.get("metadata") or {}).get("name") not in wanted:
                        continue
                    yield result.get("type", "MODIFIED"), app
        except httpx.ReadTimeout:
            return
        except httpx.InvalidURL:
            raise ArgoCDError("watch: not a valid request URL") from None
        except httpx.HTTPError as exc:
            raise ArgoCDError(f"watch: {type(exc).__name__}", transient=True) from None


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    return str(body.get("message") or body.get("error") or body)[:300]
