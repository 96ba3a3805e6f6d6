"""Fake chat, paging and alerting APIs over real HTTP, one Starlette app with a route per
service: what notifications-engine's services call, answering as the real APIs do, their
refusals included, in the shapes their documentation gives.

=================  ==========================================  ==========================
service            request                                     answers
=================  ==========================================  ==========================
teams              ``POST /teams/{hook}`` (Office 365          ``200 1``; a card without
                   Connector)                                  text or summary ``400
                                                               Summary or Text is
                                                               required.``
teams-workflows    ``POST /powerautomate/{flow}``              ``202``; a body that is not
                                                               ``{"type": "message",
                                                               "attachments": [...]}``
                                                               ``400`` with ``error``
telegram           ``POST /bot{token}/sendMessage`` (form)     ``{"ok": true, "result"}``;
                                                               ``400 chat not found``,
                                                               ``message thread not
                                                               found``, ``401
                                                               Unauthorized``
opsgenie           ``POST /v2/alerts``, ``GenieKey``           ``202``; ``422`` with
                                                               ``errors``; ``401``
pagerdutyv2        ``POST /v2/enqueue``                        ``202``; ``400 invalid
                                                               event`` with ``errors``
googlechat         ``POST /v1/spaces/{space}/messages``        ``200`` the message;
                   (``key``, ``token``, ``threadKey``)         ``400 INVALID_ARGUMENT``,
                                                               ``401 UNAUTHENTICATED``
mattermost         ``POST /api/v4/posts``, Bearer              ``201`` the post; ``400``,
                                                               ``401``, ``403``
grafana            ``POST /api/annotations``, Bearer           ``200 Annotation added``;
                                                               ``401 invalid API key``
alertmanager       ``POST /api/v2/alerts`` (a list)            ``200``; ``400`` and a
                                                               JSON string
pushover           ``POST /1/messages.json`` (form)            ``{"status": 1}``; ``400``
                                                               with ``errors``
webex              ``POST /v1/messages``, Bearer               ``200`` the message;
                                                               ``401``, ``404``
=================  ==========================================  ==========================

Each service's credential is one of :class:`Accounts`; what each took is in
:attr:`FakeServices.got` (service → list of (headers, body, query)). :meth:`fail_next`
makes a service answer as its outage or its rate limit does, whatever it is asked.
"""

from __future__ import annotations

import itertools
import json
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.fakes.served import Served

Json = dict[str, Any]


@dataclass
class Accounts:
    """What each fake service accepts."""

    telegram_token: str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
    telegram_chats: dict[str, tuple[int, ...]] = field(
        default_factory=lambda: {"-1001234567890": (2,), "@argocd_deploys": ()}
    )
    """Chat (id or @username) → its topics (thread ids)."""
    opsgenie_keys: tuple[str, ...] = ("eb243592-faa2-4ba2-a551q-1afdf565c889",)
    pagerduty_keys: tuple[str, ...] = ("R015U6ZNZ0DIA1NWDNPDZD4Z4CEE5VLV",)
    googlechat_spaces: dict[str, tuple[str, str]] = field(
        default_factory=lambda: {"AAAA-space": ("AIzaSy-key", "tok-en")}
    )
    """Space → (key, token) its webhook URL carries."""
    mattermost_token: str = "mm-bot-token"
    mattermost_channels: tuple[str, ...] = ("4xp9fdt77pncbef59f4k1qe83o",)
    grafana_key: str = "glsa_grafana-key"
    alertmanager_bearer: str = ""
    pushover_token: str = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
    pushover_users: tuple[str, ...] = ("uQiRzpo4DXghDmr9QzzfQu27cmVRsG",)
    webex_token: str = "webex-bot-token"
    webex_rooms: tuple[str, ...] = ("Y2lzY29zcGFyazovL3VzL1JPT00vYmJjZWIxYWQ",)
    webex_people: tuple[str, ...] = ("dev@example.com",)


@dataclass
class FakeServices(Served):
    accounts: Accounts = field(default_factory=Accounts)
    got: dict[str, list[tuple[dict[str, str], Any, dict[str, str]]]] = field(default_factory=dict)
    _faults: dict[str, list[tuple[int, Any, dict[str, str]]]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def fail_next(
        self, service: str, status: int, body: Any = "", *, retry_after: int | None = None
    ) -> None:
        """The next request to ``service`` answers ``status`` with ``body``."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        self._faults.setdefault(service, []).append((status, body, headers))

    def app(self) -> Starlette:
        table = [
            ("teams", "/teams/{hook}", self._teams),
            ("teams-workflows", "/powerautomate/{flow:path}", self._workflows),
            ("telegram", "/bot{token}/sendMessage", self._telegram),
            ("opsgenie", "/v2/alerts", self._opsgenie),
            ("pagerdutyv2", "/v2/enqueue", self._pagerduty),
            ("googlechat", "/v1/spaces/{space}/messages", self._googlechat),
            ("mattermost", "/api/v4/posts", self._mattermost),
            ("grafana", "/api/annotations", self._grafana),
            ("alertmanager", "/api/v2/alerts", self._alertmanager),
            ("pushover", "/1/messages.json", self._pushover),
            ("webex", "/v1/messages", self._webex),
        ]
        return Starlette(
            routes=[Route(path, self._serve(name, h), methods=["POST"]) for name, path, h in table]
        )

    def _serve(self, service: str, handler: Any) -> Any:
        async def serve(request: Request) -> Response:
            form = request.headers.get("content-type", "").startswith(
                "application/x-www-form-urlencoded"
            )
            raw = await request.body()
            try:
                body: Any = (
                    dict(parse_qsl(raw.decode(), keep_blank_values=True))
                    if form
                    else json.loads(raw or b"null")
                )
            except ValueError:
                body = raw.decode(errors="replace")
            faults = self._faults.get(service)
            if faults:
                status, answer, headers = faults.pop(0)
                if isinstance(answer, str):
                    return PlainTextResponse(answer, status, headers=headers)
                return JSONResponse(answer, status, headers=headers)
            response: Response = handler(request, body)
            if response.status_code < 300:
                self.got.setdefault(service, []).append(
                    (dict(request.headers), body, dict(request.query_params))
                )
            return response

        return serve

    # -- Microsoft Teams ------------------------------------------------------------

    def _teams(self, request: Request, body: Any) -> Response:
        """An Office 365 Connector: ``1`` for a card it took, its error text otherwise."""
        if not isinstance(body, dict):
            return PlainTextResponse("Webhook Bad Request - Null or empty event", 400)
        said = str(body.get("text") or "").strip() or str(body.get("summary") or "").strip()
        if body.get("@type") == "MessageCard" and not said:
            return PlainTextResponse("Summary or Text is required.", 400)
        return PlainTextResponse("1")

    def _workflows(self, request: Request, body: Any) -> Response:
        """A Power Automate flow "When a Teams webhook request is received": 202 and no
        body; a body that is not a message with attachments fails its trigger's schema."""
        attachments = body.get("attachments") if isinstance(body, dict) else None
        if not isinstance(body, dict) or body.get("type") != "message" or not attachments:
            error = {"code": "TriggerInputSchemaMismatch",
                     "message": "The input body for trigger 'manual' of type 'Request' did not "
                                "match its schema definition."}  # fmt: skip
            return JSONResponse({"error": error}, 400)
        for attachment in attachments:
            card = attachment.get("content") or {}
            if attachment.get("contentType") != "application/vnd.microsoft.card.adaptive" or (
                card.get("type") != "AdaptiveCard"
            ):
                return JSONResponse(
                    {"error": {"code": "InvalidAttachment", "message": "not an Adaptive Card"}},
                    400,
                )
        return Response(status_code=202)

    # -- Telegram ---------------------------------------------------------------------

    def _telegram(self, request: Request, body: Any) -> Response:
        """The Bot API: ``ok`` and the sent Message, or ``ok: false``, ``error_code`` and a
        ``description`` (core.telegram.org/bots/api, "Making requests")."""

        def refused(code: int, description: str) -> Response:
            return JSONResponse({"ok": False, "error_code": code, "description": description}, code)

        if request.path_params["token"] != self.accounts.telegram_token:
            return refused(401, "Unauthorized")
        chat = str(body.get("chat_id", ""))
        if not body.get("text"):
            return refused(400, "Bad Request: message text is empty")
        if chat not in self.accounts.telegram_chats:
            return refused(400, "Bad Request: chat not found")
        thread = body.get("message_thread_id")
        if thread is not None and int(thread) not in self.accounts.telegram_chats[chat]:
            return refused(400, "Bad Request: message thread not found")
        if body.get("parse_mode") not in (None, "Markdown", "MarkdownV2", "HTML"):
            return refused(400, "Bad Request: unsupported parse_mode")
        message = {
            "message_id": next(self._ids),
            "date": 1732442400,
            "chat": {"id": int(chat)} if chat.startswith("-") else {"username": chat[1:]},
            "text": body["text"],
        }
        return JSONResponse({"ok": True, "result": message})

    # -- Opsgenie ---------------------------------------------------------------------

    def _opsgenie(self, request: Request, body: Any) -> Response:
        """Alert API "Create Alert" (docs.opsgenie.com): 202 and a request id; 422 with
        ``errors`` by field; 401 for a key it does not know."""
        took = {"took": 0.002, "requestId": str(uuid.uuid4())}
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        if scheme != "GenieKey" or key not in self.accounts.opsgenie_keys:
            return JSONResponse({"message": "Could not authenticate", **took}, 401)
        errors = {}
        if not str(body.get("message") or "").strip():
            errors["message"] = "Message can not be empty."
        elif len(body["message"]) > 130:
            errors["message"] = "Message can not be longer than 130 characters."
        if body.get("priority") not in (None, "P1", "P2", "P3", "P4", "P5"):
            errors["priority"] = "Priority should be one of [P1, P2, P3, P4, P5]"
        for responder in body.get("responders", []):
            if responder.get("type") not in ("team", "user", "escalation", "schedule"):
                errors["responders"] = "Responder type is not valid."
        if errors:
            return JSONResponse(
                {"message": "Request body is not processable. Please check the errors.",
                 "errors": errors, **took}, 422,
            )  # fmt: skip
        return JSONResponse({"result": "Request will be processed", **took}, 202)

    # -- PagerDuty --------------------------------------------------------------------

    def _pagerduty(self, request: Request, body: Any) -> Response:
        """Events API v2 ``/v2/enqueue`` (developer.pagerduty.com): 202 ``success``; 400
        ``invalid event`` with ``errors``."""
        errors = []
        if body.get("routing_key") not in self.accounts.pagerduty_keys:
            errors.append("'routing_key' is invalid")
        if body.get("event_action") not in ("trigger", "acknowledge", "resolve"):
            errors.append(
                "'event_action' is invalid (must be one of: trigger, acknowledge, resolve)"
            )
        payload = body.get("payload") or {}
        for key in ("summary", "source", "severity"):
            if not payload.get(key):
                errors.append(f"'payload.{key}' is missing or blank")
        if payload.get("severity") and payload["severity"] not in (
            "critical", "error", "warning", "info"
        ):  # fmt: skip
            errors.append(
                "'payload.severity' is invalid (must be one of: critical, error, warning, info)"
            )
        if errors:
            return JSONResponse(
                {"status": "invalid event", "message": "Event object is invalid",
                 "errors": errors}, 400,
            )  # fmt: skip
        dedup = body.get("dedup_key") or uuid.uuid4().hex
        return JSONResponse(
            {"status": "success", "message": "Event processed", "dedup_key": dedup}, 202
        )

    # -- Google Chat ------------------------------------------------------------------

    def _googlechat(self, request: Request, body: Any) -> Response:
        """An incoming webhook (developers.google.com/workspace/chat): the created Message;
        errors in Google's ``{"error": {"code", "message", "status"}}``."""

        def refused(code: int, status: str, message: str) -> Response:
            return JSONResponse(
                {"error": {"code": code, "message": message, "status": status}}, code
            )

        space = request.path_params["space"]
        query = request.query_params
        wanted = self.accounts.googlechat_spaces.get(space)
        if wanted is None or (query.get("key"), query.get("token")) != wanted:
            return refused(
                401, "UNAUTHENTICATED",
                "Request had invalid authentication credentials.",
            )  # fmt: skip
        if not body.get("text") and not body.get("cards") and not body.get("cardsV2"):
            return refused(400, "INVALID_ARGUMENT", "Message cannot be empty.")
        for card in body.get("cardsV2") or []:
            if not card.get("cardId") or not isinstance(card.get("card"), dict):
                return refused(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
        option = query.get("messageReplyOption")
        if option is not None and option not in (
            "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD", "REPLY_MESSAGE_OR_FAIL"
        ):  # fmt: skip
            return refused(400, "INVALID_ARGUMENT", "Invalid value at 'message_reply_option'")
        thread = query.get("threadKey") or uuid.uuid4().hex
        name = f"spaces/{space}/messages/{next(self._ids)}"
        return JSONResponse(
            {"name": name, "text": body.get("text", ""),
             "thread": {"name": f"spaces/{space}/threads/{thread}", "threadKey": thread},
             "space": {"name": f"spaces/{space}", "type": "ROOM"}}
        )  # fmt: skip

    # -- Mattermost -------------------------------------------------------------------

    def _mattermost(self, request: Request, body: Any) -> Response:
        """API v4 "Create a post" (api.mattermost.com): 201 and the post; its AppError
        ``{"id", "message", "detailed_error", "request_id", "status_code"}`` otherwise."""

        def refused(code: int, error_id: str, message: str) -> Response:
            error = {"id": error_id, "message": message, "detailed_error": "",
                     "request_id": uuid.uuid4().hex[:26], "status_code": code}  # fmt: skip
            return JSONResponse(error, code)

        if request.headers.get("authorization") != f"Bearer {self.accounts.mattermost_token}":
            return refused(
                401, "api.context.session_expired.app_error",
                "Invalid or expired session, please login again.",
            )  # fmt: skip
        channel = str(body.get("channel_id") or "")
        if len(channel) != 26:
            return refused(
                400, "api.context.invalid_body_param.app_error",
                "Invalid or missing channel_id in request body.",
            )  # fmt: skip
        if channel not in self.accounts.mattermost_channels:
            return refused(
                403, "api.context.permissions.app_error",
                "You do not have the appropriate permissions.",
            )  # fmt: skip
        attachments = (body.get("props") or {}).get("attachments", [])
        if not isinstance(attachments, list):
            return refused(400, "api.post.create_post.attachments.app_error",
                           "Invalid attachments.")  # fmt: skip
        post = {"id": uuid.uuid4().hex[:26], "channel_id": channel,
                "message": body.get("message", ""), "props": body.get("props") or {}}  # fmt: skip
        return JSONResponse(post, 201)

    # -- Grafana ----------------------------------------------------------------------

    def _grafana(self, request: Request, body: Any) -> Response:
        """HTTP API "Create Annotation" (grafana.com/docs): 200 ``Annotation added``."""
        if request.headers.get("authorization") != f"Bearer {self.accounts.grafana_key}":
            return JSONResponse({"message": "invalid API key"}, 401)
        if not isinstance(body, dict) or not isinstance(body.get("time"), int):
            return JSONResponse({"message": "bad request data"}, 400)
        if not body.get("text"):
            return JSONResponse({"message": "Failed to save annotation: text is empty"}, 400)
        return JSONResponse({"message": "Annotation added", "id": next(self._ids)})

    # -- Alertmanager -----------------------------------------------------------------

    def _alertmanager(self, request: Request, body: Any) -> Response:
        """API v2 ``postAlerts`` (alertmanager's openapi): 200 and no body; a 400's body
        is a JSON string, as go-swagger writes it."""
        wanted = self.accounts.alertmanager_bearer
        if wanted and request.headers.get("authorization") != f"Bearer {wanted}":
            return PlainTextResponse("Unauthorized", 401)
        if not isinstance(body, list):
            return JSONResponse("body: expected a list of alerts", 400)
        for alert in body:
            if not alert.get("labels"):
                return JSONResponse("labels: at least one label pair required", 400)
            if alert.get("generatorURL") and not str(alert["generatorURL"]).startswith(
                ("http://", "https://")
            ):
                return JSONResponse("generatorURL in body must be of type uri", 400)
        return Response(status_code=200)

    # -- Pushover ---------------------------------------------------------------------

    def _pushover(self, request: Request, body: Any) -> Response:
        """Message API (pushover.net/api): ``status: 1``; a 400 with ``status: 0``, the
        field refused and ``errors``."""
        request_id = str(uuid.uuid4())
        if body.get("token") != self.accounts.pushover_token:
            return JSONResponse(
                {"token": "invalid", "errors": ["application token is invalid, see "
                 "https://pushover.net/api"], "status": 0, "request": request_id}, 400,
            )  # fmt: skip
        if body.get("user") not in self.accounts.pushover_users:
            return JSONResponse(
                {"user": "invalid", "errors": ["user identifier is not a valid user, group, "
                 "or subscribed user key, see https://pushover.net/api#identifiers"],
                 "status": 0, "request": request_id}, 400,
            )  # fmt: skip
        if not body.get("message"):
            return JSONResponse(
                {"message": "cannot be blank", "errors": ["message cannot be blank"],
                 "status": 0, "request": request_id}, 400,
            )  # fmt: skip
        return JSONResponse({"status": 1, "request": request_id})

    # -- Webex ------------------------------------------------------------------------

    def _webex(self, request: Request, body: Any) -> Response:
        """Messages API "Create a Message" (developer.webex.com): 200 and the message;
        errors ``{"message", "errors": [{"description"}], "trackingId"}``."""

        def refused(code: int, message: str) -> Response:
            return JSONResponse(
                {"message": message, "errors": [{"description": message}],
                 "trackingId": f"ROUTER_{uuid.uuid4()}"}, code,
            )  # fmt: skip

        if request.headers.get("authorization") != f"Bearer {self.accounts.webex_token}":
            return refused(
                401, "The request requires a valid access token set in the Authorization "
                "request header.",
            )  # fmt: skip
        room, person = body.get("roomId"), body.get("toPersonEmail")
        if room is not None and room not in self.accounts.webex_rooms:
            return refused(404, "Could not find a room with provided ID.")
        if person is not None and person not in self.accounts.webex_people:
            return refused(404, "Could not find a person with provided email.")
        if room is None and person is None:
            return refused(400, "Either roomId, toPersonId or toPersonEmail must be specified.")
        message = {
            "id": uuid.uuid4().hex, "roomId": room or "direct", "roomType": "group",
            "markdown": body.get("markdown", ""), "personEmail": "bot@webex.bot",
        }  # fmt: skip
        return JSONResponse(message)
