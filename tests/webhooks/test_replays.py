"""Old deliveries replayed once their Workflow is gone (Argo's TTL) and after a restart of
the service: they never move the trigger environment backwards.

A real Git server (``git http-backend``), the fake Argo Server in Argo's shapes and the
service on uvicorn; "the Workflow is gone" is the fake server forgetting it, "a restart" a
new service with an empty cache directory, as a new pod would start.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pygit2
import pytest

from orchestrator.adapters.gitreads import GitReads
from orchestrator.simulator.serve import ServerThread
from orchestrator.webhooks.app import create_app
from tests.webhooks.harness import (
    BRANCH,
    NAMESPACE,
    SECRET,
    Harness,
    commit,
    github_push,
    harness,
    make_service,
    signed,
    values,
)

SHOP = "envs/dev/shop/values.yaml"
CART = "envs/dev/cart/values.yaml"
REGISTRY = "hub.harbor.com"
IMAGE_TRIGGER = (
    f"triggers:\n  images: [{{repository: {REGISTRY}/acme/shop, digestField: image.digest}}]\n"
)


def _digest(n: int) -> str:
    return "sha256:" + f"{n:x}" * 64


def _release(h: Harness, tag: str, path: str = SHOP) -> bytes:
    before, after = h.push({path: values(tag, _digest(len(tag)))}, f"Release {tag}")
    return github_push(h.repo_url, before, after, [(after, f"Release {tag}", [path])])


def _workflows_gone(h: Harness) -> None:
    """What Argo's TTL (or an operator) does: the runs are deleted."""
    for workflow in h.created():
        h.argo.store.delete("Workflow", NAMESPACE, workflow["metadata"]["name"])
    assert h.created() == []


@contextmanager
def _restarted(h: Harness, cache: Path) -> Iterator[str]:
    """A new service process: nothing remembered, an empty Git cache."""
    reader = GitReads(cache)
    service = make_service(h.config, h.argo.url, reader)
    with ServerThread(create_app(service), lifespan=True) as server:
        yield server.url
    reader.close()


def _post(url: str, path: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{url}{path}", content=body, headers=headers, timeout=30)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Harness]:
    with harness(tmp_path) as h:
        yield h


@pytest.mark.parametrize("where", ["same service", "restarted service"])
def test_a_replayed_old_push_is_refused_once_the_branch_holds_a_newer_version(
    hub: Harness, tmp_path: Path, where: str
) -> None:
    old = _release(hub, "1.2.0")
    assert hub.post("/webhooks/github", old, signed(old)).status_code == 202
    new = _release(hub, "1.3.0")
    assert hub.post("/webhooks/github", new, signed(new)).status_code == 202
    _workflows_gone(hub)
    if where == "same service":
        # the run this process submitted is answered from memory: a duplicate, no run
        again = hub.post("/webhooks/github", old, signed(old))
        assert again.status_code == 202, again.text
        assert again.json()["promotions"][0]["status"] == "already submitted"
        # as after 10,000 other runs: the names submitted, and the answers remembered
        # (fewer), are forgotten
        hub.service.submissions._recent.clear()
        hub.service._answers.clear()
        reply = hub.post("/webhooks/github", old, signed(old))
    else:
        with _restarted(hub, tmp_path / "new-pod") as url:
            reply = _post(url, "/webhooks/github", old, signed(old))
    assert reply.status_code == 409, reply.text
    message = reply.json()["message"]
    assert "1.2.0" in message and "1.3.0" in message and "older" in message
    assert hub.created() == [] and hub.creates() == 2


def test_the_tip_pushed_again_after_its_run_is_gone_promotes(hub: Harness, tmp_path: Path) -> None:
    """Still the tip: a redelivery after the Workflow is gone starts the run again (its
    steps find the environments holding the version, or promote it where they do not)."""
    body = _release(hub, "1.3.0")
    assert hub.post("/webhooks/github", body, signed(body)).status_code == 202
    _workflows_gone(hub)
    with _restarted(hub, tmp_path / "new-pod") as url:
        reply = _post(url, "/webhooks/github", body, signed(body))
    assert reply.status_code == 202, reply.text
    assert [w["metadata"]["name"] for w in hub.created()] == [reply.json()["promotions"][0]["run"]]


def test_a_late_push_whose_version_the_branch_still_holds_promotes(
    hub: Harness, tmp_path: Path
) -> None:
    """An ancestor of the tip that is not older than what the tip holds: another product's
    commit came after it, shop's version is the same."""
    shop = _release(hub, "1.3.0")
    cart = _release(hub, "2.0.0", CART)
    assert hub.post("/webhooks/github", cart, signed(cart)).status_code == 202
    with _restarted(hub, tmp_path / "new-pod") as url:
        reply = _post(url, "/webhooks/github", shop, signed(shop))
    assert reply.status_code == 202, reply.text
    assert reply.json()["promotions"][0]["version"] == "1.3.0"


def test_a_commit_that_is_not_on_the_branch_is_refused(hub: Harness) -> None:
    """A commit of another branch (or one force-pushed away) presented as a push to main."""
    repo = pygit2.Repository(str(hub.bare))
    repo.branches.local.create("side", repo.references[f"refs/heads/{BRANCH}"].peel(pygit2.Commit))
    before = str(repo.references["refs/heads/side"].target)
    after = commit(hub.bare, {SHOP: values("9.9.9", _digest(9))}, "Side release", "side")
    body = github_push(hub.repo_url, before, after, [(after, "Side release", [SHOP])])
    _release(hub, "1.1.0")
    reply = hub.post("/webhooks/github", body, signed(body))
    assert reply.status_code == 409, reply.text
    message = reply.json()["message"]
    assert f"{after[:12]} (version 9.9.9) is not on {BRANCH}" in message
    assert "1.1.0" in message
    assert hub.created() == []


def _harbor(tag: str, digest: str) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(
        {
            "type": "PUSH_ARTIFACT",
            "occur_at": 1586922308,
            "operator": "ci",
            "event_data": {
                "resources": [
                    {
                        "digest": digest,
                        "tag": tag,
                        "resource_url": f"{REGISTRY}/acme/shop:{tag}",
                    }
                ],
                "repository": {"name": "shop", "namespace": "acme", "repo_full_name": "acme/shop"},
            },
        }
    ).encode()
    return body, {"Content-Type": "application/json", "Authorization": SECRET}


def test_image_events_promote_only_a_newer_version_than_the_trigger_environment(
    tmp_path: Path,
) -> None:
    with harness(tmp_path, IMAGE_TRIGGER, products=("shop",)) as h:
        first = _harbor("1.5.0", _digest(5))
        assert h.post("/webhooks/harbor", *first).status_code == 202
        # what its run did in dev (the promote step writes the pushed version there)
        h.push({SHOP: values("1.5.0", _digest(5))}, "Promote shop 1.5.0 to dev")
        _workflows_gone(h)
        with _restarted(h, tmp_path / "new-pod") as url:
            again = _post(url, "/webhooks/harbor", *first)
            older = _post(url, "/webhooks/harbor", *_harbor("1.4.1", _digest(4)))
            newer = _post(url, "/webhooks/harbor", *_harbor("1.6.0", _digest(6)))
        created = [w["metadata"]["name"] for w in h.created()]
    assert again.status_code == 409, again.text
    assert "dev holds 1.5.0" in again.json()["message"]
    assert "holds this version already" in again.json()["message"]
    assert older.status_code == 409, older.text
    assert "1.4.1 is older" in older.json()["message"]
    assert newer.status_code == 202, newer.text
    assert created == [newer.json()["promotions"][0]["run"]]


def test_tags_the_order_cannot_compare_are_refused_and_say_which_order(
    tmp_path: Path,
) -> None:
    """Under the default semver order, a tag that is no version is not guessed at."""
    trigger = IMAGE_TRIGGER.replace("digestField", "regex: 'main-.*', digestField")
    with harness(tmp_path, trigger, products=("shop",)) as h:
        reply = h.post("/webhooks/harbor", *_harbor("main-4f2a", _digest(7)))
        assert h.created() == []
    assert reply.status_code == 409, reply.text
    assert "cannot tell whether main-4f2a is newer (order: semver" in reply.json()["message"]


def test_numeric_order_compares_build_numbers(tmp_path: Path) -> None:
    trigger = IMAGE_TRIGGER + "  order: numeric\n"
    with harness(tmp_path, trigger, products=("shop",)) as h:
        h.push({SHOP: values("build-9", _digest(1))}, "dev runs build 9")
        older = h.post("/webhooks/harbor", *_harbor("build-8", _digest(8)))
        newer = h.post("/webhooks/harbor", *_harbor("build-10", _digest(10)))
    assert older.status_code == 409 and "build-8 is older" in older.json()["message"]
    assert newer.status_code == 202, newer.text


class _CountingTips(GitReads):
    """The service's reader, counting the questions put to the Git server about the tip,
    and holding them at a gate when a test needs deliveries to overlap."""

    def __init__(self, cache: Path, gate: threading.Event | None = None) -> None:
        super().__init__(cache)
        self.tips = 0
        self.gate = gate

    def tip(self, url: str, branch: str) -> str | None:
        self.tips += 1
        if self.gate is not None:
            assert self.gate.wait(30)
        return super().tip(url, branch)


def test_a_refused_push_stays_refused_without_asking_the_git_server_again(
    hub: Harness, tmp_path: Path
) -> None:
    """Its redeliveries are answered from memory: the branch comes back to its commit only
    by another push, an event of its own."""
    old = _release(hub, "1.2.0")
    _release(hub, "1.3.0")
    reader = _CountingTips(tmp_path / "pod")
    service = make_service(hub.config, hub.argo.url, reader)
    with ServerThread(create_app(service), lifespan=True) as server:
        replies = [_post(server.url, "/webhooks/github", old, signed(old)) for _ in range(5)]
    reader.close()
    assert [r.status_code for r in replies] == [409] * 5
    assert len({r.json()["message"] for r in replies}) == 1
    assert reader.tips == 1
    counts = [
        sample.value
        for sample in service.metrics.branch_checks.collect()[0].samples
        if sample.name.endswith("_count")
    ]
    assert counts == [1]


def test_deliveries_of_one_push_that_overlap_share_one_check(hub: Harness, tmp_path: Path) -> None:
    """Five deliveries arrive while the first one's check waits for the Git server: one
    question, one run, the same answer for all."""
    body = _release(hub, "1.3.0")
    gate = threading.Event()
    reader = _CountingTips(tmp_path / "pod", gate)
    service = make_service(hub.config, hub.argo.url, reader)
    with ServerThread(create_app(service), lifespan=True) as server, ThreadPoolExecutor(5) as pool:
        sent = [
            pool.submit(_post, server.url, "/webhooks/github", body, signed(body)) for _ in range(5)
        ]
        deadline = time.monotonic() + 30
        while reader.tips == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # the others arrive meanwhile
        gate.set()
        replies = [future.result() for future in sent]
    reader.close()
    assert [r.status_code for r in replies] == [202] * 5, [r.text for r in replies]
    assert reader.tips == 1
    assert len({r.json()["promotions"][0]["run"] for r in replies}) == 1
    assert len(hub.created()) == 1
