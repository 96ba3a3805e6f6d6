"""``service.slack``: an incoming webhook (``url``), or a bot (``token``) posting to the
channels subscriptions name; ``--sink slack:WEBHOOK-URL`` is the first."""

from __future__ import annotations

from pydantic import model_validator

from reporters.services import Flags, HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class SlackOptions(Transport):
    url: HttpUrl = ""
    token: str = ""
    apiURL: HttpUrl = ""
    username: str = ""
    icon: str = ""
    disableUnfurl: bool = False
    insecureSkipVerify: bool = False
    signingSecret: str = ""
    """Argo CD's bot verifies Slack's calls with it; taken, for the reporter has no bot."""
    channels: list[str] = []
    """Argo CD's bot's channels; taken, for the reporter has no bot."""

    @model_validator(mode="after")
    def _one_way(self) -> SlackOptions:
        if bool(self.url) == bool(self.token):
            raise ValueError(
                "give 'url' (an incoming webhook) or 'token' (a bot, posting to the channels "
                "subscriptions name), not both"
            )
        return self


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.slack import API, SlackSink

    assert isinstance(options, SlackOptions)
    return SlackSink(
        options.url,
        token=options.token,
        api=options.apiURL or API,
        username=options.username,
        icon=options.icon,
        unfurl=not options.disableUnfurl,
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "slack",
    )


def flags(value: str, given: Flags) -> Sink | None:
    del given
    if not value.startswith("slack:"):
        return None
    return build("slack", SlackOptions(url=value.removeprefix("slack:")))


KIND = register(Kind("slack", SlackOptions, build, flags=flags, flag_help="slack:WEBHOOK-URL"))
