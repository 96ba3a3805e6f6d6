"""``service.opsgenie``: an alert per notification, through the Alert API of the region
``apiUrl`` names (``api.opsgenie.com``, ``api.eu.opsgenie.com``), with the API key of the
team a subscription names (``apiKeys``: team → key)."""

from __future__ import annotations

from reporters.services import Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class OpsgenieOptions(Transport):
    apiUrl: str = ""
    apiKeys: dict[str, str]
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.opsgenie import OpsgenieSink

    assert isinstance(options, OpsgenieOptions)
    return OpsgenieSink(
        options.apiUrl,
        dict(options.apiKeys),
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "opsgenie",
    )


KIND = register(Kind("opsgenie", OpsgenieOptions, build))
