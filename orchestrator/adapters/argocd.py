"""The Argo CD API server over HTTP (httpx): read, refresh and sync applications, follow
the application event stream, and read what the repo server reads for an app (a
revision's metadata, a source's details: the reporter's ``repo`` template functions).

Connection settings are read as the argocd CLI reads them: ``ARGOCD_SERVER`` (host:port or
a URL), ``ARGOCD_AUTH_TOKEN`` and ``ARGOCD_OPTS`` (``--plaintext`` for HTTP, ``--insecure``
to skip TLS verification). The token is sent as a bearer token and never printed.

Failures are classified by :mod:`orchestrator.adapters.neterrors` and worded with the
settings to change (``add --plaintext to ARGOCD_OPTS``): only what waiting may fix (a
refused connection, a timeout, 5xx) is ``transient``, so the gate does not spend its whole
timeout retrying a host name that does not resolve or a URL that leads to an HTML page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from orchestrator.adapters import neterrors
from orchestrator.errors import PromoflowError
from orchestrator.settings import ArgoCDSettings
from orchestrator.urls import scrub

App = dict[str, Any]


class ArgoCDError(PromoflowError):
    """A request failed; ``transient`` when trying again may help (5xx, network)."""


class ArgoCDClient:
    def __init__(
        self,
        settings: ArgoCDSettings,
        transport: httpx.BaseTransport | None = None,
        *,
        timeout: float | None = None,
    ) -> None:
        """``timeout``: seconds each answer may take (a connection half of it), for a
        caller that waits on the answer in the middle of its work; default: 60 s to read."""
        if not settings.server:
            raise ArgoCDError("no Argo CD server configured: set ARGOCD_SERVER")
        self.settings = settings
        headers = {"Accept": "application/json"}
        token = settings.auth_token.get_secret_value().strip()
        self._secrets = (token,) if token else ()
        """Masked in every server answer quoted, whole or echoed in part, case or base64."""
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            self.http = httpx.Client(
                base_url=settings.base_url,
                headers=headers,
                # plaintext never uses TLS: do not load the CA bundle for nothing
                verify=not settings.insecure and settings.base_url.startswith("https://"),
                # a host that drops packets costs one connect timeout per try: keep it short
                timeout=httpx.Timeout(30, connect=10, read=60)
                if timeout is None
                else httpx.Timeout(timeout, connect=timeout / 2),
                transport=transport,
            )
        except httpx.InvalidURL:
            raise ArgoCDError("ARGOCD_SERVER: not a valid URL") from None
        self._api_seen = False
        """Argo CD has answered as its API before (see :func:`neterrors.answer`)."""

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ArgoCDClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _failed(self, what: str, exc: httpx.HTTPError) -> ArgoCDError:
        failure = neterrors.describe_service(
            exc, "Argo CD", self.settings.base_url, neterrors.ARGOCD
        )
        return ArgoCDError(f"{what}: {failure.message}", transient=failure.transient)

    def _screen(self, response: httpx.Response, what: str) -> None:
        """Refuse an answer that is not Argo CD's API (an HTML page, TLS expected)."""
        failure = neterrors.answer(
            response.status_code,
            response.headers.get("content-type", ""),
            response.content,
            "Argo CD",
            self.settings.base_url,
            neterrors.ARGOCD,
            api_seen=self._api_seen,
        )
        if failure is not None:
            raise ArgoCDError(f"{what}: {failure.message}", transient=failure.transient)

    def _check(self, response: httpx.Response, what: str) -> None:
        self._screen(response, what)
        status = response.status_code
        if status == 401:
            raise ArgoCDError(f"{what}: Argo CD refused the token (check ARGOCD_AUTH_TOKEN)")
        if status == 403:
            # Argo CD >= 2.6.7 answers 403 for a missing app too, to hide which exist
            raise ArgoCDError(
                f"{what}: permission denied: the application does not exist, or the token's "
                "account may not do this (Argo CD answers 403 for both; check its RBAC)"
            )
        if status >= 400:
            raise ArgoCDError(
                f"{what}: Argo CD answered {status}: {neterrors.said(response, self._secrets)}",
                transient=neterrors.status_transient(status),
            )

    def _json(self, response: httpx.Response, what: str) -> Any:
        """The body as JSON, or an error saying what answered instead."""
        try:
            data = response.json()
        except ValueError:
            kind = response.headers.get("content-type") or "no content type"
            raise ArgoCDError(
                f"{what}: Argo CD at {self.settings.base_url} answered {response.status_code} "
                f"with something that is not JSON ({kind}), not the Argo CD API: "
                f"{neterrors.ARGOCD.url}"
            ) from None
        self._api_seen = True
        return data

    def _get(self, path: str, what: str, **params: str) -> httpx.Response:
        try:
            response = self.http.get(path, params=params or None)
        except httpx.InvalidURL:
            raise ArgoCDError(f"{what}: not a valid request URL") from None
        except httpx.HTTPError as exc:
            raise self._failed(what, exc) from None
        return response

    def version(self) -> dict[str, Any]:
        """``GET /api/version``: what ``argocd version`` shows of the server."""
        what = "Argo CD version"
        response = self._get("/api/version", what)
        self._check(response, what)
        data = self._json(response, what)
        if not isinstance(data, dict):
            raise ArgoCDError(f"{what}: the answer is not an object")
        return data

    def logged_in(self) -> bool:
        """Whether Argo CD takes the token: ``/api/version`` answers anyone (only without
        its build details), ``/api/v1/session/userinfo`` says ``loggedIn`` for a valid
        token and ``{}`` for any other."""
        what = "Argo CD session"
        response = self._get("/api/v1/session/userinfo", what)
        self._check(response, what)
        data = self._json(response, what)
        return isinstance(data, dict) and bool(data.get("loggedIn"))

    def get_app(self, name: str, refresh: str | None = None) -> App | None:
        """The application, or ``None`` if it does not exist; ``refresh`` = normal|hard."""
        params = {"refresh": refresh} if refresh else {}
        response = self._get(f"/api/v1/applications/{name}", f"application {name}", **params)
        self._screen(response, f"application {name}")
        if response.status_code == 404:
            return None
        self._check(response, f"application {name}")
        data = self._json(response, f"application {name}")
        if not isinstance(data, dict):
            shown = scrub(str(data)[:80], self._secrets)
            raise ArgoCDError(f"application {name}: Argo CD answered {shown!r}")
        return data

    def resource_tree(self, name: str) -> dict[str, Any]:
        """The app's resource tree (``nodes`` with each resource's health): where Argo CD 3
        keeps why a resource is Degraded."""
        what = f"resource tree of {name}"
        response = self._get(f"/api/v1/applications/{name}/resource-tree", what)
        self._check(response, what)
        data = self._json(response, what)
        return data if isinstance(data, dict) else {}

    def managed_resources(self, name: str) -> list[dict[str, Any]]:
        """The app's managed resources (``ResourceDiff`` items): each one's ``liveState``
        is the live object as JSON text (``"null"`` when it does not exist)."""
        what = f"managed resources of {name}"
        response = self._get(f"/api/v1/applications/{name}/managed-resources", what)
        self._check(response, what)
        data = self._json(response, what)
        items = data.get("items") if isinstance(data, dict) else None
        return [item for item in items or [] if isinstance(item, dict)]

    def revision_metadata(
        self, name: str, revision: str, *, app_namespace: str = "", project: str = ""
    ) -> dict[str, Any]:
        """``RevisionMetadata`` (author, date, message, tags) of ``revision`` in the app's
        repository, as the repo server reads it for the app's project."""
        what = f"metadata of revision {revision} of {name}"
        params = {k: v for k, v in (("appNamespace", app_namespace), ("project", project)) if v}
        path = f"/api/v1/applications/{quote(name, safe='')}/revisions/{quote(revision, safe='')}"
        response = self._get(f"{path}/metadata", what, **params)
        self._check(response, what)
        data = self._json(response, what)
        return data if isinstance(data, dict) else {}

    def app_details(
        self, source: Mapping[str, Any], *, name: str = "", project: str = ""
    ) -> dict[str, Any]:
        """``RepoAppDetailsResponse`` (type, helm, kustomize, directory) of an app's
        ``source``: the repo server's reading of it, allowed by the app's RBAC."""
        repo = str(source.get("repoURL", ""))
        what = f"app details of {repo}"
        body = {"source": dict(source), "appName": name, "appProject": project}
        try:
            response = self.http.post(
                f"/api/v1/repositories/{quote(repo, safe='')}/appdetails", json=body
            )
        except httpx.InvalidURL:
            raise ArgoCDError(f"{what}: not a valid request URL") from None
        except httpx.HTTPError as exc:
            raise self._failed(what, exc) from None
        self._check(response, what)
        data = self._json(response, what)
        return data if isinstance(data, dict) else {}

    def list_apps(self, selector: str) -> list[App]:
        response = self._get("/api/v1/applications", "list applications", selector=selector)
        self._check(response, "list applications")
        data = self._json(response, "list applications")
        return list((data.get("items") if isinstance(data, dict) else None) or [])

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
            raise self._failed(f"sync {name}", exc) from None
        self._check(response, f"sync {name}")
        self._api_seen = True

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
                kind = response.headers.get("content-type", "")
                if response.status_code >= 400 or "html" in kind.lower():
                    response.read()  # an error, or a page instead of the stream: say which
                    self._check(response, "watch applications")
                self._api_seen = True
                for line in response.iter_lines():
                    if not line.strip():
                        continue
                    event = _event(line)
                    if "error" in event:
                        error = event["error"]
                        said = error.get("message") if isinstance(error, dict) else error
                        raise ArgoCDError(
                            f"watch: {neterrors.one_line(str(said or 'stream error'))}",
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
            raise self._failed("watch", exc) from None


def _event(line: str) -> dict[str, Any]:
    """One line of the event stream; a garbled one ends the stream (it is re-read)."""
    try:
        event = json.loads(line)
    except ValueError:
        event = None
    if not isinstance(event, dict):
        raise ArgoCDError("watch: the event stream sent a line that is not JSON", transient=True)
    return event
