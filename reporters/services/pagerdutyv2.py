"""``service.pagerdutyv2``: PagerDuty Events API v2, with the integration (routing) key of
the PagerDuty service a subscription names (``serviceKeys``: service → key)."""

from __future__ import annotations

from reporters.services import Kind, Options, register
from reporters.sinks.delivery import Sink


class PagerdutyV2Options(Options):
    serviceKeys: dict[str, str]


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.pagerdutyv2 import PagerDutySink

    assert isinstance(options, PagerdutyV2Options)
    return PagerDutySink(dict(options.serviceKeys), name=name or "pagerdutyv2")


KIND = register(Kind("pagerdutyv2", PagerdutyV2Options, build))
