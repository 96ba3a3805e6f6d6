"""``--sink slack:https://hooks.slack.com/services/...``: a message per event, through an
incoming webhook, saying product, environment, version, status and links.

Slack's incoming webhooks answer ``200 ok``; a malformed message ``400 invalid_payload`` or
``no_text``, a removed hook ``404 no_service`` or ``410 channel_is_archived`` (permanent:
dead letters); rate limiting ``429`` with ``Retry-After`` (retried after it).

Configured as a service (``service.slack``), the message is the template's (``message``,
and its ``slack`` block's ``blocks``/``attachments``), and with a bot ``token`` instead of
a hook it goes through ``chat.postMessage`` to the channel a subscription names. That API
answers ``200`` with ``{"ok": false, "error": ...}`` for what it refuses: a missing channel
or a revoked token is permanent, Slack's own trouble (``internal_error``,
``service_unavailable``, ...) is retried.
"""

from __future__ import annotations

from typing import Any

import httpx

from orchestrator.adapters import neterrors
from reporters.sinks.answers import Pool, client
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


TRANSIENT = {
    "internal_error",
    "fatal_error",
    "service_unavailable",
    "request_timeout",
    "ratelimited",
}
API = "https://slack.com/api"


def body_of(event: dict[str, Any]) -> dict[str, Any]:
    """The message to post: the notification's, when a template made one, else the facts."""
    notification = (event.get("data") or {}).get("notification")
    if not notification:
        return message(event)
    block = notification.get("slack") or {}
    out: dict[str, Any] = {"text": notification.get("message") or message(event)["text"]}
    out.update({k: v for k, v in block.items() if k in ("text", "blocks", "attachments")})
    return out


class SlackSink:
    def __init__(
        self,
        url: str = "",
        *,
        token: str = "",
        api: str = API,
        username: str = "",
        icon: str = "",
        unfurl: bool = True,
        insecure: bool = False,
        pool: Pool | None = None,
        name: str = "slack",
        timeout: float = 10,
    ) -> None:
        self.url = url
        self.name = name
        self._token = token
        self._api = api.rstrip("/")
        self._as: dict[str, Any] = {
            k: v for k, v in (("username", username), ("icon_emoji", icon)) if v
        }
        if not unfurl:  # disableUnfurl, as upstream's client sets it
            self._as.update(unfurl_links=False, unfurl_media=False)
        self._client = client(insecure=insecure, pool=pool, timeout=timeout)

    def send(self, event: dict[str, Any]) -> None:
        body = body_of(event)
        if self._token:
            self._post_message(event, body)
            return
        try:
            response = self._client.post(self.url, json=body)
        except httpx.HTTPError as exc:
            raise SinkError(f"cannot reach Slack: {type(exc).__name__}") from None
        if response.status_code == 200:
            return
        said = response.text.strip()[:100] or str(response.status_code)
        if response.status_code == 429 or response.status_code >= 500:
            after = neterrors.retry_after(response.headers)
            raise SinkError(f"Slack answered {response.status_code} {said}", retry_after=after)
        raise SinkError(f"Slack answered {response.status_code} {said}", permanent=True)

    def _post_message(self, event: dict[str, Any], body: dict[str, Any]) -> None:
        channel = str(((event.get("data") or {}).get("notification") or {}).get("recipient", ""))
        if not channel:
            raise SinkError(
                "Slack: a bot posts to a channel: subscribe slack:<channel>", permanent=True
            )
        headers = {"Authorization": f"Bearer {self._token}"}
        try:
            response = self._client.post(
                f"{self._api}/chat.postMessage",
                json={"channel": channel, **self._as, **body},
                headers=headers,
            )
        except httpx.HTTPError as exc:
            raise SinkError(f"cannot reach Slack: {type(exc).__name__}") from None
        after = neterrors.retry_after(response.headers)
        if response.status_code == 429 or response.status_code >= 500:
            raise SinkError(f"Slack answered {response.status_code}", retry_after=after)
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        if response.status_code == 200 and answer.get("ok"):
            return
        error = str(answer.get("error") or response.status_code)
        raise SinkError(
            f"Slack refused the message to {channel}: {error}",
            retry_after=after,
            permanent=error not in TRANSIENT,
        )

    def close(self) -> None:
        self._client.close()
