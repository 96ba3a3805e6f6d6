"""``service.alertmanager``: ``POST {scheme}://{target}{apiPath}`` of a list of one alert
(Alertmanager's ``postableAlerts``), to every target, as notifications-engine sends it.

The alert: ``labels`` and ``annotations`` from the template's ``alertmanager`` block
(``alertname`` is the template's name unless a label sets it; at least one label, as
upstream requires), ``generatorURL`` (the block's, else the app's repository; a
``git@host:org/repo`` URL becomes ``https://host/org/repo``) and ``startsAt`` (now,
RFC 3339). The delivery succeeds when one target answered ``200``, as upstream's does;
when none did, it is retried if any target's failure may pass (a network failure, 429,
5xx), dead otherwise, naming each target's answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import block_of, notification_of, text


def http_url(url: str) -> str:
    """Upstream's ``convertGitURLtoHTTP``: ``git@host:org/repo`` → ``https://host/org/repo``."""
    if not url.startswith("git@"):
        return url
    return "https://" + url.removeprefix("git@").replace(":", "/", 1)


def alert_of(event: dict[str, Any], now: datetime) -> dict[str, Any]:
    notification = notification_of(event, "alertmanager")
    block = block_of(notification, "alertmanager")
    labels = {str(k): str(v) for k, v in dict(block.get("labels") or {}).items()}
    if not labels:
        raise SinkError(
            "alertmanager: the template's alertmanager block needs at least one label",
            permanent=True,
        )
    labels.setdefault("alertname", text(notification, "template"))
    alert: dict[str, Any] = {
        "labels": labels,
        "annotations": {str(k): str(v) for k, v in dict(block.get("annotations") or {}).items()}
        or None,
        "generatorURL": http_url(
            text(block, "generatorURL") or str((event.get("data") or {}).get("repo") or "")
        ),
        "startsAt": now.isoformat().replace("+00:00", "Z"),
    }
    return alert


class AlertmanagerSink:
    def __init__(
        self,
        targets: list[str],
        *,
        scheme: str = "http",
        api_path: str = "/api/v2/alerts",
        basic: tuple[str, str] | None = None,
        bearer: str = "",
        timeout: float = 3,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "alertmanager",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self._urls = [f"{scheme}://{target}{api_path}" for target in targets]
        self._headers = (
            {} if basic is not None or not bearer else {"Authorization": f"Bearer {bearer}"}
        )
        self._secrets = tuple(s for s in (bearer, *(basic or ())) if s)
        self._clock = clock
        self._client = answers.client(insecure=insecure, pool=pool, timeout=timeout, auth=basic)

    def send(self, event: dict[str, Any]) -> None:
        now = datetime.fromtimestamp(self._clock(), UTC)
        body = [alert_of(event, now)]
        failures: list[SinkError] = []
        for url in self._urls:  # upstream sends to all at once; one success is enough
            try:
                response = answers.request(
                    self._client, "POST", url, service=f"Alertmanager {_target(url)}",
                    secrets=self._secrets, json=body, headers=self._headers,
                )  # fmt: skip
                answers.check(
                    response, f"Alertmanager {_target(url)}", secrets=self._secrets,
                    ok=lambda status: status == 200,
                )  # fmt: skip
            except SinkError as exc:
                failures.append(exc)
        if len(failures) < len(self._urls):
            return
        raise SinkError(
            "no Alertmanager took the alert: " + "; ".join(str(f) for f in failures),
            retry_after=max((f.retry_after for f in failures if f.retry_after), default=None),
            permanent=all(f.permanent for f in failures),
        )

    def close(self) -> None:
        self._client.close()


def _target(url: str) -> str:
    return url.split("://", 1)[-1].split("/", 1)[0]
