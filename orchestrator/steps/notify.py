"""The exit handler's step: one report of how a promotion run ended.

The run's outcome (``workflow.status`` and ``workflow.failures`` as Argo passes them) is
turned into one JSON document, printed to the log and, when ``PROMOFLOW_REPORT_URL`` is set,
posted there (the reporters service fans it out to Slack, GitHub, Jira, ...).
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from orchestrator.nesting import json_too_deep


class NotifyError(Exception):
    """The report could not be delivered (transient: the handler is retried)."""


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


def deliver(report: dict[str, Any], url: str, *, timeout: float = 10.0) -> None:
    """POST the report; 5xx and network errors are transient, 4xx are not retried."""
    try:
        response = httpx.post(url, json=report, timeout=timeout)
    except httpx.InvalidURL:
        raise ValueError("PROMOFLOW_REPORT_URL: not a valid URL") from None
    except httpx.HTTPError as exc:
        raise NotifyError(f"cannot reach the report endpoint ({type(exc).__name__})") from None
    if response.status_code >= 500:
        raise NotifyError(f"the report endpoint answered {response.status_code}")
    if response.status_code >= 400:
        raise ValueError(f"the report endpoint refused the report: {response.status_code}")
