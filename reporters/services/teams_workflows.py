"""``service.teams-workflows``: Microsoft Teams Workflows (Power Automate) webhooks, one
per channel (``recipientUrls``), as notifications-engine's ``teams-workflows`` service.

A URL must be a Workflows one (``api.powerautomate.com``, ``api.powerplatform.com``,
``flow.microsoft.com``, ``webhook.office.com/workflows`` or a ``/powerautomate/`` path)
over HTTPS (HTTP only to loopback), as upstream checks before each send; here it is
checked once, at start.
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator

from reporters.services import HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink

WORKFLOWS = re.compile(
    r"(api\.(powerautomate|powerplatform)\.com|flow\.microsoft\.com"
    r"|webhook\.office\.com/workflows|/powerautomate/)",
    re.IGNORECASE,
)
"""What upstream takes for a Workflows URL (its ``WorkflowsURLPattern``)."""


def _workflows_url(value: str) -> str:
    if value.startswith("$"):
        return value  # a $secret: checked once resolved
    parts = urlsplit(value)
    local = parts.hostname in ("localhost", "127.0.0.1") or (parts.hostname or "").startswith(
        "127."
    )
    if parts.scheme != "https" and not local:
        raise ValueError("a Workflows webhook URL must use https://")
    if not WORKFLOWS.search(value):
        raise ValueError(
            "not a Teams Workflows (Power Automate) URL: expected api.powerautomate.com, "
            "api.powerplatform.com, flow.microsoft.com or webhook.office.com/workflows "
            "(an Office 365 Connector's URL belongs in service.teams)"
        )
    return value


WorkflowsUrl = Annotated[HttpUrl, AfterValidator(_workflows_url)]


class TeamsWorkflowsOptions(Transport):
    recipientUrls: dict[str, WorkflowsUrl]
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.teams_workflows import TeamsWorkflowsSink

    assert isinstance(options, TeamsWorkflowsOptions)
    return TeamsWorkflowsSink(
        dict(options.recipientUrls),
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "teams-workflows",
    )


KIND = register(Kind("teams-workflows", TeamsWorkflowsOptions, build))
