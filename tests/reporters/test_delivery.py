"""Nothing lost, nothing twice: the outbox, the HTTP sink and its worker, over real HTTP.

A receiver (uvicorn) that answers 503 with Retry-After for a while, then takes events;
every app's last state arrives, each event id once; a reporter restarted on the same store
resends nothing and, listing the same apps again, emits nothing new; a permanent refusal
becomes a dead letter with its reason."""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from orchestrator.simulator.serve import ServerThread
from reporters.pipeline import Pipeline
from reporters.sinks.delivery import Delivery, Policy, TokenBucket
from reporters.sinks.http import HttpSink
from reporters.state.store import Store
from tests.support.reporter_apps import NEW, app, finished

SECRET = "sink-secret"


@dataclass
class Receiver:
    down: int = 0
    """Answer 503 (Retry-After: 0) to this many requests first."""
    refuse: bool = False
    ids: list[str] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    signatures_ok: bool = True

    def app(self) -> Starlette:
        async def take(request: Request) -> JSONResponse:
            body = await request.body()
            if self.down > 0:
                self.down -= 1
                return JSONResponse({"error": "down"}, 503, headers={"Retry-After": "0"})
            if self.refuse:
                return JSONResponse({"error": "no"}, 400)
            expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
            self.signatures_ok &= request.headers.get("x-hub-signature-256") == expected
            event = await request.json()
            self.ids.append(event["id"])
            self.bodies.append(event)
            return JSONResponse({}, 202)

        return Starlette(routes=[Route("/events", take, methods=["POST"])])


def _apps(n: int, revision: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for i in range(n):
        one = app(revision, op=finished(), reconciled="2026-11-24T10:01:05Z")
        one["metadata"]["name"] = f"app-{i}"
        out.append((f"argocd/app-{i}", one))
    return out


def _drain(delivery: Delivery, store: Store, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while store.pending(delivery.sink.name, limit=1):
        assert time.monotonic() < deadline, store.counts(delivery.sink.name)
        delivery.drain_once()


def test_a_sink_down_for_a_while_gets_every_event_once_and_a_restart_resends_nothing(
    tmp_path: Path,
) -> None:
    receiver = Receiver(down=7)
    policy = Policy(attempts=20, base=0.01, cap=0.05)
    with ServerThread(receiver.app()) as server:
        sink = HttpSink(f"{server.url}/events", SECRET, name="http")
        store = Store(tmp_path / "state.db")
        pipeline = Pipeline(store, ["http"])
        for key, one in _apps(10, NEW):
            pipeline.handle(key, one)
        _drain(Delivery(store, sink, policy), store)
        store.close()

        again = Store(tmp_path / "state.db")  # a restart: the same volume
        restarted = Pipeline(again, ["http"])
        relisted = [restarted.handle(key, one) for key, one in _apps(10, NEW)]
        _drain(Delivery(again, sink, policy), again)
        sink.close()
    assert relisted == [[]] * 10  # the same apps listed again: no flood
    assert len(receiver.ids) == len(set(receiver.ids))  # each id once
    created = {b["subject"] for b in receiver.bodies if b["type"] == "app.created"}
    deployed = {b["subject"] for b in receiver.bodies if b["type"] == "app.deployed"}
    assert created == deployed == {f"argocd/app-{i}" for i in range(10)}
    assert receiver.signatures_ok
    assert receiver.bodies[0]["specversion"] == "1.0"
    assert again.counts("http") == {"delivered": len(receiver.ids)}


def test_a_permanent_refusal_is_a_dead_letter_with_its_reason(tmp_path: Path) -> None:
    receiver = Receiver(refuse=True)
    with ServerThread(receiver.app()) as server:
        sink = HttpSink(f"{server.url}/events", SECRET, name="http")
        store = Store()
        Pipeline(store, ["http"]).handle(*_apps(1, NEW)[0])
        _drain(Delivery(store, sink, Policy(base=0.01)), store)
        sink.close()
    letters = store.dead_letters("http")
    assert letters and all("answered 400" in reason for _, reason in letters)
    assert receiver.ids == []


def test_the_token_bucket_keeps_the_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=10, burst=2, clock=lambda: now[0])
    assert [bucket.wait() for _ in range(2)] == [0.0, 0.0]
    assert abs(bucket.wait() - 0.1) < 1e-9  # the third waits a tenth of a second
    now[0] += 0.1
    assert bucket.wait() == 0.0


def test_a_batch_is_one_transaction_and_its_events_are_told_once_committed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    told: list[tuple[int, int]] = []

    def on_events(events: list[Any]) -> None:  # what a sink's worker would find now
        told.append((len(events), len(Store(path).pending("http", limit=1000))))

    pipeline = Pipeline(Store(path), ["http"], on_events=on_events)
    pipeline.handle_all(_apps(3, NEW))
    [(count, committed)] = told  # told once, for the whole batch
    assert count >= 3 and committed == count  # each app's events, all committed by then
    # a batch that fails part way records none of it: the next start lists those apps
    # again and reports them then
    before = Store(path).apps()
    changed = [(k, {**a, "status": {**a["status"], "health": {"status": "Degraded"}}})
               for k, a in _apps(2, NEW)]  # fmt: skip
    with pytest.raises(ValueError, match="kind: expected PromotionResult"):
        pipeline.handle_all([*changed, ("reports:argo/run", {"kind": "NotAReport"})])
    assert Store(path).apps() == before
    assert len(told) == 1


def test_a_sink_that_breaks_on_an_event_dead_letters_it_and_goes_on() -> None:
    """A worker thread that died on one odd event would deliver nothing more, silently."""

    class Picky:
        name = "picky"
        got: list[str] = []

        def send(self, event: dict[str, Any]) -> None:
            if event["id"] == "odd":
                raise TypeError("'int' object is not iterable")
            self.got.append(event["id"])

    from reporters.state.store import Outgoing

    store = Store()
    rows = [Outgoing("picky", i, {"id": i}) for i in ("odd", "fine")]
    store.record("argocd/a", {"metadata": {}}, None, rows)
    delivery = Delivery(store, Picky(), Policy(attempts=3, base=0.01))
    while store.pending("picky", limit=1):
        delivery.drain_once()
    assert Picky.got == ["fine"]
    assert store.dead_letters("picky") == [("odd", "TypeError: 'int' object is not iterable")]


def test_the_default_policy_outlasts_a_five_minute_outage() -> None:
    """Argo CD's controller drops a webhook after four attempts (waiting 1, 2 and 4 s);
    the outbox keeps trying for five minutes before an event becomes a dead letter."""
    policy = Policy()
    waits = [policy.backoff(attempt, None) for attempt in range(1, policy.attempts)]
    assert sum(waits) >= 300
    assert max(waits) == policy.cap == 60
