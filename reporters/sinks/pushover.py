"""``service.pushover``: ``POST https://api.pushover.net/1/messages.json``, form encoded
``token``, ``user`` (the recipient), ``message`` and ``priority=0`` (normal), as upstream's
Pushover client sends it.

Pushover answers ``{"status": 1, "request": ...}``; a refusal is a 4xx with ``status: 0``
and ``errors`` (``user identifier is invalid``, ``application token is invalid``): dead;
429 (over the monthly limit) and 5xx are retried, as Pushover asks.
"""

from __future__ import annotations

from typing import Any

import httpx

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import notification_of, recipient_of, text

API = "https://api.pushover.net"


def said(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    errors = body.get("errors") if isinstance(body, dict) else None
    return "; ".join(str(e) for e in errors) if isinstance(errors, list) else ""


class PushoverSink:
    def __init__(self, token: str, *, api: str = API, name: str = "pushover") -> None:
        self.name = name
        self._token = token
        self._url = api.rstrip("/") + "/1/messages.json"
        self._client = answers.client()

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "pushover")
        user = recipient_of(notification, "pushover", "user key")
        message = text(notification, "message")
        if not message:
            raise SinkError("pushover: the message is empty", permanent=True)
        secrets = (self._token, user)
        response = answers.request(
            self._client, "POST", self._url, service="Pushover", secrets=secrets,
            data={"token": self._token, "user": user, "message": message, "priority": "0"},
        )  # fmt: skip
        answers.check(response, "Pushover", secrets=secrets, said=said)
        try:
            status = response.json().get("status")
        except (ValueError, AttributeError):
            status = None
        if status != 1:
            raise answers.refusal(response, "Pushover", secrets=secrets, said=said)

    def close(self) -> None:
        self._client.close()
