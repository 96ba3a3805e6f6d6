"""``service.webex``: a Webex bot (``token``) posting to the people (by email) or rooms (by
id) subscriptions name, on ``apiURL`` (default ``https://webexapis.com``)."""

from __future__ import annotations

from reporters.services import HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class WebexOptions(Transport):
    token: str
    apiURL: HttpUrl = ""
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.webex import API, WebexSink

    assert isinstance(options, WebexOptions)
    return WebexSink(
        options.token,
        api=options.apiURL or API,
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "webex",
    )


KIND = register(Kind("webex", WebexOptions, build, block=False))
