"""``service.pushover``: an application's API ``token`` sending to the user (or group)
keys subscriptions name (``pushover:<user key>``)."""

from __future__ import annotations

from reporters.services import Kind, Options, register
from reporters.sinks.delivery import Sink


class PushoverOptions(Options):
    token: str


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.pushover import PushoverSink

    assert isinstance(options, PushoverOptions)
    return PushoverSink(options.token, name=name or "pushover")


KIND = register(Kind("pushover", PushoverOptions, build, block=False))
