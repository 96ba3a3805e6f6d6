"""The services' sinks against notifications-engine itself: for each vector
(``tests/vectors/notify_services``), the requests the upstream service's Send made for a
notification are what the sink sends for the same notification, request for request:
method, path, query, content type, authorization and body.

What differs by design is left out and said here: the time in Grafana's ``time`` and
Alertmanager's ``startsAt`` (upstream takes it at its render), Google Chat's random
``cardId``, Telegram's empty fields its Go client adds to every form
(``business_connection_id``, ``entities=null``, ``link_preview_options={}``,
``reply_parameters={"message_id":0}``: the Bot API ignores them), a content type's
``charset``, and Alertmanager's ``alertname`` label, which upstream's render (not its Send)
adds and the sink adds itself. A mail is compared by its envelope (sender, recipients),
its ``From``, ``To`` and ``Subject``, its content type and its decoded text, not by the
bytes its client chose (``Date``, ``Message-ID``, the transfer encoding, a last newline).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from email import message_from_string, policy
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from orchestrator.simulator.serve import free_port
from reporters import services
from reporters.services import Options
from reporters.sinks.delivery import SinkError
from reporters.sinks.pagerdutyv2 import PagerDutySink
from reporters.sinks.pushover import PushoverSink
from reporters.sinks.telegram import TelegramSink
from tests.fakes.notify_services import Accounts, FakeServices
from tests.fakes.served import Served

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "notify_services" / "vectors.jsonl"
VECTORS_READ = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
CASES = [v for v in VECTORS_READ if not v.get("error")]
"""What upstream sent."""
REFUSED = [v for v in VECTORS_READ if v.get("error")]
"""What upstream's Send refused, sending nothing."""
TELEGRAM_EMPTIES = {
    "business_connection_id": "",
    "entities": "null",
    "link_preview_options": "{}",
    "reply_parameters": '{"message_id":0}',
}


@dataclass
class Capture(Served):
    """Takes every request and answers as the service does on success."""

    got: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> Starlette:
        async def take(request: Request) -> Response:
            raw = await request.body()
            kind = request.headers.get("content-type", "")
            body: Any
            if kind.startswith("application/x-www-form-urlencoded"):
                body = dict(parse_qsl(raw.decode(), keep_blank_values=True))
            else:
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode()
            path = request.url.path
            self.got.append({
                "method": request.method, "path": path, "query": request.url.query,
                "content_type": kind, "authorization": request.headers.get("authorization", ""),
                "body": body,
            })  # fmt: skip
            return _answer(path)

        return Starlette(routes=[Route("/{path:path}", take, methods=["POST"])])


def _answer(path: str) -> Response:
    if path.startswith("/teams/"):
        return PlainTextResponse("1")
    if "/powerautomate/" in path:
        return Response(status_code=202)
    if path.endswith("/sendMessage"):
        return JSONResponse({"ok": True, "result": {"message_id": 1}})
    if path == "/v2/alerts":
        return JSONResponse({"result": "Request will be processed"}, 202)
    if path == "/v2/enqueue":
        return JSONResponse({"status": "success", "message": "Event processed"}, 202)
    if path == "/api/v4/posts":
        return JSONResponse({"id": "p"}, 201)
    if path == "/1/messages.json":
        return JSONResponse({"status": 1, "request": "r"})
    return JSONResponse({})


@dataclass
class SmtpCapture:
    """An SMTP server on loopback taking every mail, without TLS or a login, as the Go
    program's does."""

    port: int = field(default_factory=free_port)
    got: list[dict[str, Any]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        data = (envelope.original_content or b"").decode()
        mail = {"mail_from": envelope.mail_from, "rcpt_to": list(envelope.rcpt_tos)}
        self.got.append({"method": "SMTP", "path": "", "query": "", "content_type": "",
                         "authorization": "", "body": {**mail, "data": data}})  # fmt: skip
        return "250 2.0.0 Ok: queued"


def _mail(body: dict[str, Any]) -> dict[str, Any]:
    message = message_from_string(body["data"], policy=policy.default)
    assert isinstance(message, EmailMessage)
    return {
        "mail_from": body["mail_from"],
        "rcpt_to": body["rcpt_to"],
        "from": str(message["From"]),
        "to": [address for _, address in getaddresses([str(message["To"])])],
        "subject": str(message["Subject"]),
        "type": message.get_content_type(),
        "text": message.get_content().replace("\r\n", "\n").rstrip("\n"),
    }


def _options(case: dict[str, Any], url: str) -> str:
    text = json.dumps(case["options"])
    text = text.replace('"SMTPPORT"', url.rpartition(":")[2])
    return text.replace("BASE", url).replace("HOSTPORT", url.removeprefix("http://"))


def _sink(case: dict[str, Any], url: str) -> Any:
    kind = services.kinds()[case["service"]]
    options: Options = kind.options.model_validate(json.loads(_options(case, url)))
    given = case["options"]  # the services with a fixed endpoint are pointed at the capture
    if case["service"] == "telegram":
        return TelegramSink(given["token"], api=url)
    if case["service"] == "pagerdutyv2":
        return PagerDutySink(given["serviceKeys"], api=url)
    if case["service"] == "pushover":
        return PushoverSink(given["token"], api=url)
    return kind.build(case["service"], options)


def _event(case: dict[str, Any]) -> dict[str, Any]:
    upstream = case["notification"]
    note = {"recipient": case["recipient"], "message": upstream.get("message", ""),
            "template": "app-deployed"}  # fmt: skip
    if case["service"] in upstream:
        note[case["service"]] = upstream[case["service"]]
    return {"id": "n1", "type": "app.deployed", "data": {"notification": note}}


def _normal(service: str, request: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(request["body"])
    if service == "telegram":
        body = {k: v for k, v in body.items() if TELEGRAM_EMPTIES.get(k) != v}
    if service == "grafana":
        assert isinstance(body.pop("time"), int)
    if service == "alertmanager":
        for alert in body:
            assert alert.pop("startsAt")
    if service == "googlechat":
        for card in body.get("cardsV2") or []:
            assert len(card.pop("cardId")) == 36
    if service == "email":
        body = _mail(body)
    return {
        "method": request["method"],
        "path": request["path"],
        "query": sorted(parse_qsl(request["query"], keep_blank_values=True)),
        "content_type": request["content_type"].split(";")[0].strip(),
        "authorization": request["authorization"],
        "body": body,
    }


def test_every_service_has_vectors() -> None:
    tested = {case["in"]["service"] for case in CASES}
    assert tested == {
        "alertmanager",
        "email", "googlechat", "grafana", "mattermost", "opsgenie", "pagerdutyv2",
        "pushover", "teams", "teams-workflows", "telegram", "webex",
    }  # fmt: skip
    assert {case["in"]["service"] for case in REFUSED} >= {"telegram", "teams", "opsgenie"}


@pytest.mark.parametrize("vector", CASES, ids=[c["name"] for c in CASES])
def test_the_sink_sends_what_upstream_sends(vector: dict[str, Any]) -> None:
    case = vector["in"]
    service = case["service"]
    if service == "email":
        capture = SmtpCapture()
        controller = Controller(capture, hostname="127.0.0.1", port=capture.port)
        controller.start()
        try:
            sink = _sink(case, f"http://127.0.0.1:{capture.port}")
            sink.send(_event(case))
        finally:
            controller.stop()
    else:
        with Capture() as capture:
            sink = _sink(case, capture.url)
            sink.send(_event(case))
            sink.close()
    ours = [_normal(service, r) for r in capture.got]
    theirs = [_normal(service, r) for r in vector["requests"]]
    assert len(theirs) == 1
    assert ours == theirs


@pytest.mark.parametrize("vector", REFUSED, ids=[c["name"] for c in REFUSED])
def test_the_sink_refuses_what_upstream_refuses(vector: dict[str, Any]) -> None:
    """Refused for good (no retry can change it), and nothing sent."""
    case = vector["in"]
    assert vector["requests"] == []
    with Capture() as capture:
        sink = _sink(case, capture.url)
        with pytest.raises(SinkError) as caught:
            sink.send(_event(case))
        sink.close()
    assert caught.value.permanent and capture.got == []


UPSTREAM_ACCOUNTS = Accounts(
    telegram_token="123:tok",
    telegram_chats={"@argocd": (), "@+100": (), "-1000000000000": (2,)},
    opsgenie_keys=("key-1",),
    pagerduty_keys=("R0",),
    googlechat_spaces={"AAA": ("k1", "t1")},
    mattermost_token="mm",
    grafana_key="glsa",
    alertmanager_bearer="bt",
    pushover_token="avtc41pn13asmra6zaiyf7dh6cgx97",
    pushover_users=("uumy8u4owy7bgkapp6mc5mvhfsvpcd",),
    webex_token="wt",
    webex_rooms=("Y2lzY29zcGFyazovL3Vz",),
)
"""The fakes' accounts as the vectors' inputs name them."""
DEFAULT_PATHS = [
    c
    for c in CASES
    if c["in"]["service"] != "email"
    and c["requests"][0]["path"] not in ("/annotations", "/api/events")
]
"""The fakes serve each API at its default path (two vectors ask for another one); mails
go to a real SMTP server (``test_email_sink``)."""


@pytest.mark.parametrize("vector", DEFAULT_PATHS, ids=[c["name"] for c in DEFAULT_PATHS])
def test_the_fakes_take_what_upstream_sends(vector: dict[str, Any]) -> None:
    """Each fake of :mod:`tests.fakes.notify_services` accepts the request upstream made,
    as it was made (Telegram's empty fields included): the fakes hold the sinks to the
    upstream shape, not to a shape of their own."""
    [request] = vector["requests"]
    service = vector["in"]["service"]
    with FakeServices(accounts=UPSTREAM_ACCOUNTS) as fake, httpx.Client() as client:
        headers = {"Content-Type": request["content_type"]}
        if request["authorization"]:
            headers["Authorization"] = request["authorization"]
        body = request["body"]
        url = f"{fake.url}{request['path']}" + (f"?{request['query']}" if request["query"] else "")
        if request["content_type"].startswith("application/x-www-form-urlencoded"):
            answer = client.post(url, data=body, headers=headers)
        else:
            answer = client.post(url, content=json.dumps(body).encode(), headers=headers)
    assert answer.status_code < 300, answer.text
    assert len(fake.got[service]) == 1
