"""A new notifications configuration replaces the one serving without losing what the
reporter remembers: values already sent (``oncePer``), held notifications, what a removed
service had not sent, and the one notification being sent at the moment of the change,
delivered once, by the sink it began with."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from orchestrator.access import Access
from orchestrator.simulator.serve import ServerThread
from reporters.app import create_app
from reporters.notifications.config import Notifications, load_data
from reporters.notifications.notifier import Notifier
from reporters.notifications.services import sinks_for
from reporters.runtime import Reporter
from reporters.state.store import HELD, Store
from reporters.watch.watcher import Watcher
from tests.support.notifications import deploy, shop
from tests.support.reporter_apps import NEW, OLD

TOKEN = "hooks-t0ken-kept-secret"


def _data(url: str, version: str, *, audit: bool = True) -> dict[str, str]:
    data = {
        "service.webhook.hooks": (
            f"url: {url}\nheaders:\n- name: X-Config\n  value: '{version}'\n"
            "- name: Authorization\n  value: Bearer $token\n"
        ),
        "template.deployed": (
            f"message: '{version} {{{{.app.status.operationState.syncResult.revision}}}}'\n"
            "webhook:\n  hooks:\n    method: POST\n    path: /deployed\n"
            f"    body: '{version} {{{{.app.status.operationState.syncResult.revision}}}}'\n"
        ),
        "trigger.on-deployed": (
            "- when: app.status.operationState.phase in ['Succeeded'] and "
            "app.status.health.status == 'Healthy'\n"
            "  oncePer: app.status.operationState.syncResult.revision\n  send: [deployed]\n"
        ),
        "trigger.on-degraded-a-while": (
            "- when: app.status.health.status == 'Degraded'\n  for: 1h\n  send: [deployed]\n"
        ),
        "subscriptions": (
            "- recipients: [hooks]\n  triggers: [on-deployed, on-degraded-a-while]\n"
            + ("- recipients: [audit]\n  triggers: [on-deployed]\n" if audit else "")
        ),
    }
    if audit:  # a receiver that is down: what it is owed waits in the store
        data["service.webhook.audit"] = "url: http://127.0.0.1:1\n"
        data["template.deployed"] += "  audit:\n    method: POST\n    body: x\n"
    return data


def _config(url: str, version: str, **kw: Any) -> Notifications:
    return load_data(_data(url, version, **kw), "argocd/argocd-notifications-cm", {"token": TOKEN})


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_a_reload_keeps_what_was_sent_held_queued_and_in_flight(tmp_path: Path) -> None:
    got: list[tuple[str, str, str]] = []
    arrived, release = threading.Event(), threading.Event()

    async def take(request: Request) -> JSONResponse:
        body = (await request.body()).decode()
        arrived.set()
        await run_in_threadpool(release.wait, 10)  # the first send is in flight meanwhile
        got.append((request.headers["x-config"], request.headers["authorization"], body))
        return JSONResponse({})

    receiver = Starlette(routes=[Route("/hooks/deployed", take, methods=["POST"])])
    with ServerThread(receiver) as hook:
        url = f"{hook.url}/hooks"
        first = _config(url, "one")
        store = Store(tmp_path / "state.db")
        reporter = Reporter(
            Watcher(None), store, notifier=Notifier(first), services=sinks_for(first)
        )
        pipeline = reporter.pipeline
        try:
            pipeline.handle("argocd/shop-dev", shop())
            deploy(pipeline, NEW, "2026-11-24T10:01:00Z")
            reporter._wake()
            assert arrived.wait(10)  # hooks is sending NEW with the first configuration
            degraded = shop(health="Degraded")
            degraded["metadata"]["name"] = "shop-qa"
            pipeline.handle("argocd/shop-qa", degraded)
            assert store.counts("hooks").get(HELD) == 1
            _until(lambda: store.counts("audit").get("pending", 0) >= 1, "audit owed NEW")
            conditions = dict(pipeline.notifier.conditions)  # type: ignore[union-attr]

            reporter.reconfigure(_config(url, "two", audit=False), (TOKEN,))
            reporter.reconfigured()
            release.set()

            assert sorted(reporter.services) == ["hooks"]  # audit's worker stopped
            _until(lambda: len(got) == 1, "the send in flight finishes")
            deploy(pipeline, NEW, "2026-11-24T10:02:00Z")  # sent before: not again
            deploy(pipeline, OLD, "2026-11-24T10:03:00Z")
            reporter._wake()
            _until(lambda: len(got) == 2, "OLD with the second configuration")
            time.sleep(0.3)  # time for a duplicate, were there one
        finally:
            release.set()
            for delivery in reporter.deliveries:
                delivery.stop(close=True)
    assert got == [
        ("one", f"Bearer {TOKEN}", f"one {NEW}"),
        ("two", f"Bearer {TOKEN}", f"two {OLD}"),
    ]
    assert store.counts("hooks").get(HELD) == 1  # still held, under the new configuration
    assert not store.pending("hooks") and not store.counts("hooks").get("dead")
    assert [r.event["data"]["notification"]["message"] for r in store.pending("audit")] == [
        f"one {NEW}"
    ]  # kept for the service, should it come back
    assert all(pipeline.notifier.conditions.get(k) == v for k, v in conditions.items())  # type: ignore[union-attr]
    numbers = reporter.numbers()
    assert numbers["notification_reloads"] == 1 and numbers["notification_config_refused"] == 0


def test_a_refused_configuration_is_on_the_status_until_a_good_one_replaces_it() -> None:
    config = _config("http://127.0.0.1:1/hooks", "one", audit=False)
    reporter = Reporter(Watcher(None), Store(), notifier=Notifier(config))
    problem = "argocd/argocd-notifications-cm/trigger.x:1:3: error: unexpected token EOF"
    reporter.refuse([problem])
    assert reporter.numbers()["notification_config_refused"] == 1
    assert reporter.numbers()["notification_config_problems"] == [problem]
    app = create_app(reporter.stream, reporter.numbers, reporter.shards, access=Access("t0ken"))
    with ServerThread(app) as server:
        metrics = httpx.get(f"{server.url}/metrics", headers={"Authorization": "Bearer t0ken"})
    assert "promoflow_reporter_notification_config_refused 1.0" in metrics.text
    assert "promoflow_reporter_notification_reloads_total 0.0" in metrics.text
    reporter.reconfigure(_config("http://127.0.0.1:1/hooks", "two", audit=False))
    reporter.reconfigured()
    numbers = reporter.numbers()
    assert numbers["notification_config_refused"] == 0 and numbers["notification_reloads"] == 1
    assert reporter.pipeline.notifier is not None
    assert reporter.pipeline.notifier.config.services["hooks"].options != (
        config.services["hooks"].options
    )
    for delivery in reporter.deliveries:
        delivery.stop(close=True)
