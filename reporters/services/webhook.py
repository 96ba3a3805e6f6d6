"""``service.webhook.<name>``: a POST of the event (as CloudEvents JSON) to a URL; ``--sink
https://...`` is one too, signed with ``PROMOFLOW_SINK_SECRET``."""

from __future__ import annotations

from pydantic import Field

from reporters.services import Flags, HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Policy, Sink


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
    retryMax: int = Field(0, ge=0)
    retryWaitMin: int = Field(0, ge=0)
    """Nanoseconds, as Go decodes a ``time.Duration`` from a ConfigMap."""
    retryWaitMax: int = Field(0, ge=0)
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
        policy=policy_of(options),
    )


def policy_of(options: WebhookOptions) -> Policy | None:
    """The delivery's retries, when the settings name upstream's: ``retryMax`` retries
    after the first attempt (3 when only a wait is given, upstream's default), waiting
    from ``retryWaitMin`` (1s) doubling up to ``retryWaitMax`` (5s). None: the reporter's
    own, which keeps trying longer (an outbox keeps what it could not send)."""
    if not (options.retryMax or options.retryWaitMin or options.retryWaitMax):
        return None
    return Policy(
        attempts=(options.retryMax or 3) + 1,
        base=(options.retryWaitMin or 1_000_000_000) / 1e9,
        cap=(options.retryWaitMax or 5_000_000_000) / 1e9,
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
