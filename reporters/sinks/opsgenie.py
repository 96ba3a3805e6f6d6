"""``service.opsgenie``: ``POST /v2/alerts`` (Opsgenie's "Create Alert"), as
notifications-engine's client sends it.

``Authorization: GenieKey <the team's key>``; the body's ``message`` is the notification's
message, ``responders`` the subscribed team (``[{"type": "team", "id": TEAM}]``),
``source`` ``Argo CD``, and the template's ``opsgenie`` block gives ``description``
(required, as upstream), ``priority``, ``alias``, ``note``, ``actions``, ``tags``,
``details``, ``entity``, ``visibleTo`` and ``user``; empty ones are left out.

``apiUrl`` is a host, as upstream and its SDK take it (``api.opsgenie.com``, spoken to
over HTTPS: :func:`alerts_url`); a full ``http(s)://`` URL is taken as it is. Opsgenie
answers ``202`` (``Request will be processed``); ``422`` with ``errors`` for a body it
refuses and ``401``/``403`` for a key are dead; ``429`` and ``5xx`` are retried.
"""

from __future__ import annotations

from typing import Any

import httpx

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import block_of, notification_of, recipient_of, text

DEFAULT_HOST = "api.opsgenie.com"
"""The SDK's default when ``apiUrl`` is empty."""


def alerts_url(api_url: str) -> str:
    """Where the SDK sends an alert: ``https://<apiUrl>/v2/alerts``, or ``http://`` when the
    host holds no ``api`` (the SDK's rule for its tests, kept: a local Opsgenie stand-in is
    reached as upstream reaches it). A full ``http(s)://`` URL is taken as it is."""
    base = api_url.strip().rstrip("/") or DEFAULT_HOST
    if not base.startswith(("http://", "https://")):
        base = ("https://" if "api" in base else "http://") + base
    return base + "/v2/alerts"


def alert_of(notification: dict[str, Any], team: str) -> dict[str, Any]:
    """The Create Alert body upstream sends."""
    block = block_of(notification, "opsgenie")
    if block and not text(block, "description"):
        raise SinkError(
            "opsgenie: the template's opsgenie block needs a description", permanent=True
        )
    body: dict[str, Any] = {
        "message": text(notification, "message"),
        "responders": [{"type": "team", "id": team, "username": ""}],
        "source": "Argo CD",
    }
    for key in ("description", "priority", "alias", "note", "entity", "user"):
        if text(block, key):
            body[key] = text(block, key)
    for key in ("actions", "tags"):
        if block.get(key):
            body[key] = [str(v) for v in block[key]]
    if block.get("details"):
        body["details"] = {str(k): str(v) for k, v in dict(block["details"]).items()}
    if block.get("visibleTo"):
        body["visibleTo"] = [_responder(r) for r in block["visibleTo"]]
    return body


def _responder(given: Any) -> dict[str, str]:
    """A ``visibleTo`` item as the SDK writes a Responder: ``type`` and ``username`` always
    (its tags say ``"type, omitempty"``, which Go reads as no omitempty), ``id`` and
    ``name`` when set. Keys are matched without regard to case: upstream's docs write
    ``Id``, ``Type``, as Go's JSON decoding allows."""
    found = {str(k).lower(): str(v) for k, v in dict(given).items() if v is not None}
    out = {"type": found.get("type", ""), "username": found.get("username", "")}
    out.update({k: found[k] for k in ("id", "name") if found.get(k)})
    return out


def said(response: httpx.Response) -> str:
    """Opsgenie's ``message`` and the ``errors`` it lists by field."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    message = str(body.get("message") or "")
    errors = body.get("errors")
    if isinstance(errors, dict) and errors:
        message += " (" + "; ".join(f"{k}: {v}" for k, v in errors.items()) + ")"
    return message


class OpsgenieSink:
    def __init__(
        self,
        api_url: str,
        keys: dict[str, str],
        *,
        insecure: bool = False,
        pool: answers.Pool | None = None,
        name: str = "opsgenie",
    ) -> None:
        self.name = name
        self._url = alerts_url(api_url)
        self._keys = dict(keys)
        self._secrets = tuple(self._keys.values())
        self._client = answers.client(insecure=insecure, pool=pool)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "opsgenie")
        team = recipient_of(notification, "opsgenie", "team")
        key = self._keys.get(team)
        if key is None:
            raise SinkError(f"opsgenie: no API key for team {team!r} in apiKeys", permanent=True)
        response = answers.request(
            self._client, "POST", self._url, service="Opsgenie", secrets=self._secrets,
            json=alert_of(notification, team), headers={"Authorization": f"GenieKey {key}"},
        )  # fmt: skip
        answers.check(response, "Opsgenie", secrets=self._secrets, said=said)

    def close(self) -> None:
        self._client.close()
