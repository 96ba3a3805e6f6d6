"""``service.telegram``: ``sendMessage`` of the Bot API with the notification's message.

Upstream's Go client asks ``getMe`` before every message, to check the token; that is
not repeated here: ``sendMessage`` refuses a bad token with the same 401.

The recipient is read as notifications-engine reads it: one starting with ``-`` is a chat
id, optionally ``|`` and a thread (topic) id, both integers as Go's ``strconv`` parses
them (a sign, decimal digits, 64 bits: :func:`chat_of`, checked against upstream by the
vectors of ``tests/vectors/notify_services``); anything else is a public channel's
username, sent as ``@<name>``. The text goes with ``parse_mode=Markdown``, form
encoded, as upstream's client sends it.

The Bot API answers ``{"ok": true, "result": ...}`` or ``{"ok": false, "error_code": N,
"description": "..."}`` with the same HTTP status: 400 (``chat not found``), 401
(a revoked token), 403 (the bot was removed) are dead; 429 carries
``parameters.retry_after`` and is retried after it, as 5xx are. The token is part of the
URL (``/bot<token>/``), so errors never show the URL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from reporters.sinks import answers
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import notification_of, recipient_of, text

API = "https://api.telegram.org"
_INT64 = 1 << 63


@dataclass(frozen=True)
class Chat:
    chat_id: str
    """A chat id, or ``@username`` of a channel."""
    thread: int | None = None


def _integer(value: str, what: str, recipient: str) -> int:
    """Go's ``strconv.ParseInt(s, 10, 64)``: optional sign, decimal digits, 64 bits."""
    digits = value[1:] if value[:1] in "+-" else value
    number = int(value) if digits.isascii() and digits.isdigit() else None
    if number is None or not -_INT64 <= number < _INT64:
        raise SinkError(
            f"telegram: {what} {value!r} of recipient {recipient!r} is not an integer "
            "(write -<chat id>, -<chat id>|<thread id>, or a channel's username)",
            permanent=True,
        )
    return number


def chat_of(recipient: str) -> Chat:
    """Where upstream sends a message for this recipient."""
    if not recipient.startswith("-"):
        return Chat("@" + recipient)
    parts = recipient.split("|")
    chat = _integer(parts[0], "chat id", recipient)
    thread = _integer(parts[1], "thread id", recipient) if len(parts) > 1 else None
    return Chat(str(chat), thread)


def said(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("description") or "") if isinstance(body, dict) else ""


class TelegramSink:
    def __init__(
        self, token: str, *, api: str = API, name: str = "telegram", timeout: float = 10
    ) -> None:
        self.name = name
        self._token = token
        self._api = api.rstrip("/")
        self._client = answers.client(timeout=timeout)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "telegram")
        chat = chat_of(recipient_of(notification, "telegram", "chat"))
        form: dict[str, str] = {
            "chat_id": chat.chat_id,
            "text": text(notification, "message"),
            "parse_mode": "Markdown",
        }
        if chat.thread is not None:
            form["message_thread_id"] = str(chat.thread)
        secrets = (self._token,)
        response = answers.request(
            self._client, "POST", f"{self._api}/bot{self._token}/sendMessage",
            service="Telegram", secrets=secrets, data=form,
        )  # fmt: skip
        body = _json(response)
        if response.status_code == 200 and body.get("ok") is True:
            return
        error = answers.refusal(response, "Telegram", secrets=secrets, said=said)
        retry = (body.get("parameters") or {}).get("retry_after")
        if isinstance(retry, int | float) and error.retry_after is None:
            error.retry_after = float(retry)
        if response.status_code == 200:  # ok false with 200: not Telegram's way; say so
            error.permanent = True
        raise error

    def close(self) -> None:
        self._client.close()


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
