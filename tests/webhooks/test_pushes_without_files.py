"""Pushes whose commits list no files: a GitLab System Hook's (its documented ``push``
body), the same body as a project's Push Hook, Gitea's without path lists. Each is read
as a push of its branch whose changed paths come from Git, not as a push that changes
nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.webhooks import registry
from orchestrator.webhooks.events import GitPush, Ignored
from tests.webhooks import samples
from tests.webhooks.harness import SECRET, Harness, harness, values
from tests.webhooks.samples import credentials, sample_json, signed

SYSTEM = {"X-Gitlab-Event": "System Hook"}
PUSH_HOOK = {"X-Gitlab-Event": "Push Hook"}


def _parse(provider: str, data: Any, events: dict[str, str]) -> Any:
    body = json.dumps(data).encode()
    found = registry.providers()[provider]
    incoming = signed(provider, body, events)
    found.verify(incoming, samples.SECRET)
    return found.parse(incoming)


@pytest.mark.parametrize("events", [SYSTEM, PUSH_HOOK], ids=["system hook", "push hook"])
def test_gitlabs_system_hook_push_is_a_branch_push_read_in_git(events: dict[str, str]) -> None:
    event = _parse("gitlab", sample_json("gitlab/system-push"), events)
    assert isinstance(event, GitPush)
    assert event.branch == "master"
    assert (event.before, event.after) == (
        "95790bf891e76fee5e1747ab589903a6a1f80f22",
        "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
    )
    assert "http://example.com/mike/diaspora.git" in event.repositories
    assert event.pusher == "John Smith"  # a System Hook names the user, not the username
    assert [c.sha for c in event.commits] == ["c5feabde2d8cd023215af4d2ceeb7a64839fc428"]
    assert event.commits[0].paths == ()
    assert not event.complete  # no file lists: the changed paths are read in Git


@pytest.mark.parametrize("kind", ["tag_push", "repository_update", "project_create"])
def test_other_system_hook_events_are_ignored_by_name(kind: str) -> None:
    data = sample_json("gitlab/system-push")
    data["event_name"] = kind
    event = _parse("gitlab", data, SYSTEM)
    assert event == Ignored(f"GitLab System Hook event {kind!r} is not a branch push")


@pytest.mark.parametrize(
    ("lists", "complete"),
    [
        ({"added": ["a"], "modified": [], "removed": []}, True),
        ({}, False),
        ({"added": [], "modified": [], "removed": []}, False),
        ({"added": None, "modified": None}, False),
    ],
)
@pytest.mark.parametrize("provider", ["gitlab", "gitea"])
def test_a_commit_without_files_makes_the_push_incomplete(
    provider: str, lists: dict[str, Any], complete: bool
) -> None:
    data = sample_json(f"{provider}/push")
    for commit in data["commits"]:
        for key in ("added", "modified", "removed"):
            commit.pop(key, None)
        commit.update(lists)
    data.pop("total_commits", None)
    if provider == "gitlab":
        data["total_commits_count"] = len(data["commits"])
    events = PUSH_HOOK if provider == "gitlab" else {"X-Gitea-Event": "push"}
    event = _parse(provider, data, events)
    assert isinstance(event, GitPush) and event.complete is complete


def _system_push(h: Harness, before: str, after: str, kind: str = "push") -> bytes:
    """GitLab's documented System Hook push, for this repository's push."""
    data = sample_json("gitlab/system-push")
    web = h.repo_url.removesuffix(".git")
    data.update(event_name=kind, before=before, after=after, checkout_sha=after)
    data["ref"] = "refs/heads/main"
    for key in ("project", "repository"):
        data[key].update(git_http_url=h.repo_url, homepage=web)
    data["project"]["web_url"] = web
    data["commits"][0]["id"] = after
    return json.dumps(data).encode()


@pytest.mark.parametrize("events", [SYSTEM, PUSH_HOOK], ids=["system hook", "push hook"])
def test_a_system_hook_push_to_the_products_branch_promotes(
    tmp_path: Path, events: dict[str, str]
) -> None:
    with harness(tmp_path) as h:
        h.push({"docs/readme.md": b"hello\n"})  # the push's before is not the first commit
        before, after = h.push({"envs/dev/shop/values.yaml": values("1.6.0")}, "Release")
        body = _system_push(h, before, after)
        headers, _ = credentials("gitlab", body, SECRET)
        reply = h.post("/webhooks/gitlab", body, {**events, **headers})
        assert reply.status_code == 202, reply.text
        [promotion] = reply.json()["promotions"]
        assert (promotion["product"], promotion["version"]) == ("shop", "1.6.0")
        assert len(h.created()) == 1


def test_a_system_hook_push_that_changes_nothing_of_a_product_says_so(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        before, after = h.push({"docs/readme.md": b"hello\n"})
        body = _system_push(h, before, after)
        headers, _ = credentials("gitlab", body, SECRET)
        reply = h.post("/webhooks/gitlab", body, {**SYSTEM, **headers})
        assert reply.status_code == 200, reply.text
        assert "the push does not change envs/dev/shop" in reply.json()["message"]
        assert h.created() == []
