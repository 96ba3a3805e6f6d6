"""A promotion's own report of how it ended (the ``notify`` exit handler's
``PromotionResult``), as the event the Workflow watch would have made of it.

The exit handler posts its report to the reporter (``PROMOFLOW_REPORT_URL``), and the
reporter delivers it through the same sinks, notifications, retries and dead letters as
every other event. When the reporter also watches Workflows (``--resources workflows``)
the watch reports the run's end itself, with the same type; the report is then
acknowledged and not reported twice.
"""

from __future__ import annotations

from typing import Any

from reporters.events.transitions import Change

STATUSES = {"Succeeded": "promotion.succeeded", "Failed": "promotion.failed"}
STATUSES["Error"] = "promotion.failed"
MAX_FAILURES = 100


class BadReport(ValueError):
    """What is wrong with a report, said to its sender (422)."""


def _text(document: dict[str, Any], name: str, *, required: bool = False) -> str:
    value = document.get(name, "")
    if not isinstance(value, str):
        raise BadReport(f"{name}: expected a string, not {type(value).__name__}")
    if required and not value:
        raise BadReport(f"{name}: required")
    return value


def change_of(document: Any, ui: str = "") -> Change:
    """The event of a ``PromotionResult``; :class:`BadReport` when it is not one."""
    if not isinstance(document, dict):
        raise BadReport("expected a JSON object (a PromotionResult)")
    if document.get("kind") != "PromotionResult":
        raise BadReport(f"kind: expected PromotionResult, not {document.get('kind')!r}")
    product = _text(document, "product", required=True)
    run = _text(document, "run", required=True)
    status = _text(document, "status", required=True)
    if status not in STATUSES:
        raise BadReport(f"status: expected one of {', '.join(STATUSES)}, not {status!r}")
    namespace = _text(document, "namespace")
    version = _text(document, "version")
    failures = document.get("failures") or []
    if not isinstance(failures, list) or not all(isinstance(f, dict) for f in failures):
        raise BadReport("failures: expected a list of {node, message, phase}")
    data: dict[str, Any] = {
        "product": product,
        "version": version,
        "run": run,
        "flow": _text(document, "flow"),
        "requestedBy": _text(document, "requestedBy"),
        "message": "",
    }
    if ui and namespace:
        data["link"] = f"{ui.rstrip('/')}/workflows/{namespace}/{run}"
    if failures:
        data["failures"] = sorted(
            (
                {"step": str(f.get("node", "")), "message": str(f.get("message", ""))}
                for f in failures[:MAX_FAILURES]
            ),
            key=lambda f: f["step"],
        )
    return Change(STATUSES[status], f"{namespace}/{run}", version, "", data)
