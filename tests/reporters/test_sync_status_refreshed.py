"""No state condition runs while a finished sync is newer than the app's last comparison,
as Argo CD's notifications controller skips the app then.

Side by side with the real controller (tests/e2e/test_notifications_parity.py), the
catalog's ``on-deployed`` fired in promoflow on the update that ends the operation, when
the app still read OutOfSync with the previous revision's health, and announced a revision
that turned Degraded a moment later. The cases of the rule are upstream's own
(``TestIsAppSyncStatusRefreshed``, argo-cd v3.2 notification_controller), with the edges
Go's parsing gives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reporters.notifications.notifier import Notifier
from reporters.notifications.refreshed import sync_status_refreshed
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.notifications import loaded, outbox, shop
from tests.support.reporter_apps import NEW, finished


def _status(**fields: Any) -> dict[str, Any]:
    return {"status": fields}


CASES = [
    ("no operation", _status(), True),
    ("a finished phase without finishedAt", _status(operationState={"phase": "Succeeded"}), False),
    (
        "finished after both",
        _status(
            operationState={"phase": "Succeeded", "finishedAt": "2021-01-01T01:05:00Z"},
            reconciledAt="2021-01-01T01:02:00Z",
            observedAt="2021-01-01T01:04:00Z",
        ),
        False,
    ),
    (
        "finished before both",
        _status(
            operationState={"phase": "Succeeded", "finishedAt": "2021-01-01T01:02:00Z"},
            reconciledAt="2021-01-01T01:04:00Z",
            observedAt="2021-01-01T01:06:00Z",
        ),
        True,
    ),
    (
        "finished after reconciledAt, before observedAt",
        _status(
            operationState={"phase": "Failed", "finishedAt": "2021-01-01T01:03:00Z"},
            reconciledAt="2021-01-01T01:02:00Z",
            observedAt="2021-01-01T01:04:00Z",
        ),
        True,
    ),
    (
        "finished at the very second of the comparison",
        _status(
            operationState={"phase": "Error", "finishedAt": "2021-01-01T01:02:00Z"},
            reconciledAt="2021-01-01T01:02:00Z",
        ),
        True,
    ),
    (
        "no comparison yet",
        _status(operationState={"phase": "Succeeded", "finishedAt": "2021-01-01T01:02:00Z"}),
        False,
    ),
    (
        "a comparison time Go cannot parse is its zero time",
        _status(
            operationState={"phase": "Succeeded", "finishedAt": "2021-01-01T01:02:00Z"},
            reconciledAt="yesterday",
        ),
        False,
    ),
    (
        "a finishedAt Go cannot parse",
        _status(
            operationState={"phase": "Succeeded", "finishedAt": "2021-01-01 01:02:00"},
            reconciledAt="2021-01-01T01:04:00Z",
        ),
        False,
    ),
    ("a running operation", _status(operationState={"phase": "Running"}), True),
    ("an operation without a phase", _status(operationState={}), True),
    ("a phase that is not a string", _status(operationState={"phase": 3}), True),
    ("an operationState that is not a mapping", _status(operationState="Succeeded"), True),
]


@pytest.mark.parametrize(("name", "obj", "current"), CASES, ids=[c[0] for c in CASES])
def test_the_rule_as_argo_cd_applies_it(name: str, obj: dict[str, Any], current: bool) -> None:
    assert sync_status_refreshed(obj) is current, name


DATA = """\
  template.deployed: |
    message: "{{.app.status.sync.status}} {{.app.status.health.status}}"
  trigger.on-deployed: |
    - when: >-
        app.status.operationState.phase in ['Succeeded'] and
        app.status.health.status == 'Healthy'
      oncePer: app.status.operationState.syncResult.revision
      send: [deployed]
  subscriptions: |
    - recipients: [slack:deploys]
      triggers: [on-deployed]
"""


def test_the_update_that_ends_the_operation_sends_nothing_until_compared(
    tmp_path: Path,
) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(loaded(tmp_path, DATA)))
    pipeline.handle("argocd/shop-dev", shop())
    ended = shop(NEW, sync="OutOfSync", op=finished(at="2026-11-24T10:01:00Z"))
    ended["status"]["reconciledAt"] = "2026-11-24T10:00:10Z"  # before the operation ended
    pipeline.handle("argocd/shop-dev", ended)
    assert outbox(store, "slack") == []
    compared = shop(NEW, sync="Synced", op=finished(at="2026-11-24T10:01:00Z"))
    compared["status"]["reconciledAt"] = "2026-11-24T10:01:01Z"
    pipeline.handle("argocd/shop-dev", compared)
    assert [e["data"]["notification"]["message"] for e in outbox(store, "slack")] == [
        "Synced Healthy"
    ]
