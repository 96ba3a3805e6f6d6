"""The pure "is this app deployed at SHA" decision, scenario by scenario."""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.gates.deployed import Verdict, assess, overall
from tests.support.gate_apps import OLD, SHA, app


def verdict(data: dict[str, Any] | None, **kwargs: Any) -> Verdict:
    return assess(data, "shop-dev", SHA, **kwargs)


def test_deployed_when_synced_reconciled_and_healthy() -> None:
    assert verdict(app()).state == "deployed"


def test_waits_while_synced_to_an_older_revision() -> None:
    result = verdict(app(revision=OLD))
    assert result.state == "waiting" and "waiting for aaaaaaaaaaaa" in result.reason


def test_waits_while_an_operation_runs() -> None:
    assert verdict(app(phase="Running", finished=None)).state == "waiting"
    assert verdict(app(operation={"sync": {"revision": SHA}})).state == "waiting"


def test_waits_when_reconciled_before_the_operation_finished() -> None:
    stale = verdict(app(reconciled="2026-11-22T10:00:01Z"))
    assert stale.state == "waiting" and "not reconciled" in stale.reason
    assert verdict(app(reconciled=None)).state == "waiting"


def test_fails_fast_when_the_sync_of_sha_failed() -> None:
    result = verdict(app(phase="Failed", sync="OutOfSync", revision=OLD))
    result_for_sha = verdict(app(phase="Error", sync="OutOfSync"))
    assert result_for_sha.state == "failed" and "hook failed" in result_for_sha.reason
    # A failed operation for an older revision is history: keep waiting for SHA.
    assert result.state == "waiting"


def test_degraded_after_the_new_revision_fails() -> None:
    result = verdict(app(health="Degraded", message="CrashLoopBackOff"))
    assert result.state == "failed" and "CrashLoopBackOff" in result.reason
    assert verdict(app(revision=OLD, health="Degraded")).state == "waiting"


def test_progressing_then_healthy() -> None:
    assert verdict(app(health="Progressing")).state == "waiting"
    assert verdict(app(health="Healthy")).state == "deployed"


def test_suspended_rollout_is_waiting_with_its_message() -> None:
    result = verdict(app(health="Suspended", message="Rollout is paused at step 2"))
    assert result.state == "waiting" and "paused at step 2" in result.reason


def test_health_can_be_skipped() -> None:
    assert verdict(app(health="Progressing"), health=False).state == "deployed"


def test_missing_app_fails() -> None:
    assert verdict(None) == Verdict("shop-dev", "failed", "application not found")


@pytest.mark.parametrize(
    ("revisions", "expected"),
    [([SHA, "c" * 40], "deployed"), ([OLD, "c" * 40], "waiting"), ([SHA], "waiting")],
)
def test_multi_source_checks_the_promoted_repository(revisions: list[str], expected: str) -> None:
    data = app()
    data["spec"] = {
        "sources": [{"repoURL": "https://git/gitops.git"}, {"repoURL": "https://charts"}]
    }
    data["status"]["sync"] = {"status": "Synced", "revisions": revisions}
    assert verdict(data, repo="https://git/gitops").state == expected


def test_overall_combines_apps() -> None:
    ok = Verdict("a", "deployed", "")
    wait = Verdict("b", "waiting", "")
    bad = Verdict("c", "failed", "")
    assert overall([ok, ok]) == "deployed"
    assert overall([ok, wait]) == "waiting"
    assert overall([ok, wait, bad]) == "failed"
    assert overall([]) == "waiting"


def test_sync_revisions_move_only_the_promoted_repository() -> None:
    from orchestrator.gates.deployed import sync_revisions

    app = {
        "spec": {
            "sources": [
                {"repoURL": "https://charts.example.com/shop", "targetRevision": "2.0.0"},
                {"repoURL": "https://git.example.com/acme/gitops.git", "targetRevision": "main"},
                {"repoURL": "https://git.example.com/acme/gitops", "targetRevision": "main"},
            ]
        }
    }
    sha = "a" * 40
    assert sync_revisions(app, "https://git.example.com/acme/gitops.git", sha) == [
        "2.0.0",
        sha,
        sha,
    ]
    assert sync_revisions(app, None, sha) == [sha, sha, sha]
    assert sync_revisions({"spec": {"source": {"repoURL": "x"}}}, None, sha) is None
