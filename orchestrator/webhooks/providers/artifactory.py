"""JFrog Artifactory: the predefined webhook's "Docker and OCI: Tag was pushed" event.

Artifactory sends the webhook's "Secret token" in ``X-JFrog-Event-Auth`` (jfrog.com,
"Webhooks": "a secret authentication token that will be sent to the configured URL through
the X-JFrog-Event-Auth HTTP header"). With "Use secret for payload signing" selected, the
header carries the hex HMAC-SHA256 of the body with the token instead of the token itself;
only that signed form is accepted here (as Kargo's Artifactory receiver does), since a token
sent as is proves nothing about the body. Check that box when creating the webhook. The
delivery carries no id: the caller uses the body's hash.

Read (jfrog.com, "Webhooks", "Event Types", domain ``docker``, event ``pushed``): the
envelope's ``domain`` and ``event_type``, and ``data.repo_key``, ``data.image_name``,
``data.tag`` and ``data.sha256`` (the manifest's digest). The payload does not say under
which host a pod pulls the image (a path in the registry's host, or a subdomain named after
the repository key), so the repository is ``<repo_key>/<image_name>`` without a host
(``host_known=False``) and is compared by path. Any other domain or event is ignored.
"""

from __future__ import annotations

import re

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Ignored, ImagePush, Incoming, Refused
from orchestrator.webhooks.registry import Provider

SIGNATURE = "X-JFrog-Event-Auth"
_SHA256 = re.compile(r"[0-9a-f]{64}")


PROOF = proofs.BodyHmac(SIGNATURE)


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    domain = payloads.text(data, "domain")
    event = payloads.text(data, "event_type")
    if domain != "docker" or event != "pushed":
        return Ignored(f"Artifactory {domain[:40]} {event[:40]} is not a pushed tag")
    repo_key = payloads.text(data, "data.repo_key").strip().strip("/")
    image = payloads.text(data, "data.image_name").strip().strip("/")
    if not repo_key or not image:
        raise Refused(400, "data.repo_key or data.image_name is empty")
    tag = payloads.text(data, "data.tag", required=False).strip()
    if not tag:
        return Ignored(f"no tag: an untagged image was pushed to {repo_key}/{image}")
    checksum = payloads.text(data, "data.sha256", required=False).strip().lower()
    return ImagePush(
        repository=f"{repo_key}/{image}",
        tags=(tag,),
        digest=f"sha256:{checksum}" if _SHA256.fullmatch(checksum) else "",
        host_known=False,
    )


def delivery_id(incoming: Incoming) -> str:
    del incoming
    return ""


PROVIDER = Provider(
    name="artifactory",
    title="JFrog Artifactory",
    scheme=f"{SIGNATURE}: the HMAC-SHA256 of the body with the secret token",
    verify=PROOF.verify,
    authorize=PROOF.authorize,
    parse=parse,
    delivery_id=delivery_id,
)
