"""``service.teams-workflows``: an Adaptive Card posted to a Teams Workflows webhook.

The body is notifications-engine's: ``{"type": "message", "attachments": [{"contentType":
"application/vnd.microsoft.card.adaptive", "content": CARD}]}``. CARD is the template's
``teams-workflows.adaptiveCard`` (JSON text, sent as written), else one built from the
block's MessageCard fields: ``AdaptiveCard`` version 1.4 with the title (a large, bolder
``TextBlock`` coloured ``themeColor``), the text (``text``, else the message), a
``FactSet`` of ``facts`` and one per section's facts (``name``/``value`` become
``title``/``value``), and each ``OpenUri`` action of ``potentialAction`` as an
``Action.OpenUrl`` to its first target. The block's ``template`` is read by upstream's
templater but never sent, and so not here either. Workflows answer with the status alone:
2xx is taken, 429 and 5xx are retried, the rest is dead with the flow's error text.
"""

from __future__ import annotations

import json
from typing import Any

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import block_of, notification_of, parsed_json, recipient_of, text

KIND = "teams-workflows"
ADAPTIVE = "application/vnd.microsoft.card.adaptive"


def _value(fact: dict[str, Any]) -> str:
    value = fact.get("value", "")
    if isinstance(value, str):
        return value
    if isinstance(value, bool):  # as Go's %v prints them
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _facts(items: Any) -> list[dict[str, str]]:
    """Go's fact conversion: items with a string ``name``; others are left out."""
    return [
        {"title": item["name"], "value": _value(item)}
        for item in items or []
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]


def card_of(notification: dict[str, Any]) -> dict[str, Any]:
    """The Adaptive Card upstream builds from a MessageCard-shaped block."""
    block = block_of(notification, KIND)
    body: list[dict[str, Any]] = []
    title = text(block, "title")
    if title:
        heading = {"type": "TextBlock", "text": title, "size": "Large", "weight": "Bolder"}
        if text(block, "themeColor"):
            heading["color"] = text(block, "themeColor")
        body.append({**heading, "wrap": True})
    words = text(block, "text") or text(notification, "message")
    if words:
        body.append({"type": "TextBlock", "text": words, "wrap": True})
    facts = _facts(parsed_json(block, "facts", KIND) if text(block, "facts") else [])
    if facts:
        body.append({"type": "FactSet", "facts": facts})
    sections = parsed_json(block, "sections", KIND) if text(block, "sections") else []
    for section in sections or []:
        own = _facts(section.get("facts") if isinstance(section, dict) else None)
        if own:
            body.append({"type": "FactSet", "facts": own})
    card: dict[str, Any] = {"type": "AdaptiveCard", "version": "1.4", "body": body}
    actions = parsed_json(block, "potentialAction", KIND) if text(block, "potentialAction") else []
    opens = []
    for action in actions or []:
        if not isinstance(action, dict) or action.get("@type") != "OpenUri":
            continue
        targets = action.get("targets")
        first = targets[0] if isinstance(targets, list) and targets else None
        uri = first.get("uri") if isinstance(first, dict) else None
        if isinstance(uri, str) and uri:
            opened = {"type": "Action.OpenUrl", "url": uri}
            if isinstance(action.get("name"), str):
                opened["title"] = action["name"]
            opens.append(opened)
    if opens:
        card["actions"] = opens
    return card


def message_of(notification: dict[str, Any]) -> dict[str, Any]:
    block = block_of(notification, KIND)
    card = (
        parsed_json(block, "adaptiveCard", KIND)
        if text(block, "adaptiveCard").strip()
        else card_of(notification)
    )
    return {"type": "message", "attachments": [{"contentType": ADAPTIVE, "content": card}]}


class TeamsWorkflowsSink:
    def __init__(
        self,
        urls: dict[str, str],
        *,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = KIND,
    ) -> None:
        self.name = name
        self._urls = dict(urls)
        self._secrets = tuple(self._urls.values())
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, KIND)
        channel = recipient_of(notification, KIND, "channel")
        url = self._urls.get(channel)
        if url is None:
            raise SinkError(
                f"{KIND}: no webhook for {channel!r} in recipientUrls "
                f"(one of {', '.join(sorted(self._urls)) or 'none'})",
                permanent=True,
            )
        body = json.dumps(message_of(notification)).encode()
        response = answers.request(
            self._client, "POST", url, service="Teams Workflows", secrets=self._secrets,
            content=body, headers={"Content-Type": "application/json"},
        )  # fmt: skip
        answers.check(response, "Teams Workflows", secrets=self._secrets)

    def close(self) -> None:
        self._client.close()
