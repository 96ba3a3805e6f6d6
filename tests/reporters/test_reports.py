"""The notify step's report reaches the reporter over real HTTP and goes out through the
same sinks and notifications; what is not a report, or comes without the token, is
refused with a reason and changes nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrator.access import Access
from orchestrator.simulator.serve import ServerThread
from orchestrator.steps.notify import build_report, deliver
from reporters.app import create_app
from reporters.notifications.config import load
from reporters.notifications.notifier import Notifier
from reporters.runtime import Reporter
from reporters.state.store import Store
from reporters.watch.watcher import Watcher

TOKEN = "report-t0ken"
FAILURES = (
    '[{"displayName": "gate-prod", "message": "app shop-prod is Degraded", "phase": "Failed"}]'
)


class Memory:
    def __init__(self, name: str) -> None:
        self.name = name
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def send(self, event: dict[str, Any]) -> None:
        with self.lock:
            self.events.append(event)


@contextmanager
def reporter_at(
    tmp_path: Path, *, workflows: bool = False
) -> Iterator[tuple[Reporter, str, Memory, Memory]]:
    (tmp_path / "cm.yaml").write_text(
        "service.stdout.team: ''\n"
        "subscriptions: |\n"
        "  - recipients: [team]\n"
        "    selector: promoflow.dev/product=shop\n"
    )
    config = load(tmp_path / "cm.yaml")
    sink, team = Memory("memory"), Memory("team")
    others = [Watcher(None, prefix="workflows:")] if workflows else []
    reporter = Reporter(
        Watcher(None), Store(), sinks=[sink], others=others, ui="https://argo.example.com",
        notifier=Notifier(config), services=[team],
    )  # type: ignore[list-item]  # fmt: skip
    app = create_app(
        reporter.stream, reporter.numbers, reporter.shards, reporter.accept, Access(TOKEN)
    )
    try:
        with ServerThread(app) as server:
            yield reporter, f"{server.url}/reports", sink, team
    finally:
        for delivery in reporter.deliveries:
            delivery.stop()


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def _report(status: str = "Failed") -> dict[str, Any]:
    document = build_report(
        product="shop", version="1.4.0", flow="default", status=status,
        failures=FAILURES if status == "Failed" else "", run="shop-1-4-0-x1", requested_by="ci",
    )  # fmt: skip
    return {**document, "namespace": "argo"}


def _handle_queued(reporter: Reporter) -> None:
    item = reporter.queue.get(timeout=2)
    assert item is not None
    reporter.pipeline.handle(*item)
    reporter._wake()


def _wait(memory: Memory, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 10
    while len(memory.events) < count:
        assert time.monotonic() < deadline, memory.events
        time.sleep(0.05)
    return memory.events


def test_a_failed_promotion_report_goes_out_through_the_sinks_and_notifications(
    tmp_path: Path,
) -> None:
    with reporter_at(tmp_path) as (reporter, url, sink, team):
        deliver(_report(), url, token=TOKEN)
        _handle_queued(reporter)
        [event] = _wait(sink, 1)
        [notified] = _wait(team, 1)
        deliver(_report(), url, token=TOKEN)  # the handler retried: the same id, stored once
        _handle_queued(reporter)
        time.sleep(0.3)
        assert len(sink.events) == 1
        metrics = httpx.get(url.replace("/reports", "/metrics"), headers=_auth()).text
    assert event["type"] == "promotion.failed" and event["subject"] == "argo/shop-1-4-0-x1"
    assert event["data"]["failures"] == [
        {"step": "gate-prod", "message": "app shop-prod is Degraded"}
    ]
    assert event["data"]["link"] == "https://argo.example.com/workflows/argo/shop-1-4-0-x1"
    assert 'promoflow_reporter_delivered_total{sink="memory"} 1.0' in metrics
    assert 'promoflow_reporter_dead_letters{sink="team"} 0.0' in metrics
    assert "promoflow_reporter_held 0.0" in metrics
    message = notified["data"]["notification"]["message"]
    assert message == "Promotion of shop 1.4.0 failed; gate-prod: app shop-prod is Degraded."


@pytest.mark.parametrize(
    ("body", "headers", "status", "reason"),
    [
        (b'{"kind": "PromotionResult"}', {}, 401, "this needs a bearer token"),
        (b'{"kind": "PromotionResult"}', {"Authorization": "Bearer nope"}, 401, "not valid"),
        (b"[" * 30_000 + b"]" * 30_000, _auth(), 400, "nests deeper than 32 levels"),
        (b'{"a":' * 2_000 + b"1" + b"}" * 2_000, _auth(), 400, "nests deeper than 32 levels"),
        (b"{not json", {"Authorization": f"Bearer {TOKEN}"}, 400, "the body is not JSON"),
        (b'{"kind": "Workflow"}', {"Authorization": f"Bearer {TOKEN}"}, 422, "kind: expected"),
        (
            b'{"kind": "PromotionResult", "product": "shop", "run": "r", "status": "Done"}',
            {"Authorization": f"Bearer {TOKEN}"},
            422,
            "status: expected one of Succeeded, Failed, Error, not 'Done'",
        ),
        (b"[" * 70_000, {"Authorization": f"Bearer {TOKEN}"}, 413, "at most 64 KiB"),
    ],
)
def test_what_is_not_a_report_is_refused_with_its_reason(
    tmp_path: Path, body: bytes, headers: dict[str, str], status: int, reason: str
) -> None:
    with reporter_at(tmp_path) as (reporter, url, _, _):
        answer = httpx.post(url, content=body, headers=headers)
        assert answer.status_code == status
        assert reason in answer.json()["error"]
        assert len(reporter.queue) == 0


def test_without_the_token_the_step_fails_at_once_saying_so(tmp_path: Path) -> None:
    with reporter_at(tmp_path) as (_, url, _, _), pytest.raises(ValueError) as refused:
        deliver(_report(), url)
    assert "refused the report: 401" in str(refused.value)


def test_a_reporter_watching_workflows_leaves_the_run_to_its_watch(tmp_path: Path) -> None:
    with reporter_at(tmp_path, workflows=True) as (reporter, url, _, _):
        answer = httpx.post(url, json=_report(), headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 202 and "Workflow watch" in answer.json()["reported"]
        assert len(reporter.queue) == 0


def _config_result(status: str = "Refused") -> dict[str, Any]:
    return {
        "kind": "ConfigResult",
        "status": status,
        "source": "https://git.example.com/acme/gitops.git main:promoflow",
        "revision": "b41c07d9" + "0" * 32,
        "serving": "3f9a1c2e" + "0" * 32,
        "problems": ["promoflow/products/cart.yaml:6:3: error: unknown PromotionFlow 'chian'"],
        "products": [],
    }


def test_a_refused_configuration_from_the_webhook_service_goes_out_through_the_sinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator.commands.configgit import reporters

    with reporter_at(tmp_path, workflows=True) as (reporter, url, sink, _):
        monkeypatch.setenv("PROMOFLOW_REPORT_URL", url)
        monkeypatch.setenv("PROMOFLOW_REPORT_TOKEN", TOKEN)
        post = reporters()
        assert post is not None
        post(_config_result())  # what the service's follower posts, over real HTTP
        _handle_queued(reporter)  # the Workflow watch does not stand in for it
        [event] = _wait(sink, 1)
    assert event["type"] == "config.refused"
    data = event["data"]
    assert data["problems"] == [
        "promoflow/products/cart.yaml:6:3: error: unknown PromotionFlow 'chian'"
    ]
    assert data["message"] == (
        "configuration b41c07d90000 refused (1 problems); 3f9a1c2e0000 keeps serving"
    )
    assert "product" not in data


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"status": "Broken"}, "status: expected one of Loaded, Refused, not 'Broken'"),
        ({"revision": ""}, "revision: required"),
        ({"problems": "a.yaml:1:1: error"}, "problems: expected a list of strings"),
        ({"kind": "Config"}, "kind: expected PromotionResult or ConfigResult, not 'Config'"),
    ],
)
def test_a_config_result_that_is_not_one_is_refused_with_its_reason(
    tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    with reporter_at(tmp_path) as (reporter, url, sink, _):
        answer = httpx.post(url, json={**_config_result(), **change}, headers=_auth())
        assert answer.status_code == 422 and answer.json() == {"error": said}
        assert len(reporter.queue) == 0 and sink.events == []
