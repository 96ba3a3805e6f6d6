"""``service.webhook.<name>``: a POST of the event (as CloudEvents JSON) to a URL; ``--sink
https://...`` is one too, signed with ``PROMOFLOW_SINK_SECRET``."""

from __future__ import annotations

from reporters.services import Flags, HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class Header(Options):
    name: str
    value: str


class BasicAuth(Options):
    username: str = ""
    password: str = ""


class WebhookOptions(Transport):
    url: HttpUrl
    headers: list[Header] = []
    basicAuth: BasicAuth | None = None
    insecureSkipVerify: bool = False
    secret: str = ""
    """Signs the body (``X-Promoflow-Signature``)."""


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.http import HttpSink

    assert isinstance(options, WebhookOptions)
    auth = options.basicAuth
    return HttpSink(
        options.url,
        options.secret,
        name=name,
        headers={h.name: h.value for h in options.headers},
        auth=(auth.username, auth.password) if auth is not None else None,
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
    )


def flags(value: str, given: Flags) -> Sink | None:
    if not value.startswith(("http://", "https://")):
        return None
    return build("", WebhookOptions(url=value, secret=given.secret))


KIND = register(
    Kind(
        "webhook", WebhookOptions, build, named=True, flags=flags,
        flag_help="an http(s) URL (CloudEvents, signed with $PROMOFLOW_SINK_SECRET)",
    )
)  # fmt: skip
