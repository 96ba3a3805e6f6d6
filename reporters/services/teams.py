"""``service.teams``: Microsoft Teams incoming webhooks (Office 365 Connectors), one per
channel: ``recipientUrls`` maps the name a subscription gives (``teams:<channel>``) to the
channel's hook, as notifications-engine's ``teams`` service does."""

from __future__ import annotations

from reporters.services import HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class TeamsOptions(Transport):
    recipientUrls: dict[str, HttpUrl]
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.teams import TeamsSink

    assert isinstance(options, TeamsOptions)
    return TeamsSink(
        dict(options.recipientUrls),
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "teams",
    )


KIND = register(Kind("teams", TeamsOptions, build))
