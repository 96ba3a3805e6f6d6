"""``service.grafana``: ``POST {apiUrl}/annotations`` with ``Authorization: Bearer
<apiKey>`` and ``{"time": <now, ms>, "isRegion": false, "tags": RECIPIENT split at "|",
"text": MESSAGE}``, as notifications-engine creates it.

Grafana answers ``200 {"message": "Annotation added", "id": N}``; upstream takes no other
status as success, nor does this. 400 (a bad body), 401 (``invalid API key``) and 403 are
dead, 429 and 5xx retried.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from reporters.sinks import answers
from reporters.sinks.notified import notification_of, text


def annotations_url(api_url: str) -> str:
    """``path.Join(apiUrl's path, "annotations")``, as upstream joins it."""
    parts = urlsplit(api_url)
    path = "/".join(p for p in (parts.path.strip("/"), "annotations") if p)
    return urlunsplit(parts._replace(path="/" + path))


class GrafanaSink:
    def __init__(
        self,
        api_url: str,
        api_key: str,
        *,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "grafana",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self._url = annotations_url(api_url)
        self._key = api_key
        self._clock = clock
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "grafana")
        annotation = {
            "time": int(self._clock()) * 1000,
            "isRegion": False,
            "tags": str(notification.get("recipient") or "").split("|"),
            "text": text(notification, "message"),
        }
        secrets = (self._key,)
        response = answers.request(
            self._client, "POST", self._url, service="Grafana", secrets=secrets,
            json=annotation, headers={"Authorization": f"Bearer {self._key}"},
        )  # fmt: skip
        answers.check(response, "Grafana", secrets=secrets, ok=lambda status: status == 200)

    def close(self) -> None:
        self._client.close()
