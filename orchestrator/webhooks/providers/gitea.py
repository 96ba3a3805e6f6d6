"""Gitea and Forgejo (and Gogs): ``push`` deliveries signed with ``X-Gitea-Signature``.

Gitea signs the body with the hook's secret: ``X-Gitea-Signature`` is the hex HMAC-SHA256
of the body, without a prefix (docs.gitea.com, "Webhooks", the PHP receiver example);
Forgejo, a fork of Gitea, sends the same value as ``X-Forgejo-Signature`` too, Gogs as
``X-Gogs-Signature``. The event is in ``X-Gitea-Event`` (``X-Forgejo-Event``,
``X-Gogs-Event``), the delivery's GUID in ``X-Gitea-Delivery`` (``X-Forgejo-Delivery``).

Read (docs.gitea.com, "Webhooks", "Event information"): a payload like GitHub's, ``ref``,
``before``, ``after``, ``repository.{clone_url,html_url,ssh_url}``,
``commits[].{id,message,added,removed,modified}``, ``total_commits`` and ``pusher``. Gitea
lists a limited number of commits (``[webhook] PAYLOAD_COMMIT_LIMIT``) and older versions
list no paths, so a push is complete only when ``total_commits`` (when sent) is the number
listed and every commit names a changed file (lists absent or empty are read in Git).
"""

from __future__ import annotations

from typing import Any

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, GitPush, Ignored, Incoming, Refused
from orchestrator.webhooks.registry import Provider

SIGNATURES = ("X-Gitea-Signature", "X-Forgejo-Signature", "X-Gogs-Signature")
EVENTS = ("X-Gitea-Event", "X-Forgejo-Event", "X-Gogs-Event")
DELIVERIES = ("X-Gitea-Delivery", "X-Forgejo-Delivery", "X-Gogs-Delivery")
ZERO = "0" * 40
URLS = ("clone_url", "html_url", "ssh_url")


def _first_header(incoming: Incoming, names: tuple[str, ...]) -> tuple[str, str]:
    """The first of ``names`` the delivery carries, and its value (``""`` twice: none)."""
    for name in names:
        value = incoming.header(name).strip()
        if value:
            return name, value
    return "", ""


def _signature(incoming: Incoming) -> str:
    header, _ = _first_header(incoming, SIGNATURES)
    if not header:
        raise Refused(401, f"unsigned delivery: no {SIGNATURES[0]} (or {SIGNATURES[1]}) header")
    return header


def authorize(incoming: Incoming, secret: str) -> None:
    del secret  # the HMAC needs the body
    proofs.check_hmac_form(incoming, _signature(incoming))


def verify(incoming: Incoming, secret: str) -> None:
    proofs.check_hmac(incoming, secret, _signature(incoming))


def event_name(incoming: Incoming) -> str:
    _, name = _first_header(incoming, EVENTS)
    if not name:
        raise Refused(400, f"no {EVENTS[0]} (or {EVENTS[1]}) header: not a Gitea delivery")
    return name


def parse_push(data: dict[str, Any]) -> Event:
    ref = payloads.text(data, "ref")
    if not ref.startswith("refs/heads/"):
        return Ignored(f"{ref} is not a branch")
    after = payloads.text(data, "after")
    if after == ZERO:
        return Ignored(f"{ref} was deleted")
    repo = payloads.field(data, "repository", dict)
    urls = tuple(dict.fromkeys(u for k in URLS if (u := payloads.text(repo, k, required=False))))
    listed = payloads.field(data, "commits", list, required=False) or []
    commits = payloads.commits(listed)
    total = payloads.field(data, "total_commits", int, required=False)
    before = payloads.text(data, "before")
    return GitPush(
        repositories=urls,
        branch=ref.removeprefix("refs/heads/"),
        before="" if before == ZERO else before,
        after=after,
        commits=commits,
        complete=payloads.paths_listed(listed) and (total is None or total == len(commits)),
        pusher=payloads.text(data, "pusher.login", required=False)
        or payloads.text(data, "pusher.username", required=False),
    )


def parse(incoming: Incoming) -> Event:
    name = event_name(incoming)
    if name != "push":
        raise Refused(400, f"Gitea event {name[:60]!r} is not handled: send push events")
    return parse_push(payloads.json_object(incoming))


def delivery_id(incoming: Incoming) -> str:
    return _first_header(incoming, DELIVERIES)[1]


PROVIDER = Provider(
    name="gitea",
    title="Gitea / Forgejo",
    scheme=f"{SIGNATURES[0]} (or {SIGNATURES[1]}): the HMAC-SHA256 of the body with the secret",
    verify=verify,
    authorize=authorize,
    parse=parse,
    delivery_id=delivery_id,
    parse_headers=EVENTS,
)
