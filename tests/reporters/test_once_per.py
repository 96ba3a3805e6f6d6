"""``oncePer`` as notifications-engine keeps it: the "already sent" key holds the value.

Argo CD's catalog sends ``on-deployed`` when the operation Succeeded and the app is
Healthy, once per ``syncResult.revision``. A fast sync often shows no Running state
between two deployments, so the condition stays true while the revision changes: each new
revision must still be sent, a revision sent before never again, and the memory of them
must survive a restart and stay bounded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reporters.notifications import notifier
from reporters.notifications.config import Notifications
from reporters.notifications.notifier import Notifier
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.notifications import deploy, loaded, outbox, shop
from tests.support.reporter_apps import NEW, OLD

DATA = """\
  template.deployed: |
    message: "{{.app.status.operationState.syncResult.revision}}"
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


@pytest.fixture
def config(tmp_path: Path) -> Notifications:
    return loaded(tmp_path, DATA)


def _messages(store: Store) -> list[str]:
    return [e["data"]["notification"]["message"] for e in outbox(store, "slack")]


def test_a_new_revision_is_sent_while_the_app_stays_succeeded_and_healthy(
    config: Notifications,
) -> None:
    store = Store()
    pipeline = Pipeline(store, [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", shop())
    deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
    deploy(pipeline, OLD, "2026-11-24T10:02:00Z")  # no Running state seen in between
    assert _messages(store) == [NEW, OLD]
    # a value sent before is never sent again, even after the condition turned false
    pipeline.handle("argocd/shop-dev", shop(OLD, health="Degraded"))
    deploy(pipeline, NEW, "2026-11-24T10:03:00Z")
    assert _messages(store) == [NEW, OLD]


def test_the_values_sent_survive_a_restart(config: Notifications, tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = Pipeline(Store(path), [], notifier=Notifier(config))
    first.handle("argocd/shop-dev", shop())
    deploy(first, NEW, "2026-11-24T10:01:00Z")
    first.store.close()
    again = Pipeline(Store(path), [], notifier=Notifier(config))
    deploy(again, NEW, "2026-11-24T10:02:00Z")
    deploy(again, OLD, "2026-11-24T10:03:00Z")
    assert _messages(again.store) == [NEW, OLD]


def test_each_app_remembers_its_latest_values_only(
    config: Notifications, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notifier, "ONCE_PER_KEPT", 3)
    path = tmp_path / "state.db"
    pipeline = Pipeline(Store(path), [], notifier=Notifier(config))
    pipeline.handle("argocd/shop-dev", shop())
    revisions = [f"{n:040x}" for n in range(1, 6)]
    for minute, revision in enumerate(revisions, start=1):
        deploy(pipeline, revision, f"2026-11-24T10:{minute:02d}:00Z")
    kept = [name for name in pipeline.store.conditions() if notifier.ONCE in name]
    assert [name.rsplit("\x1f", 1)[1] for name in kept] == revisions[-3:]
    pipeline.store.close()
    # after a restart the oldest is still forgotten first: the first revision is new again
    # (sent with the id it had, which receivers and the outbox recognise), the newest not
    again = Pipeline(Store(path), [], notifier=Notifier(config))
    deploy(again, revisions[0], "2026-11-24T10:10:00Z")
    deploy(again, revisions[-1], "2026-11-24T10:11:00Z")
    assert _messages(again.store).count(revisions[-1]) == 1
    kept = [name for name in again.store.conditions() if notifier.ONCE in name]
    assert [name.rsplit("\x1f", 1)[1] for name in kept] == [*revisions[-2:], revisions[0]]
