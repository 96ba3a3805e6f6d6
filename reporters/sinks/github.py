"""``--sink github-status``: a commit status on the synced commit, per app.

``POST /repos/{owner}/{repo}/statuses/{sha}`` (docs.github.com, "Create a commit status"),
with context ``argocd/<app>``: ``pending`` when a sync starts, ``success`` when the app is
deployed at the commit, ``failure`` when the sync fails or the app turns Degraded. The
repository, token, API and errors are those of :mod:`reporters.sinks.github_api`.
"""

from __future__ import annotations

from typing import Any

from reporters.sinks.delivery import SinkError
from reporters.sinks.github_api import GitHubApi, app_of, commit_of, shorten

STATES = {
    "app.sync-started": ("pending", "Argo CD is syncing {app}"),
    "app.deployed": ("success", "{app} is deployed and Healthy"),
    "app.sync-failed": ("failure", "Sync of {app} failed: {message}"),
    "app.health-degraded": ("failure", "{app} is Degraded: {message}"),
}


STATUS_STATES = ("error", "failure", "pending", "success")
"""What GitHub accepts for a commit status."""


class GitHubStatusSink:
    def __init__(
        self, ui: str = "", *, name: str = "github-status", api: GitHubApi | None = None
    ) -> None:
        """``api``: the GitHub it posts to (default: GIT_TOKEN on github.com)."""
        self.name = name
        self._api = api or GitHubApi()
        self.ui = ui.rstrip("/")

    def send(self, event: dict[str, Any]) -> None:
        notification = (event.get("data") or {}).get("notification") or {}
        block = (notification.get("github") or {}).get("status")
        wanted = STATES.get(str(event.get("type")))
        commit = commit_of(event)
        if (wanted is None and not block) or commit is None:
            return  # not about a commit this sink reports on
        repo, sha = commit
        target = self._api.repository(repo)
        if target is None:
            return
        namespace, name = app_of(event)
        state, words = wanted or ("", "")
        message = str((event.get("data") or {}).get("message") or "no message")
        body = {
            "state": state,
            "context": f"argocd/{name}",
            "description": shorten(words.format(app=name, message=message)),
        }
        if self.ui:
            body["target_url"] = f"{self.ui}/applications/{namespace}/{name}"
        if block:  # a template's status (Argo CD's fields: state, label, targetURL)
            if notification.get("message"):
                body["description"] = shorten(str(notification["message"]))
            body.update({
                key: str(block[field]) for key, field in
                (("state", "state"), ("context", "label"), ("target_url", "targetURL"))
                if block.get(field)
            })  # fmt: skip
        if body["state"] not in STATUS_STATES:
            raise SinkError(
                f"github status: state {body['state']!r} is not one of {', '.join(STATUS_STATES)}",
                permanent=True,
            )
        self._api.call("POST", target, f"/statuses/{sha}", body=body)

    def close(self) -> None:
        self._api.close()
