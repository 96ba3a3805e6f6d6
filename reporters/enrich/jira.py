"""Jira issues named in commit messages and trailers: summary, status, assignee, link,
through the ``jira`` library, cached with a TTL (a burst of events names the same issues).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def connect(server: str, *, user: str = "", token: str = "", timeout: float = 5) -> Any:
    """A ``jira.JIRA`` client: basic auth when there is a ``user`` (the token as its
    password: a Jira Cloud API token, or a Server password), a Server personal access token
    (bearer) when there is only a token, anonymous otherwise. It makes no retries of its
    own (callers decide when to try again), and creating it asks Jira for ``serverInfo``,
    so it fails as any request does (``JIRAError``, or the network's exception)."""
    from jira import JIRA

    if user:
        return JIRA(server, basic_auth=(user, token), max_retries=0, timeout=timeout)
    if token:
        return JIRA(server, token_auth=token, max_retries=0, timeout=timeout)
    return JIRA(server, max_retries=0, timeout=timeout)


class JiraUnavailable(Exception):
    """Jira could not be asked; the event goes out without its issues, saying so."""


class JiraIssues:
    def __init__(
        self,
        server: str,
        *,
        user: str = "",
        token: str = "",
        ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server.rstrip("/")
        self._auth = (user, token)
        self.ttl = ttl
        self.clock = clock
        self._cache: dict[str, tuple[float, dict[str, Any]]] = {}
        self._client: Any = None
        self._lock = threading.Lock()
        self.lookups = 0

    def _jira(self) -> Any:
        if self._client is None:
            user, token = self._auth
            self._client = connect(self.server, user=user, token=token, timeout=5)
        return self._client

    def issues(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """Each key's summary, status, assignee and link (a key Jira does not know is left
        out); :class:`JiraUnavailable` when Jira cannot be asked."""
        out: dict[str, dict[str, Any]] = {}
        now = self.clock()
        for key in keys:
            with self._lock:
                cached = self._cache.get(key)
            if cached is not None and now - cached[0] < self.ttl:
                if cached[1]:
                    out[key] = cached[1]
                continue
            found = self._lookup(key)
            with self._lock:
                self._cache[key] = (now, found)
            if found:
                out[key] = found
        return out

    def _lookup(self, key: str) -> dict[str, Any]:
        from jira.exceptions import JIRAError

        self.lookups += 1
        try:
            issue = self._jira().issue(key, fields="summary,status,assignee")
        except JIRAError as exc:
            if exc.status_code == 404:
                return {}
            raise JiraUnavailable(f"Jira answered {exc.status_code}") from None
        except Exception as exc:  # a network failure, whatever the library wraps it in
            raise JiraUnavailable(f"cannot reach Jira: {type(exc).__name__}") from None
        fields = issue.fields
        assignee = getattr(fields, "assignee", None)
        return {
            "key": key,
            "summary": str(getattr(fields, "summary", "")),
            "status": str(getattr(getattr(fields, "status", None), "name", "")),
            "assignee": str(getattr(assignee, "displayName", "")) if assignee else "",
            "link": f"{self.server}/browse/{key}",
        }
