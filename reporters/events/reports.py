"""A promotion's own report of how it ended (the ``notify`` exit handler's
``PromotionResult``), as the event the Workflow watch would have made of it; and the
webhook service's report of a configuration it followed in Git (``ConfigResult``: loaded,
or refused with its problems), so the team hears of a refused push where it hears of
everything else.

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
CONFIG_STATUSES = {"Loaded": "config.loaded", "Refused": "config.refused"}
MAX_FAILURES = 100
MAX_PROBLEMS = 20


class BadReport(ValueError):
    """What is wrong with a report, said to its sender (422)."""


def _text(document: dict[str, Any], name: str, *, required: bool = False) -> str:
    value = document.get(name, "")
    if not isinstance(value, str):
        raise BadReport(f"{name}: expected a string, not {type(value).__name__}")
    if required and not value:
        raise BadReport(f"{name}: required")
    return value


def _texts(document: dict[str, Any], name: str, limit: int) -> list[str]:
    value = document.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadReport(f"{name}: expected a list of strings")
    return value[:limit]


def config_change(document: dict[str, Any]) -> Change:
    """The event of a ``ConfigResult``: ``config.loaded`` or ``config.refused``, keyed by
    the revision, with the problems as ``FILE:LINE:COL: error: ...`` lines."""
    status = _text(document, "status", required=True)
    if status not in CONFIG_STATUSES:
        raise BadReport(f"status: expected one of {', '.join(CONFIG_STATUSES)}, not {status!r}")
    revision = _text(document, "revision", required=True)
    source, serving = _text(document, "source"), _text(document, "serving")
    problems = _texts(document, "problems", MAX_PROBLEMS)
    if status == "Refused":
        keeps = f"{serving[:12]} keeps serving" if serving else "no configuration serves yet"
        message = f"configuration {revision[:12]} refused ({len(problems)} problems); {keeps}"
    else:
        message = f"configuration {revision[:12]} serves"
    data: dict[str, Any] = {
        "source": source,
        "revision": revision,
        "serving": serving,
        "products": _texts(document, "products", 1000),
        "problems": problems,
        "message": message,
    }
    return Change(CONFIG_STATUSES[status], f"config/{revision}", revision, "", data)


def change_of(document: Any, ui: str = "") -> Change:
    """The event of a ``PromotionResult`` or a ``ConfigResult``; :class:`BadReport` when
    it is neither."""
    if not isinstance(document, dict):
        raise BadReport("expected a JSON object (a PromotionResult or a ConfigResult)")
    if document.get("kind") == "ConfigResult":
        return config_change(document)
    if document.get("kind") != "PromotionResult":
        raise BadReport(
            f"kind: expected PromotionResult or ConfigResult, not {document.get('kind')!r}"
        )
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
