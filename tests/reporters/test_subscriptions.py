"""Apps subscribed with Argo CD's annotations need no change: every form
notifications-engine reads (``pkg/subscriptions/annotations.go``) subscribes the same
recipients here, per-service default triggers included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reporters.events.transitions import essentials
from reporters.notifications.config import Notifications, load
from reporters.notifications.errors import ConfigError
from reporters.notifications.subscriptions import wanted
from tests.support.notifications import configmap, loaded
from tests.support.reporter_apps import app

DATA = """\
  service.webhook.audit: |
    url: https://audit.example.com/hooks
  trigger.on-deployed: |
    - when: app.status.health.status == 'Healthy'
      send: [app-deployed]
  trigger.on-health-degraded: |
    - when: app.status.health.status == 'Degraded'
      send: [app-health-degraded]
  defaultTriggers: |
    - on-deployed
  defaultTriggers.audit: |
    - on-health-degraded
"""


@pytest.fixture
def config(tmp_path: Path) -> Notifications:
    return loaded(tmp_path, DATA)


def _annotated(annotations: dict[str, str]) -> dict[str, Any]:
    found = app()
    found["metadata"]["annotations"] = annotations
    return found


def _wanted(config: Notifications, annotations: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    problems: list[str] = []
    return wanted(config, _annotated(annotations), problems.append), problems


def test_a_trigger_and_a_service_with_recipients_separated_by_semicolons(
    config: Notifications,
) -> None:
    subscribed, problems = _wanted(
        config, {"notifications.argoproj.io/subscribe.on-deployed.slack": " deploys; ;oncall"}
    )
    assert subscribed == {"on-deployed": {("slack", "deploys"), ("slack", "oncall")}}
    assert problems == []


def test_a_service_alone_gets_its_own_default_triggers_else_the_configurations(
    config: Notifications,
) -> None:
    subscribed, _ = _wanted(
        config,
        {
            "notifications.argoproj.io/subscribe.slack": "deploys",
            "notifications.argoproj.io/subscribe.audit": "",
        },
    )
    assert subscribed == {
        "on-deployed": {("slack", "deploys")},
        "on-health-degraded": {("audit", "")},  # an empty value: the webhook itself
    }


def test_the_subscriptions_annotation_lists_triggers_and_destinations(
    config: Notifications,
) -> None:
    listed = """\
- trigger: [on-deployed, on-health-degraded]
  destinations:
  - service: slack
    recipients: [deploys, oncall]
- destinations:
  - service: audit
"""
    subscribed, problems = _wanted(config, {"notifications.argoproj.io/subscriptions": listed})
    assert problems == []
    assert subscribed == {
        "on-deployed": {("slack", "deploys"), ("slack", "oncall")},
        "on-health-degraded": {("slack", "deploys"), ("slack", "oncall")},
    }  # a destination without recipients subscribes no one, as upstream


@pytest.mark.parametrize(
    ("annotations", "problem"),
    [
        (
            {"notifications.argoproj.io/subscriptions": "- trigger: [on-deployed"},
            "annotation notifications.argoproj.io/subscriptions: not YAML",
        ),
        (
            {"notifications.argoproj.io/subscriptions": "trigger: on-deployed"},
            "annotation notifications.argoproj.io/subscriptions: expected a list",
        ),
        (
            {"notifications.argoproj.io/subscribe.on-deployd.slack": "x"},
            "annotation notifications.argoproj.io/subscribe.on-deployd.slack: unknown trigger",
        ),
        (
            {"notifications.argoproj.io/subscribe.on-deployed.teams": "x"},
            "annotation notifications.argoproj.io/subscribe.on-deployed.teams: unknown service",
        ),
    ],
)
def test_what_subscribes_nothing_is_told(
    config: Notifications, annotations: dict[str, str], problem: str
) -> None:
    subscribed, problems = _wanted(config, annotations)
    assert subscribed == {}
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_the_reporter_keeps_the_subscription_annotations_of_both_prefixes() -> None:
    kept = essentials(
        _annotated(
            {
                "notifications.argoproj.io/subscribe.on-deployed.slack": "deploys",
                "notifications.argoproj.io/subscriptions": "[]",
                "promoflow.dev/subscribe.slack": "ops",
                "kubectl.kubernetes.io/last-applied-configuration": "{}",
                "notified.notifications.argoproj.io": "{}",
            }
        )
    )
    assert set(kept["metadata"]["annotations"]) == {
        "notifications.argoproj.io/subscribe.on-deployed.slack",
        "notifications.argoproj.io/subscriptions",
        "promoflow.dev/subscribe.slack",
    }


def test_per_service_default_triggers_are_checked_where_they_are_written(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(
        configmap(DATA).replace("defaultTriggers.audit: |\n    - on-health-degraded", "")
        + "  defaultTriggers.pager: |\n    - on-health-degradd\n"
    )
    with pytest.raises(ConfigError) as caught:
        load(path)
    text = str(caught.value)
    assert f"{path}:19:3: error: unknown service 'pager'" in text, text
    assert f"{path}:20:7: error: unknown trigger 'on-health-degradd'" in text, text
