"""``service.mattermost``: ``POST {apiURL}/api/v4/posts`` with ``Authorization: Bearer
<token>`` and ``{"channel_id": RECIPIENT, "message": MESSAGE, "props": {"attachments":
[...]}}``, the attachments being the template's ``mattermost.attachments`` (JSON text, in
Slack's attachment shape), as notifications-engine posts them.

Mattermost answers ``201`` with the post; refusals carry ``{"id", "message",
"status_code"}``: 400 (a bad channel id), 401 (a bad token), 403 (not in the channel) and
404 are dead, 429 and 5xx are retried.
"""

from __future__ import annotations

from typing import Any

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import block_of, notification_of, parsed_json, recipient_of, text


def post_of(notification: dict[str, Any], channel: str) -> dict[str, Any]:
    block = block_of(notification, "mattermost")
    attachments: Any = []
    if text(block, "attachments"):
        attachments = parsed_json(block, "attachments", "mattermost")
        if not isinstance(attachments, list):
            raise SinkError("mattermost: attachments must be a JSON list", permanent=True)
    return {
        "channel_id": channel,
        "message": text(notification, "message"),
        "props": {"attachments": attachments},
    }


class MattermostSink:
    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "mattermost",
    ) -> None:
        self.name = name
        self._url = api_url.rstrip("/") + "/api/v4/posts"
        self._token = token
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "mattermost")
        channel = recipient_of(notification, "mattermost", "channel id")
        secrets = (self._token,)
        response = answers.request(
            self._client, "POST", self._url, service="Mattermost", secrets=secrets,
            json=post_of(notification, channel),
            headers={"Authorization": f"Bearer {self._token}"},
        )  # fmt: skip
        answers.check(response, "Mattermost", secrets=secrets)

    def close(self) -> None:
        self._client.close()
