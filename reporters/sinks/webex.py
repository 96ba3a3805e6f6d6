"""``service.webex``: ``POST {apiURL}/v1/messages`` with ``Authorization: Bearer <token>``
and ``{"markdown": MESSAGE}`` plus ``toPersonEmail`` when the recipient looks like an
email address (``\\S+@\\S+\\.\\S+``, upstream's test), else ``roomId``.

Webex answers ``200`` with the message; upstream takes no other status as success, nor
does this. Refusals carry ``{"message", "errors", "trackingId"}``: 400 (a bad room id),
401, 403 and 404 are dead; 429 (with ``Retry-After``) and 5xx are retried.
"""

from __future__ import annotations

import re
from typing import Any

from reporters.sinks import answers
from reporters.sinks.notified import notification_of, recipient_of, text

API = "https://webexapis.com"
EMAIL = re.compile(r"^\S+@\S+\.\S+$")


def message_of(notification: dict[str, Any], recipient: str) -> dict[str, str]:
    to = "toPersonEmail" if EMAIL.match(recipient) else "roomId"
    body = {to: recipient}
    if text(notification, "message"):
        body["markdown"] = text(notification, "message")
    return body


class WebexSink:
    def __init__(
        self,
        token: str,
        *,
        api: str = API,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "webex",
    ) -> None:
        self.name = name
        self._token = token
        self._url = api.rstrip("/") + "/v1/messages"
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "webex")
        recipient = recipient_of(notification, "webex", "room id or email")
        secrets = (self._token,)
        response = answers.request(
            self._client, "POST", self._url, service="Webex", secrets=secrets,
            json=message_of(notification, recipient),
            headers={"Authorization": f"Bearer {self._token}"},
        )  # fmt: skip
        answers.check(response, "Webex", secrets=secrets, ok=lambda status: status == 200)

    def close(self) -> None:
        self._client.close()
