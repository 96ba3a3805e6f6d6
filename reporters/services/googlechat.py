"""``service.googlechat``: Google Chat incoming webhooks, one per space (``webhooks``:
the name a subscription gives → the space's webhook URL, key and token included)."""

from __future__ import annotations

from reporters.services import HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class GoogleChatOptions(Transport):
    webhooks: dict[str, HttpUrl]
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.googlechat import GoogleChatSink

    assert isinstance(options, GoogleChatOptions)
    return GoogleChatSink(
        dict(options.webhooks),
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "googlechat",
    )


KIND = register(Kind("googlechat", GoogleChatOptions, build))
