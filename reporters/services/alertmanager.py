"""``service.alertmanager``: an alert per notification to every Alertmanager of
``targets`` (``host:port``; an HA cluster is several), with upstream's defaults: ``scheme``
http, ``apiPath`` /api/v2/alerts, ``timeout`` 3 seconds, ``127.0.0.1:9093`` when none is
named; ``basicAuth`` is used over ``bearerToken`` when both are given."""

from __future__ import annotations

from typing import Literal

from reporters.services import Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class AlertmanagerAuth(Options):
    username: str = ""
    password: str = ""


class AlertmanagerOptions(Transport):
    targets: list[str] = []
    scheme: Literal["http", "https", ""] = ""
    apiPath: str = ""
    basicAuth: AlertmanagerAuth | None = None
    bearerToken: str = ""
    timeout: int = 0
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.alertmanager import AlertmanagerSink

    assert isinstance(options, AlertmanagerOptions)
    auth = options.basicAuth
    return AlertmanagerSink(
        options.targets or ["127.0.0.1:9093"],
        scheme=options.scheme or "http",
        api_path=options.apiPath or "/api/v2/alerts",
        basic=(auth.username, auth.password) if auth is not None else None,
        bearer=options.bearerToken,
        timeout=options.timeout or 3,
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "alertmanager",
    )


KIND = register(Kind("alertmanager", AlertmanagerOptions, build))
