"""GitHub: ``push`` (and ``package`` for GHCR images) signed with ``X-Hub-Signature-256``
(the signature, the headers and the package payload: :mod:`orchestrator.webhooks.githubhooks`).

A push payload lists at most 20 commits in some cases and can leave
files out, so a push of 20 or more commits, or a forced one, is marked incomplete and its
changed paths are read in Git.
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import githubhooks, payloads
from orchestrator.webhooks.events import Event, GitPush, Ignored, Incoming, Refused
from orchestrator.webhooks.registry import Provider

MAX_LISTED = 20
ZERO = "0" * 40


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
    name = githubhooks.event_name(incoming)
    data = payloads.json_object(incoming)
    if name == "ping":
        return githubhooks.ping(data)
    if name == "push":
        return parse_push(data)
    if name in githubhooks.PACKAGE_EVENTS:
        return githubhooks.parse_package(data)
    raise Refused(400, f"GitHub event {name!r} is not handled: send push (or package) events")


PROVIDER = Provider(
    name="github",
    title="GitHub",
    scheme=githubhooks.SCHEME,
    verify=githubhooks.PROOF.verify,
    authorize=githubhooks.PROOF.authorize,
    parse=parse,
    delivery_id=githubhooks.delivery_id,
    parse_headers=(githubhooks.EVENT,),
)
