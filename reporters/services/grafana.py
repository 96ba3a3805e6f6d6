"""``service.grafana``: an annotation per notification, through the HTTP API at
``apiUrl`` (``https://grafana.example.com/api``) with a service account's ``apiKey``; a
subscription names the annotation's tags (``grafana:tag1|tag2``)."""

from __future__ import annotations

from reporters.services import HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class GrafanaOptions(Transport):
    apiUrl: HttpUrl
    apiKey: str
    insecureSkipVerify: bool = False


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.grafana import GrafanaSink

    assert isinstance(options, GrafanaOptions)
    return GrafanaSink(
        options.apiUrl, options.apiKey, insecure=options.insecureSkipVerify,
        pool=options.pool(), name=name or "grafana",
    )  # fmt: skip


KIND = register(Kind("grafana", GrafanaOptions, build, block=False))
