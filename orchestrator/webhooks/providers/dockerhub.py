"""Docker Hub: a repository webhook, sent on every tag pushed.

Docker Hub neither signs its webhooks nor lets them carry a header (docs.docker.com,
"Docker Hub", "Webhooks": a name and a URL only), so the secret is the last segment of the
URL given to Docker Hub, ``/webhooks/dockerhub/SECRET``, compared in constant time. The
delivery carries no id: the caller uses the body's hash.

Read (docs.docker.com, "Webhooks", "Example webhook payload"): ``push_data.tag``,
``push_data.pusher`` and ``repository.repo_name`` (``acme/shop``, ``library/nginx``), named
``docker.io/<repo_name>``. ``callback_url`` is a legacy field Docker Hub no longer
supports, and is not called.
"""

from __future__ import annotations

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Ignored, ImagePush, Incoming, Refused
from orchestrator.webhooks.registry import Provider

HOST = "docker.io"


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_url_token(incoming, secret)


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    if not isinstance(data.get("push_data"), dict):
        raise Refused(400, "the payload has no push_data: not a Docker Hub push")
    repo_name = payloads.text(data, "repository.repo_name").strip().strip("/")
    if not repo_name:
        raise Refused(400, "repository.repo_name is empty")
    tag = payloads.text(data, "push_data.tag", required=False).strip()
    if not tag:
        return Ignored(f"no tag: an untagged image was pushed to {repo_name}")
    return ImagePush(
        repository=f"{HOST}/{repo_name}",
        tags=(tag,),
        pusher=payloads.text(data, "push_data.pusher", required=False),
    )


def delivery_id(incoming: Incoming) -> str:
    del incoming
    return ""


PROVIDER = Provider(
    name="dockerhub",
    title="Docker Hub",
    scheme="the secret as the last segment of the webhook URL: /webhooks/dockerhub/SECRET",
    verify=verify,
    authorize=verify,
    parse=parse,
    delivery_id=delivery_id,
    url_token=True,
)
