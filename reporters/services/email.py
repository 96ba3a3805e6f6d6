"""``service.email`` (and ``service.email.<name>``): SMTP, with notifications-engine's
settings: ``host``, ``port``, ``from``, ``username``/``password`` (authenticate when a
username is given), ``html`` (send the body as HTML) and ``insecure_skip_verify``.
Subscriptions name the addresses (``email:a@example.com,b@example.com``)."""

from __future__ import annotations

from pydantic import Field

from reporters.services import Kind, Options, register
from reporters.sinks.delivery import Sink


class EmailOptions(Options):
    host: str
    port: int = Field(ge=1, le=65535)
    from_: str = Field(alias="from")
    username: str = ""
    password: str = ""
    html: bool = False
    insecure_skip_verify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.email import EmailSink, Smtp

    assert isinstance(options, EmailOptions)
    server = Smtp(
        options.host,
        options.port,
        username=options.username,
        password=options.password,
        insecure=options.insecure_skip_verify,
    )
    return EmailSink(server, options.from_, html=options.html, name=name or "email")


KIND = register(Kind("email", EmailOptions, build))
