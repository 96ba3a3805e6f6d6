"""GHCR: container images pushed to ``ghcr.io``, told by GitHub's ``package`` event.

GitHub sends the ``package`` event (and the older ``registry_package``, the same payload
under ``registry_package``) from the repository or organization webhook the package is
connected to; it signs it like every GitHub delivery, ``X-Hub-Signature-256: sha256=`` and
the hex HMAC-SHA256 of the body (docs.github.com, "Validating webhook deliveries"), and
``/webhooks/github`` accepts it too, so the proof and the payload are read by
:mod:`orchestrator.webhooks.githubhooks`. ``X-GitHub-Delivery`` is the delivery's GUID.

Read (docs.github.com, "Webhook events and payloads", ``package``): ``action``
(``published``, ``updated``), ``package.package_type`` (``CONTAINER`` for GHCR),
``package.package_version.package_url`` (``ghcr.io/owner/name:tag``), else
``package.namespace`` and ``package.name``; the tag and digest from
``package_version.container_metadata.tag.{name,digest}``. GitHub sends one event per pushed
tag; a push of an untagged digest (each platform of a multi-arch image, an attestation) has
an empty tag name and starts nothing. GHCR repository names are lower-case, whatever case
the owner's login has.
"""

from __future__ import annotations

from orchestrator.webhooks import githubhooks, payloads
from orchestrator.webhooks.events import Event, Incoming, Refused
from orchestrator.webhooks.registry import Provider


def parse(incoming: Incoming) -> Event:
    name = githubhooks.event_name(incoming)
    data = payloads.json_object(incoming)
    if name == "ping":
        return githubhooks.ping(data)
    if name in githubhooks.PACKAGE_EVENTS:
        return githubhooks.parse_package(data)
    raise Refused(400, f"GitHub event {name!r} is not handled here: send package events")


PROVIDER = Provider(
    name="ghcr",
    title="GitHub Container Registry",
    scheme=githubhooks.SCHEME,
    verify=githubhooks.PROOF.verify,
    authorize=githubhooks.PROOF.authorize,
    parse=parse,
    delivery_id=githubhooks.delivery_id,
    parse_headers=(githubhooks.EVENT,),
)
