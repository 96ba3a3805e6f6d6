"""Azure DevOps: the "Code pushed" (``git.push``) service hook, with HTTP basic auth.

Azure DevOps does not sign service hook deliveries; a "Web Hooks" subscription can send
HTTP basic credentials (learn.microsoft.com, "Create a service hook for Azure DevOps with
Web Hooks": "Basic authentication username / password"), checked here in constant time: the
password is the secret (or ``user:password``, both checked). The payload's ``id`` names the
event and is the delivery id (the body's hash when it has none).

Read (learn.microsoft.com, "Service hooks events", "Code pushed"): ``eventType``, the first
of ``resource.refUpdates[]`` (``name``, ``oldObjectId``, ``newObjectId``),
``resource.repository.{remoteUrl,url}``, ``resource.commits[].{commitId,comment}`` and
``resource.pushedBy``. The payload lists no paths, so the changed paths are always read in
Git (``complete=False``). The "Test" button sends a sample ``git.push`` like any other.
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Commit, Event, GitPush, Ignored, Incoming, Refused
from orchestrator.webhooks.registry import Provider

PUSH = "git.push"
ZERO = "0" * 40
URLS = (
    "resource.repository.remoteUrl",
    "resource.repository.sshUrl",
    "resource.repository.webUrl",
    "resource.repository.url",
)


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_basic(incoming, secret)


def parse_push(data: dict[str, Any]) -> Event:
    refs = payloads.field(data, "resource.refUpdates", list)
    if not refs:
        raise Refused(400, "resource.refUpdates is empty")
    ref = payloads.text(refs[0], "name")
    if not ref.startswith("refs/heads/"):
        return Ignored(f"{ref} is not a branch")
    after = payloads.text(refs[0], "newObjectId")
    if after == ZERO:
        return Ignored(f"{ref} was deleted")
    before = payloads.text(refs[0], "oldObjectId", required=False)
    urls = tuple(dict.fromkeys(u for p in URLS if (u := payloads.text(data, p, required=False))))
    listed = payloads.field(data, "resource.commits", list, required=False) or []
    commits = tuple(
        Commit(
            sha=payloads.text(c, "commitId"),
            message=payloads.text(c, "comment", required=False),
        )
        for c in listed
    )
    return GitPush(
        repositories=urls,
        branch=ref.removeprefix("refs/heads/"),
        before="" if before == ZERO else before,
        after=after,
        commits=commits,
        complete=False,
        pusher=payloads.text(data, "resource.pushedBy.uniqueName", required=False)
        or payloads.text(data, "resource.pushedBy.displayName", required=False),
    )


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    event = payloads.text(data, "eventType")
    if event != PUSH:
        raise Refused(400, f"Azure DevOps event {event[:60]!r} is not handled: send {PUSH}")
    return parse_push(data)


def delivery_id(incoming: Incoming) -> str:
    try:
        event_id = payloads.text(payloads.json_object(incoming), "id", required=False).strip()
    except Refused:
        event_id = ""
    return event_id or payloads.body_hash(incoming)


PROVIDER = Provider(
    name="azure",
    title="Azure DevOps",
    scheme="HTTP basic auth whose password is the secret (user:password checks both)",
    verify=verify,
    authorize=verify,
    parse=parse,
    delivery_id=delivery_id,
)
