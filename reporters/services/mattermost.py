"""``service.mattermost``: a bot (``token``) posting to the channel ids subscriptions name,
on the server at ``apiURL``."""

from __future__ import annotations

from reporters.services import HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class MattermostOptions(Transport):
    apiURL: HttpUrl
    token: str
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.mattermost import MattermostSink

    assert isinstance(options, MattermostOptions)
    return MattermostSink(
        options.apiURL,
        options.token,
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "mattermost",
    )


KIND = register(Kind("mattermost", MattermostOptions, build))
