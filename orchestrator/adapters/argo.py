"""The Argo Server, through Hera's WorkflowsService: apply templates, submit and read runs.

Requests and answers cross this seam as plain dicts (the Kubernetes JSON shapes), so the
rest of promoflow never handles Hera's wire models. Errors become :class:`ArgoError` with a
message fit for a terminal: the server's reason, never the token, and never a whole page.

Hera parses whatever comes back as the API's JSON, so an answer that is not the API's (a
proxy's HTML error page, a UI behind a wrong ARGO_BASE_HREF, plain HTTP sent to a TLS port)
is screened first, by a response hook on the session, and reported in one line with the
setting to check (:mod:`orchestrator.adapters.neterrors`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import requests
from hera.exceptions import (
    AlreadyExists,
    HeraException,
    NotFound,
    Unauthorized,
    exception_from_server_response,
)
from hera.workflows.models import (
    Workflow as WorkflowModel,
)
from hera.workflows.models import (
    WorkflowCreateRequest,
    WorkflowSetRequest,
)
from hera.workflows.models import (
    WorkflowTemplate as WorkflowTemplateModel,
)
from hera.workflows.service import WorkflowsService

from orchestrator.actors import SERVER_LABELS
from orchestrator.adapters import neterrors
from orchestrator.errors import PromoflowError
from orchestrator.manifest import Manifest
from orchestrator.settings import ArgoSettings
from orchestrator.specdiff import same_up_to_empty

T = TypeVar("T")


SERVICE = "the Argo Server"


class ArgoError(PromoflowError):
    """A request to the Argo Server failed; the message says why, without credentials.
    ``transient`` when trying again may help (the server is down or restarting)."""


class _NotTheApi(ArgoError):
    """Raised by the response hook: the answer is not the Argo Server API's."""


class AlreadyRunning(ArgoError):
    """A workflow of that name exists: the same promotion was submitted before."""


def _plain(model: Any) -> Manifest:
    data: Manifest = json.loads(model.json(by_alias=True, exclude_none=True))
    return data


class ArgoClient:
    """Thin, typed wrapper over WorkflowsService for what promoflow needs."""

    def __init__(self, settings: ArgoSettings, session: requests.Session | None = None) -> None:
        if not settings.server:
            raise ArgoError("no Argo Server configured: set ARGO_SERVER or pass --argo-server")
        self.settings = settings
        self.namespace = settings.namespace
        self._api_seen = False
        """The server has answered as the API before (see :func:`neterrors.answer`)."""
        session = session or requests.Session()
        session.hooks["response"].append(self._screen)
        session.auth = self._authorize
        self._session = session
        self.service = WorkflowsService(
            host=settings.base_url.rstrip("/") + "/",
            token=None,  # set per request by ``_authorize``
            verify_ssl=not settings.insecure_skip_verify,
            namespace=settings.namespace,
            session=session,
        )

    def _authorize(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        """The Authorization header of each request, asked of the settings every time: a
        token file (ARGO_TOKEN_FILE) is renewed while a command runs."""
        authorization = self.settings.authorization
        if authorization:
            request.headers["Authorization"] = authorization
        return request

    def _screen(self, response: requests.Response, *_args: Any, **_kwargs: Any) -> None:
        """Response hook: raise :class:`_NotTheApi` for an answer Hera could only misread
        (an HTML page, a body that is not JSON, an error without the API's message)."""
        if response.is_redirect:
            return  # requests follows it; the answer at the end is screened
        status, body = response.status_code, response.content
        kind = response.headers.get("content-type", "")
        where = self.settings.base_url
        failure = neterrors.answer(
            status, kind, body, SERVICE, where, neterrors.ARGO, api_seen=self._api_seen
        )
        if failure is not None:
            raise _NotTheApi(failure.message, transient=failure.transient)
        try:
            data = json.loads(body) if body.strip() else {}
        except ValueError:
            if neterrors.status_transient(status):
                text = neterrors.one_line(response.text) or "(no reason given)"
                raise _NotTheApi(f"{SERVICE} answered {status}: {text}", transient=True) from None
            raise _NotTheApi(
                f"{SERVICE} at {where} answered {status} with something that is not JSON "
                f"({kind or 'no content type'}), not the Argo Server API: {neterrors.ARGO.url}"
            ) from None
        if status >= 400 and not (isinstance(data, dict) and isinstance(data.get("message"), str)):
            shown = neterrors.one_line(json.dumps(data)) if data else "(no reason given)"
            raise _NotTheApi(
                f"{SERVICE} answered {status}: {shown}",
                transient=neterrors.status_transient(status),
            )
        self._api_seen = True

    def _call(self, what: str, fn: Callable[[], T], keep: tuple[type[Exception], ...] = ()) -> T:
        """Run one request, turning failures into :class:`ArgoError` (except ``keep``)."""
        try:
            return fn()
        except keep:
            raise
        except _NotTheApi as exc:
            raise ArgoError(f"{what}: {exc}", transient=exc.transient) from None
        except Unauthorized:
            raise ArgoError(
                f"{what}: the Argo Server refused the credentials (check ARGO_TOKEN)"
            ) from None
        except NotFound as exc:
            raise ArgoError(f"{what}: not found ({_reason(exc)})") from None
        except HeraException as exc:
            raise ArgoError(f"{what}: {_reason(exc)}") from None
        except requests.RequestException as exc:
            failure = neterrors.describe_service(
                exc, SERVICE, self.settings.base_url, neterrors.ARGO
            )
            raise ArgoError(f"{what}: {failure.message}", transient=failure.transient) from None

    def _json(
        self, method: str, path: str, body: Manifest | None = None, timeout: float = 60
    ) -> Manifest:
        """One request of the API's JSON, sent and read as it is: Hera's wire models keep
        only the fields they declare, and a plugin template's object (upstream's
        ``Plugin`` is free-form, Hera's has no field) would reach the server empty."""
        response = self._session.request(
            method,
            self.service.host + path,
            json=body,
            verify=self.service.verify_ssl,
            timeout=timeout,
        )
        if not response.ok:
            raise exception_from_server_response(response)
        data: Manifest = response.json()
        return data

    def apply_template(self, manifest: Manifest) -> str:
        """Create or update a WorkflowTemplate; returns "created", "updated" or "unchanged".
        Sent as JSON, not through Hera's models (see :meth:`_json`)."""
        name = manifest["metadata"]["name"]
        what = f"WorkflowTemplate {name}"
        path = f"api/v1/workflow-templates/{self.namespace}"
        WorkflowTemplateModel.model_validate(manifest)  # refused here if not a template
        try:
            existing = self._call(
                what, lambda: self._json("GET", f"{path}/{name}"), keep=(NotFound,)
            )
        except NotFound:
            body = {"namespace": self.namespace, "template": manifest}
            self._call(what, lambda: self._json("POST", path, body))
            return "created"
        if same_up_to_empty(existing.get("spec"), manifest.get("spec")) and _same_meta(
            existing, manifest
        ):
            return "unchanged"
        updated = json.loads(json.dumps(manifest))
        meta = updated["metadata"]
        meta["resourceVersion"] = existing["metadata"].get("resourceVersion")
        kept = _server_labels(existing)  # who created it stays on record
        if kept:
            meta["labels"] = {**kept, **(meta.get("labels") or {})}
        body = {"name": name, "namespace": self.namespace, "template": updated}
        self._call(what, lambda: self._json("PUT", f"{path}/{name}", body))
        return "updated"

    def create_workflow(self, manifest: Manifest) -> Manifest:
        """Submit a Workflow; :class:`AlreadyRunning` if one of that name exists."""
        name = manifest["metadata"].get("name", "")
        model = WorkflowModel.model_validate(manifest)
        req = WorkflowCreateRequest(workflow=model, namespace=self.namespace)
        try:
            created = self._call(
                f"Workflow {name}",
                lambda: self.service.create_workflow(req, namespace=self.namespace),
                keep=(AlreadyExists,),
            )
        except AlreadyExists:
            raise AlreadyRunning(f"promotion {name} was already submitted") from None
        return _plain(created)

    def get_workflow(self, name: str) -> Manifest:
        return _plain(
            self._call(
                f"Workflow {name}",
                lambda: self.service.get_workflow(name, namespace=self.namespace),
            )
        )

    def list_workflows(self, label_selector: str | None = None) -> list[Manifest]:
        found = self._call(
            "list workflows",
            lambda: self.service.list_workflows(
                namespace=self.namespace, label_selector=label_selector
            ),
        )
        return [_plain(w) for w in found.items or []]

    def list_archived_workflows(self, label_selector: str | None = None) -> list[Manifest]:
        """The archived workflows (the archive needs a database: without one the server
        refuses, and this raises :class:`ArgoError`)."""
        found = self._call(
            "list archived workflows",
            lambda: self.service.list_archived_workflows(
                label_selector=label_selector, namespace=self.namespace
            ),
        )
        return [_plain(w) for w in found.items or []]

    def set_node(
        self,
        workflow: str,
        node_selector: str,
        *,
        phase: str | None = None,
        message: str | None = None,
        output_parameters: dict[str, str] | None = None,
    ) -> Manifest:
        """Set a suspended node's outputs/phase/message (how approvals are answered)."""
        req = WorkflowSetRequest(
            name=workflow,
            namespace=self.namespace,
            node_field_selector=node_selector,
            phase=phase,
            message=message,
            output_parameters=json.dumps(output_parameters) if output_parameters else None,
        )
        return _plain(
            self._call(
                f"Workflow {workflow}",
                lambda: self.service.set_workflow(workflow, req, namespace=self.namespace),
            )
        )

    def user_info(self) -> Manifest | None:
        """Who the server says the caller is; ``None`` when it cannot tell (older servers)."""
        try:
            return _plain(self.service.get_user_info())
        except (ArgoError, HeraException, requests.RequestException, ValueError):
            return None

    def server_version(self, timeout: float = 10) -> Manifest:
        """``GET /api/v1/version``: what ``argo version`` shows of the server."""
        return self._call("version", lambda: self._json("GET", "api/v1/version", timeout=timeout))

    def token_refused(self, timeout: float = 10) -> bool:
        """Whether the server refuses this client's credentials (401). ``/version`` answers
        anyone, so the token is tried on a request that needs it: one Workflow of the
        namespace (a 403 means the token was accepted, only not for that)."""
        url = f"{self.service.host}api/v1/workflows/{self.namespace}"
        response = self._call(
            "credentials",
            lambda: requests.get(
                url,
                params={"listOptions.limit": "1"},
                auth=self._authorize,
                verify=self.service.verify_ssl,
                timeout=timeout,
            ),
        )
        with response:
            return response.status_code == 401

    def workflow_logs(self, name: str, *, follow: bool = False) -> Iterator[tuple[str, str]]:
        """``(pod, line)`` of the main containers of a Workflow's pods, as ``argo logs``
        reads them (``GET .../log``: a stream of ``{"result": {...}}`` JSON lines).

        Asked without the response hook: it would read a followed stream to its end."""
        what = f"logs of {name}"
        params = {"logOptions.container": "main", "logOptions.follow": str(follow).lower()}
        url = f"{self.service.host}api/v1/workflows/{self.namespace}/{name}/log"
        response = self._call(
            what,
            lambda: requests.get(
                url,
                params=params,
                auth=self._authorize,
                verify=self.service.verify_ssl,
                stream=True,
                timeout=(10, None if follow else 60),
            ),
        )
        with response:
            if not response.ok:
                raise _stream_failure(what, response) or self._screened(what, response)
            try:
                for line in response.iter_lines(decode_unicode=True):
                    if line:
                        yield _log_entry(what, json.loads(line))
            except ValueError:
                raise ArgoError(f"{what}: the answer is not a stream of JSON lines") from None
            except requests.RequestException as exc:
                failure = neterrors.describe_service(
                    exc, SERVICE, self.settings.base_url, neterrors.ARGO
                )
                raise ArgoError(f"{what}: {failure.message}", transient=True) from None

    def _screened(self, what: str, response: requests.Response) -> ArgoError:
        """An error answer in no shape the API uses, as :meth:`_screen` words it."""
        self._call(what, lambda: self._screen(response))
        return ArgoError(f"{what}: the Argo Server answered {response.status_code}")

    def ui_link(self, name: str) -> str:
        return self.settings.ui_link(name)


def _stream_failure(what: str, response: requests.Response) -> ArgoError | None:
    """The error of a streaming call refused before its first line: grpc-gateway wraps it
    (``{"error": {"grpc_code", "http_code", "message", "http_status"}}``), unlike the other
    calls' ``{"code", "message"}``; ``None`` for an answer of another shape."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        if response.status_code == 401:
            return ArgoError(f"{what}: the Argo Server refused the credentials (check ARGO_TOKEN)")
        if response.status_code == 404:
            return ArgoError(f"{what}: not found ({neterrors.one_line(error['message'])})")
        return ArgoError(
            f"{what}: {neterrors.one_line(error['message'], limit=300)}",
            transient=neterrors.status_transient(response.status_code),
        )
    return None


def _log_entry(what: str, entry: Any) -> tuple[str, str]:
    """``(pod, line)`` of one line of a log stream; a stream error as :class:`ArgoError`."""
    if not isinstance(entry, dict):
        raise ValueError("not an object")
    if entry.get("error"):
        raise ArgoError(f"{what}: {(entry['error'] or {}).get('message') or 'the stream failed'}")
    result = entry.get("result") or {}
    return str(result.get("podName", "")), str(result.get("content", ""))


def _reason(exc: Exception) -> str:
    """The server's message out of Hera's wording, in one short line."""
    text = str(exc)
    marker = "with message: `"
    if marker in text:
        text = text.split(marker, 1)[1].rstrip("`")
    return neterrors.one_line(text, limit=300)


def _server_labels(manifest: Manifest) -> dict[str, str]:
    labels = manifest["metadata"].get("labels") or {}
    return {k: v for k, v in labels.items() if k in SERVER_LABELS}


def _same_meta(stored: Manifest, wanted: Manifest) -> bool:
    """Same labels and annotations, leaving out the labels the Argo Server writes itself
    (creator, actor, action)."""

    def own(manifest: Manifest) -> dict[str, Any]:
        meta = manifest["metadata"]
        labels = {k: v for k, v in (meta.get("labels") or {}).items() if k not in SERVER_LABELS}
        return {"labels": labels, "annotations": meta.get("annotations") or {}}

    return own(stored) == own(wanted)
