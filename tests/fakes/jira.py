"""A fake Jira Server over real HTTP, its issues, comments and statuses kept in memory: the
REST API v2 resources the ``jira`` library (3.x) calls to read an issue, comment on it and
move it through its workflow, in the paths and shapes developer.atlassian.com documents for
Jira Server, nothing else.

- ``GET /rest/api/2/serverInfo``: asked by ``JIRA()`` when it is created; anonymous.
- ``GET /rest/api/2/issue/{key}`` (``fields=``): ``JIRA.issue``.
- ``GET /rest/api/2/issue/{key}/comment`` (``startAt``, ``maxResults``, ``orderBy``):
  ``JIRA.comments``, a page ``{"startAt", "maxResults", "total", "comments"}``; without
  ``maxResults`` every comment. ``POST`` (``{"body": ...}``): ``JIRA.add_comment``, 201 with
  the comment; an empty body 400.
- ``GET /rest/api/2/issue/{key}/transitions``: ``JIRA.transitions``, those the issue's
  current status offers; ``POST`` (``{"transition": {"id": ...}}``, ``id`` a string or a
  number, as the library sends it): ``JIRA.transition_issue``, 204 and the new status; a
  transition the status does not offer 400.

Errors answer ``{"errorMessages": [...], "errors": {...}}``: 404 ``Issue Does Not Exist``
for a key it does not know. Given credentials (``user``/``password`` for basic auth,
``token`` for a personal access token), it answers 401 to any others, with
``X-Seraph-LoginReason: AUTHENTICATED_FAILED`` as Jira does, and 401 "Login Required" to an
anonymous request for an issue. Tests make it fail as Jira or its proxy does: ``down``
(503 to everything), :meth:`FakeJira.throttle` (429 with ``Retry-After``, as Jira's rate
limiting answers) and :meth:`FakeJira.fail` (one request, a given number of times).
"""

from __future__ import annotations

import base64
import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.fakes.served import Served

Json = dict[str, Any]
API = "/rest/api/2"

STATUSES: dict[str, tuple[str, Json]] = {
    "To Do": ("10000", {"id": 2, "key": "new", "colorName": "blue-gray", "name": "To Do"}),
    "In Progress": (
        "3",
        {"id": 4, "key": "indeterminate", "colorName": "yellow", "name": "In Progress"},
    ),
    "Done": ("10001", {"id": 3, "key": "done", "colorName": "green", "name": "Done"}),
}
"""Each status's id and category, as Jira Software's default workflow has them."""

WORKFLOW: dict[str, list[tuple[str, str, str]]] = {
    "To Do": [("21", "In Progress", "In Progress"), ("31", "Done", "Done")],
    "In Progress": [("11", "To Do", "To Do"), ("31", "Done", "Done")],
    "Done": [("41", "Reopen", "To Do")],
}
"""The transitions each status offers: (id, name, to status)."""


def _now() -> str:
    """Jira's timestamp format: ``2026-11-24T10:00:00.000+0000``."""
    at = datetime.now(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}+0000"


@dataclass
class FakeIssue:
    key: str
    id: str
    summary: str
    status: str
    assignee: str = ""
    comments: list[Json] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)
    """The names of the transitions performed, in order."""

    @property
    def bodies(self) -> list[str]:
        return [str(c["body"]) for c in self.comments]


@dataclass
class _Fault:
    method: str
    path: str
    status: int
    times: int
    retry_after: int | None


class _Refused(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _error(status: int, *messages: str, errors: Json | None = None) -> _Refused:
    body = {"errorMessages": list(messages), "errors": errors or {}}
    return _Refused(JSONResponse(body, status_code=status))


@dataclass
class FakeJira(Served):
    """``with FakeJira(user="bot", password="s3cret") as jira: JIRA(jira.url, ...)``."""

    user: str = ""
    password: str = ""
    token: str = ""
    issues: dict[str, FakeIssue] = field(default_factory=dict)
    workflow: dict[str, list[tuple[str, str, str]]] = field(default_factory=lambda: WORKFLOW)
    down: bool = False
    """Answer 503 to everything, as the proxy in front of a Jira that is down does."""
    page_cap: int | None = None
    """The most comments a page holds whatever ``maxResults`` asks (``None``: no cap)."""
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    """(method, path, status) of every request, in order."""
    _faults: list[_Fault] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(10100))

    # -- what tests set up ---------------------------------------------------------------

    def add_issue(
        self, key: str, summary: str = "", *, status: str = "To Do", assignee: str = ""
    ) -> FakeIssue:
        issue = FakeIssue(key, str(next(self._ids)), summary or f"Issue {key}", status, assignee)
        self.issues[key] = issue
        return issue

    def fail(
        self,
        method: str = "*",
        path: str = "*",
        status: int = 503,
        *,
        times: int = 1,
        retry_after: int | None = None,
    ) -> None:
        """The next ``times`` requests of ``method`` on ``path`` (``*``: any) answer
        ``status``."""
        self._faults.append(_Fault(method, path, status, times, retry_after))

    def throttle(self, retry_after: int, *, times: int = 1) -> None:
        """Jira's rate limiting: the next ``times`` requests answer 429 ``Retry-After``."""
        self.fail(status=429, times=times, retry_after=retry_after)

    # -- serving -------------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route(f"{API}/serverInfo", self._handle, methods=["GET"]),
                Route(f"{API}/issue/{{key}}", self._handle, methods=["GET"]),
                Route(f"{API}/issue/{{key}}/comment", self._handle, methods=["GET", "POST"]),
                Route(f"{API}/issue/{{key}}/transitions", self._handle, methods=["GET", "POST"]),
            ]
        )

    async def _handle(self, request: Request) -> Response:
        try:
            self._fault(request)
            who = self._authenticate(request)
            body: Json = {}
            if request.method == "POST":
                try:
                    body = await request.json()
                except ValueError:
                    raise _error(400, "Unexpected character: the body is not JSON") from None
            response = self._dispatch(request, who, body)
        except _Refused as exc:
            response = exc.response
        self.requests.append((request.method, request.url.path, response.status_code))
        return response

    def _fault(self, request: Request) -> None:
        if self.down:
            raise _Refused(_unavailable())
        for fault in self._faults:
            if fault.method in ("*", request.method) and fault.path in ("*", request.url.path):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                if fault.status == 503:
                    raise _Refused(_unavailable())
                if fault.status == 429:
                    raise _Refused(_throttled(fault.retry_after))
                raise _error(fault.status, HTTPStatus(fault.status).phrase)

    def _authenticate(self, request: Request) -> str | None:
        """The user the request is made as (``None``: anonymous)."""
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if not (self.user or self.token):
            return "promoflow-bot" if value else None  # it takes anyone
        if scheme.lower() == "basic" and self.user:
            try:
                given = base64.b64decode(value).decode()
            except ValueError:
                given = ""
            if given == f"{self.user}:{self.password}":
                return self.user
        elif scheme.lower() == "bearer" and self.token and value == self.token:
            return "promoflow-bot"
        if value:
            raise _Refused(
                PlainTextResponse(
                    "Basic Authentication Failure - Reason : AUTHENTICATED_FAILED",
                    status_code=401,
                    headers={
                        "X-Seraph-LoginReason": "AUTHENTICATED_FAILED",
                        "WWW-Authenticate": 'OAuth realm="jira"',
                    },
                )
            )
        return None

    def _dispatch(self, request: Request, who: str | None, body: Json) -> Response:
        base = str(request.base_url).rstrip("/")
        path = request.url.path
        if path == f"{API}/serverInfo":
            return JSONResponse(
                {
                    "baseUrl": base,
                    "version": "9.12.2",
                    "versionNumbers": [9, 12, 2],
                    "deploymentType": "Server",
                    "buildNumber": 9120002,
                    "buildDate": "2024-02-20T00:00:00.000+0000",
                    "serverTime": _now(),
                    "scmInfo": "f4b9d1e2a3c5b6d7e8f9a0b1c2d3e4f5a6b7c8d9",
                    "serverTitle": "Jira",
                }
            )
        if who is None and (self.user or self.token):
            raise _error(
                401, "You do not have the permission to see the specified issue.", "Login Required"
            )
        issue = self.issues.get(request.path_params["key"])
        if issue is None:
            raise _error(404, "Issue Does Not Exist")
        if path.endswith("/comment"):
            if request.method == "GET":
                return JSONResponse(self._comments(issue, request, base))
            return JSONResponse(self._comment(issue, who, body, base), status_code=201)
        if path.endswith("/transitions"):
            if request.method == "GET":
                return JSONResponse(self._transitions(issue, request, base))
            self._transition(issue, who, body, base)
            return Response(status_code=204)
        return JSONResponse(self._issue(issue, request, base))

    # -- resources -----------------------------------------------------------------------

    def _issue(self, issue: FakeIssue, request: Request, base: str) -> Json:
        wanted = set(request.query_params.get("fields", "*all").split(","))
        every = bool(wanted & {"*all", "*navigable"})
        fields: Json = {
            "summary": issue.summary,
            "status": _status(issue.status, base),
            "assignee": _user(issue.assignee, base) if issue.assignee else None,
            "comment": self._page(issue, 0, None, base),
        }
        return {
            "expand": "renderedFields,names,schema,operations,editmeta,changelog",
            "id": issue.id,
            "self": f"{base}{API}/issue/{issue.id}",
            "key": issue.key,
            "fields": {k: v for k, v in fields.items() if every or k in wanted},
        }

    def _comments(self, issue: FakeIssue, request: Request, base: str) -> Json:
        query = request.query_params
        try:
            start = int(query.get("startAt", "0"))
            size = int(query["maxResults"]) if "maxResults" in query else None
        except ValueError:
            raise _error(400, "startAt and maxResults must be numbers") from None
        order = query.get("orderBy", "created")
        if order not in ("created", "+created", "-created"):
            raise _error(400, f"Invalid orderBy value: {order}")
        return self._page(issue, start, size, base, newest_first=order == "-created")

    def _page(
        self,
        issue: FakeIssue,
        start: int,
        size: int | None,
        base: str,
        *,
        newest_first: bool = False,
    ) -> Json:
        ordered = list(reversed(issue.comments)) if newest_first else list(issue.comments)
        total = len(ordered)
        size = total if size is None else max(size, 0)
        if self.page_cap is not None:
            size = min(size, self.page_cap)
        shown = ordered[max(start, 0) : max(start, 0) + size]
        return {
            "startAt": start,
            "maxResults": size,
            "total": total,
            "comments": [self._rendered(issue, c, base) for c in shown],
        }

    def _rendered(self, issue: FakeIssue, comment: Json, base: str) -> Json:
        out: Json = {
            "self": f"{base}{API}/issue/{issue.id}/comment/{comment['id']}",
            "id": comment["id"],
        }
        if comment["author"]:
            out["author"] = _user(comment["author"], base)
        out["body"] = comment["body"]
        if comment["author"]:
            out["updateAuthor"] = _user(comment["author"], base)
        out["created"] = out["updated"] = comment["created"]
        return out

    def _comment(self, issue: FakeIssue, who: str | None, body: Json, base: str) -> Json:
        text = body.get("body")
        if not isinstance(text, str) or not text.strip():
            raise _error(400, errors={"comment": "Comment body can not be empty!"})
        comment = {"id": str(next(self._ids)), "author": who, "body": text, "created": _now()}
        issue.comments.append(comment)
        return self._rendered(issue, comment, base)

    def _transitions(self, issue: FakeIssue, request: Request, base: str) -> Json:
        only = request.query_params.get("transitionId")
        return {
            "expand": "transitions",
            "transitions": [
                {"id": tid, "name": name, "to": _status(to, base)}
                for tid, name, to in self.workflow.get(issue.status, [])
                if only is None or only == tid
            ],
        }

    def _transition(self, issue: FakeIssue, who: str | None, body: Json, base: str) -> None:
        wanted = (body.get("transition") or {}).get("id")
        if wanted is None:
            raise _error(400, "Missing 'transition' identifier")
        offered = {tid: (name, to) for tid, name, to in self.workflow.get(issue.status, [])}
        if str(wanted) not in offered:
            raise _error(400, f"Transition id '{wanted}' is not valid for this issue.")
        name, to = offered[str(wanted)]
        for change in (body.get("update") or {}).get("comment") or []:
            added = (change.get("add") or {}).get("body")
            if added:
                self._comment(issue, who, {"body": added}, base)
        issue.status = to
        issue.transitions.append(name)


def _status(name: str, base: str) -> Json:
    status_id, category = STATUSES.get(name, ("1", STATUSES["To Do"][1]))
    return {
        "self": f"{base}{API}/status/{status_id}",
        "description": "",
        "iconUrl": f"{base}/images/icons/statuses/generic.png",
        "name": name,
        "id": status_id,
        "statusCategory": {"self": f"{base}{API}/statuscategory/{category['id']}", **category},
    }


def _user(name: str, base: str) -> Json:
    """A Jira Server user: ``name`` is the login; the display name is made from it."""
    display = name if any(c.isupper() for c in name) else name.replace("-", " ").title()
    login = name.lower()
    return {
        "self": f"{base}{API}/user?username={login}",
        "name": login,
        "key": f"JIRAUSER{10000 + sum(map(ord, login))}",
        "emailAddress": f"{login}@example.com",
        "avatarUrls": {"48x48": f"{base}/secure/useravatar?avatarId=10122"},
        "displayName": display,
        "active": True,
        "timeZone": "Etc/UTC",
    }


def _unavailable() -> Response:
    return Response(
        "<html><head><title>503 Service Unavailable</title></head>"
        "<body><h1>Service Unavailable</h1></body></html>",
        status_code=503,
        media_type="text/html",
    )


def _throttled(retry_after: int | None) -> Response:
    headers = {
        "X-RateLimit-Limit": "100",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-FillRate": "10",
        "X-RateLimit-Interval-Seconds": "1",
    }
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return PlainTextResponse("Rate limit exceeded.", status_code=429, headers=headers)


def fake_jira() -> Starlette:
    """The fake with one issue, SHOP-1 "Checkout fails for gift cards", In Progress and
    assigned to Alice, anonymous access allowed: for enrichment tests."""
    jira = FakeJira()
    jira.add_issue(
        "SHOP-1", "Checkout fails for gift cards", status="In Progress", assignee="Alice"
    )
    return jira.app()
