"""GHCR: container images pushed to ``ghcr.io``, told by GitHub's ``package`` event.

GitHub sends the ``package`` event (and the older ``registry_package``, the same payload
under ``registry_package``) from the repository or organization webhook the package is
connected to; it signs it like every GitHub delivery, ``X-Hub-Signature-256: sha256=`` and
the hex HMAC-SHA256 of the body (docs.github.com, "Validating webhook deliveries"), so
:func:`verify` is GitHub's. ``X-GitHub-Delivery`` is the delivery's GUID.

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

from typing import Any

from orchestrator.webhooks import payloads
from orchestrator.webhooks.events import Event, Ignored, ImagePush, Incoming, Ping, Refused
from orchestrator.webhooks.providers import github
from orchestrator.webhooks.registry import Provider

EVENTS = ("package", "registry_package")
"""GitHub's event names for a package version; ``registry_package`` is the older one."""
ACTIONS = ("published", "updated")
HOST = "ghcr.io"


def verify(incoming: Incoming, secret: str) -> None:
    github.verify(incoming, secret)


def _repository(package_url: str) -> str:
    """``ghcr.io/Acme/Shop:1.2`` or ``ghcr.io/acme/shop@sha256:...`` -> ``ghcr.io/acme/shop``
    (a ``:`` before the last ``/`` is a port, not a tag)."""
    name = package_url.strip().split("@", 1)[0]
    head, slash, last = name.rpartition("/")
    return (head + slash + last.split(":", 1)[0]).lower()


def parse_package(data: dict[str, Any]) -> Event:
    """A ``package`` or ``registry_package`` payload (its event header already read)."""
    key = "registry_package" if "registry_package" in data and "package" not in data else "package"
    action = payloads.text(data, "action")
    if action not in ACTIONS:
        return Ignored(f"package action {action!r} is not a new version")
    package_type = payloads.text(data, f"{key}.package_type")
    if package_type.lower() != "container":
        return Ignored(f"package type {package_type!r} is not a container image")
    version = payloads.field(data, f"{key}.package_version", dict)
    tag = payloads.text(version, "container_metadata.tag.name", required=False).strip()
    if not tag:
        return Ignored("no tag: an untagged digest was published")
    package_url = payloads.text(version, "package_url", required=False)
    repository = _repository(package_url) if package_url.strip() else ""
    if not repository.partition("/")[2]:
        namespace = payloads.text(data, f"{key}.namespace").strip("/")
        name = payloads.text(data, f"{key}.name").strip("/")
        if not namespace or not name:
            raise Refused(400, f"{key} names no package_url, namespace and name")
        repository = f"{HOST}/{namespace}/{name}".lower()
    digest = payloads.text(version, "container_metadata.tag.digest", required=False)
    if not digest:
        listed = payloads.text(version, "version", required=False)
        digest = listed if listed.startswith("sha256:") else ""
    return ImagePush(
        repository=repository,
        tags=(tag,),
        digest=digest,
        pusher=payloads.text(version, "author.login", required=False)
        or payloads.text(data, "sender.login", required=False),
    )


def parse(incoming: Incoming) -> Event:
    name = github.event_name(incoming)
    data = payloads.json_object(incoming)
    if name == "ping":
        return Ping(f"GitHub ping for hook {data.get('hook_id', '?')}")
    if name in EVENTS:
        return parse_package(data)
    raise Refused(400, f"GitHub event {name!r} is not handled here: send package events")


def delivery_id(incoming: Incoming) -> str:
    return incoming.header("X-GitHub-Delivery").strip()


PROVIDER = Provider(
    name="ghcr",
    title="GitHub Container Registry",
    scheme=f"{github.SIGNATURE}: sha256= and the HMAC-SHA256 of the body with the secret",
    verify=verify,
    authorize=github.authorize,
    parse=parse,
    delivery_id=delivery_id,
    parse_headers=(github.EVENT,),
)
