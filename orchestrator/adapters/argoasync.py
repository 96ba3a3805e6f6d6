"""The Argo Server's REST API for a server that must not block: the webhook service.

:class:`orchestrator.adapters.argo.ArgoClient` (Hera's ``WorkflowsService``) is synchronous
and holds a thread per call; a webhook service answers bursts of deliveries within the
sender's timeout, so it submits with one pooled ``httpx.AsyncClient`` instead. It asks only
what the service needs (create, list, stop, version), reads answers as the plain JSON shapes
of the Argo Server API, and words failures as the synchronous client does, through
:mod:`orchestrator.adapters.neterrors`, marking which ones a retry may cure.
"""

from __future__ import annotations

from typing import Any

import httpx

from orchestrator.adapters import neterrors
from orchestrator.adapters.argo import SERVICE, ArgoError
from orchestrator.manifest import Manifest
from orchestrator.settings import ArgoSettings

ALREADY_EXISTS = 6
"""gRPC code of ``AlreadyExists``, which the Argo Server answers (HTTP 409) for a name in use."""


class AsyncArgo:
    def __init__(
        self,
        settings: ArgoSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 8.0,
        connections: int = 64,
    ) -> None:
        if not settings.server:
            raise ArgoError("no Argo Server configured: set ARGO_SERVER or pass --argo-server")
        self.settings = settings
        self.namespace = settings.namespace
        self._client = httpx.AsyncClient(
            base_url=settings.base_url.rstrip("/"),
            headers={"Accept": "application/json"},
            auth=self._authorize,
            verify=not settings.insecure_skip_verify,
            timeout=timeout,
            transport=transport,
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        )
        self._api_seen = False
        self._ui = settings.ui_link("").rstrip("/")
        """Where the UI shows a run, but for its name (``ui_link`` is asked per reply)."""

    def _authorize(self, request: httpx.Request) -> httpx.Request:
        """The Authorization header of each request, asked of the settings every time: a
        token file (ARGO_TOKEN_FILE) is renewed while the service runs."""
        authorization = self.settings.authorization
        if authorization:
            request.headers["Authorization"] = authorization
        return request

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _request(self, what: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        where = self.settings.base_url
        try:
            response = await self._client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            failure = neterrors.describe_service(exc, SERVICE, where, neterrors.ARGO)
            raise ArgoError(f"{what}: {failure.message}", transient=failure.transient) from None
        kind = response.headers.get("content-type", "")
        screened = neterrors.answer(
            response.status_code, kind, response.content, SERVICE, where, neterrors.ARGO,
            api_seen=self._api_seen,
        )  # fmt: skip
        if screened is not None:
            raise ArgoError(f"{what}: {screened.message}", transient=screened.transient)
        if response.status_code < 500:
            self._api_seen = True
        return response

    def _fail(self, what: str, response: httpx.Response) -> ArgoError:
        status = response.status_code
        reason = neterrors.said(response, limit=300)
        if status == 401:
            reason = "the Argo Server refused the credentials (check ARGO_TOKEN)"
        return ArgoError(f"{what}: {reason}", transient=neterrors.status_transient(status))

    async def create_workflow(self, manifest: Manifest) -> bool:
        """Submit a Workflow: True when created, False when one of its name exists (the
        server's 409 ``AlreadyExists``: the same promotion was submitted before)."""
        name = manifest.get("metadata", {}).get("name", "")
        what = f"Workflow {name}"
        response = await self._request(
            what,
            "POST",
            f"/api/v1/workflows/{self.namespace}",
            json={"namespace": self.namespace, "workflow": manifest},
        )
        if response.status_code == 409:
            return False
        if response.status_code >= 400:
            raise self._fail(what, response)
        return True

    async def list_workflows(self, label_selector: str) -> list[Manifest]:
        response = await self._request(
            "list workflows",
            "GET",
            f"/api/v1/workflows/{self.namespace}",
            params={"listOptions.labelSelector": label_selector},
        )
        if response.status_code >= 400:
            raise self._fail("list workflows", response)
        data = response.json()
        items = data.get("items") if isinstance(data, dict) else None
        return [i for i in items or [] if isinstance(i, dict)]

    async def stop_workflow(self, name: str, message: str = "", node_selector: str = "") -> None:
        """Stop a run. The Argo Server keeps ``message`` only with ``node_selector``: the
        selected suspended node fails with it; without one the whole run is stopped (its
        exit handler still runs)."""
        what = f"Workflow {name}"
        body = {"name": name, "namespace": self.namespace, "message": message}
        if node_selector:
            body["nodeFieldSelector"] = node_selector
        response = await self._request(
            what, "PUT", f"/api/v1/workflows/{self.namespace}/{name}/stop", json=body
        )
        if response.status_code >= 400:
            raise self._fail(what, response)

    async def version(self) -> str:
        """The server's version: the readiness check that it answers as the API."""
        response = await self._request("version", "GET", "/api/v1/version")
        if response.status_code >= 400:
            raise self._fail("version", response)
        data = response.json()
        return str(data.get("version", "")) if isinstance(data, dict) else ""

    def ui_link(self, name: str) -> str:
        return f"{self._ui}/{name}"
