"""GitHub: ``push`` (and ``package`` for GHCR images) signed with ``X-Hub-Signature-256``.

GitHub signs the body with the hook's secret: ``sha256=`` + the hex HMAC-SHA256
(docs.github.com, "Validating webhook deliveries"). ``X-GitHub-Delivery`` is a GUID that a
redelivery repeats. A push payload lists at most 20 commits in some cases and can leave
files out, so a push of 20 or more commits, or a forced one, is marked incomplete and its
changed paths are read in Git.
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, GitPush, Ignored, Incoming, Ping, Refused
from orchestrator.webhooks.registry import Provider

SIGNATURE = "X-Hub-Signature-256"
EVENT = "X-GitHub-Event"
MAX_LISTED = 20
ZERO = "0" * 40


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_hmac(incoming, secret, SIGNATURE, prefix="sha256=")


def authorize(incoming: Incoming, secret: str) -> None:
    del secret  # the HMAC needs the body
    proofs.check_hmac_form(incoming, SIGNATURE, prefix="sha256=")


def event_name(incoming: Incoming) -> str:
    name = incoming.header(EVENT).strip()
    if not name:
        raise Refused(400, f"no {EVENT} header: not a GitHub delivery")
    return name


def parse_push(data: dict[str, Any]) -> Event:
    ref = payloads.text(data, "ref")
    if not ref.startswith("refs/heads/"):
        return Ignored(f"{ref} is not a branch")
    if data.get("deleted") is True:
        return Ignored(f"{ref} was deleted")
    repo = payloads.field(data, "repository", dict)
    urls = tuple(
        u
        for key in ("clone_url", "html_url", "ssh_url", "git_url", "url")
        if (u := payloads.text(repo, key, required=False))
    )
    listed = payloads.field(data, "commits", list, required=False) or []
    commits = payloads.commits(listed)
    before = payloads.text(data, "before")
    return GitPush(
        repositories=urls,
        branch=ref.removeprefix("refs/heads/"),
        before="" if before == ZERO else before,
        after=payloads.text(data, "after"),
        commits=commits,
        complete=len(commits) < MAX_LISTED and data.get("forced") is not True,
        pusher=payloads.text(data, "pusher.name", required=False)
        or payloads.text(data, "sender.login", required=False),
    )


def parse(incoming: Incoming) -> Event:
    from orchestrator.webhooks.providers import ghcr

    name = event_name(incoming)
    data = payloads.json_object(incoming)
    if name == "ping":
        return Ping(f"GitHub ping for hook {data.get('hook_id', '?')}")
    if name == "push":
        return parse_push(data)
    if name in ghcr.EVENTS:
        return ghcr.parse_package(data)
    raise Refused(400, f"GitHub event {name!r} is not handled: send push (or package) events")


def delivery_id(incoming: Incoming) -> str:
    return incoming.header("X-GitHub-Delivery").strip()


PROVIDER = Provider(
    name="github",
    title="GitHub",
    scheme=f"{SIGNATURE}: sha256= and the HMAC-SHA256 of the body with the secret",
    verify=verify,
    authorize=authorize,
    parse=parse,
    delivery_id=delivery_id,
    parse_headers=(EVENT,),
)
