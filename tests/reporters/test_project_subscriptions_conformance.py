"""Subscriptions against Argo CD v3.2.11 itself: for each vector
(``tests/vectors/projsubs``), the destinations Argo CD's notifications controller computes
from an app's annotations and its AppProject's (subscription and legacy recipients
annotations, merged, deduplicated) are what :func:`wanted` subscribes.

What differs by design: a destination naming a trigger or service the configuration does
not have is sent by Argo CD's controller to nothing (it fails and logs); the reporter drops
it and tells it. So the comparison is on what the configuration has, and the reporter must
have told a problem exactly where Argo CD had such a destination.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from reporters.notifications.config import Notifications
from reporters.notifications.projects import Project
from reporters.notifications.subscriptions import wanted
from tests.support.notifications import loaded
from tests.support.reporter_apps import app

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "projsubs"
DATA = "".join(
    f"  service.webhook.{name}: |\n    url: https://{name}.example.com/hooks\n"
    for name in ("audit", "pager")
) + "".join(
    f"  trigger.{name}: |\n    - when: 'true'\n      send: [app-deployed]\n"
    for name in ("on-a", "on-b", "on-c")
)


def _cases() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    lines = (VECTORS / "vectors.jsonl").read_text().splitlines()
    return [(v["input"], v) for v in map(json.loads, lines)]


CASES = _cases()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Notifications:
    return loaded(tmp_path_factory.mktemp("projsubs"), DATA)


def test_there_are_enough_vectors() -> None:
    assert len(CASES) >= 200
    assert sum(bool(v["destinations"]) for _, v in CASES) >= 150


@pytest.mark.parametrize(("given", "expected"), CASES, ids=[c[0]["name"] for c in CASES])
def test_wanted_subscribes_what_argo_cd_sends_to(
    base: Notifications, given: dict[str, Any], expected: dict[str, Any]
) -> None:
    config = replace(
        base,
        default_triggers=tuple(given["defaultTriggers"]),
        service_default_triggers={k: tuple(v) for k, v in given["serviceDefaultTriggers"].items()},
    )
    subject = app()
    subject["metadata"]["annotations"] = given["app"]
    project = None
    if given["project"] is not None:
        project = Project("argocd/team", given["project"])
    problems: list[str] = []
    got = wanted(config, subject, problems.append, project)
    known: dict[str, set[tuple[str, str]]] = {}
    unknown = False
    for trigger, pairs in expected["destinations"].items():
        for service, recipient in pairs:
            if trigger in config.triggers and service in config.services:
                known.setdefault(trigger, set()).add((service, recipient))
            else:
                unknown = True
    assert {t: r for t, r in got.items() if r} == known
    assert bool(problems) == unknown, problems
