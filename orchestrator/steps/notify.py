"""The exit handler's step: one report of how a promotion run ended.

The run's outcome (``workflow.status`` and ``workflow.failures`` as Argo passes them) is
turned into one JSON document, printed to the log and, when ``PROMOFLOW_REPORT_URL`` is set,
posted there (the reporters service fans it out to Slack, GitHub, Jira, ...).

A transient failure (the endpoint is down or answers 5xx) is tried again for a while
(``PROMOFLOW_RETRY_WINDOW``), then the step exits 75 and the workflow retries the handler.
What a retry cannot fix fails at once, in one line:
a host name that does not resolve, TLS against a plain-HTTP port, a 4xx, an HTML page
where the reporter's API was expected.
"""

from __future__ import annotations

import json
from typing import Any

from orchestrator.adapters import neterrors
from orchestrator.adapters.web import InvalidUrl, Peer, Unreachable, Web
from orchestrator.errors import PromoflowError
from orchestrator.nesting import json_too_deep

SERVICE = "the report endpoint"
HINTS = neterrors.Hints(
    plaintext="use an http:// URL in PROMOFLOW_REPORT_URL",
    tls="use an https:// URL in PROMOFLOW_REPORT_URL",
    host="check PROMOFLOW_REPORT_URL",
    url="check PROMOFLOW_REPORT_URL",
)


class NotifyError(PromoflowError):
    """The report could not be delivered (transient: the handler is retried)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=True)


def parse_failures(text: str) -> list[dict[str, Any]]:
    """Argo's ``workflow.failures``: a JSON list of failed nodes (empty or junk -> [])."""
    if not text.strip() or text.strip() == "null":
        return []
    if json_too_deep(text) is not None:  # json.loads would end in a RecursionError
        return [{"message": "(workflow.failures nested too deeply to read)"}]
    try:
        value = json.loads(text)
    except ValueError:
        return [{"message": text.strip()}]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def build_report(
    *,
    product: str,
    version: str,
    flow: str,
    status: str,
    failures: str,
    run: str,
    requested_by: str,
) -> dict[str, Any]:
    failed = parse_failures(failures)
    return {
        "kind": "PromotionResult",
        "product": product,
        "version": version,
        "flow": flow,
        "run": run,
        "status": status,
        "requestedBy": requested_by,
        "failures": [
            {
                "node": f.get("displayName") or f.get("templateName") or "",
                "message": f.get("message") or "",
                "phase": f.get("phase") or "",
            }
            for f in failed
        ],
    }


def deliver(report: dict[str, Any], url: str, *, token: str = "", timeout: float = 10.0) -> None:
    """POST the report (with ``token`` as a bearer token: the reporter's
    ``PROMOFLOW_REPORT_TOKEN``); :class:`NotifyError` when a retry may deliver it (network,
    5xx, 429), ``ValueError`` when it cannot (see the module's docstring)."""
    from orchestrator.urls import scrub

    where = scrub(url)
    headers = {"Authorization": f"Bearer {token}"} if token else None
    try:
        with Web(timeout=timeout) as web:
            response = web.post_json(
                url, report, about=Peer(SERVICE, where, HINTS), headers=headers
            )
    except InvalidUrl:
        raise ValueError("PROMOFLOW_REPORT_URL: not a valid URL") from None
    except Unreachable as exc:
        if exc.transient:
            raise NotifyError(str(exc)) from None
        raise ValueError(str(exc)) from None
    status = response.status
    content_type = response.content_type
    not_api = neterrors.answer(
        status, content_type, response.content, SERVICE, where, HINTS, api="a reporter's API"
    )
    if not_api is not None and status >= 300:
        raise ValueError(not_api.message)
    reason = neterrors.one_line(response.text) if response.text.strip() else ""
    said = f"{SERVICE} answered {status}" + (f": {reason}" if reason else "")
    if neterrors.status_transient(status):
        raise NotifyError(said)
    if status >= 400:
        raise ValueError(
            f"{SERVICE} refused the report: {status}" + (f": {reason}" if reason else "")
        )
