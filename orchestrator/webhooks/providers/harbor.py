"""Harbor: a project's webhook policy, ``PUSH_ARTIFACT`` (legacy ``pushImage``) events.

Harbor does not sign its webhooks: the policy's "Auth Header" is sent verbatim as the
``Authorization`` header (goharbor.io, "Configure Webhook Notifications": "If your webhook
listener implements authentication, enter the authentication header"), so the whole
``Authorization`` value must equal the secret, compared in constant time. The delivery
carries no id: the caller uses the body's hash.

Read (goharbor.io, "Configure Webhook Notifications", "Payload Format", the ``Default``
format): ``type``, ``operator``, ``event_data.resources[].{tag,digest,resource_url}`` and
``event_data.repository.repo_full_name``. The repository is the host of ``resource_url``
and ``repo_full_name`` (``hub.harbor.com/test-webhook/debian``); the tags are every
resource's tag (a tag that is itself a digest names no version). Harbor's other events
(pull, delete, scan, quota, replication, chart, retention) are verified and ignored; the
``CloudEvents`` payload format is refused with a reason.
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Ignored, ImagePush, Incoming, Refused
from orchestrator.webhooks.registry import Provider

HEADER = "Authorization"
PUSH = ("PUSH_ARTIFACT", "pushImage")
OTHER = (
    "PULL_ARTIFACT",
    "DELETE_ARTIFACT",
    "DELETE_REPOSITORY",
    "CREATE_TAG",
    "DELETE_TAG",
    "UPLOAD_CHART",
    "DOWNLOAD_CHART",
    "DELETE_CHART",
    "SCANNING_COMPLETED",
    "SCANNING_FAILED",
    "SCANNING_STOPPED",
    "QUOTA_EXCEED",
    "QUOTA_WARNING",
    "REPLICATION",
    "TAG_RETENTION",
    "pullImage",
    "deleteImage",
    "uploadChart",
    "downloadChart",
    "deleteChart",
    "scanningCompleted",
    "scanningFailed",
)
"""Harbor's other event types (2.x, and 1.x's camel-case ones): known, not new versions."""


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_token(incoming, secret, HEADER)


def parse_push(data: dict[str, Any]) -> Event:
    full_name = payloads.text(data, "event_data.repository.repo_full_name").strip().strip("/")
    if not full_name:
        raise Refused(400, "event_data.repository.repo_full_name is empty")
    resources = payloads.field(data, "event_data.resources", list)
    tags: list[str] = []
    digest = host = ""
    for resource in resources:
        tag = payloads.text(resource, "tag", required=False).strip()
        if tag and not tag.startswith("sha256:"):
            tags.append(tag)
        digest = digest or payloads.text(resource, "digest", required=False)
        url = payloads.text(resource, "resource_url", required=False).strip()
        host = host or (url.split("/", 1)[0] if "/" in url else "")
    if not tags:
        return Ignored(f"no tag: an untagged artifact was pushed to {full_name}")
    return ImagePush(
        repository=f"{host}/{full_name}" if host else full_name,
        tags=tuple(dict.fromkeys(tags)),
        digest=digest,
        pusher=payloads.text(data, "operator", required=False),
        host_known=bool(host),
    )


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    if "specversion" in data:
        raise Refused(400, "a CloudEvents payload: set the Harbor policy's format to Default")
    kind = payloads.text(data, "type")
    if kind in PUSH:
        return parse_push(data)
    if kind in OTHER:
        return Ignored(f"Harbor {kind} is not a new version")
    raise Refused(400, f"Harbor event {kind[:60]!r} is not handled: send PUSH_ARTIFACT events")


def delivery_id(incoming: Incoming) -> str:
    del incoming
    return ""


PROVIDER = Provider(
    name="harbor",
    title="Harbor",
    scheme=f"{HEADER}: the policy's auth header, equal to the secret",
    verify=verify,
    authorize=verify,
    parse=parse,
    delivery_id=delivery_id,
)
