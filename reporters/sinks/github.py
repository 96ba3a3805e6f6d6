"""``--sink github-status``: a commit status on the synced commit, per app.

``POST /repos/{owner}/{repo}/statuses/{sha}`` (docs.github.com, "Create a commit status"),
with context ``argocd/<app>``: ``pending`` when a sync starts, ``success`` when the app is
deployed at the commit, ``failure`` when the sync fails or the app turns Degraded. The
repository is the app's source (single-source apps; GitHub repositories only: others are
left alone), the token ``GIT_TOKEN`` as for the promote step, the API GitHub's or
``PROMOFLOW_SCM_API_URL``.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import httpx

from orchestrator.adapters.scm import ScmError, ScmTarget
from reporters.sinks.delivery import SinkError

STATES = {
    "app.sync-started": ("pending", "Argo CD is syncing {app}"),
    "app.deployed": ("success", "{app} is deployed and Healthy"),
    "app.sync-failed": ("failure", "Sync of {app} failed: {message}"),
    "app.health-degraded": ("failure", "{app} is Degraded: {message}"),
}
MAX_DESCRIPTION = 140
"""GitHub refuses longer descriptions."""


class GitHubStatusSink:
    name = "github-status"

    def __init__(self, token: str = "", ui: str = "", *, timeout: float = 10) -> None:
        self._token = token or os.environ.get("GIT_TOKEN", "")
        self.ui = ui.rstrip("/")
        self._client = httpx.Client(timeout=timeout)

    def send(self, event: dict[str, Any]) -> None:
        wanted = STATES.get(str(event.get("type")))
        data = event.get("data") or {}
        sha, repo = str(data.get("revision") or ""), str(data.get("repo") or "")
        if wanted is None or not repo or len(sha) != 40:
            return  # not about a commit this sink reports on
        try:
            target = ScmTarget.from_repo(repo)
        except ScmError as exc:
            raise SinkError(str(exc), permanent=True) from None
        if target.kind != "github":
            return
        state, words = wanted
        app = str(data.get("app") or event.get("subject", ""))
        namespace, _, name = app.rpartition("/")
        description = words.format(app=name, message=str(data.get("message") or "no message"))
        body = {
            "state": state,
            "context": f"argocd/{name}",
            "description": description[: MAX_DESCRIPTION - 1] + "…"
            if len(description) > MAX_DESCRIPTION
            else description,
        }
        if self.ui:
            body["target_url"] = f"{self.ui}/applications/{namespace}/{name}"
        url = f"{target.api_url.rstrip('/')}/repos/{target.project}/statuses/{sha}"
        headers = {"Accept": "application/vnd.github+json", "User-Agent": "promoflow"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        try:
            response = self._client.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise SinkError(f"cannot reach GitHub: {type(exc).__name__}") from None
        if response.status_code < 300:
            return
        said = ""
        with contextlib.suppress(ValueError, AttributeError):
            said = str(response.json().get("message", ""))
        retry = response.headers.get("retry-after", "")
        transient = response.status_code >= 500 or (
            response.status_code in (403, 429) and bool(retry)
        )
        raise SinkError(
            f"GitHub answered {response.status_code}: {said or 'no reason given'}",
            retry_after=float(retry) if retry.isdigit() else None,
            permanent=not transient,
        )

    def close(self) -> None:
        self._client.close()
