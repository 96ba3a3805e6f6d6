"""The webhook providers, each declared once in a module of its own, found by name.

A provider is a :class:`Provider`: how a delivery proves it comes from the sender
(``authorize`` from the headers before the body is read, then ``verify``), what it means
(``parse``) and which id the sender gives it (``delivery_id``), all pure functions of an
:class:`~orchestrator.webhooks.events.Incoming`. Adding a sender is
adding a module to ``orchestrator/webhooks/providers`` (:mod:`orchestrator.discovery`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from orchestrator import discovery
from orchestrator.webhooks.events import Event, Incoming

PROVIDERS_PACKAGE = "orchestrator.webhooks.providers"
"""Each of its modules defines ``PROVIDER``."""


class Provider(NamedTuple):
    name: str
    """The URL segment: ``POST /webhooks/{name}``; also ``PROMOFLOW_WEBHOOK_{NAME}_SECRET``."""
    title: str
    """How people name the sender: ``GitHub``, ``Docker Hub``."""
    scheme: str
    """How a delivery is verified, in a sentence for the docs and ``promoflow serve``."""
    verify: Callable[[Incoming, str], None]
    """Raise :class:`~orchestrator.webhooks.events.Refused` (401) unless the delivery
    carries proof of ``secret``; compares in constant time (``hmac.compare_digest``)."""
    authorize: Callable[[Incoming, str], None]
    """What ``verify`` can check from the headers and the path alone, run before the body is
    read (the body is then empty): the whole proof of senders that send a token, the
    presence and form of a body signature (and a signed time) of those that sign. A request
    without a credential so costs the service its headers, never a read or parse of its
    body; :class:`Refused` (401) as ``verify``."""
    parse: Callable[[Incoming], Event]
    """The delivery's meaning; :class:`Refused` (400) for a malformed or unknown event."""
    delivery_id: Callable[[Incoming], str]
    """The sender's id of this delivery, the same on a redelivery; ``""`` when it sends
    none (the payload's hash is used instead)."""
    url_token: bool = False
    """The sender cannot sign or send a header: the secret is the last path segment,
    ``/webhooks/{name}/{secret}``."""
    parse_headers: tuple[str, ...] = ()
    """The headers ``parse`` reads besides Content-Type (the event type): with the body
    they decide the meaning, so deliveries alike in these are parsed once."""


@cache
def providers() -> dict[str, Provider]:
    found = {}
    for module in discovery.modules(PROVIDERS_PACKAGE):
        provider: Provider = module.PROVIDER
        found[provider.name] = provider
    return found


def get(name: str) -> Provider | None:
    return providers().get(name)
