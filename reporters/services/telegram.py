"""``service.telegram``: a bot (``token``, from @BotFather) posting to the chats
subscriptions name: ``telegram:<channel username>``, ``telegram:-100...`` (a private
chat's id) or ``telegram:-100...|<thread id>`` (a topic of it)."""

from __future__ import annotations

from reporters.services import Kind, Options, register
from reporters.sinks.delivery import Sink


class TelegramOptions(Options):
    token: str


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.telegram import TelegramSink

    assert isinstance(options, TelegramOptions)
    return TelegramSink(options.token, name=name or "telegram")


KIND = register(Kind("telegram", TelegramOptions, build, block=False))
