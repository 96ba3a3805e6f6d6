"""The wait loop on a scripted source: streaming, drops, polling fallback, deadlines.

The source here is an in-memory script so every branch of the loop is reached
deterministically (a fake clock, no sleeping); the same scenarios run over real HTTP against
the Argo CD simulator in test_wait_argocd.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.gates.appsource import SourceError
from tests.support.gate_apps import OLD, SHA, app
from tests.support.wait_loop import ScriptedSource, wait

App = dict[str, Any]


def test_stream_event_ends_the_wait_without_sleeping() -> None:
    source = ScriptedSource(app(revision=OLD), [[app(revision=OLD, health="Progressing"), app()]])
    result, clock = wait(source)
    assert result.state == "deployed"
    assert clock.sleeps == []
    assert source.calls[0] == "refresh"  # a hard refresh comes first


def test_progress_is_reported_on_each_change_only() -> None:
    older = app(revision=OLD)
    source = ScriptedSource(older, [[older, older, app(health="Progressing"), app()]])
    result, _ = wait(source)
    reasons = [r[0] for r in result.progress]
    assert reasons[0].startswith("Synced at bbbbbbbbbbbb, waiting for aaaaaaaaaaaa")
    assert reasons[1] == "Progressing" and reasons[2] == "Synced at aaaaaaaaaaaa and Healthy"
    assert len(reasons) == 3


def test_a_dropped_stream_is_reread_and_resumed() -> None:
    source = ScriptedSource(app(revision=OLD), [[app(revision=OLD, health="Progressing")], [app()]])
    result, clock = wait(source)
    assert result.state == "deployed" and result.reconnects == 1
    assert source.calls.count("stream") == 2
    assert clock.sleeps == []  # a drop after events reconnects at once


def test_change_while_disconnected_is_seen_on_the_reread() -> None:
    source = ScriptedSource(app(revision=OLD), [[app(revision=OLD, health="Missing")]])
    source.polls = [app()]  # the state moved on while the stream was down
    result, _ = wait(source)
    assert result.state == "deployed"


def test_failing_stream_falls_back_to_polling_with_backoff() -> None:
    failure = SourceError("stream 503", transient=True)
    source = ScriptedSource(app(revision=OLD), [failure, failure, failure])
    source.polls = [app(revision=OLD)] * 3 + [app()]  # the first is the initial refresh
    result, clock = wait(source, poll_interval=2.0)
    assert result.state == "deployed"
    assert clock.sleeps == [2.0, 3.0, 4.5]


def test_without_stream_endpoint_polls_only() -> None:
    source = ScriptedSource(app(revision=OLD), [SourceError("404", transient=False)])
    source.polls = [app(revision=OLD), app(revision=OLD), app()]
    result, _ = wait(source)
    assert result.state == "deployed"
    assert source.calls.count("stream") == 1


def test_sync_failure_fails_fast_with_the_reason() -> None:
    failed = app(phase="Failed", sync="OutOfSync")
    failed["status"]["operationState"]["message"] = "one or more objects failed to apply"
    source = ScriptedSource(app(revision=OLD), [[failed]])
    result, _ = wait(source)
    assert result.state == "failed"
    assert "failed: one or more objects failed to apply" in result.reason


def test_degraded_after_the_revision_fails() -> None:
    source = ScriptedSource(
        app(revision=OLD), [[app(health="Progressing"), app(health="Degraded", message="crash")]]
    )
    result, _ = wait(source)
    assert result.state == "failed" and "Degraded" in result.reason and "crash" in result.reason


def test_sync_timeout() -> None:
    source = ScriptedSource(app(revision=OLD), [])
    source.polls = [app(revision=OLD)] * 100
    result, clock = wait(source, sync_timeout=20.0, poll_interval=2.0)
    assert result.state == "timeout"
    assert result.reason.startswith("timed out: shop-dev: Synced at bbbbbbbbbbbb")
    assert clock.now == pytest.approx(20.0)


def test_health_timeout_counts_from_the_sync() -> None:
    source = ScriptedSource(app(revision=OLD), [])
    source.polls = [app(revision=OLD)] * 5 + [app(health="Progressing")] * 100
    result, clock = wait(source, sync_timeout=1000.0, health_timeout=10.0, poll_interval=1.0)
    assert result.state == "timeout" and "Progressing" in result.reason
    assert clock.now < 1000.0


def test_suspended_rollout_is_waiting_with_its_message() -> None:
    paused = app(health="Suspended", message="Rollout is paused: CanaryPauseStep")
    source = ScriptedSource(app(revision=OLD), [[paused, app()]])
    result, _ = wait(source)
    assert any("Suspended: Rollout is paused" in r[0] for r in result.progress)
    assert result.state == "deployed"


def test_manual_sync_app_is_synced_to_the_revision() -> None:
    source = ScriptedSource(app(revision=OLD), [[app()]], automated=False)
    result, _ = wait(source)
    assert source.synced == [("shop-dev", SHA)] and result.synced_apps == ["shop-dev"]


def test_automated_app_is_not_synced_by_us() -> None:
    source = ScriptedSource(app(revision=OLD), [[app()]])
    wait(source)
    assert source.synced == []


def test_missing_app_fails() -> None:
    result, _ = wait(ScriptedSource(None, []))
    assert result.state == "failed" and "not found" in result.reason


def test_transient_errors_at_start_are_retried() -> None:
    source = ScriptedSource(app(), [])
    calls = {"n": 0}
    real_get = source.get

    def flaky(name: str, *, refresh: bool = False) -> App | None:
        calls["n"] += 1
        if calls["n"] <= 2:
            raise SourceError("503", transient=True)
        return real_get(name, refresh=refresh)

    source.get = flaky  # type: ignore[method-assign]
    result, clock = wait(source)
    assert result.state == "deployed" and len(clock.sleeps) == 2


def test_terminal_errors_are_raised() -> None:
    source = ScriptedSource(app(), [])

    def refused(name: str, *, refresh: bool = False) -> App | None:
        raise SourceError("Argo CD refused the token")

    source.get = refused  # type: ignore[method-assign]
    with pytest.raises(SourceError, match="refused"):
        wait(source)
