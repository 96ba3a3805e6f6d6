"""A comment on each Jira issue an event names, and a transition when its notification asks
for one, through the ``jira`` library.

The issues: those enrichment found (``data.issues``) and the keys named in the commits'
messages (the commits are there even when looking the issues up failed), or, when the
notification's recipient is an issue key, that issue alone. Without a notification the sink
comments on deployments, failed syncs and ended promotions; with one, it writes the
notification's ``jira.comment`` (else its ``message``) and performs its ``jira.transition``.

Delivery is at least once: a send that failed half way (one issue commented, the next one
refused) is made again in full. So every comment ends with a line naming the event,
``promoflow event <id>``, and an issue whose comments already hold that line is not
commented on again. A transition is looked up by name (any case) among those the issue's
status offers now, and left alone when there is none (done already, or not in that
workflow) or when it leads to the status the issue is in (a global transition).

What Jira answers: 404 for an issue that does not exist or that the user may not see (that
issue is skipped); 401 for credentials it does not accept and 403 for those without the
permission, or after too many failed logins (retrying cannot help: dead letters at once);
429 when it rate-limits, with ``Retry-After``, and 5xx when it or its proxy is down
(retried, as network failures are); 400 for a request it refuses, a transition whose screen
needs fields for one (dead letters, once the other issues are done).
"""

from __future__ import annotations

from typing import Any

import requests

from orchestrator.adapters import neterrors
from orchestrator.steps.message import jira_keys
from orchestrator.urls import scrub
from reporters.enrich.jira import connect
from reporters.sinks.delivery import SinkError

ACTED_ON = ("app.deployed", "app.sync-failed", "promotion.succeeded", "promotion.failed")
"""What the sink comments on when the event carries no notification."""
MARKER = "promoflow event {id}"
MAX_SAID = 160
"""The most of Jira's own words a reason quotes."""


def issue_keys(data: dict[str, Any]) -> list[str]:
    """The issues enrichment found, then the keys the commits' messages name, each once."""
    found = [
        str(issue["key"])
        for issue in data.get("issues") or []
        if isinstance(issue, dict) and issue.get("key")
    ]
    messages = [
        str(commit.get("message") or "")
        for source in data.get("commits") or []
        if isinstance(source, dict)
        for commit in source.get("commits") or []
        if isinstance(commit, dict)
    ]
    return list(dict.fromkeys([*found, *jira_keys(messages)]))


def comment_text(event: dict[str, Any]) -> str:
    """The comment on an event without a notification: what happened, where, at what."""
    data = event.get("data") or {}
    kind = str(event.get("type", ""))
    what = " ".join(str(data[k]) for k in ("product", "version") if data.get(k))
    name = str(data.get("app") or event.get("subject") or "").rpartition("/")[2]
    environment = str(data.get("environment") or "")
    where = f"{environment} ({name})" if environment and name else environment or name
    revision = str(data.get("revision") or "")[:12]
    at = f" at {revision}" if revision else ""
    message = str(data.get("message") or "").strip()
    if kind == "app.deployed":
        text = f"Deployed {what} to {where}{at}" if what else f"Deployed to {where}{at}"
    elif kind == "app.sync-failed":
        text = f"Sync of {what + ' in ' if what else ''}{where}{at} failed"
        text += f": {message}" if message else ""
    else:
        outcome = "succeeded" if kind == "promotion.succeeded" else "failed"
        text = f"Promotion of {what or name} {outcome}"
        text += f": {message}" if message and outcome == "failed" else ""
        for failure in data.get("failures") or []:
            if isinstance(failure, dict):
                text += f"\n- {failure.get('step', '')}: {failure.get('message', '')}"
    if data.get("link"):
        text += f"\n{data['link']}"
    return text


def _issue_key(recipient: str) -> str:
    recipient = recipient.strip()
    return recipient if recipient and jira_keys([recipient]) == [recipient] else ""


def _said(text: object) -> str:
    """The first line of what Jira said, without the pages a proxy answers with."""
    line = next((x.strip() for x in str(text or "").splitlines() if x.strip()), "")
    if line.startswith("<"):
        return ""
    return line[: MAX_SAID - 1] + "…" if len(line) > MAX_SAID else line


class JiraSink:
    page_size = 50
    """Comments are read this many at a time, fewer than Jira's own limit on a page, so a
    shorter page is the last."""

    def __init__(
        self,
        server: str,
        *,
        user: str = "",
        token: str = "",
        name: str = "jira",
        timeout: float = 10,
    ) -> None:
        self.server = server.rstrip("/")
        self.name = name
        self.timeout = timeout
        self._auth = (user, token)
        self._client: Any = None

    def send(self, event: dict[str, Any]) -> None:
        data = event.get("data") or {}
        notification = data.get("notification")
        if isinstance(notification, dict):
            asked = notification.get("jira")
            asked = asked if isinstance(asked, dict) else {}
            comment = str(asked.get("comment") or notification.get("message") or "").strip()
            transition = str(asked.get("transition") or "").strip()
            only = _issue_key(str(notification.get("recipient") or ""))
            keys = [only] if only else issue_keys(data)
        elif event.get("type") in ACTED_ON:
            comment, transition, keys = comment_text(event), "", issue_keys(data)
        else:
            return
        if not keys or not (comment or transition):
            return
        event_id = str(event.get("id") or "")
        if not event_id:
            raise SinkError("the event has no id to mark its Jira comments with", permanent=True)
        marker = MARKER.format(id=event_id)
        body = f"{comment}\n\n{marker}" if comment else ""
        try:
            jira = self._jira()
        except _failures() as exc:
            raise self._failure(exc, "") from None
        refused: list[str] = []
        for key in keys:
            try:
                self._act(jira, key, body, marker, transition)
            except _failures() as exc:
                status = _status(exc)
                if status == 404:
                    continue  # no such issue, or one the user may not see
                error = self._failure(exc, key)
                if not error.permanent or status in (401, 403):
                    raise error from None
                refused.append(str(error))  # the other issues are still worth doing
        if refused:
            raise SinkError("; ".join(refused), permanent=True)

    def _act(self, jira: Any, key: str, body: str, marker: str, transition: str) -> None:
        if body and not self._commented(jira, key, marker):
            jira.add_comment(key, body)
        if transition:
            self._transition(jira, key, transition)

    def _commented(self, jira: Any, key: str, marker: str) -> bool:
        """Whether one of the issue's comments holds the event's marker line (newest
        first: a retry finds its own comment on the first page)."""
        start = 0
        while True:
            page = jira.comments(
                key, start_at=start, max_results=self.page_size, order_by="-created"
            )
            for comment in page:
                lines = str(getattr(comment, "body", "") or "").splitlines()
                if any(line.strip() == marker for line in lines):
                    return True
            if len(page) < self.page_size:
                return False
            start += len(page)

    def _transition(self, jira: Any, key: str, name: str) -> None:
        wanted = name.casefold()
        offered = [t for t in jira.transitions(key) if str(t.get("name", "")).casefold() == wanted]
        if not offered:
            return  # not from the issue's status: done already, or not in its workflow
        found = offered[0]
        status = getattr(jira.issue(key, fields="status").fields, "status", None)
        if _same_status(found.get("to") or {}, status):
            return  # a global transition to the status the issue is in already
        jira.transition_issue(key, str(found["id"]))

    def _failure(self, exc: Exception, key: str) -> SinkError:
        """What a failed request means for the event, in one line without credentials."""
        where = f" for {key}" if key else ""
        status = _status(exc)
        if isinstance(exc, ValueError):
            error = SinkError(f"Jira at {self.server} answered{where} with something not JSON")
        elif isinstance(exc, requests.RequestException):
            error = SinkError(f"cannot reach Jira at {self.server}: {type(exc).__name__}")
        else:
            said = _said(getattr(exc, "text", ""))
            tail = f": {said}" if said else ""
            if status == 401:
                error = SinkError(
                    f"Jira did not accept the credentials (401){tail}", permanent=True
                )
            elif status == 403:
                error = SinkError(
                    f"Jira refused the credentials{where} (403: no permission, or a CAPTCHA "
                    f"after failed logins){tail}",
                    permanent=True,
                )
            elif status == 429:
                error = SinkError(
                    f"Jira is rate limiting (429){where}",
                    retry_after=neterrors.retry_after(
                        getattr(getattr(exc, "response", None), "headers", None)
                    ),
                )
            elif status is None or status >= 500 or status == 408:
                error = SinkError(f"Jira answered {status or 'an error'}{where}{tail}")
            else:
                error = SinkError(f"Jira answered {status}{where}{tail}", permanent=True)
        reason = scrub(str(error), [self._auth[1]])
        if reason != str(error):
            error = SinkError(reason, retry_after=error.retry_after, permanent=error.permanent)
        return error

    def _jira(self) -> Any:
        if self._client is None:
            user, token = self._auth
            self._client = connect(self.server, user=user, token=token, timeout=self.timeout)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _failures() -> tuple[type[Exception], ...]:
    """What a request through the ``jira`` library raises when it fails: ``JIRAError`` for
    an answer that is not a success, the network's exceptions, ``ValueError`` for an
    answer that is not JSON."""
    from jira.exceptions import JIRAError

    return (JIRAError, requests.RequestException, ValueError)


def _status(exc: Exception) -> int | None:
    from jira.exceptions import JIRAError

    status = exc.status_code if isinstance(exc, JIRAError) else None
    return status if isinstance(status, int) else None


def _same_status(to: dict[str, Any], status: Any) -> bool:
    if to.get("id") is not None and getattr(status, "id", None) is not None:
        return str(to["id"]) == str(status.id)
    name = str(to.get("name") or "")
    return bool(name) and name.casefold() == str(getattr(status, "name", "")).casefold()
