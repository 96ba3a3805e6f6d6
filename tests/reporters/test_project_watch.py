"""The AppProjects' subscriptions followed through a fake Kubernetes API over real HTTP:
listed before the reporter starts, then each change, and a refusal said with what to
grant while the watch keeps trying."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from kubernetes import client

from reporters.notifications.projects import Projects
from reporters.watch.projects import follow_projects
from tests.fakes.kube_objects import FakeKubeObjects

SUBSCRIBE = "notifications.argoproj.io/subscribe.on-deployed.slack"
LEGACY = "recipients.argocd-notifications.argoproj.io"


def _api(url: str) -> Any:
    configuration = client.Configuration()
    configuration.host = url
    return client.CustomObjectsApi(client.ApiClient(configuration))


def _app(namespace: str, project: str) -> dict[str, Any]:
    return {"metadata": {"name": "shop", "namespace": namespace}, "spec": {"project": project}}


def _annotations(projects: Projects, namespace: str, project: str) -> dict[str, str] | None:
    found = projects.of(_app(namespace, project))
    return dict(found.annotations) if found is not None else None


def _waits(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_projects_are_listed_before_the_start_then_followed() -> None:
    objects = FakeKubeObjects(bookmark_interval=0.5)
    objects.put("appprojects", "argocd", "team", {}, {SUBSCRIBE: "deploys", "owner": "a"})
    objects.put("appprojects", "argocd", "quiet", {})
    objects.put("appprojects", "elsewhere", "team", {}, {SUBSCRIBE: "not-watched"})
    projects, stop, said = Projects(), threading.Event(), list[str]()
    with objects.serve() as served:
        threads = follow_projects(
            _api(served.url), ["argocd"], projects, stop.is_set, said.append, watch_seconds=2
        )
        try:
            # listed when the call returns, before any app is routed
            assert _annotations(projects, "argocd", "team") == {SUBSCRIBE: "deploys"}
            assert _annotations(projects, "argocd", "quiet") is None
            assert _annotations(projects, "elsewhere", "team") is None
            objects.put("appprojects", "argocd", "quiet", {}, {f"on-deployed.{LEGACY}": "slack"})
            _waits(lambda: _annotations(projects, "argocd", "quiet") is not None, "added")
            assert _annotations(projects, "argocd", "quiet") == {f"on-deployed.{LEGACY}": "slack"}
            objects.put("appprojects", "argocd", "team", {}, {SUBSCRIBE: "oncall"})
            _waits(
                lambda: _annotations(projects, "argocd", "team") == {SUBSCRIBE: "oncall"}, "changed"
            )
            objects.delete("appprojects", "argocd", "team")
            _waits(lambda: _annotations(projects, "argocd", "team") is None, "deleted")
            assert objects.requests[0].startswith(  # a page at a time
                "GET /apis/argoproj.io/v1alpha1/namespaces/argocd/appprojects?limit="
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join(10)
    assert said == []


def test_every_namespaces_projects_where_apps_are_watched_in_all() -> None:
    objects = FakeKubeObjects(bookmark_interval=0.2)
    objects.put("appprojects", "argocd", "team", {}, {SUBSCRIBE: "a"})
    objects.put("appprojects", "team-a", "team", {}, {SUBSCRIBE: "b"})
    projects, stop = Projects(), threading.Event()
    with objects.serve() as served:
        threads = follow_projects(
            _api(served.url), [""], projects, stop.is_set, print, watch_seconds=2
        )
        stop.set()
        for thread in threads:
            thread.join(10)
    assert _annotations(projects, "argocd", "team") == {SUBSCRIBE: "a"}
    assert _annotations(projects, "team-a", "team") == {SUBSCRIBE: "b"}
    assert objects.requests[0].startswith("GET /apis/argoproj.io/v1alpha1/appprojects?limit=")


def test_a_refused_list_says_what_to_grant_and_the_watch_keeps_trying() -> None:
    objects = FakeKubeObjects(bookmark_interval=0.5)
    objects.put("appprojects", "argocd", "team", {}, {SUBSCRIBE: "deploys"})
    objects.forbidden = {"anything"}  # a Role without appprojects
    projects, stop, said = Projects(), threading.Event(), list[str]()
    with objects.serve() as served:
        threads = follow_projects(
            _api(served.url), ["argocd"], projects, stop.is_set, said.append,
            watch_seconds=2, sleep=lambda _: time.sleep(0.05),
        )  # fmt: skip
        try:
            assert _annotations(projects, "argocd", "team") is None
            assert said[0] == (
                "cannot list appprojects.argoproj.io in argocd: 403 Forbidden (the reporter "
                "needs get, list and watch on appprojects.argoproj.io where it reads apps); "
                "retrying"
            )
            objects.forbidden = set()  # the Role is fixed
            _waits(lambda: _annotations(projects, "argocd", "team") is not None, "retried")
        finally:
            stop.set()
            for thread in threads:
                thread.join(10)
