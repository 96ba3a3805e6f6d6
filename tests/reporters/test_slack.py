"""The Slack sink against a fake incoming webhook that answers as Slack's do (``ok``,
``invalid_payload``, ``no_service``, 429 with Retry-After), checked against Block Kit's
limits for the messages it sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from orchestrator.simulator.serve import ServerThread
from reporters.sinks.delivery import SinkError
from reporters.sinks.slack import SlackSink, message

EVENT = {
    "specversion": "1.0",
    "id": "e1",
    "type": "promotion.waiting-approval",
    "subject": "argo/shop-1-5-0-abcd1234",
    "data": {
        "product": "shop",
        "environment": "prod",
        "version": "1.5.0",
        "link": "https://argo.example.com/workflows/argo/shop-1-5-0-abcd1234",
    },
}


@dataclass
class FakeSlack:
    """What docs.slack.com ("Sending messages using incoming webhooks", "Handling
    errors") says a hook answers: plain-text bodies."""

    answers: list[tuple[int, str, dict[str, str]]] = field(default_factory=list)
    got: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> Starlette:
        async def hook(request: Request) -> PlainTextResponse:
            body = await request.json()
            if self.answers:
                status, text, headers = self.answers.pop(0)
                return PlainTextResponse(text, status, headers=headers)
            if not body.get("text") and not body.get("blocks"):
                return PlainTextResponse("no_text", 400)
            self.got.append(body)
            return PlainTextResponse("ok")

        return Starlette(routes=[Route("/services/T0/B0/X", hook, methods=["POST"])])


def test_a_message_carries_the_facts_and_the_link() -> None:
    sent = message(EVENT)
    assert sent["text"].startswith(":raised_hand: shop 1.5.0 waiting approval in prod")
    fields = [f["text"] for f in sent["blocks"][1]["fields"]]
    assert "*Environment*\nprod" in fields and "*Version*\n1.5.0" in fields
    assert sent["blocks"][-1]["elements"][0]["url"] == EVENT["data"]["link"]
    assert len(sent["blocks"][1]["fields"]) <= 10  # Block Kit: at most 10 fields


def test_answers_become_delivered_retried_or_dead() -> None:
    slack = FakeSlack(
        answers=[(429, "rate_limited", {"Retry-After": "3"}), (404, "no_service", {})]
    )
    with ServerThread(slack.app()) as server:
        sink = SlackSink(f"{server.url}/services/T0/B0/X")
        with pytest.raises(SinkError) as limited:
            sink.send(EVENT)
        with pytest.raises(SinkError) as gone:
            sink.send(EVENT)
        sink.send(EVENT)
        sink.close()
    assert not limited.value.permanent and limited.value.retry_after == 3.0
    assert gone.value.permanent and "no_service" in str(gone.value)
    assert len(slack.got) == 1 and slack.got[0]["text"]


@dataclass
class FakeSlackApi:
    """``chat.postMessage`` as api.slack.com documents it: HTTP 200 with ``ok`` true or
    false and an ``error`` code; 429 with Retry-After when rate limited."""

    token: str = "xoxb-1-secret"
    channels: tuple[str, ...] = ("deploys",)
    answers: list[tuple[int, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    got: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> Starlette:
        from starlette.responses import JSONResponse

        async def post(request: Request) -> JSONResponse:
            if self.answers:
                status, body, headers = self.answers.pop(0)
                return JSONResponse(body, status, headers=headers)
            if request.headers.get("authorization") != f"Bearer {self.token}":
                return JSONResponse({"ok": False, "error": "invalid_auth"})
            body = await request.json()
            if body.get("channel") not in self.channels:
                return JSONResponse({"ok": False, "error": "channel_not_found"})
            if not body.get("text") and not body.get("blocks"):
                return JSONResponse({"ok": False, "error": "no_text"})
            self.got.append(body)
            return JSONResponse({"ok": True, "channel": "C0DEPLOYS", "ts": "1732442400.000100"})

        return Starlette(routes=[Route("/api/chat.postMessage", post, methods=["POST"])])


def _notified(recipient: str) -> dict[str, Any]:
    block = {"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*shop* live"}}]}
    note = {"recipient": recipient, "message": "shop 1.5.0 is live", "slack": block}
    return {**EVENT, "data": {**EVENT["data"], "notification": note}}


def test_a_bot_posts_the_templates_message_to_the_subscribed_channel() -> None:
    slack = FakeSlackApi(
        answers=[
            (429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "2"}),
            (200, {"ok": False, "error": "internal_error"}, {}),
        ]
    )
    with ServerThread(slack.app()) as server:
        sink = SlackSink(token=slack.token, api=f"{server.url}/api", username="promoflow")
        for _ in range(2):  # Slack's own trouble: retried
            with pytest.raises(SinkError) as transient:
                sink.send(_notified("deploys"))
            assert not transient.value.permanent
        sink.send(_notified("deploys"))
        with pytest.raises(SinkError) as missing:
            sink.send(_notified("random"))
        wrong = SlackSink(token="xoxb-revoked", api=f"{server.url}/api")
        with pytest.raises(SinkError) as refused:
            wrong.send(_notified("deploys"))
        sink.close()
        wrong.close()
    [posted] = slack.got
    assert posted["channel"] == "deploys" and posted["username"] == "promoflow"
    assert posted["text"] == "shop 1.5.0 is live"
    assert posted["blocks"][0]["text"]["text"] == "*shop* live"
    assert missing.value.permanent and "channel_not_found" in str(missing.value)
    assert refused.value.permanent and "invalid_auth" in str(refused.value)
    assert "xoxb" not in str(refused.value)


def test_disable_unfurl_asks_slack_not_to_unfurl_links_or_media() -> None:
    """``disableUnfurl``, as upstream's client sets it on ``chat.postMessage``."""
    slack = FakeSlackApi()
    with ServerThread(slack.app()) as server:
        sink = SlackSink(token=slack.token, api=f"{server.url}/api", unfurl=False)
        sink.send(_notified("deploys"))
        sink.close()
    [posted] = slack.got
    assert posted["unfurl_links"] is False and posted["unfurl_media"] is False
