"""Apps subscribed through their AppProject, as Argo CD's notifications controller reads
them (``alterDestinations``): the project's subscription annotations and its legacy
``recipients.argocd-notifications.argoproj.io`` ones, merged with the app's and the
configuration's as a union, the project read when the app's update is routed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reporters.notifications.config import Notifications
from reporters.notifications.notifier import Notifier
from reporters.notifications.projects import Project, Projects
from reporters.notifications.subscriptions import wanted
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.notifications import loaded, outbox
from tests.support.reporter_apps import app

DATA = """\
  service.webhook.audit: |
    url: https://audit.example.com/hooks
  service.webhook.pager: |
    url: https://pager.example.com/hooks
  template.degraded: |
    message: "{{.app.metadata.name}} is degraded"
  template.synced: |
    message: "{{.app.metadata.name}} is synced"
  trigger.on-degraded: |
    - when: app.status.health.status == 'Degraded'
      send: [degraded]
  trigger.on-synced: |
    - when: app.status.sync.status == 'Synced'
      send: [synced]
  defaultTriggers: |
    - on-degraded
  defaultTriggers.pager: |
    - on-synced
"""
LEGACY = "recipients.argocd-notifications.argoproj.io"
SUBSCRIBE = "notifications.argoproj.io/subscribe"


@pytest.fixture
def config(tmp_path: Path) -> Notifications:
    return loaded(tmp_path, DATA)


def _project(annotations: dict[str, str], key: str = "argocd/team") -> Project:
    return Project(key, annotations)


def _wanted(
    config: Notifications, project: Project | None, own: dict[str, str] | None = None
) -> tuple[dict[str, set[tuple[str, str]]], list[str]]:
    subject = app()
    subject["metadata"]["annotations"] = own or {}
    problems: list[str] = []
    return wanted(config, subject, problems.append, project), problems


def test_a_projects_annotation_subscribes_its_apps(config: Notifications) -> None:
    project = _project({f"{SUBSCRIBE}.on-degraded.slack": "oncall;deploys"})
    assert _wanted(config, project) == (
        {"on-degraded": {("slack", "oncall"), ("slack", "deploys")}},
        [],
    )
    listed = "- trigger: [on-synced]\n  destinations: [{service: audit, recipients: ['']}]\n"
    by_list = _project({"notifications.argoproj.io/subscriptions": listed})
    assert _wanted(config, by_list)[0] == {"on-synced": {("audit", "")}}


def test_the_projects_and_the_apps_merge_as_a_union(config: Notifications) -> None:
    project = _project(
        {f"{SUBSCRIBE}.on-degraded.slack": "oncall", f"{SUBSCRIBE}.on-synced.audit": ""}
    )
    own = {f"{SUBSCRIBE}.on-degraded.slack": "oncall;deploys"}
    assert _wanted(config, project, own)[0] == {
        "on-degraded": {("slack", "oncall"), ("slack", "deploys")},
        "on-synced": {("audit", "")},
    }


def test_a_project_without_annotations_changes_nothing(config: Notifications) -> None:
    own = {f"{SUBSCRIBE}.slack": "deploys"}
    assert _wanted(config, _project({}), own) == _wanted(config, None, own)
    assert _wanted(config, _project({}))[0] == {}


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        # no trigger in the key: the configuration's default triggers
        ({LEGACY: "slack:deploys"}, {"on-degraded": {("slack", "deploys")}}),
        ({f"on-synced.{LEGACY}": "slack:deploys"}, {"on-synced": {("slack", "deploys")}}),
        # commas split, each part trimmed, the empty ones skipped; no recipient: the service
        (
            {f"on-synced.{LEGACY}": " slack:a ,, audit,slack:b"},
            {"on-synced": {("slack", "a"), ("slack", "b"), ("audit", "")}},
        ),
        # service:recipient keeps the first two parts of a split on every colon
        ({f"on-synced.{LEGACY}": "slack:a:b"}, {"on-synced": {("slack", "a")}}),
        # a service with triggers of its own gets those, even where the key names one
        ({f"on-degraded.{LEGACY}": "pager:p1"}, {"on-synced": {("pager", "p1")}}),
        # any key ending in the suffix counts; trailing dots of the trigger are dropped
        ({f"on-synced..{LEGACY}": "slack:x"}, {"on-synced": {("slack", "x")}}),
        ({f"on-synced{LEGACY}": "slack:x"}, {"on-synced": {("slack", "x")}}),
    ],
)
def test_a_projects_legacy_recipients_annotations_as_argo_cd_reads_them(
    config: Notifications,
    annotations: dict[str, str],
    expected: dict[str, set[tuple[str, str]]],
) -> None:
    assert _wanted(config, _project(annotations)) == (expected, [])


def test_an_apps_own_legacy_annotation_is_not_read_as_argo_cd_reads_none(
    config: Notifications,
) -> None:
    assert _wanted(config, None, {LEGACY: "slack:deploys"}) == ({}, [])


def test_what_a_project_names_that_the_configuration_lacks_is_told_with_the_project(
    config: Notifications,
) -> None:
    project = _project(
        {
            f"{SUBSCRIBE}.on-nothing.slack": "x",
            f"on-degraded.{LEGACY}": "teams:x, slack:ok",
            "notifications.argoproj.io/subscriptions": "{not: a list}",
        }
    )
    subscribed, problems = _wanted(config, project)
    assert subscribed == {"on-degraded": {("slack", "ok")}}
    assert problems == [
        "project argocd/team: annotation notifications.argoproj.io/subscribe.on-nothing.slack: "
        "unknown trigger 'on-nothing'",
        "project argocd/team: annotation notifications.argoproj.io/subscriptions: expected a "
        "list of {trigger: [...], destinations: [{service: ..., recipients: [...]}]}",
        f"project argocd/team: annotation on-degraded.{LEGACY}: unknown service 'teams'",
    ]


def _of(namespace: str, project: str | None) -> dict[str, Any]:
    subject = app()
    subject["metadata"]["namespace"] = namespace
    if project is not None:
        subject["spec"] = {"project": project}
    return subject


def _appproject(namespace: str, name: str, annotations: dict[str, str]) -> dict[str, Any]:
    meta = {"name": name, "namespace": namespace, "annotations": annotations}
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject", "metadata": meta}


def test_the_project_is_the_apps_spec_project_in_the_apps_namespace() -> None:
    projects = Projects()
    annotations = {f"{SUBSCRIBE}.slack": "deploys", "owner": "team-a", f"x.{LEGACY}": "slack"}
    projects.update("argocd/team", _appproject("argocd", "team", annotations))
    projects.update("argocd/quiet", _appproject("argocd", "quiet", {"owner": "team-b"}))
    found = projects.of(_of("argocd", "team"))
    assert found is not None and found.key == "argocd/team"
    assert dict(found.annotations) == {f"{SUBSCRIBE}.slack": "deploys", f"x.{LEGACY}": "slack"}
    assert len(projects) == 1  # what subscribes nothing is not kept
    assert projects.of(_of("argocd", "quiet")) is None
    assert projects.of(_of("argocd", "missing")) is None
    assert projects.of(_of("team-a", "team")) is None  # another namespace's app
    assert projects.of(_of("argocd", None)) is None
    projects.update("argocd/team", _appproject("argocd", "team", {"owner": "team-a"}))
    assert projects.of(_of("argocd", "team")) is None
    projects.update("argocd/quiet", _appproject("argocd", "quiet", {f"{SUBSCRIBE}.slack": ""}))
    projects.update("argocd/quiet", None)
    assert len(projects) == 0


def _state(health: str, at: str, project: str = "team") -> dict[str, Any]:
    subject = app(health=health, reconciled=at)
    subject["spec"] = {"project": project}
    return subject


def _pipeline(config: Notifications, projects: Projects) -> tuple[Pipeline, list[str]]:
    warnings: list[str] = []
    notifier = Notifier(config, warn=warnings.append, projects=projects)
    return Pipeline(Store(), [], notifier=notifier), warnings


def _messages(pipeline: Pipeline, sink: str) -> list[tuple[str, str]]:
    return [
        (e["data"]["notification"]["recipient"], e["data"]["notification"]["message"])
        for e in outbox(pipeline.store, sink)
    ]


def test_an_app_subscribed_on_its_project_is_sent_once_per_recipient(
    config: Notifications,
) -> None:
    projects = Projects()
    subscribe = {
        f"{SUBSCRIBE}.on-degraded.slack": "oncall",
        f"on-degraded.{LEGACY}": "slack:oncall",
    }
    projects.update("argocd/team", _appproject("argocd", "team", subscribe))
    pipeline, warnings = _pipeline(config, projects)
    pipeline.handle("argocd/shop-dev", _state("Healthy", "2026-11-24T10:00:10Z"))
    pipeline.handle("argocd/shop-dev", _state("Degraded", "2026-11-24T10:00:20Z"))
    assert _messages(pipeline, "slack") == [("oncall", "shop-dev is degraded")]
    assert warnings == []


def test_an_app_whose_project_does_not_exist_gets_what_its_own_annotations_say(
    config: Notifications,
) -> None:
    projects = Projects()
    projects.update("argocd/team", _appproject("argocd", "team", {f"{SUBSCRIBE}.slack": "team"}))
    pipeline, warnings = _pipeline(config, projects)
    gone = _state("Healthy", "2026-11-24T10:00:10Z", project="gone")
    gone["metadata"]["annotations"] = {f"{SUBSCRIBE}.audit": ""}
    pipeline.handle("argocd/shop-dev", gone)
    degraded = _state("Degraded", "2026-11-24T10:00:20Z", project="gone")
    degraded["metadata"]["annotations"] = gone["metadata"]["annotations"]
    pipeline.handle("argocd/shop-dev", degraded)
    assert _messages(pipeline, "slack") == []
    assert _messages(pipeline, "audit") == [("", "shop-dev is degraded")]
    assert warnings == []


def test_a_change_of_the_project_applies_from_the_apps_next_update(
    config: Notifications,
) -> None:
    projects = Projects()
    projects.update("argocd/team", _appproject("argocd", "team", {"owner": "team-a"}))
    pipeline, _ = _pipeline(config, projects)
    pipeline.handle("argocd/shop-dev", _state("Healthy", "2026-11-24T10:00:10Z"))
    pipeline.handle("argocd/shop-dev", _state("Degraded", "2026-11-24T10:00:20Z"))
    assert _messages(pipeline, "slack") == []
    subscribed = {f"{SUBSCRIBE}.on-degraded.slack": "oncall"}
    projects.update("argocd/team", _appproject("argocd", "team", subscribed))
    assert _messages(pipeline, "slack") == []  # nothing is sent until the app changes
    pipeline.handle("argocd/shop-dev", _state("Degraded", "2026-11-24T10:00:30Z"))
    assert _messages(pipeline, "slack") == [("oncall", "shop-dev is degraded")]
    projects.update("argocd/team", _appproject("argocd", "team", {}))
    pipeline.handle("argocd/shop-dev", _state("Healthy", "2026-11-24T10:00:40Z"))
    pipeline.handle("argocd/shop-dev", _state("Degraded", "2026-11-24T10:00:50Z"))
    assert len(_messages(pipeline, "slack")) == 1  # unsubscribed: the new turn is not sent
