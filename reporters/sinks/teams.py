"""``service.teams``: a MessageCard posted to the channel's incoming webhook.

The card is notifications-engine's: ``@type: MessageCard``, ``context``, ``title``,
``summary``, ``text`` (the template's ``teams.text``, else its message), ``themeColor``,
``sections`` (JSON text), ``facts`` (JSON text, added as one more section) and
``potentialAction`` (JSON text); ``teams.template`` replaces the card with its own JSON.

An Office 365 Connector answers ``200`` with the body ``1`` when it took the card; any
other body is its refusal, said as it is (``Summary or Text is required.``, ``Webhook
Bad Request - Null or empty event``); ``429`` (throttled) and ``5xx`` are retried.
"""

from __future__ import annotations

import json
from typing import Any

from orchestrator.adapters import neterrors
from orchestrator.urls import scrub
from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import (
    block_of,
    notification_of,
    parsed_json,
    recipient_of,
    text,
)


def card_of(notification: dict[str, Any]) -> bytes:
    """The body notifications-engine posts for this notification."""
    block = block_of(notification, "teams")
    if text(block, "template"):
        return text(block, "template").encode()
    card: dict[str, Any] = {
        "@type": "MessageCard",
        "context": "https://schema.org/extensions",
        "title": text(block, "title"),
        "summary": text(block, "summary"),
        "text": text(block, "text") or text(notification, "message"),
    }
    if text(block, "themeColor"):
        card["themeColor"] = text(block, "themeColor")
    sections: list[Any] = []
    if text(block, "sections"):
        sections = list(_list(parsed_json(block, "sections", "teams"), "sections"))
    if text(block, "facts"):
        sections.append({"facts": _list(parsed_json(block, "facts", "teams"), "facts")})
    if text(block, "potentialAction"):
        card["potentialAction"] = _list(
            parsed_json(block, "potentialAction", "teams"), "potentialAction"
        )
    if sections:
        card["sections"] = sections
    return json.dumps(card).encode()


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise SinkError(f"teams: {key} must be a JSON list", permanent=True)
    return value


class TeamsSink:
    def __init__(
        self,
        urls: dict[str, str],
        *,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "teams",
    ) -> None:
        self.name = name
        self._urls = dict(urls)
        self._secrets = tuple(self._urls.values())
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "teams")
        channel = recipient_of(notification, "teams", "channel")
        url = self._urls.get(channel)
        if url is None:
            raise SinkError(
                f"teams: no webhook for {channel!r} in recipientUrls "
                f"(one of {', '.join(sorted(self._urls)) or 'none'})",
                permanent=True,
            )
        response = answers.request(
            self._client, "POST", url, service="Teams", secrets=self._secrets,
            content=card_of(notification), headers={"Content-Type": "application/json"},
        )  # fmt: skip
        answers.check(response, "Teams", secrets=self._secrets)
        if response.text.strip() != "1":
            raise SinkError(
                f"Teams refused the card for {channel}: "
                f"{neterrors.one_line(scrub(response.text, self._secrets)) or '(an empty answer)'}",
                permanent=True,
            )

    def close(self) -> None:
        self._client.close()
