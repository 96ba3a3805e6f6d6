"""``service.googlechat``: a message posted to the space's webhook, as notifications-engine
posts it.

With the template's ``googlechat.cardsV2`` (YAML or JSON text: a list of cards) the body
is ``{"text": "", "cardsV2": [{"cardId": <a new UUID>, "card": CARD}, ...]}``; with
``cards`` (the deprecated form) ``{"text": "", "cards": [...]}``; else ``{"text":
MESSAGE}``. A ``threadKey`` adds ``threadKey`` and ``messageReplyOption=
REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`` to the query. Google answers the created message, or
an ``error`` {``code``, ``message``, ``status``}: 400 (``INVALID_ARGUMENT``), 403/404 (a
removed webhook) are dead; 429 (``RESOURCE_EXHAUSTED``) and 5xx are retried. The URL
carries the webhook's key and token: never shown.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import (
    block_of,
    notification_of,
    parsed_yaml,
    recipient_of,
    text,
)


def message_of(notification: dict[str, Any]) -> dict[str, Any]:
    block = block_of(notification, "googlechat")
    if not (text(block, "cardsV2") or text(block, "cards")):
        return {"text": text(notification, "message")}
    message: dict[str, Any] = {"text": ""}
    if text(block, "cardsV2"):
        cards = _cards(parsed_yaml(block, "cardsV2", "googlechat"), "cardsV2")
        message["cardsV2"] = [{"cardId": str(uuid.uuid4()), "card": c} for c in cards]
    if text(block, "cards"):
        message["cards"] = _cards(parsed_yaml(block, "cards", "googlechat"), "cards")
    return message


def _cards(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise SinkError(f"googlechat: {key} must be a list of cards", permanent=True)
    return value


def url_with_thread(url: str, thread: str) -> str:
    """The webhook's URL with the thread's parameters added to its own."""
    if not thread:
        return url
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query, keep_blank_values=True)]
    query += [("threadKey", thread), ("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD")]
    return urlunsplit(parts._replace(query=urlencode(query)))


def said(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    return f"{error.get('status', '')} {error.get('message', '')}".strip()


class GoogleChatSink:
    def __init__(
        self,
        webhooks: dict[str, str],
        *,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "googlechat",
    ) -> None:
        self.name = name
        self._webhooks = dict(webhooks)
        self._secrets = tuple(self._webhooks.values()) + tuple(
            v for url in self._webhooks.values() for _, v in parse_qsl(urlsplit(url).query)
        )
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "googlechat")
        space = recipient_of(notification, "googlechat", "space")
        url = self._webhooks.get(space)
        if url is None:
            raise SinkError(
                f"googlechat: no webhook for space {space!r} in webhooks "
                f"(one of {', '.join(sorted(self._webhooks)) or 'none'})",
                permanent=True,
            )
        thread = text(block_of(notification, "googlechat"), "threadKey")
        response = answers.request(
            self._client, "POST", url_with_thread(url, thread), service="Google Chat",
            secrets=self._secrets, json=message_of(notification),
        )  # fmt: skip
        answers.check(response, "Google Chat", secrets=self._secrets, said=said)

    def close(self) -> None:
        self._client.close()
