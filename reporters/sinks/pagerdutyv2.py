"""``service.pagerdutyv2``: an event to ``POST https://events.pagerduty.com/v2/enqueue``,
as notifications-engine sends it with PagerDuty's Go client.

The body: ``routing_key`` (the subscribed service's key), ``event_action: trigger``,
``client: ArgoCD``, ``client_url`` (the block's ``url``), ``dedup_key`` (``dedupKey``) and
``payload`` {``summary``, ``severity``, ``source``, ``component``, ``group``, ``class``}
from the template's ``pagerdutyv2`` block, which upstream requires. PagerDuty answers
``202`` (``{"status": "success", ...}``); ``400`` with ``errors`` for an event it refuses
(dead, with them), ``429`` when the key is over its rate and ``5xx``, both retried.
"""

from __future__ import annotations

from typing import Any

import httpx

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import block_of, notification_of, recipient_of, text

API = "https://events.pagerduty.com"


def event_of(notification: dict[str, Any], key: str) -> dict[str, Any]:
    block = block_of(notification, "pagerdutyv2")
    if not block:
        raise SinkError(
            "pagerdutyv2: the template has no pagerdutyv2 block (summary, severity, source)",
            permanent=True,
        )
    payload = {k: text(block, k) for k in ("summary", "source", "severity")}
    payload.update({k: text(block, k) for k in ("component", "group", "class") if text(block, k)})
    event: dict[str, Any] = {
        "routing_key": key,
        "event_action": "trigger",
        "payload": payload,
        "client": "ArgoCD",
    }
    if text(block, "dedupKey"):
        event["dedup_key"] = text(block, "dedupKey")
    if text(block, "url"):
        event["client_url"] = text(block, "url")
    return event


def said(response: httpx.Response) -> str:
    """PagerDuty's ``message`` and its ``errors``."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    errors = body.get("errors")
    listed = "; ".join(str(e) for e in errors) if isinstance(errors, list) else ""
    message = str(body.get("message") or body.get("status") or "")
    return f"{message} ({listed})" if listed else message


class PagerDutySink:
    def __init__(self, keys: dict[str, str], *, api: str = API, name: str = "pagerdutyv2") -> None:
        self.name = name
        self._keys = dict(keys)
        self._secrets = tuple(self._keys.values())
        self._url = api.rstrip("/") + "/v2/enqueue"
        self._client = answers.client()

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "pagerdutyv2")
        service = recipient_of(notification, "pagerdutyv2", "service")
        key = self._keys.get(service)
        if key is None:
            raise SinkError(
                f"pagerdutyv2: no key for service {service!r} in serviceKeys", permanent=True
            )
        response = answers.request(
            self._client, "POST", self._url, service="PagerDuty", secrets=self._secrets,
            json=event_of(notification, key),
        )  # fmt: skip
        answers.check(response, "PagerDuty", secrets=self._secrets, said=said)

    def close(self) -> None:
        self._client.close()
