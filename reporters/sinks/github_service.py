"""``service.github``: what a template's ``github`` block asks for, as Argo CD's GitHub
service does: a commit status (``status``), a deployment status (``deployment``), or
both; without a block, a commit status as ``--sink github-status`` sends it.

One service, one delivery worker: the status and the deployment of one event are sent in
order, and a retry repeats only what is idempotent (a commit status is a new entry of one
context; the deployment is found again before one is created).
"""

from __future__ import annotations

from typing import Any

from reporters.sinks.answers import Pool
from reporters.sinks.github import GitHubStatusSink
from reporters.sinks.github_api import GitHubApi
from reporters.sinks.github_app import InstallationToken
from reporters.sinks.github_deployment import GitHubDeploymentSink


class GitHubSink:
    def __init__(
        self,
        token: str = "",
        *,
        api: str = "",
        ui: str = "",
        app: InstallationToken | None = None,
        insecure: bool = False,
        pool: Pool | None = None,
        name: str = "github",
    ) -> None:
        self.name = name
        # one API for both: one connection pool, one installation token
        github = GitHubApi(token, api=api, app=app, insecure=insecure, pool=pool)
        self._status = GitHubStatusSink(ui, name=name, api=github)
        self._deployment = GitHubDeploymentSink(ui, name=name, api=github)

    def send(self, event: dict[str, Any]) -> None:
        notification = (event.get("data") or {}).get("notification") or {}
        block = notification.get("github") or {}
        if block.get("status") or not block.get("deployment"):
            self._status.send(event)
        if block.get("deployment"):
            self._deployment.send(event)

    def close(self) -> None:
        self._status.close()
        self._deployment.close()
