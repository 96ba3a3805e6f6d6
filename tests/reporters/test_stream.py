"""``GET /stream`` read by a real HTTP client while changes happen, filtered, and resumed
with ``Last-Event-ID`` after a reconnect; ``/metrics`` and ``/shards`` beside it."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx

from orchestrator.access import Access
from orchestrator.simulator.serve import ServerThread
from reporters.app import create_app
from reporters.events.transitions import Change
from reporters.pipeline import Event
from reporters.stream import Stream

TOKEN = "stream-token-of-the-test"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _event(i: int, product: str = "shop") -> Event:
    change = Change(
        "app.deployed", f"argocd/{product}-dev", f"{i:040x}", f"2026-11-24T10:{i:02d}:00Z"
    )
    labels = {"promoflow.dev/product": product, "promoflow.dev/environment": "dev"}
    return Event(f"id-{product}-{i}", change, labels)


def _read(url: str, headers: dict[str, str], count: int, into: list[dict[str, Any]]) -> None:
    with httpx.stream("GET", url, headers=headers, timeout=10) as response:
        current: dict[str, Any] = {}
        for line in response.iter_lines():
            if line.startswith("id:"):
                current["id"] = line[3:].strip()
            elif line.startswith("data:"):
                current["data"] = json.loads(line[5:].strip())
            elif not line and "data" in current:
                into.append(current)
                current = {}
                if len(into) >= count:
                    return


def test_a_live_stream_filtered_and_resumed_with_last_event_id() -> None:
    stream = Stream(size=100)
    numbers = {
        "received": 3, "emitted": 2, "coalesced": 1, "queue": 0, "watch_restarts": 1,
        "watch_relists": 1, "watch_errors": 0, "sinks": {"stdout": (2, 0)},
        "dead": {"stdout": 0}, "held": 0, "enrichment_failures": 1, "notification_problems": 0,
    }  # fmt: skip
    shards = {"shard": 0, "replicas": 1, "apps": 2}
    app = create_app(stream, lambda: numbers, lambda: shards, access=Access(TOKEN))
    with ServerThread(app) as server:
        got: list[dict[str, Any]] = []
        reader = threading.Thread(
            target=_read, args=(f"{server.url}/stream?product=shop", AUTH, 3, got)
        )
        reader.start()
        time.sleep(0.5)
        for i in range(3):
            stream.publish([_event(i, "cart"), _event(i)])  # cart is filtered out
            time.sleep(0.05)
        reader.join(10)
        assert [e["id"] for e in got] == ["id-shop-0", "id-shop-1", "id-shop-2"]
        assert got[0]["data"]["type"] == "app.deployed"
        assert got[0]["data"]["data"]["product"] == "shop"

        # a reconnect after id-shop-0: what came after it first, then live
        resumed: list[dict[str, Any]] = []
        again = threading.Thread(
            target=_read,
            args=(
                f"{server.url}/stream?app=shop-dev",
                {**AUTH, "Last-Event-ID": "id-shop-0"},
                3,
                resumed,
            ),
        )
        again.start()
        time.sleep(0.5)
        stream.publish([_event(3)])
        again.join(10)
        assert [e["id"] for e in resumed] == ["id-shop-1", "id-shop-2", "id-shop-3"]

        metrics = httpx.get(f"{server.url}/metrics", headers=AUTH).text
        shown = httpx.get(f"{server.url}/shards", headers=AUTH).json()
    assert "promoflow_reporter_emitted_total 2.0" in metrics
    assert "promoflow_reporter_enrichment_failures_total 1.0" in metrics
    assert 'promoflow_reporter_delivered_total{sink="stdout"} 2.0' in metrics
    assert "promoflow_reporter_queue_depth 0.0" in metrics
    assert shown == shards
