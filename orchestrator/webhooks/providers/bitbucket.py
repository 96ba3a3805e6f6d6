"""Bitbucket Cloud: ``repo:push`` deliveries signed with ``X-Hub-Signature``.

A Bitbucket Cloud webhook with a secret (since 2023: bitbucket.org/blog, "Enhanced webhook
security"; support.atlassian.com, "Manage webhooks") signs the body:
``X-Hub-Signature: sha256=`` and the hex HMAC-SHA256 of the body with the secret (SHA-256
under the name GitHub uses for SHA-1). ``X-Request-UUID`` names the delivery; without it
``X-Hook-UUID`` and the body's hash do. ``diagnostics:ping`` is the hook's test.

Read (support.atlassian.com, "Event payloads", "Push"): the first of ``push.changes[]``
whose ``new`` is a branch: ``new.name``, ``old.target.hash`` (no ``old``: a new branch),
``new.target.hash``, ``commits[].{hash,message}``; ``repository.links.html.href`` and
``repository.full_name``; ``actor``. Bitbucket lists at most 5 commits per change
(``truncated``) and no paths at all, so the changed paths are always read in Git
(``complete=False``). A push of tags only, or of deleted branches only, is ignored.
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Commit, Event, GitPush, Ignored, Incoming, Ping, Refused
from orchestrator.webhooks.registry import Provider

SIGNATURE = "X-Hub-Signature"
EVENT = "X-Event-Key"
PUSH = "repo:push"
PING = "diagnostics:ping"
WEB = "https://bitbucket.org"


PROOF = proofs.BodyHmac(SIGNATURE, prefix="sha256=")


def event_name(incoming: Incoming) -> str:
    name = incoming.header(EVENT).strip()
    if not name:
        raise Refused(400, f"no {EVENT} header: not a Bitbucket delivery")
    return name


def parse_push(data: dict[str, Any]) -> Event:
    changes = payloads.field(data, "push.changes", list)
    branches = [
        c
        for c in changes
        if payloads.text(c, "new.type", required=False) == "branch"
        or payloads.text(c, "old.type", required=False) == "branch"
    ]
    change = next((c for c in branches if isinstance(c.get("new"), dict)), None)
    if change is None:
        if branches:
            return Ignored("the push deleted branches only")
        return Ignored("the push changed no branch")
    branch = payloads.text(change, "new.name")
    listed = payloads.field(change, "commits", list, required=False) or []
    commits = tuple(
        Commit(sha=payloads.text(c, "hash"), message=payloads.text(c, "message", required=False))
        for c in listed
    )
    full_name = payloads.text(data, "repository.full_name", required=False).strip("/")
    urls = tuple(
        dict.fromkeys(
            u
            for u in (
                payloads.text(data, "repository.links.html.href", required=False),
                f"{WEB}/{full_name}.git" if full_name else "",
            )
            if u
        )
    )
    return GitPush(
        repositories=urls,
        branch=branch,
        before=payloads.text(change, "old.target.hash", required=False),
        after=payloads.text(change, "new.target.hash"),
        commits=commits,
        complete=False,
        pusher=payloads.text(data, "actor.nickname", required=False)
        or payloads.text(data, "actor.display_name", required=False)
        or payloads.text(data, "actor.username", required=False),
    )


def parse(incoming: Incoming) -> Event:
    name = event_name(incoming)
    if name == PING:
        return Ping("Bitbucket webhook test")
    if name != PUSH:
        raise Refused(400, f"Bitbucket event {name[:60]!r} is not handled: send repo:push events")
    return parse_push(payloads.json_object(incoming))


def delivery_id(incoming: Incoming) -> str:
    request = incoming.header("X-Request-UUID").strip()
    if request:
        return request
    hook = incoming.header("X-Hook-UUID").strip()
    return f"{hook}:{payloads.body_hash(incoming)}" if hook else ""


PROVIDER = Provider(
    name="bitbucket",
    title="Bitbucket Cloud",
    scheme=f"{SIGNATURE}: sha256= and the HMAC-SHA256 of the body with the secret",
    verify=PROOF.verify,
    authorize=PROOF.authorize,
    parse=parse,
    delivery_id=delivery_id,
    parse_headers=(EVENT,),
)
