"""What the GitHub sinks share: the repository of an app, the REST calls, and how GitHub's
answers become :class:`SinkError`.

The repository is the app's source (single-source apps; GitHub repositories only: others
are left alone), the token ``GIT_TOKEN`` as for the promote step, the API GitHub's or
``PROMOFLOW_SCM_API_URL`` (GitHub Enterprise Server); with a GitHub App's credentials
(:mod:`reporters.sinks.github_app`) the token is the installation's, made when needed,
and a 401 drops it so the retry makes a new one. A network failure, 5xx, and 403 or
429 with ``Retry-After`` (GitHub's rate limits) are transient, retried after what GitHub
asked for; any other 4xx is permanent and carries GitHub's ``message``. The token never
appears in an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any

import httpx

from orchestrator.adapters import neterrors
from orchestrator.adapters.scm import ScmError, ScmTarget
from reporters.sinks.answers import Pool, client
from reporters.sinks.delivery import SinkError
from reporters.sinks.github_app import InstallationToken

MAX_DESCRIPTION = 140
"""GitHub refuses longer descriptions (commit and deployment statuses alike)."""


def shorten(text: str, limit: int = MAX_DESCRIPTION) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def app_of(event: dict[str, Any]) -> tuple[str, str]:
    """``(namespace, name)`` of the Argo CD Application an event is about."""
    data = event.get("data") or {}
    namespace, _, name = str(data.get("app") or event.get("subject", "")).rpartition("/")
    return namespace, name


def commit_of(event: dict[str, Any]) -> tuple[str, str] | None:
    """``(repoURL, sha)`` of the synced commit; ``None`` when the event names none."""
    data = event.get("data") or {}
    sha, repo = str(data.get("revision") or ""), str(data.get("repo") or "")
    return (repo, sha) if repo and len(sha) == 40 else None


class GitHubApi:
    """The REST API of the GitHub hosting one app's repository."""

    def __init__(
        self,
        token: str = "",
        *,
        api: str = "",
        app: InstallationToken | None = None,
        insecure: bool = False,
        pool: Pool | None = None,
        timeout: float = 10,
    ) -> None:
        self._app = app
        self._token = "" if app is not None else token or os.environ.get("GIT_TOKEN", "")
        self._api = api
        """A service's ``apiURL`` (GitHub Enterprise), over ``PROMOFLOW_SCM_API_URL``."""
        self._client = client(insecure=insecure, pool=pool, timeout=timeout)

    def repository(self, repo_url: str) -> ScmTarget | None:
        """Where ``repo_url`` lives; ``None`` when that is not GitHub."""
        try:
            target = ScmTarget.from_repo(repo_url)
        except ScmError as exc:
            raise self.error(str(exc), permanent=True) from None
        if target.kind != "github":
            return None
        return dataclasses.replace(target, api_url=self._api) if self._api else target

    def call(
        self,
        method: str,
        target: ScmTarget,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        params: dict[str, str] | None = None,
    ) -> httpx.Response:
        """``method /repos/{owner}/{repo}{path}``; a 2xx answer, or :class:`SinkError`."""
        url = f"{target.api_url.rstrip('/')}/repos/{target.project}{path}"
        headers = {"Accept": "application/vnd.github+json", "User-Agent": "promoflow"}
        token = self._app.token(target.api_url) if self._app is not None else self._token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            response = self._client.request(method, url, json=body, params=params, headers=headers)
        except httpx.HTTPError as exc:
            raise self.error(f"cannot reach GitHub: {type(exc).__name__}") from None
        if response.status_code < 300:
            return response
        retry = neterrors.retry_after(response.headers)
        transient = response.status_code >= 500 or (
            response.status_code in (403, 429) and retry is not None
        )
        if response.status_code == 401 and self._app is not None:
            self._app.forget()  # revoked or lapsed early: the next attempt makes a new one
            transient = True
        raise self.error(
            f"GitHub answered {response.status_code}: {said(response) or 'no reason given'}",
            retry_after=retry,
            permanent=not transient,
        )

    def json(self, response: httpx.Response) -> Any:
        """The JSON of a 2xx answer; a page that is not JSON is not the GitHub API."""
        try:
            return response.json()
        except ValueError:
            raise self.error(
                f"GitHub answered {response.status_code} with something that is not JSON: "
                "check PROMOFLOW_SCM_API_URL",
                permanent=True,
            ) from None

    def error(
        self, reason: str, *, retry_after: float | None = None, permanent: bool = False
    ) -> SinkError:
        secrets: tuple[str, ...] = (self._token,) if self._token else ()
        if self._app is not None:
            secrets += self._app.secrets()
        for secret in secrets:
            reason = reason.replace(secret, "***")
        return SinkError(reason, retry_after=retry_after, permanent=permanent)

    def close(self) -> None:
        self._client.close()
        if self._app is not None:
            self._app.close()


def said(response: httpx.Response) -> str:
    """GitHub's ``message``, or nothing."""
    with contextlib.suppress(ValueError, AttributeError):
        return str(response.json().get("message") or "")
    return ""
