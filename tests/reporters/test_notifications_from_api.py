"""Argo CD's ``argocd-notifications-cm`` and ``argocd-notifications-secret`` read through
the Kubernetes API (the official client, over real HTTP, against a fake API server) and
followed: each new configuration handed on, each broken one refused with its problems at
``NAMESPACE/NAME/KEY:LINE:COL``, and no secret's value in any of it."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reporters.notifications.errors import ConfigError
from reporters.watch.configsource import Loaded, NotificationsSource, build, parse_ref
from tests.fakes.kube_objects import FakeKubeObjects, core_v1_at

CM, SECRET = ("argocd", "argocd-notifications-cm"), ("argocd", "argocd-notifications-secret")
TOKEN, ROTATED = "xoxb-first-t0ken", "xoxb-rotated-t0ken"
GOOD = {
    "service.slack": "token: $slack-token\n",
    "template.deployed": "message: 'deployed {{.app.metadata.name}}'\n",
    "trigger.on-deployed": (
        "- when: app.status.operationState.phase in ['Succeeded']\n  send: [deployed]\n"
    ),
    "subscriptions": "- recipients: [slack:deploys]\n  triggers: [on-deployed]\n",
}
BROKEN_TRIGGER = "- when: app.status.operationState.phase ==\n  send: [deployd]\n"


@pytest.fixture
def fake() -> Iterator[tuple[FakeKubeObjects, Any]]:
    objects = FakeKubeObjects(bookmark_interval=0.3)
    objects.put("configmaps", *CM, GOOD)
    objects.put("secrets", *SECRET, {"slack-token": TOKEN})
    objects.put("configmaps", "argocd", "argocd-cm", {"url": "https://cd.example.com"})
    with objects.serve() as served:
        yield objects, core_v1_at(served.url)


class Followed:
    """What a source following the objects handed on, and what it logged."""

    def __init__(self, source: NotificationsSource) -> None:
        self.loaded: list[Loaded] = []
        self.refused: list[list[str]] = []
        self.logs: list[str] = []
        source.log = self.logs.append
        self.stopping = threading.Event()
        self.threads = source.follow(self.loaded.append, self.refused.append, self.stopping.is_set)

    def until(self, check: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + 20
        while not check():
            assert time.monotonic() < deadline, (what, self.logs)
            time.sleep(0.02)

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(5)


def _token(loaded: Loaded) -> str:
    return str(loaded.config.services["slack"].options.token)  # type: ignore[attr-defined]


def test_the_configmap_and_secret_are_read_by_name_through_the_api(
    fake: tuple[FakeKubeObjects, Any],
) -> None:
    objects, api = fake
    loaded = NotificationsSource(api, CM, SECRET).load()
    assert _token(loaded) == TOKEN
    assert loaded.secrets == {"slack-token": TOKEN}
    assert [s.recipients for s in loaded.config.subscriptions] == [(("slack", "deploys"),)]
    # only ever the two objects, by name: what a Role with resourceNames allows
    assert objects.requests and all(
        "fieldSelector=metadata.name%3Dargocd-notifications-" in r for r in objects.requests
    )


def test_problems_are_told_where_they_were_written_in_the_configmaps_keys(
    fake: tuple[FakeKubeObjects, Any],
) -> None:
    objects, api = fake
    objects.put("configmaps", *CM, {**GOOD, "trigger.on-deployed": BROKEN_TRIGGER})
    with pytest.raises(ConfigError) as caught:
        NotificationsSource(api, CM, SECRET).load()
    assert str(caught.value).splitlines() == [
        "argocd/argocd-notifications-cm/trigger.on-deployed:1:3: error: "
        "trigger.on-deployed[0].when: unexpected token EOF (1:34)",
        "argocd/argocd-notifications-cm/trigger.on-deployed:2:10: error: "
        "unknown template 'deployd' (did you mean 'deployed'?)",
    ]


def test_a_missing_configmap_is_an_error_and_a_missing_secret_an_empty_one(
    fake: tuple[FakeKubeObjects, Any],
) -> None:
    objects, api = fake
    with pytest.raises(ConfigError) as missing:
        NotificationsSource(api, ("argocd", "notifications-elsewhere"), SECRET).load()
    assert str(missing.value) == (
        "argocd/notifications-elsewhere:1:1: error: ConfigMap not found: create it, or point "
        "--notifications-from at the one Argo CD reads"
    )
    objects.delete("secrets", *SECRET)
    with pytest.raises(ConfigError) as unresolved:
        NotificationsSource(api, CM, SECRET).load()
    assert str(unresolved.value) == (
        "argocd/argocd-notifications-cm/service.slack:1:1: error: service.slack: secret "
        "'slack-token' is not in argocd/argocd-notifications-secret"
    )
    objects.put("configmaps", *CM, {**GOOD, "service.slack": "token: xoxb-inline\n"})
    assert NotificationsSource(api, CM, SECRET).load().secrets == {}


def test_a_secret_value_that_is_not_text_is_named_by_its_key_never_shown() -> None:
    secret = {"data": {"slack-token": base64.b64encode(b"\xff\xfesecret\x80").decode()}}
    with pytest.raises(ConfigError) as caught:
        build({"data": GOOD}, secret, ("argocd/cm", "argocd/secret"))
    assert str(caught.value) == (
        "argocd/secret:1:1: error: data.slack-token: the value is not UTF-8 text"
    )


def test_each_change_is_followed_and_a_broken_one_refused_until_fixed(
    fake: tuple[FakeKubeObjects, Any],
) -> None:
    objects, api = fake
    source = NotificationsSource(api, CM, SECRET, watch_seconds=2)
    first = source.load()
    followed = Followed(source)
    try:
        renamed = {**GOOD, "template.deployed": "message: 'live {{.app.metadata.name}}'\n"}
        objects.put("configmaps", *CM, renamed)
        followed.until(lambda: len(followed.loaded) == 1, "the new template")
        assert followed.loaded[0].config.templates["deployed"]["message"].startswith("live")
        assert first.config.templates["deployed"]["message"].startswith("deployed")

        objects.put("configmaps", *CM, {**renamed, "trigger.on-deployed": BROKEN_TRIGGER})
        followed.until(lambda: len(followed.refused) == 1, "the broken change refused")
        assert followed.refused[0][0].startswith(
            "argocd/argocd-notifications-cm/trigger.on-deployed:1:3: error: "
        )
        assert f"notifications: refused: {followed.refused[0][1]}" in followed.logs

        objects.put("configmaps", *CM, renamed)  # fixed
        followed.until(lambda: len(followed.loaded) == 2, "the fixed configuration")
        objects.put("configmaps", "argocd", "argocd-cm", {"url": "elsewhere"})  # not followed
        objects.put("configmaps", *CM, renamed)  # a new version, the same data
        time.sleep(0.5)
        assert len(followed.loaded) == 2 and len(followed.refused) == 1
    finally:
        followed.stop()


def test_a_changed_secret_resolves_the_references_again_and_is_never_told(
    fake: tuple[FakeKubeObjects, Any],
) -> None:
    objects, api = fake
    source = NotificationsSource(api, CM, SECRET, watch_seconds=2)
    source.load()
    followed = Followed(source)
    try:
        objects.put("secrets", *SECRET, {"slack-token": ROTATED})
        followed.until(lambda: len(followed.loaded) == 1, "the rotated token")
        assert _token(followed.loaded[0]) == ROTATED
        objects.put("secrets", *SECRET, {"other": ROTATED})
        followed.until(lambda: len(followed.refused) == 1, "a reference gone")
        objects.delete("configmaps", *CM)
        followed.until(lambda: len(followed.refused) == 2, "the ConfigMap deleted")
    finally:
        followed.stop()
    assert followed.refused == [
        [
            "argocd/argocd-notifications-cm/service.slack:1:1: error: service.slack: secret "
            "'slack-token' is not in argocd/argocd-notifications-secret"
        ],
        [
            "argocd/argocd-notifications-cm:1:1: error: ConfigMap deleted: the last "
            "configuration read keeps serving"
        ],
    ]
    told = "\n".join(followed.logs + [line for lines in followed.refused for line in lines])
    assert TOKEN not in told and ROTATED not in told


def test_a_compacted_history_lists_the_objects_again(
    fake: tuple[FakeKubeObjects, Any],
) -> None:
    objects, api = fake
    source = NotificationsSource(api, CM, SECRET, watch_seconds=1)
    source.load()
    objects.expire_watch_history()
    objects.put("secrets", *SECRET, {"slack-token": ROTATED})
    objects.expire_watch_history()  # the change itself is gone from the history too
    followed = Followed(source)
    try:
        followed.until(lambda: len(followed.loaded) == 1, "the change, found by a new list")
    finally:
        followed.stop()
    assert _token(followed.loaded[0]) == ROTATED
    lists = [r for r in objects.requests if "secrets?" in r and "watch=true" not in r]
    assert len(lists) == 2  # the first, and the one after 410 Gone


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("argocd-notifications-cm", "expected NAMESPACE/NAME"),
        ("argocd/", "expected NAMESPACE/NAME"),
        ("a/b/c", "expected NAMESPACE/NAME"),
    ],
)
def test_a_reference_is_namespace_and_name(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_ref(text)
    assert parse_ref("argocd/argocd-notifications-cm") == CM
