"""What GitHub's webhooks share, whichever endpoint receives them: ``/webhooks/github``
(pushes, and packages of GHCR) and ``/webhooks/ghcr`` (packages only).

GitHub signs the body with the hook's secret: ``sha256=`` + the hex HMAC-SHA256
(docs.github.com, "Validating webhook deliveries"); ``X-GitHub-Event`` names the event
and ``X-GitHub-Delivery`` is a GUID that a redelivery repeats. A package version's payload
is read here too (docs.github.com, "Webhook events and payloads", ``package``): both
endpoints accept it. Kept apart from the providers so that each provider module stands
alone (an import-linter contract keeps them independent).
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Ignored, ImagePush, Incoming, Ping, Refused

SIGNATURE = "X-Hub-Signature-256"
EVENT = "X-GitHub-Event"
SCHEME = f"{SIGNATURE}: sha256= and the HMAC-SHA256 of the body with the secret"
PACKAGE_EVENTS = ("package", "registry_package")
"""GitHub's event names for a package version; ``registry_package`` is the older one."""
ACTIONS = ("published", "updated")
HOST = "ghcr.io"


PROOF = proofs.BodyHmac(SIGNATURE, prefix="sha256=")


def event_name(incoming: Incoming) -> str:
    name = incoming.header(EVENT).strip()
    if not name:
        raise Refused(400, f"no {EVENT} header: not a GitHub delivery")
    return name


def delivery_id(incoming: Incoming) -> str:
    return incoming.header("X-GitHub-Delivery").strip()


def ping(data: dict[str, Any]) -> Ping:
    return Ping(f"GitHub ping for hook {data.get('hook_id', '?')}")


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
