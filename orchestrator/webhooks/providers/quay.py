"""Quay: the "Repository Push" notification of a quay.io or Red Hat Quay repository.

Quay's webhook notifications are neither signed nor able to carry a header (docs.redhat.com,
"Use Red Hat Quay", "Repository notifications": a webhook is a POST to a URL), so the secret
is the last segment of the URL given to Quay, ``/webhooks/quay/SECRET``, compared in
constant time. The delivery carries no id: the caller uses the body's hash.

Read (docs.redhat.com, "Repository notifications", "Repository Push"): ``docker_url``
(``quay.io/namespace/name``, the repository as pods pull it) and ``updated_tags`` (a list;
old Quay sent an object of tag to image id, whose keys are the tags). A notification without
``updated_tags`` is another Quay event (a build, a vulnerability) and is refused: subscribe
the webhook to "Push to Repository" only.
"""

from __future__ import annotations

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Ignored, ImagePush, Incoming, Refused
from orchestrator.webhooks.registry import Provider


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_url_token(incoming, secret)


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    if "updated_tags" not in data:
        raise Refused(400, "no updated_tags: not a Quay Repository Push notification")
    updated = payloads.field(data, "updated_tags", (list, dict), required=False) or []
    if not all(isinstance(tag, str) for tag in updated):
        raise Refused(400, "updated_tags is not a list of tags")
    repository = payloads.text(data, "docker_url").strip().strip("/")
    if not repository:
        raise Refused(400, "docker_url is empty")
    tags = tuple(dict.fromkeys(tag.strip() for tag in updated if tag.strip()))
    if not tags:
        return Ignored(f"no tag: nothing was tagged in {repository}")
    return ImagePush(repository=repository, tags=tags)


def delivery_id(incoming: Incoming) -> str:
    del incoming
    return ""


PROVIDER = Provider(
    name="quay",
    title="Quay",
    scheme="the secret as the last segment of the webhook URL: /webhooks/quay/SECRET",
    verify=verify,
    authorize=verify,
    parse=parse,
    delivery_id=delivery_id,
    url_token=True,
)
