"""Triggers and templates read the whole Application, as Argo CD's do, while the reporter
keeps its trimmed state: fields the trimmed copy drops (``spec.project``, annotations,
``status.conditions``) reach the notification, also for an app that was just deleted, and
none of them reaches the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reporters.notifications.config import Notifications
from reporters.notifications.notifier import Notifier
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.notifications import loaded, outbox, shop
from tests.support.reporter_apps import NEW, app, finished

DATA = """\
  template.app-deployed: |
    message: >-
      {{.app.spec.project}} by {{index .app.metadata.annotations "team"}},
      {{len .app.status.conditions}} condition(s)
  template.app-deleted: |
    message: "{{.app.metadata.name}} of {{.app.spec.project}} deleted"
  trigger.on-warned: |
    - when: any(app.status.conditions ?? [], .type == 'SyncError')
      send: [app-deployed]
  trigger.on-deleting: |
    - when: app.metadata.deletionTimestamp != nil
      send: [app-deleted]
  subscriptions: |
    - recipients: [slack:deploys]
      triggers: [on-deployed, on-deleted, on-warned, on-deleting]
"""


@pytest.fixture
def config(tmp_path: Path) -> Notifications:
    return loaded(tmp_path, DATA)


def _whole(one: dict[str, Any]) -> dict[str, Any]:
    one["metadata"]["annotations"] = {"team": "payments"}
    one["spec"] = {"project": "shop", "destination": {"namespace": "shop"}}
    one["status"]["conditions"] = [{"type": "SharedResourceWarning", "message": "x"}]
    return one


def _messages(store: Store) -> list[str]:
    return [e["data"]["notification"]["message"] for e in outbox(store, "slack")]


def test_templates_read_the_fields_the_kept_state_drops(config: Notifications) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", _whole(shop(sync="OutOfSync")))
    done = _whole(app(NEW, op={**finished(), "syncResult": {"revision": NEW}}))
    done["metadata"]["labels"] = shop()["metadata"]["labels"]
    done["status"]["reconciledAt"] = "2026-11-24T10:01:05Z"  # after the operation finished
    pipeline.handle("argocd/shop-dev", done)
    assert _messages(store) == ["shop by payments, 1 condition(s)"]
    assert "conditions" not in pipeline.seen["argocd/shop-dev"]["status"]


def test_a_state_condition_reads_the_whole_object(config: Notifications) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", _whole(shop(sync="OutOfSync")))
    failing = _whole(shop(sync="OutOfSync", health="Degraded"))
    failing["status"]["conditions"].append({"type": "SyncError", "message": "denied"})
    pipeline.handle("argocd/shop-dev", failing)
    assert _messages(store) == ["shop by payments, 2 condition(s)"]


def test_a_deleted_app_is_told_with_its_last_whole_object(config: Notifications) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", _whole(shop()))
    pipeline.handle("argocd/shop-dev", None)
    assert _messages(store)[-1] == "shop-dev of shop deleted"
    assert pipeline.whole.packed == {}


def test_the_whole_object_is_kept_compressed_and_never_stored(
    config: Notifications, tmp_path: Path
) -> None:
    store = Store(tmp_path / "state.db")
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", _whole(shop()))
    assert pipeline.whole.get("argocd/shop-dev") == _whole(shop())
    kept = json.dumps(store.apps())
    assert "SharedResourceWarning" not in kept and "payments" not in kept
    # without notifications nothing whole is kept at all
    bare = Pipeline(Store(), [])
    bare.handle("argocd/shop-dev", _whole(shop()))
    assert bare.whole.packed == {}


def test_an_update_that_makes_no_event_still_turns_a_state_condition_true(
    config: Notifications,
) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", _whole(shop()))
    before = _messages(store)
    warned = _whole(shop())
    warned["metadata"]["resourceVersion"] = "2"
    warned["status"]["conditions"].append({"type": "SyncError", "message": "denied"})
    assert pipeline.handle("argocd/shop-dev", warned) == []  # no event
    assert _messages(store) == [*before, "shop by payments, 2 condition(s)"]
    [sent] = outbox(store, "slack")[len(before) :]
    assert sent["type"] == "app.changed"
    # the same state again (Argo CD's next reconcile) sends nothing more
    again = {**warned, "metadata": {**warned["metadata"], "resourceVersion": "3"}}
    pipeline.handle("argocd/shop-dev", again)
    assert len(_messages(store)) == len(before) + 1


def test_argo_cds_on_deleted_fires_when_the_deletion_timestamp_is_set(
    config: Notifications,
) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", _whole(shop()))
    deleting = _whole(shop())
    deleting["metadata"].update(resourceVersion="2", deletionTimestamp="2026-11-24T11:00:00Z")
    pipeline.handle("argocd/shop-dev", deleting)
    assert _messages(store)[-1] == "shop-dev of shop deleted"
