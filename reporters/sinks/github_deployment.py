"""``--sink github-deployment``: a GitHub deployment per synced commit and environment,
with a deployment status per event.

GitHub shows deployments on the repository's page and in its pull requests (docs.github.com,
"REST API endpoints for deployments"): a deployment is a request to deploy a ref to an
environment, and its statuses say how that went (``in_progress`` while Argo CD syncs,
``success`` once the app is deployed and Healthy, ``failure`` when the sync fails or the app
turns Degraded), with a ``log_url`` back to the app in the Argo CD UI. GitHub creates a
new deployment on every ``POST /deployments``, and the outbox delivers at least once, so a
retried event must not create a second one: the sink first looks the deployment up
(``GET /deployments?sha=&environment=``, the newest) and creates it only when there is
none, then adds the status (``auto_inactive``: GitHub marks the environment's earlier
deployments inactive on ``success``). A second event for the same commit and environment
adds a status to the same deployment.

The deployment is created for the synced commit itself: ``auto_merge`` is off (GitHub's and
Argo CD Notifications' default is on: GitHub would then merge the default branch into the
ref first and answer ``202`` without a deployment), ``required_contexts`` empty (otherwise
GitHub answers ``409`` until every commit status is ``success``: Argo CD has deployed the
commit either way). Should GitHub answer ``202`` (a template turned ``autoMerge`` on), the
attempt is retried: GitHub documents that a new request then creates the deployment.

A notification's ``github.deployment`` block (the fields of Argo CD Notifications' GitHub
template: ``state``, ``environment``, ``environmentURL``, ``logURL``, ``requiredContexts``,
``autoMerge``, ``transientEnvironment``, ``productionEnvironment``, ``reference``) overrides
these defaults, and its message becomes the description; a ``state`` GitHub does not know is
a permanent error. Repository, token, API and errors: :mod:`reporters.sinks.github_api`.
"""

from __future__ import annotations

from typing import Any

from orchestrator.adapters.scm import ScmTarget
from reporters.sinks.github_api import GitHubApi, app_of, commit_of, shorten

EVENTS = {
    "app.sync-started": ("in_progress", "Argo CD is syncing {app}"),
    "app.deployed": ("success", "{app} is deployed and Healthy"),
    "app.sync-failed": ("failure", "Sync of {app} failed: {message}"),
    "app.health-degraded": ("failure", "{app} is Degraded: {message}"),
}
STATES = ("error", "failure", "inactive", "in_progress", "queued", "pending", "success")
"""The states of a deployment status (docs.github.com, "Create a deployment status")."""


class GitHubDeploymentSink:
    def __init__(
        self, ui: str = "", *, name: str = "github-deployment", api: GitHubApi | None = None
    ) -> None:
        """``api``: the GitHub it posts to (default: GIT_TOKEN on github.com)."""
        self.name = name
        self.ui = ui.rstrip("/")
        self._api = api or GitHubApi()

    def send(self, event: dict[str, Any]) -> None:
        commit = commit_of(event)
        if commit is None:
            return  # not about a commit
        data = event.get("data") or {}
        block = _block(data)
        default_state, words = EVENTS.get(str(event.get("type")), ("", ""))
        state = _text(block, "state") or default_state
        if not state:
            return  # an event this sink does not report
        repo, sha = commit
        target = self._api.repository(repo)
        if target is None:
            return
        if state not in STATES:
            raise self._api.error(
                f"github.deployment.state {shorten(state, 60)!r} is not a GitHub deployment "
                f"state: one of {', '.join(STATES)}",
                permanent=True,
            )
        namespace, name = app_of(event)
        environment = _text(block, "environment") or str(data.get("environment") or name)
        description = (_message(data) if block else "") or words.format(
            app=name, message=str(data.get("message") or "no message")
        )
        deployment = self._find(target, sha, environment) or self._create(
            target, sha, environment, block, f"Argo CD app {namespace}/{name}"
        )
        status: dict[str, Any] = {
            "state": state,
            "description": shorten(description or f"{name}: {state}"),
            "auto_inactive": True,
        }
        if environment_url := _text(block, "environmentURL"):
            status["environment_url"] = environment_url
        log_url = _text(block, "logURL") or (
            f"{self.ui}/applications/{namespace}/{name}" if self.ui else ""
        )
        if log_url:
            status["log_url"] = log_url
        self._api.call("POST", target, f"/deployments/{deployment}/statuses", body=status)

    def _find(self, target: ScmTarget, sha: str, environment: str) -> int | None:
        """The newest deployment of ``sha`` to ``environment``, if GitHub has one."""
        response = self._api.call(
            "GET", target, "/deployments", params={"sha": sha, "environment": environment}
        )
        found = self._api.json(response)
        ids = [
            item["id"]
            for item in (found if isinstance(found, list) else [])
            if isinstance(item, dict) and isinstance(item.get("id"), int)
        ]
        return max(ids, default=None)

    def _create(
        self,
        target: ScmTarget,
        sha: str,
        environment: str,
        block: dict[str, Any],
        description: str,
    ) -> int:
        contexts = block.get("requiredContexts")
        if contexts is not None and not (
            isinstance(contexts, list) and all(isinstance(c, str) for c in contexts)
        ):
            raise self._api.error(
                "github.deployment.requiredContexts must be a list of strings", permanent=True
            )
        body = {
            "ref": _text(block, "reference") or sha,
            "environment": environment,
            "auto_merge": self._flag(block, "autoMerge", False),
            "required_contexts": contexts or [],
            "description": shorten(description),
            # GitHub's default, said explicitly
            "production_environment": self._flag(
                block, "productionEnvironment", environment == "production"
            ),
            "transient_environment": self._flag(block, "transientEnvironment", False),
        }
        response = self._api.call("POST", target, "/deployments", body=body)
        created = self._api.json(response) if response.content else {}
        if response.status_code == 202:
            # GitHub merged the default branch into the ref instead: "a new request to
            # create a deployment should give a successful response"
            raise self._api.error(
                f"GitHub merged the default branch into {body['ref']} instead of creating the "
                f"deployment ({shorten(_said(created) or 'no message', 200)}); "
                "trying again"
            )
        if not (isinstance(created, dict) and isinstance(created.get("id"), int)):
            raise self._api.error(
                f"GitHub answered {response.status_code} without a deployment", permanent=True
            )
        return int(created["id"])

    def _flag(self, block: dict[str, Any], key: str, default: bool) -> bool:
        value = block.get(key)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise self._api.error(
            f"github.deployment.{key} must be true or false, not {shorten(str(value), 40)!r}",
            permanent=True,
        )

    def close(self) -> None:
        self._api.close()


def _block(data: dict[str, Any]) -> dict[str, Any]:
    """The notification's ``github.deployment`` block; empty when there is none."""
    notification = data.get("notification")
    github = notification.get("github") if isinstance(notification, dict) else None
    block = github.get("deployment") if isinstance(github, dict) else None
    return block if isinstance(block, dict) else {}


def _message(data: dict[str, Any]) -> str:
    notification = data.get("notification")
    return str(notification.get("message") or "") if isinstance(notification, dict) else ""


def _said(answer: Any) -> str:
    return str(answer.get("message") or "") if isinstance(answer, dict) else ""


def _text(block: dict[str, Any], key: str) -> str:
    """A text field of the block; a template that renders nothing leaves it empty."""
    value = block.get(key)
    return value.strip() if isinstance(value, str) else ""
