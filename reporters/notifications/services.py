"""A sink for each configured service, named as subscriptions name it.

Each service gets its own delivery worker (its own retries, rate and dead letters), like
every ``--sink``: a slow Jira never delays Slack.
"""

from __future__ import annotations

from typing import Any

from reporters.notifications.config import Notifications, Service
from reporters.sinks.delivery import Sink


def _webhook(service: Service) -> Sink:
    from reporters.sinks.http import HttpSink

    settings = service.settings
    headers = {str(h.get("name")): str(h.get("value")) for h in settings.get("headers") or []}
    basic: dict[str, Any] = settings.get("basicAuth") or {}
    auth = (str(basic.get("username", "")), str(basic.get("password", ""))) if basic else None
    return HttpSink(
        str(settings["url"]),
        str(settings.get("secret") or ""),
        name=service.name,
        headers=headers,
        auth=auth,
    )


def _slack(service: Service) -> Sink:
    from reporters.sinks.slack import API, SlackSink

    settings = service.settings
    return SlackSink(
        str(settings.get("url") or ""),
        token=str(settings.get("token") or ""),
        api=str(settings.get("apiURL") or API),
        username=str(settings.get("username") or ""),
        icon=str(settings.get("icon") or ""),
        name=service.name,
    )


def _github(service: Service) -> Sink:
    from reporters.sinks.github_service import GitHubSink

    settings = service.settings
    return GitHubSink(
        token=str(settings.get("token") or ""),
        api=str(settings.get("apiURL") or ""),
        ui=str(settings.get("argocdURL") or ""),
        name=service.name,
    )


def _jira(service: Service) -> Sink:
    from reporters.sinks.jira import JiraSink

    settings = service.settings
    return JiraSink(
        str(settings["url"]),
        user=str(settings.get("user") or ""),
        token=str(settings.get("token") or ""),
        name=service.name,
    )


def _stdout(service: Service) -> Sink:
    from reporters.sinks.stdout import StdoutSink

    return StdoutSink(name=service.name)


BUILDERS = {
    "webhook": _webhook,
    "slack": _slack,
    "github": _github,
    "jira": _jira,
    "stdout": _stdout,
}


def sinks_for(config: Notifications) -> list[Sink]:
    return [BUILDERS[s.type](s) for s in config.services.values()]
