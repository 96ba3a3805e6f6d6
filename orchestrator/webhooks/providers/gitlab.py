"""GitLab: ``Push Hook`` deliveries of project and group webhooks, and the ``push`` events of
an instance's System Hooks, with ``X-Gitlab-Token``.

GitLab does not sign the body: the webhook's "Secret token" is sent as is in
``X-Gitlab-Token`` (docs.gitlab.com, "Webhooks", "Create an example webhook receiver" /
"Secret token"), compared here in constant time. ``Idempotency-Key``, sent by recent
GitLab, is the same on a retry; older GitLab sends only ``X-Gitlab-Event-UUID``.

Read (docs.gitlab.com, "Webhook events", "Push events"): ``ref``, ``before``, ``after``, the
clone and web URLs of ``project`` and ``repository``, ``commits[].{id,message,added,
modified,removed}``, ``total_commits_count`` and ``user_username``. GitLab lists at most the
newest 20 commits, so a push is complete only when ``total_commits_count`` is the number
listed and every listed commit names the files it changed. A System Hook sends a push as
``X-Gitlab-Event: System Hook`` with ``event_name: push`` and the same body, except that its
commits list no files (docs.gitlab.com, "System hooks", "Push events"); large pushes omit
them too. Such a push is incomplete, and the changed paths are read in Git, as for
Bitbucket. A ``Tag Push Hook``, and System Hook events other than ``push``, are verified and
ignored; a deleted branch (``after`` all zeros) is ignored; a new branch (``before`` all
zeros) has no ``before``.
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, GitPush, Ignored, Incoming, Refused
from orchestrator.webhooks.registry import Provider

TOKEN = "X-Gitlab-Token"
EVENT = "X-Gitlab-Event"
PUSH = "Push Hook"
SYSTEM = "System Hook"
IGNORED = ("Tag Push Hook",)
MAX_LISTED = 20
ZERO = "0" * 40
URLS = (
    "project.git_http_url",
    "project.git_ssh_url",
    "project.web_url",
    "repository.git_http_url",
    "repository.git_ssh_url",
    "repository.homepage",
    "repository.url",
)


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_token(incoming, secret, TOKEN)


def event_name(incoming: Incoming) -> str:
    name = incoming.header(EVENT).strip()
    if not name:
        raise Refused(400, f"no {EVENT} header: not a GitLab delivery")
    return name


def parse_push(data: dict[str, Any]) -> Event:
    ref = payloads.text(data, "ref")
    if not ref.startswith("refs/heads/"):
        return Ignored(f"{ref} is not a branch")
    after = payloads.text(data, "after")
    if after == ZERO:
        return Ignored(f"{ref} was deleted")
    urls = tuple(dict.fromkeys(u for p in URLS if (u := payloads.text(data, p, required=False))))
    listed = payloads.field(data, "commits", list, required=False) or []
    commits = payloads.commits(listed)
    total = payloads.field(data, "total_commits_count", int, required=False)
    before = payloads.text(data, "before")
    every_listed = total == len(commits) and len(commits) <= MAX_LISTED
    return GitPush(
        repositories=urls,
        branch=ref.removeprefix("refs/heads/"),
        before="" if before == ZERO else before,
        after=after,
        commits=commits,
        complete=every_listed and payloads.paths_listed(listed),
        pusher=payloads.text(data, "user_username", required=False)
        or payloads.text(data, "user_name", required=False),
    )


def parse(incoming: Incoming) -> Event:
    name = event_name(incoming)
    if name in IGNORED:
        return Ignored(f"GitLab {name} is not a branch push")
    if name == SYSTEM:
        data = payloads.json_object(incoming)
        kind = payloads.text(data, "event_name", required=False)
        if kind != "push":
            return Ignored(f"GitLab System Hook event {kind[:60]!r} is not a branch push")
        return parse_push(data)
    if name != PUSH:
        raise Refused(400, f"GitLab event {name[:60]!r} is not handled: send push events")
    return parse_push(payloads.json_object(incoming))


def delivery_id(incoming: Incoming) -> str:
    return (
        incoming.header("Idempotency-Key").strip() or incoming.header("X-Gitlab-Event-UUID").strip()
    )


PROVIDER = Provider(
    name="gitlab",
    title="GitLab",
    scheme=f"{TOKEN}: the secret token itself",
    verify=verify,
    authorize=verify,
    parse=parse,
    delivery_id=delivery_id,
    parse_headers=(EVENT,),
)
