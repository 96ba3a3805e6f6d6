"""``--sink slack:https://hooks.slack.com/services/...``: a message per event, through an
incoming webhook, saying product, environment, version, status and links.

Slack's incoming webhooks answer ``200 ok``; a malformed message ``400 invalid_payload`` or
``no_text``, a removed hook ``404 no_service`` or ``410 channel_is_archived`` (permanent:
dead letters); rate limiting ``429`` with ``Retry-After`` (retried after it).
"""

from __future__ import annotations

from typing import Any

import httpx

from reporters.sinks.delivery import SinkError

ICONS = {
    "app.deployed": ":white_check_mark:",
    "app.health-degraded": ":red_circle:",
    "app.sync-failed": ":x:",
    "promotion.succeeded": ":tada:",
    "promotion.failed": ":x:",
    "promotion.waiting-approval": ":raised_hand:",
    "rollout.paused": ":double_vertical_bar:",
}


def message(event: dict[str, Any]) -> dict[str, Any]:
    """The Slack message of a CloudEvent: a line of text (notifications, fallbacks) and
    blocks with the facts."""
    data = event.get("data") or {}
    kind = str(event.get("type", ""))
    what = kind.split(".", 1)[-1].replace("-", " ")
    subject = data.get("product") or str(event.get("subject", ""))
    where = data.get("environment") or str(data.get("app", event.get("subject", "")))
    version = data.get("version") or str(data.get("revision", ""))[:12]
    text = f"{ICONS.get(kind, ':information_source:')} {subject} {version} {what} in {where}"
    facts = [
        f"*{name}*\n{value}"
        for name, value in (
            ("Product", data.get("product")),
            ("Environment", data.get("environment")),
            ("Version", version),
            ("Status", what),
            ("App", data.get("app")),
        )
        if value
    ]
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": text}},
        {"type": "section", "fields": [{"type": "mrkdwn", "text": f} for f in facts[:10]]},
    ]
    if data.get("message"):
        blocks.append(
            {
                "type": "context",
                "elements": [{"type": "mrkdwn", "text": str(data["message"])[:2900]}],
            }
        )
    if data.get("link"):
        blocks.append(
            {
                "type": "actions",
                "elements": [
                    {"type": "button", "text": {"type": "plain_text", "text": "Open the run"},
                     "url": data["link"]}
                ],
            }
        )  # fmt: skip
    return {"text": text, "blocks": blocks}


class SlackSink:
    def __init__(self, url: str, *, name: str = "slack", timeout: float = 10) -> None:
        self.url = url
        self.name = name
        self._client = httpx.Client(timeout=timeout)

    def send(self, event: dict[str, Any]) -> None:
        try:
            response = self._client.post(self.url, json=message(event))
        except httpx.HTTPError as exc:
            raise SinkError(f"cannot reach Slack: {type(exc).__name__}") from None
        if response.status_code == 200:
            return
        said = response.text.strip()[:100] or str(response.status_code)
        if response.status_code == 429 or response.status_code >= 500:
            retry = response.headers.get("retry-after", "")
            after = float(retry) if retry.replace(".", "", 1).isdigit() else None
            raise SinkError(f"Slack answered {response.status_code} {said}", retry_after=after)
        raise SinkError(f"Slack answered {response.status_code} {said}", permanent=True)

    def close(self) -> None:
        self._client.close()
