"""Real transitions, not churn: what an Application's updates emit."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from reporters.events.ids import event_id
from reporters.events.transitions import Change, transitions
from tests.support.reporter_apps import NEW, app, finished


def types(changes: list[Change]) -> list[str]:
    return [c.type for c in changes]


def test_reconcile_churn_emits_nothing() -> None:
    before = app()
    after = copy.deepcopy(before)
    after["status"]["reconciledAt"] = "2026-11-24T10:03:10Z"
    after["metadata"]["resourceVersion"] = "2"
    after["metadata"]["managedFields"] = [{"manager": "argocd-application-controller"}]
    assert transitions(before, after) == []


@given(st.sampled_from(["reconciledAt", "resourceVersion", "observedAt"]), st.text(max_size=20))
def test_no_field_of_churn_ever_emits(field: str, value: str) -> None:
    before = app()
    after = copy.deepcopy(before)
    if field == "resourceVersion":
        after["metadata"]["resourceVersion"] = value
    elif field == "reconciledAt":
        after["status"]["reconciledAt"] = "2026-11-24T10:09:00Z"
    else:
        after["status"]["observedAt"] = value
    assert transitions(before, after) == []


def test_a_sync_is_reported_started_finished_then_synced_and_deployed_once_settled() -> None:
    steady = app()
    started = app(running=True, op={"phase": "Running", "startedAt": "2026-11-24T10:00:30Z"})
    done_stale = app(NEW, op=finished(), reconciled="2026-11-24T10:00:10Z")
    settled = app(NEW, op=finished(), reconciled="2026-11-24T10:01:05Z")
    assert types(transitions(steady, started)) == ["app.sync-started"]
    # the result is written before the app is compared again: nothing said of sync/health
    assert types(transitions(started, done_stale, steady)) == ["app.sync-succeeded"]
    assert types(transitions(done_stale, settled, steady)) == ["app.synced", "app.deployed"]
    assert transitions(settled, copy.deepcopy(settled)) == []


def test_a_failed_sync_and_a_degraded_app_say_why() -> None:
    steady = app()
    failed = app(op=finished("Failed"), reconciled="2026-11-24T10:01:05Z")
    # an operation that started and failed between two updates: both are told, in order
    started, change = transitions(steady, failed)
    assert started.type == "app.sync-started"
    assert change.type == "app.sync-failed"
    assert change.data["message"] == "one or more objects failed"
    degraded = app(health="Degraded")
    degraded["status"]["health"]["message"] = "Back-off restarting failed container"
    [health] = transitions(steady, degraded)
    assert health.type == "app.health-degraded"
    assert health.data == {
        "health": "Degraded",
        "was": "Healthy",
        "message": "Back-off restarting failed container",
    }


def test_images_created_and_deleted() -> None:
    steady = app()
    bumped = app(images=["ghcr.io/acme/shop:1.1.0"])
    assert types(transitions(steady, bumped)) == ["app.images-changed"]
    assert types(transitions(None, steady))[:1] == ["app.created"]
    assert types(transitions(steady, None)) == ["app.deleted"]


def test_event_ids_are_the_same_wherever_the_change_is_seen() -> None:
    """Two replicas (or a restart) seeing the same change name it alike; another change
    of the same app gets another id."""
    started = app(running=True, op={"phase": "Running", "startedAt": "2026-11-24T10:00:30Z"})
    settled = app(NEW, op=finished(), reconciled="2026-11-24T10:01:05Z")
    steady = app()
    first = [event_id(c) for c in transitions(started, settled, steady)]
    again = [
        event_id(c) for c in transitions(copy.deepcopy(started), copy.deepcopy(settled), steady)
    ]
    assert first == again and len(set(first)) == len(first)
